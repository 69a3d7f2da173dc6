// Exact token sequences for the tricky parts of the tokenizer (positions checked against
// CPython 3.12's tokenizer as its parser sees it).
#include <doctest/doctest.h>

#include <string>

#include "syntax/lexer.hpp"

namespace qd::syntax {
namespace {

// "KIND line:col-end_line:end_col" per token, space separated.
std::string dump(std::string_view text) {
  TokenStream ts = tokenize(text);
  std::string out;
  for (const Token& t : ts.tokens) {
    if (!out.empty()) {
      out += ' ';
    }
    out += token_kind_name(t.kind);
    out += ' ' + std::to_string(t.line) + ':' + std::to_string(t.col) + '-' +
           std::to_string(t.end_line) + ':' + std::to_string(t.end_col);
  }
  return out;
}

std::string text_of(std::string_view text, const Token& t) {
  return std::string(text.substr(t.begin, t.end - t.begin));
}

// The first error as "line:col message".
std::string error(std::string_view text) {
  TokenStream ts = tokenize(text);
  for (const Diagnostic& d : ts.diagnostics) {
    if (d.severity == Severity::Error) {
      return std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.message;
    }
  }
  return "";
}

TEST_CASE("simple statement, implicit newline at EOF") {
  CHECK(dump("x = 1") ==
        "NAME 1:0-1:1 EQUAL 1:2-1:3 NUMBER 1:4-1:5 NEWLINE 1:5-1:6 ENDMARKER 2:0-2:0");
  CHECK(dump("") == "ENDMARKER 1:0-1:0");
  CHECK(dump("\n\n# c\n") == "ENDMARKER 4:0-4:0");
}

TEST_CASE("keywords and soft keywords") {
  CHECK(dump("if match:") ==
        "'if' 1:0-1:2 NAME 1:3-1:8 COLON 1:8-1:9 NEWLINE 1:9-1:10 ENDMARKER 2:0-2:0");
}

TEST_CASE("indentation, blank and comment lines, dedent at EOF") {
  CHECK(dump("if x:\n  y\n\n  # c\n    # d\nz\n") ==
        "'if' 1:0-1:2 NAME 1:3-1:4 COLON 1:4-1:5 NEWLINE 1:5-1:6 INDENT 2:0-2:2 NAME 2:2-2:3 "
        "NEWLINE 2:3-2:4 DEDENT 6:0-6:0 NAME 6:0-6:1 NEWLINE 6:1-6:2 ENDMARKER 7:0-7:0");
  CHECK(dump("if x:\n\ty") ==
        "'if' 1:0-1:2 NAME 1:3-1:4 COLON 1:4-1:5 NEWLINE 1:5-1:6 INDENT 2:0-2:1 NAME 2:1-2:2 "
        "NEWLINE 2:2-2:3 DEDENT 3:0-3:0 ENDMARKER 3:0-3:0");
}

TEST_CASE("a NEWLINE after a comment starts at the '#'") {
  std::string src = "x  # hi\n";
  TokenStream ts = tokenize(src);
  REQUIRE(ts.tokens.size() == 3);
  CHECK(ts.tokens[1].kind == TokenKind::Newline);
  CHECK(ts.tokens[1].col == 3);
  CHECK(ts.tokens[1].end_col == 8);
  CHECK(text_of(src, ts.tokens[1]) == "# hi");
}

TEST_CASE("CRLF and lone CR are newlines and do not shift columns") {
  CHECK(dump("a\r\nb\rc") ==
        "NAME 1:0-1:1 NEWLINE 1:1-1:2 NAME 2:0-2:1 NEWLINE 2:1-2:2 NAME 3:0-3:1 NEWLINE 3:1-3:2 "
        "ENDMARKER 4:0-4:0");
}

TEST_CASE("brackets ignore newlines; backslash continuation") {
  CHECK(dump("(1,\n 2)\nx = \\\n  3") ==
        "LPAR 1:0-1:1 NUMBER 1:1-1:2 COMMA 1:2-1:3 NUMBER 2:1-2:2 RPAR 2:2-2:3 NEWLINE 2:3-2:4 "
        "NAME 3:0-3:1 EQUAL 3:2-3:3 NUMBER 4:2-4:3 NEWLINE 4:3-4:4 ENDMARKER 5:0-5:0");
}

TEST_CASE("numbers, including `1if` (a warning, not an error)") {
  CHECK(dump("0x_1f 1_0.5e-3J .5 1.") ==
        "NUMBER 1:0-1:5 NUMBER 1:6-1:15 NUMBER 1:16-1:18 NUMBER 1:19-1:21 NEWLINE 1:21-1:22 "
        "ENDMARKER 2:0-2:0");
  TokenStream ts = tokenize("1if x else 2");
  CHECK(ts.tokens[0].kind == TokenKind::Number);
  CHECK(ts.tokens[1].kind == TokenKind::KwIf);
  REQUIRE(ts.diagnostics.size() == 1);
  CHECK(ts.diagnostics[0].severity == Severity::Warning);
  CHECK(ts.diagnostics[0].message == "invalid decimal literal");
}

TEST_CASE("strings: prefixes and multi-line positions") {
  CHECK(dump("rb'a' x = '''a\nbc'''") ==
        "STRING 1:0-1:5 NAME 1:6-1:7 EQUAL 1:8-1:9 STRING 1:10-2:5 NEWLINE 2:5-2:6 "
        "ENDMARKER 3:0-3:0");
  CHECK(dump("ur'x'") == "NAME 1:0-1:2 STRING 1:2-1:5 NEWLINE 1:5-1:6 ENDMARKER 2:0-2:0");
}

TEST_CASE("f-string: doubled braces keep one brace in the text, position covers both") {
  std::string src = "f'a{{b}}'";
  TokenStream ts = tokenize(src);
  CHECK(dump(src) ==
        "FSTRING_START 1:0-1:2 FSTRING_MIDDLE 1:2-1:5 FSTRING_MIDDLE 1:5-1:8 FSTRING_END 1:8-1:9 "
        "NEWLINE 1:9-1:10 ENDMARKER 2:0-2:0");
  CHECK(text_of(src, ts.tokens[1]) == "a{");
  CHECK(text_of(src, ts.tokens[2]) == "b}");
}

TEST_CASE("f-string: conversion, format spec with nested field, debug =") {
  CHECK(dump("f'{x!r:>{w}} {y=}'") ==
        "FSTRING_START 1:0-1:2 LBRACE 1:2-1:3 NAME 1:3-1:4 EXCLAMATION 1:4-1:5 NAME 1:5-1:6 "
        "COLON 1:6-1:7 FSTRING_MIDDLE 1:7-1:8 LBRACE 1:8-1:9 NAME 1:9-1:10 RBRACE 1:10-1:11 "
        "FSTRING_MIDDLE 1:11-1:11 RBRACE 1:11-1:12 FSTRING_MIDDLE 1:12-1:13 LBRACE 1:13-1:14 "
        "NAME 1:14-1:15 EQUAL 1:15-1:16 RBRACE 1:16-1:17 FSTRING_END 1:17-1:18 "
        "NEWLINE 1:18-1:19 ENDMARKER 2:0-2:0");
}

TEST_CASE("f-string: nested f-strings reusing the same quote") {
  CHECK(dump("f'{f'{x}'}'") ==
        "FSTRING_START 1:0-1:2 LBRACE 1:2-1:3 FSTRING_START 1:3-1:5 LBRACE 1:5-1:6 "
        "NAME 1:6-1:7 RBRACE 1:7-1:8 FSTRING_END 1:8-1:9 RBRACE 1:9-1:10 FSTRING_END 1:10-1:11 "
        "NEWLINE 1:11-1:12 ENDMARKER 2:0-2:0");
}

TEST_CASE("f-string: triple-quoted multi-line middle and \\N{...}") {
  CHECK(dump("f'''a\nb{x}'''") ==
        "FSTRING_START 1:0-1:4 FSTRING_MIDDLE 1:4-2:1 LBRACE 2:1-2:2 NAME 2:2-2:3 "
        "RBRACE 2:3-2:4 FSTRING_END 2:4-2:7 NEWLINE 2:7-2:8 ENDMARKER 3:0-3:0");
  CHECK(dump("f'\\N{DASH}{x}'") ==
        "FSTRING_START 1:0-1:2 FSTRING_MIDDLE 1:2-1:10 LBRACE 1:10-1:11 NAME 1:11-1:12 "
        "RBRACE 1:12-1:13 FSTRING_END 1:13-1:14 NEWLINE 1:14-1:15 ENDMARKER 2:0-2:0");
}

TEST_CASE("f-string: ':=' at the top level of a field starts a format spec") {
  CHECK(dump("f'{x:=3}'") ==
        "FSTRING_START 1:0-1:2 LBRACE 1:2-1:3 NAME 1:3-1:4 COLON 1:4-1:5 FSTRING_MIDDLE 1:5-1:7 "
        "RBRACE 1:7-1:8 FSTRING_END 1:8-1:9 NEWLINE 1:9-1:10 ENDMARKER 2:0-2:0");
}

TEST_CASE("non-ASCII identifiers") {
  TokenStream ts = tokenize("\xC3\xA9t\xC3\xA9 = 1");
  CHECK(ts.tokens[0].kind == TokenKind::Name);
  CHECK(ts.tokens[0].flags == k_flag_non_ascii);
  CHECK(ts.tokens[0].end_col == 5);
  CHECK(ts.diagnostics.empty());
}

TEST_CASE("errors: CPython's messages and positions (0-based byte columns)") {
  CHECK(error("x = 1 \\ y") == "1:7 unexpected character after line continuation character");
  CHECK(error("x = \\") == "1:5 unexpected EOF while parsing");
  CHECK(error("if x:\n    a\n  b\n") == "3:3 unindent does not match any outer indentation level");
  CHECK(error("if x:\n\ta\n        b\n") ==
        "3:0 inconsistent use of tabs and spaces in indentation");
  CHECK(error("foo(\n") == "1:3 '(' was never closed");
  CHECK(error("x = (1,\n]") ==
        "2:0 closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  CHECK(error("x = (1]") == "1:6 closing parenthesis ']' does not match opening parenthesis '('");
  CHECK(error("x = )") == "1:4 unmatched ')'");
  CHECK(error("1abc") == "1:0 invalid decimal literal");
  CHECK(error("0777") ==
        "1:0 leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
        "octal integers");
  CHECK(error("0o8") == "1:2 invalid digit '8' in octal literal");
  CHECK(error("0x") == "1:1 invalid hexadecimal literal");
  CHECK(error("'abc") == "1:0 unterminated string literal (detected at line 1)");
  CHECK(error("x = '''abc\n\n") ==
        "1:4 unterminated triple-quoted string literal (detected at line 2)");
  CHECK(error("f'abc") == "1:0 unterminated f-string literal (detected at line 1)");
  CHECK(error("f'{x'}") == "1:4 f-string: expecting '}'");
  CHECK(error("f'{x}}'") == "1:5 f-string: single '}' is not allowed");
  CHECK(error("f'{x)}'") == "1:4 f-string: unmatched ')'");
  CHECK(error("x = \xE2\x82\xAC") == "1:4 invalid character '\xE2\x82\xAC' (U+20AC)");
  CHECK(error("x = a\xC2\xA0"
              "b") == "1:5 invalid non-printable character U+00A0");
  CHECK(error("\x01") == "1:0 invalid non-printable character U+0001");
  CHECK(error(std::string(201, '(')) == "1:200 too many nested parentheses");
  CHECK(error(std::string("x = 1\ny\0", 8)) == "2:1 source code string cannot contain null bytes");
}

TEST_CASE("the first error ends the stream with Error then EndMarker") {
  TokenStream ts = tokenize("x = 1\ny = 0o9\nz = 'unterminated");
  REQUIRE(ts.tokens.size() >= 2);
  CHECK(ts.tokens[ts.tokens.size() - 2].kind == TokenKind::Error);
  CHECK(ts.tokens.back().kind == TokenKind::EndMarker);
  REQUIRE(ts.diagnostics.size() == 1);
  CHECK(ts.diagnostics[0].code == k_code_token);
  CHECK(ts.diagnostics[0].line == 2);
}

}  // namespace
}  // namespace qd::syntax
