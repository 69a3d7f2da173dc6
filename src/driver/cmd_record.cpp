// qdbuild record -o FILE [--append] -- COMMAND [ARGS...]: runs the app's own command line
// (`-- python app.py --steps 5`) with recording switched on, so the whole path from an app to a
// store is the qdbuild command (docs/record.md).
//
// Recording itself is the qdrt binding's: QDRT_RECORD=FILE makes its startup hook
// (sitecustomize) install the recorder in every Python process of the command, before the app's
// first import. This command sets QDRT_RECORD and puts the binding that belongs to this qdbuild
// first on PYTHONPATH: an installed tree's lib/qdrt/python (beside bin/), else the checkout's
// runtime/python this qdbuild was built from; when neither exists (an environment that has qdrt
// installed) PYTHONPATH is left as it is. Without --append an existing FILE is replaced.
//
// Exit status: the command's own when it fails (128 + N when signal N killed it; 127 when it
// cannot be found, 126 when it cannot be run, as env(1) does); 1 when it succeeded but recorded
// nothing (no kernel was called, or its Python could not import the binding); else 0, after one
// line saying what FILE holds.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/command_line.hpp"
#include "driver/commands.hpp"
#include "support/file_io.hpp"

extern char** environ;

namespace qd::driver {

namespace {

bool is_dir(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string dirname_of(const std::string& p) {
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
}

std::string absolute(const std::string& p) {
  if (!p.empty() && p[0] == '/') {
    return p;
  }
  std::vector<char> buf(4096);
  if (::getcwd(buf.data(), buf.size()) == nullptr) {
    return p;
  }
  return std::string(buf.data()) + "/" + p;
}

// The qdrt binding directory (it holds qdrt/record.py and sitecustomize.py) that belongs to this
// qdbuild, or "" when there is none to add.
std::string binding_dir() {
  std::vector<char> buf(4096);
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  std::vector<std::string> candidates;
  if (n > 0) {
    std::string bin = dirname_of(std::string(buf.data(), static_cast<size_t>(n)));
    candidates.push_back(dirname_of(bin) + "/lib/qdrt/python");  // PREFIX/bin/qdbuild
  }
#ifdef QD_SOURCE_BINDING_DIR
  candidates.emplace_back(QD_SOURCE_BINDING_DIR);  // a build tree: the checkout's runtime/python
#endif
  for (const std::string& c : candidates) {
    if (is_dir(c) && is_file(c + "/qdrt/record.py") && is_file(c + "/sitecustomize.py")) {
      return c;
    }
  }
  return {};
}

// The environment of the command: ours with QDRT_RECORD and PYTHONPATH set.
std::vector<std::string> command_environment(const std::string& record,
                                             const std::string& binding) {
  std::vector<std::string> env;
  std::string pythonpath;
  bool had_pythonpath = false;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv = *e;
    if (kv.starts_with("QDRT_RECORD=")) {
      continue;
    }
    if (kv.starts_with("PYTHONPATH=")) {
      had_pythonpath = true;
      pythonpath = std::string(kv.substr(11));
      continue;
    }
    env.emplace_back(kv);
  }
  env.push_back("QDRT_RECORD=" + record);
  if (!binding.empty()) {
    env.push_back("PYTHONPATH=" + binding + (pythonpath.empty() ? "" : ":" + pythonpath));
  } else if (had_pythonpath) {
    env.push_back("PYTHONPATH=" + pythonpath);
  }
  return env;
}

// Runs argv with env and waits: its exit status as qdbuild reports it (see the header).
int run_command(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : env) {
    envp.push_back(const_cast<char*>(e.c_str()));
  }
  envp.push_back(nullptr);
  // Ctrl-C reaches the command (the terminal's process group); this process waits it out.
  struct sigaction ignore{}, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0], nullptr, &attr, args.data(), envp.data());
  ::posix_spawnattr_destroy(&attr);
  int status = 0;
  if (rc == 0) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (rc != 0) {
    std::fprintf(stderr, "qdbuild: error: cannot run '%s': %s\n", argv[0].c_str(),
                 std::strerror(rc));
    return rc == ENOENT ? 127 : 126;
  }
  if (WIFSIGNALED(status)) {
    std::fprintf(stderr, "qdbuild: error: '%s' was killed by signal %d\n", argv[0].c_str(),
                 WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (code != 0) {
    std::fprintf(stderr, "qdbuild: error: '%s' exited with status %d\n", argv[0].c_str(), code);
  }
  return code;
}

}  // namespace

ExitStatus cmd_record(int argc, char** argv) {
  CommandLine app{
      "Run an app's command line with recording switched on: every kernel instance it\n"
      "calls, and the run-time values its kernels read, go into FILE (docs/record.md).\n"
      "Usage: qdbuild record -o FILE [--append] -- COMMAND [ARGS...]\n"
      "  e.g. qdbuild record -o scene.qdrecord.json -- python scene.py --steps 5"};
  std::string output;
  bool append = false;
  app.add_option("-o,--output", output, "the record file (JSON; replaced unless --append)")
      .required();
  app.add_flag("--append", append, "merge the run into FILE instead of replacing it");
  app.prefix_command();
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
  }
  std::vector<std::string> command = app.remaining();
  if (!command.empty() && command.front() == "--") {
    command.erase(command.begin());
  }
  if (command.empty()) {
    std::fprintf(stderr, "qdbuild: error: give the command after --: qdbuild record -o "
                         "FILE -- python app.py [ARGS...]\n");
    return ExitStatus::usage;
  }
  std::string record = absolute(output);
  if (!is_dir(dirname_of(record))) {
    std::fprintf(stderr, "qdbuild: error: the directory of '%s' does not exist\n", output.c_str());
    return ExitStatus::usage;
  }
  if (!append && ::unlink(record.c_str()) != 0 && errno != ENOENT) {
    std::fprintf(stderr, "qdbuild: error: cannot replace '%s': %s\n", output.c_str(),
                 std::strerror(errno));
    return ExitStatus::internal;
  }
  int code = run_command(command, command_environment(record, binding_dir()));
  if (code != 0) {
    return static_cast<ExitStatus>(code);
  }
  std::string text;
  std::string error;
  if (!is_file(record) || !support::read_file(record, text, error)) {
    std::fprintf(stderr,
                 "qdbuild: error: '%s' recorded nothing into %s: it called no kernel, or "
                 "its Python could not import the qdrt binding (then it printed why)\n",
                 command.front().c_str(), output.c_str());
    return ExitStatus::input_error;
  }
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("kernels") ||
      !doc["kernels"].is_object()) {
    std::fprintf(stderr, "qdbuild: error: %s is not a record (docs/record.md)\n", output.c_str());
    return ExitStatus::input_error;
  }
  size_t instances = 0;
  for (const auto& [id, list] : doc["kernels"].items()) {
    instances += list.is_array() ? list.size() : 0;
  }
  size_t kernels = doc["kernels"].size();
  std::printf("qdbuild: %s holds %zu kernel%s (%zu instance%s)\n", output.c_str(), kernels,
              kernels == 1 ? "" : "s", instances, instances == 1 ? "" : "s");
  return ExitStatus::ok;
}

}  // namespace qd::driver
