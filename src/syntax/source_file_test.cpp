#include "syntax/source_file.hpp"

#include <doctest/doctest.h>

namespace qd::syntax {
namespace {

std::string first_error(const SourceFile& f) {
  return f.diagnostics().empty() ? std::string() : f.diagnostics()[0].message;
}

TEST_CASE("UTF-8 by default, BOM removed, CRLF translated to LF as CPython does") {
  SourceFile f = SourceFile::from_bytes("a.py", "\xEF\xBB\xBFx = 1\r\ny = 2\n");
  REQUIRE(f.ok());
  CHECK(f.encoding() == "utf-8");
  CHECK(f.text() == "x = 1\ny = 2\n");
  CHECK(f.line_of(0) == 1);
  CHECK(f.line_of(6) == 2);
  CHECK(f.line_text(1) == "x = 1");
  CHECK(f.line_text(2) == "y = 2");
  CHECK(f.line_text(3).empty());
  CHECK(f.line_text(4).empty());
}

TEST_CASE("lone CR ends a line") {
  SourceFile f = SourceFile::from_bytes("a.py", "a\rb\r\nc");
  REQUIRE(f.ok());
  CHECK(f.text() == "a\nb\nc");
  CHECK(f.line_text(1) == "a");
  CHECK(f.line_text(2) == "b");
  CHECK(f.line_text(3) == "c");
  CHECK(f.line_of(4) == 3);
}

TEST_CASE("char_column counts code points") {
  SourceFile f = SourceFile::from_bytes("a.py", "\xC3\xA9\xC3\xA9 = )\n");
  REQUIRE(f.ok());
  CHECK(f.char_column(1, 0) == 1);
  CHECK(f.char_column(1, 2) == 2);
  CHECK(f.char_column(1, 7) == 6);
  CHECK(f.char_column(1, 20) == 19);  // past the end: one column per byte
  CHECK(f.char_column(9, 4) == 5);    // no such line: byte column + 1
}

TEST_CASE("coding cookies on line 1 or 2") {
  SourceFile latin = SourceFile::from_bytes("a.py", "# -*- coding: latin-1 -*-\ns = '\xF6'\n");
  REQUIRE(latin.ok());
  CHECK(latin.encoding() == "iso8859-1");
  CHECK(latin.text() == "# -*- coding: latin-1 -*-\ns = '\xC3\xB6'\n");

  SourceFile second = SourceFile::from_bytes(
      "a.py", "#!/usr/bin/env python\n# vim: set fileencoding=koi8-r :\ns='\xC1'\n");
  REQUIRE(second.ok());
  CHECK(second.encoding() == "koi8-r");
  CHECK(second.text().ends_with("s='\xD0\xB0'\n"));

  // Line 2 is not looked at after a line with code, nor a cookie after code on line 1.
  CHECK(SourceFile::from_bytes("a.py", "x = 1\n# coding: uft-8\n").ok());
  CHECK(SourceFile::from_bytes("a.py", "x = 1  # coding: uft-8\n").ok());
  CHECK(SourceFile::from_bytes("a.py", "# coding: UTF_8\nx = 1\n").encoding() == "utf-8");
  CHECK(SourceFile::from_bytes("a.py", "# coding: euc-jp\ny = '\xA4\xA2'\n")
            .text()
            .ends_with("y = '\xE3\x81\x82'\n"));
}

TEST_CASE("encoding errors use CPython's wording and point at the cookie") {
  SourceFile unknown = SourceFile::from_bytes("a.py", "\n# coding: uft-8\nx = 1\n");
  CHECK(first_error(unknown) == "unknown encoding: uft-8");
  CHECK(unknown.diagnostics()[0].line == 2);
  CHECK(unknown.diagnostics()[0].code == k_code_encoding);
  CHECK(unknown.text().empty());

  CHECK(first_error(SourceFile::from_bytes("a.py", "\xEF\xBB\xBF# coding: latin-1\n")) ==
        "encoding problem: iso-8859-1 with BOM");
  CHECK(first_error(SourceFile::from_bytes("a.py", "\xEF\xBB\xBF# coding: utf8\n")) ==
        "encoding problem: utf8 with BOM");
  CHECK(first_error(SourceFile::from_bytes("a.py", "# coding=ascii\ny=\"\xF6\"\n")) ==
        "'ascii' codec can't decode byte 0xf6 in position 18: ordinal not in range(128)");
  CHECK(first_error(SourceFile::from_bytes("a.py", "# coding: utf8\ny=\"\xF6\"\n")) ==
        "'utf-8' codec can't decode byte 0xf6 in position 18: invalid start byte");
  CHECK(first_error(SourceFile::from_bytes("a.py", "# coding: cp1252\nx=\"\x81\"\n")) ==
        "'charmap' codec can't decode byte 0x81 in position 20: character maps to <undefined>");
  CHECK(first_error(SourceFile::from_bytes("a.py", "# coding: rot13\n")) ==
        "'rot13' is not a text encoding; use codecs.decode() to handle arbitrary codecs");
}

TEST_CASE("invalid UTF-8 is reported per token, as CPython's tokenizer does") {
  SourceFile ident = SourceFile::from_bytes("a.py", "x\xF6=1\n");
  REQUIRE_FALSE(ident.ok());
  CHECK(first_error(ident) ==
        "(unicode error) 'utf-8' codec can't decode byte 0xf6 in position 1: invalid start byte");
  CHECK(ident.diagnostics()[0].line == 1);
  CHECK(ident.diagnostics()[0].col == 1);

  SourceFile str = SourceFile::from_bytes("a.py", "x = 1\ny = \"ab\xE4\xB8\"\n");
  CHECK(first_error(str) ==
        "(unicode error) 'utf-8' codec can't decode bytes in position 2-3: unexpected end of data");
  CHECK(str.diagnostics()[0].line == 2);
  CHECK(str.diagnostics()[0].col == 4);

  CHECK(first_error(SourceFile::from_bytes("a.py", "y = b\"\xF6\"\n")) ==
        "bytes can only contain ASCII literal characters");
  // Comments may hold any bytes.
  CHECK(SourceFile::from_bytes("a.py", "x = 1  # \xF6\xFF\n").ok());
}

TEST_CASE("NUL bytes") {
  SourceFile f = SourceFile::from_bytes("a.py", std::string("x = 1\ny\0\n", 9));
  REQUIRE_FALSE(f.ok());
  CHECK(first_error(f) == "source code string cannot contain null bytes");
  CHECK(f.diagnostics()[0].line == 2);
  CHECK(f.diagnostics()[0].col == 1);
}

}  // namespace
}  // namespace qd::syntax
