// Decoding the body of string and bytes literals (escape sequences), as CPython 3.12 does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qd::syntax {

struct LiteralProblem {
  uint32_t offset = 0;   // byte offset within the body where the problem starts
  bool is_error = true;  // false: a SyntaxWarning (invalid escape sequence), decoding goes on
  std::string message;   // CPython's text, e.g. "invalid escape sequence '\\d'" or
                         // "(unicode error) 'unicodeescape' codec can't decode bytes in position
                         // 0-1: truncated \\xXX escape"
};

// `body` is the text between the quotes (UTF-8). Appends the value to `out` (str: generalized
// UTF-8, lone surrogates from \ud800 escapes included; bytes: raw bytes). Returns false on the
// first error (recorded in problems); warnings are recorded and decoding continues.
bool decode_str_literal(std::string_view body, bool raw, std::string& out,
                        std::vector<LiteralProblem>& problems);
bool decode_bytes_literal(std::string_view body, bool raw, std::string& out,
                          std::vector<LiteralProblem>& problems);
// f-string literal parts (FSTRING_MIDDLE text): like str, but `{{`/`}}` are already undoubled by
// the caller; \N{...} is an escape, not a replacement field.
inline bool decode_fstring_part(std::string_view body, bool raw, std::string& out,
                                std::vector<LiteralProblem>& problems) {
  return decode_str_literal(body, raw, out, problems);
}

}  // namespace qd::syntax
