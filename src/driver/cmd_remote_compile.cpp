// qdbuild remote-compile --target-flags qd_target --output qd_task.out qd_task.cpp: the one
// command of qdbuild's remote actions, for servers whose own workers run commands (Buildbarn,
// NativeLink, BuildBuddy; docs/remote-exec.md). Run in the action's materialised input root: it
// checks that include/ is this qdbuild's prelude, compiles the unit for the target the flags give
// and writes the object (cpu) or PTX (cuda). Exit 0 compiled, 1 the unit or its inputs are
// wrong (messages on stderr), 2 a bad command line.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "driver/cli_parse.hpp"
#include "driver/commands.hpp"
#include "remote_exec/compile_request.hpp"

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
  CLI::App app("Compile one task of a remote action (the command qdbuild's actions run on\n"
               "servers whose workers run commands; docs/remote-exec.md). Run in the action's\n"
               "input root.",
               "qdbuild remote-compile");
  std::string flags_file;
  std::string output;
  std::string task;
  app.add_option("--target-flags", flags_file, "the target's flags (qd_target)")->required();
  app.add_option("--output", output, "where the object or PTX goes (qd_task.out)")->required();
  app.add_option("TASK", task, "the translation unit (qd_task.cpp)")->required();
  if (std::optional<ExitStatus> done = parse_command_line(app, argc, argv)) {
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
  remote_exec::CompileOutput out = remote_exec::compile_request(req);
  if (!out.ok) {
    std::fputs(out.diagnostics.c_str(), stderr);
    return ExitStatus::input_error;
  }
  std::ofstream o(output, std::ios::binary | std::ios::trunc);
  o.write(out.bytes.data(), static_cast<std::streamsize>(out.bytes.size()));
  o.close();
  if (!o) {
    return fail("cannot write " + output);
  }
  return ExitStatus::ok;
}

}  // namespace qd::driver
