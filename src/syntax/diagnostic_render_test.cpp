#include "syntax/diagnostic_render.hpp"

#include <doctest/doctest.h>

namespace qd::syntax {
namespace {

Diagnostic make(int32_t line, int32_t col, int32_t end_col, const char* message) {
  Diagnostic d;
  d.line = line;
  d.col = col;
  d.end_line = line;
  d.end_col = end_col;
  d.code = k_code_syntax;
  d.message = message;
  return d;
}

TEST_CASE("header, source line and caret, in character columns") {
  SourceFile f = SourceFile::from_bytes("a.py", "x = 1\n\t\xC3\xA9 = (1 +\n");
  Diagnostic d = make(2, 6, 9, "'(' was never closed");
  CHECK(render_header(d, "a.py", &f) == "a.py:2:6: error: '(' was never closed [QD001]");
  CHECK(render_diagnostic(d, "a.py", &f) == "a.py:2:6: error: '(' was never closed [QD001]\n"
                                            "\t\xC3\xA9 = (1 +\n"
                                            "\t    ^~~\n");
}

TEST_CASE("no frame without source text; no code suffix without a code") {
  Diagnostic d = make(3, 4, 4, "unknown encoding: uft-8");
  d.code.clear();
  d.severity = Severity::Warning;
  CHECK(render_diagnostic(d, "b.py", nullptr) == "b.py:3:5: warning: unknown encoding: uft-8\n");
}

TEST_CASE("JSON form") {
  SourceFile f = SourceFile::from_bytes("a.py", "\xC3\xA9\xC3\xA9 = )\n");
  Diagnostic d = make(1, 7, 8, "unmatched ')'");
  CHECK(diagnostic_json(d, "dir/a \"q\".py", &f, "m:k") ==
        "{\"file\":\"dir/a \\\"q\\\".py\",\"line\":1,\"col\":6,\"end_line\":1,\"end_col\":7,"
        "\"severity\":\"error\",\"code\":\"QD001\",\"kernel\":\"m:k\",\"message\":\"unmatched "
        "')'\"}");
  CHECK(diagnostic_json(d, "a.py", &f).find("\"kernel\":null") != std::string::npos);
  CHECK(json_quote("a\nb\x01\xFF") == "\"a\\nb\\u0001\\ufffd\"");
}

TEST_CASE("fields: what a JSON reader of the JSON form gets") {
  SourceFile f = SourceFile::from_bytes("a.py", "\xC3\xA9\xC3\xA9 = )\n");
  Diagnostic d = make(1, 7, 8, "bad \xFF byte");
  DiagnosticFields x = diagnostic_fields(d, "dir/a.py", &f, "m:k");
  CHECK(x.file == "dir/a.py");
  CHECK(x.line == 1);
  CHECK(x.col == 6);  // character columns, as the JSON's
  CHECK(x.end_line == 1);
  CHECK(x.end_col == 7);
  CHECK(x.severity == "error");
  CHECK(x.code == "QD001");
  CHECK(x.kernel == "m:k");
  CHECK(x.message == "bad \xEF\xBF\xBD byte");  // U+FFFD, as JSON's \ufffd reads back
  d.end_line = 0;                               // no end: the start
  DiagnosticFields y = diagnostic_fields(d, "a.py", &f);
  CHECK(y.end_line == 1);
  CHECK(y.end_col == 6);
  CHECK(y.kernel.empty());
  // One U+FFFD for each byte json_quote escapes as \ufffd: here two.
  CHECK(valid_utf8("a\xC3\xA9\xE2\x82") == "a\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(json_quote("a\xC3\xA9\xE2\x82") == "\"a\xC3\xA9\\ufffd\\ufffd\"");
}

}  // namespace
}  // namespace qd::syntax
