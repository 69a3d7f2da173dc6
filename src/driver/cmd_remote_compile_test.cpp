// qdbuild remote-compile in a materialised input root, in its sandbox: the same bytes as the
// build's own compile of the unit, and every input it must refuse refused before anything is
// compiled.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "backend/prelude_files.hpp"
#include "driver/commands.hpp"
#include "remote_exec/compile_request.hpp"

namespace qd::driver {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, std::string_view bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs the command in `dir` (the action's input root), as a worker of another server would: in a
// child process, since the sandbox it enters lasts as long as the process.
ExitStatus run_in(const fs::path& dir) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) {
      _exit(99);
    }
    std::vector<std::string> args = {"remote-compile", "--target-flags", "qd_target",
                                     "--output",       "qd_task.out",    "qd_task.cpp"};
    std::vector<char*> argv;
    for (std::string& a : args) {
      argv.push_back(a.data());
    }
    _exit(to_int(cmd_remote_compile(static_cast<int>(argv.size()), argv.data())));
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return static_cast<ExitStatus>(WEXITSTATUS(status));
}

struct InputRoot {
  fs::path dir;
  remote_exec::CompileRequest req;
  explicit InputRoot(bool cuda = false) {
    char tmpl[] = "/tmp/qd-remote-compile-XXXXXX";
    dir = mkdtemp(tmpl);
    req.cuda = cuda;
    // CUDA: a libdevice function, so the compile reads libdevice inside the sandbox.
    req.source = cuda ? "#include \"qd_prelude.hpp\"\nextern \"C\" float __nv_sinf(float);\n"
                        "extern \"C\" __attribute__((nvptx_kernel)) void k(float* x) "
                        "{ x[0] = __nv_sinf(x[0]); }\n"
                      : "#include \"qd_prelude.hpp\"\n"
                        "extern \"C\" int qd_probe(int x) { return x * 3; }\n";
    write(dir / "qd_task.cpp", req.source);
    write(dir / "qd_target", remote_exec::target_flags_text(req));
    for (const backend::EmbeddedFile& f : backend::embedded_prelude_files()) {
      write(dir / "include" / f.name, f.bytes);
    }
  }
  ~InputRoot() { fs::remove_all(dir); }
};

TEST_CASE("remote-compile: the object a local compile of the unit gives, byte for byte") {
  for (bool cuda : {false, true}) {
    CAPTURE(cuda);
    InputRoot root(cuda);
    REQUIRE(run_in(root.dir) == ExitStatus::ok);
    remote_exec::CompileOutput local = remote_exec::compile_request(root.req);
    REQUIRE(local.ok);
    CHECK(read(root.dir / "qd_task.out") == local.bytes);
  }
}

TEST_CASE("remote-compile: another prelude, a missing or extra file, bad flags: refused") {
  {
    InputRoot root;
    write(root.dir / "include" / "qd_prelude.hpp", "// another prelude\n");
    CHECK(run_in(root.dir) == ExitStatus::input_error);
    CHECK_FALSE(fs::exists(root.dir / "qd_task.out"));
  }
  {
    InputRoot root;
    fs::remove(root.dir / "include" / "qd_prelude.hpp");
    CHECK(run_in(root.dir) == ExitStatus::input_error);
  }
  {
    InputRoot root;
    write(root.dir / "include" / "extra.h", "#define EXTRA 1\n");
    CHECK(run_in(root.dir) == ExitStatus::input_error);
  }
  {
    InputRoot root;
    write(root.dir / "qd_target", "qd-remote-compile-1\ntarget=cpu\n");
    CHECK(run_in(root.dir) == ExitStatus::input_error);
  }
  {
    InputRoot root;
    write(root.dir / "qd_task.cpp", "this is not C++\n");
    CHECK(run_in(root.dir) == ExitStatus::input_error);
    CHECK_FALSE(fs::exists(root.dir / "qd_task.out"));
  }
}

}  // namespace
}  // namespace qd::driver
