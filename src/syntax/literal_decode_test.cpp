#include "syntax/literal_decode.hpp"

#include <doctest/doctest.h>

namespace qd::syntax {

namespace {

struct Result {
  bool ok = false;
  std::string value;
  std::vector<LiteralProblem> problems;
};

Result str(std::string_view body, bool raw = false) {
  Result r;
  r.ok = decode_str_literal(body, raw, r.value, r.problems);
  return r;
}

Result bytes(std::string_view body, bool raw = false) {
  Result r;
  r.ok = decode_bytes_literal(body, raw, r.value, r.problems);
  return r;
}

std::string only_message(const Result& r) {
  REQUIRE(r.problems.size() == 1);
  return r.problems[0].message;
}

}  // namespace

TEST_CASE("literal_decode: str simple escapes") {
  CHECK(str("plain").value == "plain");
  CHECK(str("a\\\nb").value == "ab");
  CHECK(str("\\\\\\'\\\"\\a\\b\\f\\n\\r\\t\\v").value == "\\'\"\a\b\f\n\r\t\v");
  CHECK(str("\\0\\12\\101\\1234").value == std::string("\0\nA"
                                                       "S4",
                                                       5));
  CHECK(str("\\x41\\u00e9\\U0001F600").value == "A\xC3\xA9\xF0\x9F\x98\x80");
  CHECK(str("\\ud800").value == "\xED\xA0\x80");
  CHECK(str("\\N{LATIN SMALL LETTER A}\\N{nul}").value == std::string("a\0", 2));
  CHECK(str("\\d", true).value == "\\d");
  CHECK(str("\\x", true).ok);
  CHECK(str("\\\xC3\xA9").value == "\\\xC3\xA9");  // backslash before non-ASCII: kept, no warning
  CHECK(str("\\\xC3\xA9").problems.empty());
}

TEST_CASE("literal_decode: str warnings") {
  Result r = str("x\\q\\w");
  CHECK(r.ok);
  CHECK(r.value == "x\\q\\w");
  CHECK(only_message(r) == "invalid escape sequence '\\q'");  // only the first is reported
  CHECK(r.problems[0].offset == 1);
  CHECK_FALSE(r.problems[0].is_error);
  r = str("\\400");
  CHECK(r.value == "\xC4\x80");
  CHECK(only_message(r) == "invalid octal escape sequence '\\400'");
  CHECK(only_message(str("\\8")) == "invalid escape sequence '\\8'");
}

TEST_CASE("literal_decode: str errors") {
  Result r = str("\\x4");
  CHECK_FALSE(r.ok);
  CHECK(only_message(r) == "(unicode error) 'unicodeescape' codec can't decode bytes in position "
                           "0-2: truncated \\xXX escape");
  CHECK(r.problems[0].is_error);
  CHECK(only_message(str("ab\\x")) == "(unicode error) 'unicodeescape' codec can't decode bytes "
                                      "in position 2-3: truncated \\xXX escape");
  CHECK(only_message(str("\\u12")) == "(unicode error) 'unicodeescape' codec can't decode bytes "
                                      "in position 0-3: truncated \\uXXXX escape");
  CHECK(only_message(str("\\U0011FFFF")) == "(unicode error) 'unicodeescape' codec can't decode "
                                            "bytes in position 0-9: illegal Unicode character");
  CHECK(only_message(str("\\N{foo}")) == "(unicode error) 'unicodeescape' codec can't decode "
                                         "bytes in position 0-6: unknown Unicode character name");
  CHECK(only_message(str("\\N{}")) == "(unicode error) 'unicodeescape' codec can't decode bytes "
                                      "in position 0-2: malformed \\N character escape");
  CHECK(only_message(str("\\N")) == "(unicode error) 'unicodeescape' codec can't decode bytes in "
                                    "position 0-1: malformed \\N character escape");
  // CPython counts a non-ASCII character as its 10-byte "\UXXXXXXXX" form.
  CHECK(only_message(str("\xC3\xA9\\x4")) == "(unicode error) 'unicodeescape' codec can't decode "
                                             "bytes in position 10-12: truncated \\xXX escape");
  // A warning before an error is not reported.
  CHECK(only_message(str("\\d\\x4")) == "(unicode error) 'unicodeescape' codec can't decode "
                                        "bytes in position 2-4: truncated \\xXX escape");
}

TEST_CASE("literal_decode: bytes") {
  CHECK(bytes("\\x41\\n\\377\\0").value == std::string("A\n\xFF\0", 4));
  Result r = bytes("\\777");
  CHECK(r.ok);
  CHECK(r.value == "\xFF");
  CHECK(only_message(r) == "invalid octal escape sequence '\\777'");
  r = bytes("\\u1234");
  CHECK(r.value == "\\u1234");
  CHECK(only_message(r) == "invalid escape sequence '\\u'");
  CHECK(only_message(bytes("\\N{LATIN SMALL LETTER A}")) == "invalid escape sequence '\\N'");
  r = bytes("ab\\x4");
  CHECK_FALSE(r.ok);
  CHECK(only_message(r) == "(value error) invalid \\x escape at position 2");
  r = bytes("\xC3\xA9");
  CHECK_FALSE(r.ok);
  CHECK(only_message(r) == "bytes can only contain ASCII literal characters");
  CHECK_FALSE(bytes("\xC3\xA9", true).ok);
  CHECK(bytes("\\x4", true).value == "\\x4");
}

}  // namespace qd::syntax
