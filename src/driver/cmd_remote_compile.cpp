// qdbuild remote-compile --target-flags qd_target --output qd_task.out qd_task.cpp: the one
// command of qdbuild's remote actions, for servers whose own workers run commands (Buildbarn,
// NativeLink, BuildBuddy; docs/remote-exec.md). Run in the action's materialised input root: it
// checks that include/ is this qdbuild's prelude, enters its sandbox (remote_exec/sandbox.hpp),
// compiles the unit for the target the flags give and writes the object (cpu) or PTX (cuda). Exit 0
// compiled, 1 the unit or its inputs are wrong (messages on stderr), 2 a bad command line.
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <unistd.h>

#include "backend/backend.hpp"
#include "backend/plugin.hpp"
#include "driver/command_line.hpp"
#include "driver/commands.hpp"
#include "remote_exec/compile_request.hpp"
#include "remote_exec/sandbox.hpp"

namespace qd::driver {

namespace {

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return false;
  }
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return in.good() || in.eof();
}

}  // namespace

ExitStatus cmd_remote_compile(int argc, char** argv) {
  CommandLine app("Compile one task of a remote action (the command qdbuild's actions run on\n"
                  "servers whose workers run commands; docs/remote-exec.md). Run in the action's\n"
                  "input root.",
                  "qdbuild remote-compile");
  std::string flags_file;
  std::string output;
  std::string task;
  bool no_sandbox = false;
  bool verbose = false;
  app.add_option("--target-flags", flags_file, "the target's flags (qd_target)").required();
  app.add_option("--output", output, "where the object or PTX goes (qd_task.out)").required();
  app.add_option("TASK", task, "the translation unit (qd_task.cpp)").required();
  app.add_flag("--no-sandbox", no_sandbox,
               "compile without the sandbox (no file but libdevice, no socket, no exec)");
  app.add_flag("-v,--verbose", verbose, "say which sandbox was entered (stderr)");
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
  }
  auto fail = [](const std::string& message) {
    std::fprintf(stderr, "qdbuild remote-compile: error: %s\n", message.c_str());
    return ExitStatus::input_error;
  };
  remote_exec::CompileRequest req;
  std::string flags;
  std::string error;
  if (!read_file(flags_file, flags)) {
    return fail("cannot read " + flags_file);
  }
  if (!remote_exec::parse_target_flags(flags, req, error)) {
    return fail(flags_file + ": " + error);
  }
  if (!read_file(task, req.source)) {
    return fail("cannot read " + task);
  }
  if (!remote_exec::check_prelude_directory(remote_exec::k_include_dir, error)) {
    return fail(error);
  }
  // Everything that reads the file system happens before the sandbox: the inputs are read, the
  // backend loaded; inside it the compile reads only libdevice (CUDA) and the output's directory
  // takes the output.
  if (backend::plugin::load(error) == nullptr) {
    return fail("the backend cannot be loaded: " + error);
  }
  if (!no_sandbox) {
    remote_exec::SandboxReport report;
    std::vector<std::string> readable;
    if (req.cuda) {
      readable.push_back(backend::libdevice_path());
    }
    std::string dir = std::filesystem::path(output).parent_path().string();
    if (!remote_exec::enter_sandbox(readable, dir.empty() ? "." : dir, report, error)) {
      return fail("cannot enter the sandbox: " + error);
    }
    if (verbose) {
      std::fprintf(stderr, "qdbuild remote-compile: sandbox: %s\n", report.text().c_str());
    }
  }
  remote_exec::CompileOutput out = remote_exec::compile_request(req);
  if (!out.ok) {
    std::fputs(out.diagnostics.c_str(), stderr);
    return ExitStatus::input_error;
  }
  int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return fail("cannot write " + output);
  }
  size_t done = 0;
  while (done < out.bytes.size()) {
    ssize_t n = write(fd, out.bytes.data() + done, out.bytes.size() - done);
    if (n <= 0) {
      close(fd);
      return fail("cannot write " + output);
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    return fail("cannot write " + output);
  }
  return ExitStatus::ok;
}

}  // namespace qd::driver
