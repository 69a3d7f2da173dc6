#include "driver/driver.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "driver/commands.hpp"
#include "support/edit_distance.hpp"

namespace qd::driver {

namespace {

constexpr const char* k_version = "0.1.0";

ExitStatus cmd_help(int argc, char** argv);
ExitStatus cmd_version(int, char**) {
  std::printf("qdbuild %s\n", k_version);
  return ExitStatus::ok;
}

void print_usage(std::FILE* out) {
  std::fprintf(out, "usage: qdbuild COMMAND [ARGS...]\n\ncommands:\n");
  size_t width = 0;
  for (const Command& c : commands()) {
    width = std::max(width, std::string_view(c.name).size());
  }
  for (const Command& c : commands()) {
    std::fprintf(out, "  %-*s  %s\n", static_cast<int>(width), c.name, c.help);
  }
  std::fprintf(out, "  %-*s  %s\n", static_cast<int>(width), "--watch",
               "the same as `qdbuild build --watch`");
  std::fprintf(out, "\n`qdbuild COMMAND --help` describes a command's options. In a project (a "
                    "pyproject.toml\nwith [tool.qdbuild], or a qdbuild.toml) `qdbuild build` and "
                    "`qdbuild --watch` need no\narguments.\n");
}

const Command* find_command(std::string_view name) {
  for (const Command& c : commands()) {
    if (name == c.name) {
      return &c;
    }
  }
  return nullptr;
}

void unknown_command(std::string_view name) {
  std::fprintf(stderr, "qdbuild: error: unknown command '%.*s'", static_cast<int>(name.size()),
               name.data());
  std::string_view hint = suggest_command(name);
  if (!hint.empty()) {
    std::fprintf(stderr, ", did you mean '%.*s'?", static_cast<int>(hint.size()), hint.data());
  }
  std::fprintf(stderr, "\n(`qdbuild help` lists the commands)\n");
}

ExitStatus dispatch(const Command& c, int argc, char** argv) {
  // The subcommand's argv[0] names it, so CLI11's usage lines read "qdbuild scan ...".
  std::string program = std::string("qdbuild ") + c.name;
  std::vector<char*> args;
  args.push_back(program.data());
  for (int i = 2; i < argc; ++i) {
    args.push_back(argv[i]);
  }
  args.push_back(nullptr);
  return c.fn(static_cast<int>(args.size()) - 1, args.data());
}

ExitStatus cmd_help(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stdout);
    return ExitStatus::ok;
  }
  std::string_view name = argv[1];
  const Command* c = find_command(name);
  if (c == nullptr || c->fn == cmd_help) {
    if (c == nullptr) {
      unknown_command(name);
      return ExitStatus::usage;
    }
    print_usage(stdout);
    return ExitStatus::ok;
  }
  std::string program = std::string("qdbuild ") + c->name;
  char help_flag[] = "--help";
  char* args[] = {program.data(), help_flag, nullptr};
  return c->fn(2, args);
}

ExitStatus run_checked(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return ExitStatus::usage;
  }
  std::string_view name = argv[1];
  if (name == "-h" || name == "--help") {
    print_usage(stdout);
    return ExitStatus::ok;
  }
  if (name == "--version") {
    return cmd_version(0, nullptr);
  }
  if (name == "--watch") {
    // `qdbuild --watch [ARGS...]` is `qdbuild build --watch [ARGS...]`.
    std::vector<char*> args(argv, argv + argc);
    char build[] = "build";
    args.insert(args.begin() + 1, build);
    args.push_back(nullptr);
    return dispatch(*find_command("build"), argc + 1, args.data());
  }
  const Command* c = find_command(name);
  if (c == nullptr) {
    unknown_command(name);
    return ExitStatus::usage;
  }
  return dispatch(*c, argc, argv);
}

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"scan", "find the kernels and funcs under files and directories", cmd_scan},
      {"check", "check kernels: parameter types, reachable funcs, fastcache purity, keys",
       cmd_check},
      {"explain", "explain one kernel: signature, funcs, purity verdict, key components",
       cmd_explain},
      {"dump-ast",
       "print a file's AST exactly as Python 3.12's ast.dump(..., include_attributes=True)",
       cmd_dump_ast},
      {"record", "run an app's command line, recording the kernel instances it calls", cmd_record},
      {"build", "build every kernel under files and directories into a store", cmd_build},
      {"lsp", "the language server: diagnostics, hover and go-to-definition in the editor",
       cmd_lsp},
      {"worker", "a remote execution worker: compiles qdbuild's actions for a BuildGrid server",
       cmd_worker},
      {"remote-compile", "compile one task of a remote action (run by a server's own workers)",
       cmd_remote_compile},
      {"store", "manage an artifact store: stats, verify, gc, ls, pack, inspect", cmd_store},
      {"help", "list the commands, or describe one (qdbuild help COMMAND)", cmd_help},
      {"version", "print qdbuild's version", cmd_version},
  };
  return table;
}

std::string_view suggest_command(std::string_view name) {
  std::string_view best;
  size_t best_distance = 0;
  for (const Command& c : commands()) {
    std::string_view candidate = c.name;
    // Allow about one edit in three characters, and always two ("sacn" -> "scan").
    size_t limit = std::max<size_t>(2, std::max(name.size(), candidate.size()) / 3);
    size_t d = support::edit_distance(name, candidate, limit);
    if (d <= limit && (best.empty() || d < best_distance)) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

int run(int argc, char** argv) {
  try {
    return to_int(run_checked(argc, argv));
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "qdbuild: error: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "qdbuild: internal error, please report: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "qdbuild: internal error, please report: unknown exception\n");
  }
  std::fflush(stdout);
  return to_int(ExitStatus::internal);
}

}  // namespace qd::driver
