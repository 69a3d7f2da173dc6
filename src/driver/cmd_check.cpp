// qdbuild check [PATH...] [--root DIR] [--instances FILE]... [--format text|json|sarif|github]
//                         [--print-non-pure] [--target T] [--keys] [-j N]
//
// A client of qdbuild::check (include/qdbuild/check.hpp): signatures, reachable funcs, purity of
// fastcache kernels, kernel keys. Prints the diagnostics on stdout in the chosen format (text:
// `path:line:col: severity: message [QDnnn]` plus a code frame, then a summary line). Without a
// PATH it checks the project's `paths` ([tool.qdbuild], docs/build.md "Project configuration").
// Exit status 1 when there is any error (or a path cannot be read), 0 otherwise; warnings and
// notes do not fail the check. `--parse-only` (for the benchmark) stops after parsing.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "driver/command_line.hpp"
#include "driver/command_output.hpp"
#include "driver/commands.hpp"
#include "driver/source_flags.hpp"
#include "qdbuild/check.hpp"

namespace qd::driver {

ExitStatus cmd_check(int argc, char** argv) {
  CommandLine app(
      "Check the kernels under files and directories: parameter types, reachable funcs,\n"
      "purity of fastcache kernels (fastcache=True / pure=True / @qd.pure), kernel keys.",
      "qdbuild check");
  qdbuild::CheckOptions options;
  std::string format_name = "text";
  add_source_flags(app, options.paths, options.root, options.instance_files, "check",
                   WithoutPath::project);
  app.add_option("--format", format_name, "text, json, sarif or github (default text)");
  app.add_flag("--print-non-pure", options.print_non_pure,
               "list the kernels not marked fastcache=True (notes, QD115)");
  add_target_flag(app, options.target, "cpu; only the keys depend on it");
  add_jobs_flag(app, options.jobs);
  app.add_flag("--keys", options.keys,
               "also compute every kernel's key (as build and explain do; slower: re-lexes the "
               "reached defs)");
  app.add_flag("--parse-only", options.parse_only,
               "only read and parse the files (benchmark baseline)")
      .hidden();
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
  }
  if (!qdbuild::parse_format(format_name, options.format)) {
    std::fprintf(stderr, "qdbuild: error: unknown format '%s' (text, json, sarif or github)\n",
                 format_name.c_str());
    return ExitStatus::usage;
  }
  qdbuild::CheckResult r = qdbuild::check(options);
  return print_result(r.tool_errors, r.output, r.exit);
}

}  // namespace qd::driver
