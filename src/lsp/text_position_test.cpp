#include "lsp/text_position.hpp"

#include <doctest/doctest.h>

namespace qd::lsp {
namespace {

TEST_CASE("lsp URIs: local files only, percent escapes both ways") {
  std::string error;
  CHECK(uri_to_path("file:///home/a/b%20c.py", error) == "/home/a/b c.py");
  CHECK(uri_to_path("FILE://localhost/x%C3%A9.py", error) == "/x\xc3\xa9.py");
  CHECK(path_to_uri("/home/a/b c\xc3\xa9.py") == "file:///home/a/b%20c%C3%A9.py");
  for (const char* bad : {"https://x/a.py", "file://host/a.py", "file:a.py", "file:///a%2",
                          "file:///a%zz", "file:///a%00b", "x"}) {
    error.clear();
    CHECK(uri_to_path(bad, error).empty());
    CHECK(!error.empty());
  }
}

TEST_CASE("lsp positions: UTF-16 units and UTF-8 bytes") {
  // "ré = x😀y": r(1) é(2 bytes, 1 unit) ' = x'(4) 😀(4 bytes, 2 units) y
  std::string line = "r\xc3\xa9 = x\xf0\x9f\x98\x80y";
  CHECK(character_of(line, 3, Encoding::utf16) == 2);   // after é
  CHECK(character_of(line, 11, Encoding::utf16) == 8);  // after 😀
  CHECK(character_of(line, 11, Encoding::utf8) == 11);
  CHECK(character_of(line, 99, Encoding::utf16) == 9);  // clamped
  CHECK(byte_column_of(line, 2, Encoding::utf16) == 3);
  CHECK(byte_column_of(line, 8, Encoding::utf16) == 11);
  CHECK(byte_column_of(line, 7, Encoding::utf16) == 7);  // inside the pair: its start
  CHECK(byte_column_of(line, 2, Encoding::utf8) == 1);   // inside é: its start
  CHECK(byte_column_of(line, 99, Encoding::utf16) == static_cast<int64_t>(line.size()));
  std::string text = "a\r\n" + line + "\nlast";
  CHECK(line_of(text, 0) == "a");
  CHECK(line_of(text, 1) == line);
  CHECK(line_of(text, 3).empty());
  CHECK(offset_of(text, 1, 2, Encoding::utf16) == 3 + 3);
  CHECK(offset_of(text, 9, 0, Encoding::utf16) == text.size());
}

}  // namespace
}  // namespace qd::lsp
