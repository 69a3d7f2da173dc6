#include "backend/linker.hpp"

#include "backend/diagnostic_capture.hpp"
#include "support/self_object.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>
#include <mutex>
#include <sstream>
#include <system_error>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

namespace qd::backend {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_dir_prefix = "qdbuild-lld-";

// Base directory for link scratch files: tmpfs when there is one (/tmp is on disk here).
fs::path scratch_base() {
  std::error_code ec;
  if (fs::is_directory("/dev/shm", ec) && access("/dev/shm", W_OK) == 0) {
    return "/dev/shm";
  }
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? fs::path(tmp) : fs::path("/tmp");
}

// Removes "qdbuild-lld-<pid>-XXXXXX" directories whose process is gone (crashed earlier runs).
void remove_stale_dirs(const fs::path& base) {
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.starts_with(k_dir_prefix)) {
      continue;
    }
    long pid = std::strtol(name.c_str() + k_dir_prefix.size(), nullptr, 10);
    if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
}

// The process's private scratch directory, created on first use and removed at exit.
class ScratchDir {
public:
  const fs::path& path(std::string& error) {
    if (m_path.empty()) {
      fs::path base = scratch_base();
      remove_stale_dirs(base);
      std::string pattern =
          (base / (std::string(k_dir_prefix) + std::to_string(getpid()) + "-XXXXXX")).string();
      if (mkdtemp(pattern.data()) == nullptr) {
        error =
            "cannot create a link directory under " + base.string() + ": " + std::strerror(errno);
        return m_path;
      }
      m_path = pattern;
    }
    return m_path;
  }
  ~ScratchDir() {
    if (!m_path.empty()) {
      std::error_code ec;
      fs::remove_all(m_path, ec);
    }
  }

private:
  fs::path m_path;
};

std::mutex g_link_mutex;  // lld has one global CommonLinkerContext: one link at a time
ScratchDir g_scratch;     // guarded by g_link_mutex
bool g_lld_broken = false;

bool write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out.flush());
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// One Diagnostic per non-empty line of lld's error output ("ld.lld: error: ...").
void add_lld_messages(const std::string& text, std::vector<Diagnostic>& diags) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) {
      continue;
    }
    Diagnostic::Severity severity = Diagnostic::Severity::note;
    for (std::string_view prefix : {"ld.lld: error: ", "ld.lld: warning: "}) {
      if (line.starts_with(prefix)) {
        severity = prefix == "ld.lld: error: " ? Diagnostic::Severity::error
                                               : Diagnostic::Severity::warning;
        line = "link: " + line.substr(prefix.size());
        break;
      }
    }
    diags.push_back(make_diagnostic(severity, "", line));
  }
}

}  // namespace

const std::string& builtins_archive() {
  static const std::string path = [] {
    std::string self = support::self_object_path();
    if (!self.empty()) {
      fs::path bundled = fs::path(self).parent_path() / k_bundled_builtins;
      std::error_code ec;
      if (fs::is_regular_file(bundled, ec)) {
        return bundled.string();
      }
    }
    return std::string(k_builtins_archive);
  }();
  return path;
}

std::vector<std::string> lld_arguments(const std::vector<std::string>& objects,
                                       const std::string& output) {
  std::vector<std::string> args = {
      "ld.lld",
      "-shared",
      "--hash-style=gnu",
      "--build-id=none",
      "-z",
      "defs",
      "-z",
      "now",
      "-z",
      "relro",
      "-o",
      output,
  };
  args.insert(args.end(), objects.begin(), objects.end());
  args.insert(args.end(), {"--as-needed", k_libm, k_libc, builtins_archive()});
  return args;
}

std::optional<std::string> link_shared_object(const std::vector<std::string>& objects,
                                              std::vector<Diagnostic>& diags) {
  auto fail = [&](std::string message) -> std::optional<std::string> {
    diags.push_back(make_diagnostic(Diagnostic::Severity::error, "", "link: " + message));
    return std::nullopt;
  };
  if (objects.empty()) {
    return fail("no objects to link");
  }
  for (const std::string& path : {builtins_archive(), std::string(k_libc), std::string(k_libm)}) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      return fail("missing " + path + " (install the LLVM 19 packages)");
    }
  }

  std::lock_guard<std::mutex> lock(g_link_mutex);
  if (g_lld_broken) {
    return fail("lld failed earlier in a way that forbids another in-process link");
  }
  std::string error;
  const fs::path& dir = g_scratch.path(error);
  if (dir.empty()) {
    return fail(error);
  }

  std::vector<std::string> inputs;
  for (size_t i = 0; i < objects.size(); ++i) {
    fs::path input = dir / ("t" + std::to_string(i) + ".o");
    if (!write_file(input, objects[i])) {
      return fail("cannot write " + input.string());
    }
    inputs.push_back(input.string());
  }
  fs::path output = dir / "module.so";
  std::vector<std::string> args = lld_arguments(inputs, output.string());
  std::vector<const char*> argv;
  for (const std::string& arg : args) {
    argv.push_back(arg.c_str());
  }

  std::string out_text;
  std::string err_text;
  llvm::raw_string_ostream out_os(out_text);
  llvm::raw_string_ostream err_os(err_text);
  lld::Result result = lld::lldMain(argv, out_os, err_os, {{lld::Gnu, &lld::elf::link}});
  out_os.flush();
  err_os.flush();
  if (!result.canRunAgain) {
    g_lld_broken = true;
  }
  add_lld_messages(out_text + err_text, diags);

  std::optional<std::string> so;
  if (result.retCode == 0) {
    so = read_file(output);
  }
  std::error_code ec;
  for (const std::string& input : inputs) {
    fs::remove(input, ec);
  }
  fs::remove(output, ec);
  if (result.retCode != 0) {
    if (!has_error(diags)) {
      return fail("lld failed with status " + std::to_string(result.retCode));
    }
    return std::nullopt;
  }
  if (!so) {
    return fail("cannot read back " + output.string());
  }
  return so;
}

}  // namespace qd::backend
