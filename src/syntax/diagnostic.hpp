// Source diagnostics: `path:line:col: error: message [QDnnn]` plus a code frame.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qd::syntax {

enum class Severity : uint8_t { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  // 1-based line; 0-based UTF-8 byte column (rendered as a 1-based character column).
  int32_t line = 0;
  int32_t col = 0;
  int32_t end_line = 0;
  int32_t end_col = 0;
  std::string code;     // "QD001"...
  std::string message;  // CPython's wording where CPython reports the same problem
};

// Codes of the syntax layer (documented in docs/diagnostics.md).
inline constexpr const char* k_code_syntax = "QD001";    // invalid syntax
inline constexpr const char* k_code_token = "QD002";     // invalid token / literal
inline constexpr const char* k_code_indent = "QD003";    // indentation
inline constexpr const char* k_code_encoding = "QD004";  // encoding, BOM, invalid UTF-8, NUL
inline constexpr const char* k_code_limit = "QD005";     // nesting / size limits
inline constexpr const char* k_code_io = "QD006";        // file cannot be read

}  // namespace qd::syntax
