// qdbuild check PATH... [--root DIR] [--instances FILE]... [--format text|json|sarif|github]
//                       [--print-non-pure] [--target T]
//
// Analyzes every kernel under the paths (sema/analysis.hpp): signatures, reachable funcs,
// purity of fastcache kernels, kernel keys. Prints the diagnostics on stdout in the chosen format
// (text: `path:line:col: severity: message [QDnnn]` plus a code frame, then a summary line).
// Exit status 1 when there is any error (or a path cannot be read), 0 otherwise; warnings and
// notes do not fail the check. `--keys` computes the kernel keys too (explain shows them);
// `--parse-only` (for the benchmark) stops after parsing.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "driver/commands.hpp"
#include "driver/diagnostic_output.hpp"
#include "support/never_freed.hpp"

namespace qd::driver {

ExitStatus cmd_check(int argc, char** argv) {
  CLI::App app("Check the kernels under files and directories: parameter types, reachable funcs,\n"
               "purity of fastcache kernels (fastcache=True / pure=True / @qd.pure), kernel keys.",
               "qdbuild check");
  std::vector<std::string> paths;
  std::string format_name = "text";
  std::string target;
  bool print_non_pure = false;
  bool parse_only = false;
  bool keys = false;
  unsigned jobs = 0;
  std::string root;
  std::vector<std::string> instances;
  app.add_option("PATH", paths, "files or directories to check")->required();
  app.add_option("--root", root,
                 "the source root kernel ids are relative to (default: each directory given; "
                 "--root SITE SITE/genesis names the modules genesis.*)");
  app.add_option("--instances", instances,
                 "a recorded run (python -m qdrt.record): instances and run-time values "
                 "(repeatable)");
  app.add_option("--format", format_name, "text, json, sarif or github (default text)");
  app.add_flag("--print-non-pure", print_non_pure,
               "list the kernels not marked fastcache=True (notes, QD115)");
  app.add_option("--target", target, "cpu, cuda or cuda:sm_XX (for the keys; default cpu)");
  app.add_option("-j,--jobs", jobs, "parallel jobs (default: number of CPUs)");
  app.add_flag("--keys", keys,
               "also compute every kernel's key (as build and explain do; slower: re-lexes the "
               "reached defs)");
  app.add_flag("--parse-only", parse_only, "only read and parse the files (benchmark baseline)")
      ->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? ExitStatus::ok : ExitStatus::usage;
  }
  DiagnosticFormat format;
  if (!parse_diagnostic_format(format_name, format)) {
    std::fprintf(stderr, "qdbuild: error: unknown format '%s' (text, json, sarif or github)\n",
                 format_name.c_str());
    return ExitStatus::usage;
  }

  sema::AnalysisOptions options;
  options.jobs = jobs;
  options.target = target;
  options.print_non_pure = print_non_pure;
  options.parse_only = parse_only;
  options.keys = keys;
  options.root = root;
  options.instance_files = instances;
  // Never destroyed: freeing every AST and report at exit costs time and changes nothing.
  sema::Analysis& a = *support::never_freed(new sema::Analysis(sema::analyze(paths, options)));

  ExitStatus status = ExitStatus::ok;
  for (const std::string& e : a.tool_errors) {
    std::fprintf(stderr, "qdbuild: error: %s\n", e.c_str());
    status = ExitStatus::input_error;
  }
  std::string out = format_diagnostics(a, a.diagnostics, format);
  size_t errors = a.count(syntax::Severity::Error);
  if (format == DiagnosticFormat::text) {
    size_t warnings = a.count(syntax::Severity::Warning);
    size_t marked = 0;
    for (const sema::KernelReport& k : a.kernels) {
      marked += k.marked ? 1 : 0;
    }
    out += "qdbuild check: " + std::to_string(a.program->modules.size()) + " file" +
           (a.program->modules.size() == 1 ? "" : "s") + ", " + std::to_string(a.kernels.size()) +
           " kernel" + (a.kernels.size() == 1 ? "" : "s") + " (" + std::to_string(marked) +
           " marked fastcache), " + std::to_string(errors) + " error" + (errors == 1 ? "" : "s") +
           ", " + std::to_string(warnings) + " warning" + (warnings == 1 ? "" : "s") + "\n";
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (errors > 0) {
    status = ExitStatus::input_error;
  }
  return status;
}

}  // namespace qd::driver
