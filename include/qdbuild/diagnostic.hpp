// qdbuild's embedding API: what every call reports. A diagnostic carries the fields of
// `qdbuild check --format json` and the text the command line prints for it.
//
// The API (this directory) is the builder as a library: <qdbuild/build.hpp> builds a tree into a
// store, <qdbuild/check.hpp> checks it, <qdbuild/explain.hpp> explains one kernel,
// <qdbuild/project.hpp> reads a project's [tool.qdbuild] table. The `qdbuild` command is one
// client of it; docs/embedding.md describes it, examples/embed/ uses it. Link `qdbuild::qdbuild`
// (find_package(qdbuild)), i.e. libqdbuild.so, which loads the compiler backend
// (libqdbuild-backend.so, installed beside it) the first time a build compiles something.
// No call throws; errors are in the results.
#pragma once

#include <string>

namespace qdbuild {

// The exit status of the matching command: 0 success; 1 errors in the input (diagnostics);
// 2 a usage error (bad options); 3 an environment or internal failure.
enum class Exit : int { ok = 0, input_error = 1, usage = 2, internal = 3 };

struct Diagnostic {
  std::string file;
  int line = 0;  // 1-based
  int col = 0;   // 1-based character column
  int end_line = 0;
  int end_col = 0;
  std::string severity;  // "error", "warning" or "note"
  std::string code;      // "QD105" (docs/diagnostics.md)
  std::string kernel;    // the kernel id it concerns ("module:qualname"), "" for none
  std::string message;
  // As `qdbuild` prints it: "file:line:col: error: message [QDnnn]\n", then the source line and
  // a caret line when the source is at hand.
  std::string text;
};

// qdbuild's version ("0.1.0").
const char* version();

}  // namespace qdbuild
