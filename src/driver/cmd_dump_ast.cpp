// qdbuild dump-ast FILE: the AST exactly as Python 3.12 prints
// `ast.dump(ast.parse(open(FILE, 'rb').read()), include_attributes=True)`, one line. A file CPython
// rejects gives its first error as `FILE:LINE:COL: error: MESSAGE [QDnnn]` (LINE and COL as
// CPython's SyntaxError lineno and offset) plus a code frame on stderr, and exit status 1.
#include <cstdio>
#include <optional>
#include <string>

#include "driver/command_line.hpp"
#include "driver/commands.hpp"
#include "support/file_io.hpp"
#include "syntax/ast_dump.hpp"
#include "syntax/diagnostic_render.hpp"
#include "syntax/parser.hpp"

namespace qd::driver {

ExitStatus cmd_dump_ast(int argc, char** argv) {
  CommandLine app("Print the AST of a Python file exactly as Python 3.12's\n"
                  "ast.dump(ast.parse(source), include_attributes=True) does.",
                  "qdbuild dump-ast");
  std::string path;
  app.add_option("FILE", path, "Python source file").required();
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
  }

  std::string bytes;
  std::string error;
  if (!support::read_file(path, bytes, error)) {
    std::fprintf(stderr, "qdbuild: error: %s\n", error.c_str());
    return ExitStatus::input_error;
  }
  std::unique_ptr<syntax::ParseResult> parsed = syntax::parse_bytes(path, std::move(bytes));
  if (!parsed->ok()) {
    const syntax::Diagnostic* first = nullptr;
    for (const syntax::Diagnostic& d : parsed->diagnostics) {
      if (d.severity == syntax::Severity::Error) {
        first = &d;
        break;
      }
    }
    if (first != nullptr) {
      std::string text = syntax::render_diagnostic(*first, path, &parsed->source);
      std::fwrite(text.data(), 1, text.size(), stderr);
    }
    return ExitStatus::input_error;
  }
  std::string dump = syntax::ast::dump(parsed->module);
  dump += '\n';
  if (std::fwrite(dump.data(), 1, dump.size(), stdout) != dump.size() || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "qdbuild: error: cannot write the AST to stdout\n");
    return ExitStatus::internal;
  }
  return ExitStatus::ok;
}

}  // namespace qd::driver
