#include "driver/command_line.hpp"

#include <CLI/CLI.hpp>

namespace qd::driver {

CommandLine::Option& CommandLine::Option::required() {
  option_->required();
  return *this;
}

CommandLine::Option& CommandLine::Option::hidden() {
  option_->group("");
  return *this;
}

CommandLine::Option& CommandLine::Option::value_name(const std::string& name) {
  option_->option_text(name);
  return *this;
}

CommandLine::Option& CommandLine::Option::range(unsigned lo, unsigned hi) {
  option_->check(CLI::Range(lo, hi));
  return *this;
}

CommandLine::CommandLine(const std::string& description, const std::string& name)
    : owned_(std::make_unique<CLI::App>(description, name)), app_(owned_.get()) {}

CommandLine::CommandLine(CLI::App* app) : app_(app) {}

CommandLine::~CommandLine() = default;

CommandLine::Option CommandLine::add_option(const std::string& name, std::string& into,
                                            const std::string& help) {
  return Option(app_->add_option(name, into, help));
}

CommandLine::Option CommandLine::add_option(const std::string& name, std::vector<std::string>& into,
                                            const std::string& help) {
  return Option(app_->add_option(name, into, help));
}

CommandLine::Option CommandLine::add_option(const std::string& name, unsigned& into,
                                            const std::string& help) {
  return Option(app_->add_option(name, into, help));
}

CommandLine::Option CommandLine::add_option(const std::string& name, std::size_t& into,
                                            const std::string& help) {
  return Option(app_->add_option(name, into, help));
}

CommandLine::Option CommandLine::add_option(const std::string& name, long& into,
                                            const std::string& help) {
  return Option(app_->add_option(name, into, help));
}

CommandLine::Option CommandLine::add_flag(const std::string& name, bool& into,
                                          const std::string& help) {
  return Option(app_->add_flag(name, into, help));
}

CommandLine& CommandLine::add_subcommand(const std::string& name, const std::string& help) {
  subcommands_.push_back(
      std::unique_ptr<CommandLine>(new CommandLine(app_->add_subcommand(name, help))));
  return *subcommands_.back();
}

void CommandLine::fallthrough() { app_->fallthrough(); }

void CommandLine::require_subcommand(std::size_t n) {
  app_->require_subcommand(static_cast<int>(n));
}

void CommandLine::prefix_command() { app_->prefix_command(); }

std::optional<ExitStatus> CommandLine::parse(int argc, char** argv) {
  try {
    app_->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app_->exit(e) == 0 ? ExitStatus::ok : ExitStatus::usage;
  }
  return std::nullopt;
}

bool CommandLine::parsed() const { return app_->parsed(); }

std::size_t CommandLine::count(const std::string& name) const { return app_->count(name); }

std::vector<std::string> CommandLine::remaining() const { return app_->remaining(); }

}  // namespace qd::driver
