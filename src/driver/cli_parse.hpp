// Parsing a command's line with CLI11, the same way for every command: --help and --version
// print and exit 0; a usage error prints CLI11's message and exits 2 (ExitStatus::usage).
#pragma once

#include <optional>

#include <CLI/CLI.hpp>

#include "driver/exit_status.hpp"

namespace qd::driver {

// nullopt when the command should run; else the status it exits with.
inline std::optional<ExitStatus> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? ExitStatus::ok : ExitStatus::usage;
  }
  return std::nullopt;
}

}  // namespace qd::driver
