// Rendering source diagnostics for people (a code frame) and for tools (JSON).
//
// Text form:
//   path:line:col: error: message [QD001]
//       x = (1 +
//           ^
// `col` is the 1-based character column (SourceFile::char_column of the byte column). The frame
// is left out when the source line is not available (e.g. after an encoding error). Tabs in the
// source line are kept in the caret line so the caret lines up.
#pragma once

#include <string>
#include <string_view>

#include "syntax/diagnostic.hpp"
#include "syntax/source_file.hpp"

namespace qd::syntax {

const char* name_of(Severity s);  // "error" / "warning" / "note"

// "path:line:col: error: message [QDnnn]" without a newline (no " [..]" when code is empty).
// `source` may be null (then col is the byte column + 1).
std::string render_header(const Diagnostic& d, std::string_view path, const SourceFile* source);

// The header, then the source line and the caret line, each ending in '\n'.
std::string render_diagnostic(const Diagnostic& d, std::string_view path, const SourceFile* source);

// One JSON object with the fields of `check --format json`:
// {"file","line","col","end_line","end_col","severity", "code","kernel","message"}; columns are
// 1-based character columns as in the text form, `kernel` is null when empty.
std::string diagnostic_json(const Diagnostic& d, std::string_view path, const SourceFile* source,
                            std::string_view kernel = {});

// The same fields as values (what a JSON reader of diagnostic_json gets): `col` and `end_col`
// 1-based character columns, `end_*` the start when the diagnostic has no end, the texts valid
// UTF-8 (each invalid sequence U+FFFD), `kernel` "" for none.
struct DiagnosticFields {
  std::string file;
  int32_t line = 0;
  int32_t col = 0;
  int32_t end_line = 0;
  int32_t end_col = 0;
  std::string severity;
  std::string code;
  std::string kernel;
  std::string message;
};
DiagnosticFields diagnostic_fields(const Diagnostic& d, std::string_view path,
                                   const SourceFile* source, std::string_view kernel = {});

// `text` with each invalid UTF-8 sequence replaced by U+FFFD (as json_quote escapes it).
std::string valid_utf8(std::string_view text);

// A JSON string literal (quotes included) for UTF-8 text; invalid bytes become U+FFFD.
std::string json_quote(std::string_view text);

}  // namespace qd::syntax
