// The spawned baseline of the backend benchmarks (qd_backend_bench, qd_compile_bench): the same
// compile as the in-process one, as `clang++-19 <driver_arguments> -c qd_task.cpp -o qd_task.o`,
// in a temporary tree that holds the embedded prelude as files (include/) and one directory per
// unit (0/, 1/, ...). Failures print "spawned clang++-19: ..." and exit 3, as the benches' own.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.hpp"
#include "backend/prelude_files.hpp"

namespace qdbench {

class SpawnedClang {
public:
  SpawnedClang(const char* name, const qd::backend::CpuTarget& target,
               const std::vector<qd::backend::TaskUnit>& units) {
    std::string pattern = "/tmp/" + std::string(name) + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      fail("mkdtemp failed");
    }
    m_work = pattern;
    std::filesystem::path include_dir = m_work / "include";
    for (const qd::backend::EmbeddedFile& file : qd::backend::embedded_prelude_files()) {
      write(include_dir / std::string(file.name), file.bytes);
    }
    m_driver = qd::backend::driver_arguments(target, include_dir.string());
    m_driver[0] = "clang++-19";
    m_driver.insert(m_driver.end(), {"-c", "qd_task.cpp", "-o", "qd_task.o"});
    for (size_t i = 0; i < units.size(); ++i) {
      write(dir(i) / "qd_task.cpp", units[i].source);
    }
  }
  ~SpawnedClang() {
    std::error_code ec;
    std::filesystem::remove_all(m_work, ec);
  }
  SpawnedClang(const SpawnedClang&) = delete;
  SpawnedClang& operator=(const SpawnedClang&) = delete;

  // Starts the compile of unit i in its directory (stderr to /dev/null: warnings are not shown,
  // as the in-process path collects them as values; an error still fails wait_ok).
  pid_t start(size_t i) const {
    std::vector<char*> argv;
    for (const std::string& a : m_driver) {
      argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, dir(i).c_str());
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      fail("cannot spawn " + m_driver[0]);
    }
    return pid;
  }
  // Waits for a compile start() began; exits on failure.
  static void wait_ok(pid_t pid) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fail("a compile failed");
    }
  }
  void run(size_t i) const { wait_ok(start(i)); }
  // The object unit i's last compile wrote.
  std::string object(size_t i) const {
    std::ifstream in(dir(i) / "qd_task.o", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

private:
  [[noreturn]] static void fail(const std::string& message) {
    std::fprintf(stderr, "spawned clang++-19: error: %s\n", message.c_str());
    std::exit(3);
  }
  static void write(const std::filesystem::path& path, std::string_view bytes) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      fail("cannot write " + path.string());
    }
  }
  std::filesystem::path dir(size_t i) const { return m_work / std::to_string(i); }

  std::filesystem::path m_work;
  std::vector<std::string> m_driver;
};

}  // namespace qdbench
