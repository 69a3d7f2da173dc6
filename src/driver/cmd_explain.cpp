// qdbuild explain ID [PATH...] [--root DIR] [--instances FILE]... [--json] [--target T]
//
// A client of qdbuild::explain (include/qdbuild/explain.hpp): prints its output on stdout and its
// errors on stderr. Exit 1 when the kernel does not exist (with a did-you-mean) or has errors.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "driver/command_line.hpp"
#include "driver/command_output.hpp"
#include "driver/commands.hpp"
#include "driver/source_flags.hpp"
#include "qdbuild/explain.hpp"

namespace qd::driver {

ExitStatus cmd_explain(int argc, char** argv) {
  CommandLine app(
      "Explain one kernel: signature, reachable funcs, purity verdict, and each component of\n"
      "its kernel key with its own hash.",
      "qdbuild explain");
  qdbuild::ExplainOptions options;
  app.add_option("ID", options.id,
                 "the kernel, module:qualname (e.g. physics:step, solver:Solver.run)")
      .required();
  add_source_flags(app, options.paths, options.root, options.instance_files, "analyse",
                   WithoutPath::root);
  add_target_flag(app, options.target, "cpu");
  app.add_flag("--json", options.json, "print machine-readable JSON");
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
  }
  qdbuild::ExplainResult r = qdbuild::explain(options);
  return print_result(r.errors, r.output, r.exit);
}

}  // namespace qd::driver
