// A command's line: its options and flags bound to the caller's variables, parsed the same way for
// every command: --help and --version print and exit 0; a usage error prints the message and exits
// 2 (ExitStatus::usage). CLI11 does the parsing, behind this class: only command_line.cpp includes
// it, so the commands' files compile without its headers (about 9 s of compile time each).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/exit_status.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace qd::driver {

class CommandLine {
public:
  // One option or flag, to refine after adding it.
  class Option {
  public:
    explicit Option(CLI::Option* option) : option_(option) {}
    Option& required();
    // Left out of --help (an option for benchmarks and tests).
    Option& hidden();
    // The value's name in --help ("N").
    Option& value_name(const std::string& name);
    // A usage error unless lo <= value <= hi.
    Option& range(unsigned lo, unsigned hi);

  private:
    CLI::Option* option_;
  };

  // `name` is how --help names the command ("qdbuild build"; none: the program's path).
  CommandLine(const std::string& description, const std::string& name = "");
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // NAME is "--long", "-s,--long" or a positional "NAME"; a vector takes every value given.
  Option add_option(const std::string& name, std::string& into, const std::string& help);
  Option add_option(const std::string& name, std::vector<std::string>& into,
                    const std::string& help);
  Option add_option(const std::string& name, unsigned& into, const std::string& help);
  Option add_option(const std::string& name, std::size_t& into, const std::string& help);
  Option add_option(const std::string& name, long& into, const std::string& help);
  Option add_flag(const std::string& name, bool& into, const std::string& help);

  // A subcommand (`qdbuild store gc`), owned by this line; parsed() says whether it was given.
  CommandLine& add_subcommand(const std::string& name, const std::string& help);
  // This command's options are accepted after its subcommand's name too.
  void fallthrough();
  // Exactly n subcommands must be given.
  void require_subcommand(std::size_t n);
  // Everything from the first positional argument on is left unparsed (remaining()).
  void prefix_command();

  // nullopt when the command should run; else the status it exits with.
  std::optional<ExitStatus> parse(int argc, char** argv);
  bool parsed() const;
  // How many times the option NAME ("--store") was given.
  std::size_t count(const std::string& name) const;
  std::vector<std::string> remaining() const;

private:
  explicit CommandLine(CLI::App* app);

  std::unique_ptr<CLI::App> owned_;
  CLI::App* app_;
  std::vector<std::unique_ptr<CommandLine>> subcommands_;
};

}  // namespace qd::driver
