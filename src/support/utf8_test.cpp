#include "support/utf8.hpp"

#include <doctest/doctest.h>

#include <string>

namespace qd::support {

TEST_CASE("utf8: decode strict") {
  const std::string s = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
  size_t i = 0;
  CHECK(decode_utf8(s, i) == 'a');
  CHECK(decode_utf8(s, i) == 0xE9);
  CHECK(decode_utf8(s, i) == 0x20AC);
  CHECK(decode_utf8(s, i) == 0x1F600);
  CHECK(i == s.size());
}

TEST_CASE("utf8: invalid input advances one byte") {
  for (const std::string bad : {"\x80", "\xC0\x80", "\xC3", "\xE0\x80\x80", "\xED\xA0\x80",
                                "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF"}) {
    size_t i = 0;
    CHECK(decode_utf8(bad, i) == k_invalid_code_point);
    CHECK(i == 1);
  }
}

TEST_CASE("utf8: lenient admits surrogates only") {
  size_t i = 0;
  CHECK(decode_utf8_lenient("\xED\xA0\x80", i) == 0xD800);
  CHECK(i == 3);
  i = 0;
  CHECK(decode_utf8_lenient("\xC0\x80", i) == k_invalid_code_point);
  CHECK(i == 1);
}

TEST_CASE("utf8: append") {
  std::string out;
  for (const uint32_t cp : {0x41u, 0xE9u, 0x20ACu, 0xDC80u, 0x10FFFFu}) {
    append_utf8(out, cp);
  }
  CHECK(out == "A\xC3\xA9\xE2\x82\xAC\xED\xB2\x80\xF4\x8F\xBF\xBF");
}

TEST_CASE("utf8: find_invalid and count") {
  CHECK(find_invalid_utf8("abc\xC3\xA9") == std::string_view::npos);
  CHECK(find_invalid_utf8("ab\xC3") == 2);
  CHECK(find_invalid_utf8("a\xED\xA0\x80") == 1);
  CHECK(count_code_points("a\xC3\xA9\xF0\x9F\x98\x80") == 3);
  CHECK(count_code_points("\xFF\xFE") == 2);
  CHECK(count_code_points("\xED\xA0\x80") == 1);
}

}  // namespace qd::support
