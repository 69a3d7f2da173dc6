// The qdbuild command line: a table of subcommands, each a thin layer over the libraries.
#pragma once

#include <string_view>
#include <vector>

#include "driver/exit_status.hpp"

namespace qd::driver {

// A subcommand receives its own argv: argv[0] is "qdbuild NAME", then its arguments.
using CommandFn = ExitStatus (*)(int argc, char** argv);

struct Command {
  const char* name;
  const char* help;  // one line, shown by `qdbuild help`
  CommandFn fn;
};

// The subcommands, in the order `qdbuild help` lists them.
const std::vector<Command>& commands();

// Closest command name to `name` by edit distance, or "" when nothing is close.
std::string_view suggest_command(std::string_view name);

// Runs qdbuild. Catches every exception: an unexpected one prints
// "qdbuild: internal error, please report: ..." and returns 3.
int run(int argc, char** argv);

}  // namespace qd::driver
