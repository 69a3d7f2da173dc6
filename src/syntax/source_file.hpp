// A Python source file decoded to UTF-8 (PEP 263 cookie, BOM), with its line table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "syntax/diagnostic.hpp"

namespace qd::syntax {

class SourceFile {
public:
  // Decodes `bytes` as CPython does for a bytes source: UTF-8 BOM, then a coding cookie on line
  // 1 or 2, default UTF-8. Encoding problems become diagnostics (line of the cookie, col 0) and
  // leave text() empty.
  static SourceFile from_bytes(std::string path, std::string bytes);

  const std::string& path() const { return m_path; }
  // UTF-8 text the lexer reads, without BOM; CRLF and CR translated to LF as CPython does
  // (columns are unchanged: they count from the start of each line).
  const std::string& text() const { return m_text; }
  const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }
  bool ok() const { return m_diagnostics.empty(); }
  const std::string& encoding() const { return m_encoding; }  // normalized name, "utf-8" by default

  // 1-based line number of a byte offset, and the text of a line (no newline).
  int32_t line_of(uint32_t offset) const;
  std::string_view line_text(int32_t line) const;
  // 1-based character column of a 0-based byte column on a line (for rendering).
  int32_t char_column(int32_t line, int32_t byte_col) const;

private:
  void index_lines();

  std::string m_path;
  std::string m_text;
  std::string m_encoding = "utf-8";
  std::vector<uint32_t> m_line_starts;
  std::vector<Diagnostic> m_diagnostics;
};

}  // namespace qd::syntax
