// UTF-8 decoding helpers (strict UTF-8, and "generalized" UTF-8 that admits lone surrogates).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace qd::support {

inline constexpr uint32_t k_invalid_code_point = 0xFFFFFFFFu;

// Decodes one code point at s[i] and advances i. Strict UTF-8: overlong forms, surrogates and
// values above U+10FFFF are invalid; on invalid input returns k_invalid_code_point and advances i
// by one byte.
uint32_t decode_utf8(std::string_view s, size_t& i);
// Like decode_utf8 but accepts 3-byte encodings of U+D800..U+DFFF (used for str constant values).
uint32_t decode_utf8_lenient(std::string_view s, size_t& i);
// Appends the (generalized) UTF-8 encoding of cp (surrogates allowed).
void append_utf8(std::string& out, uint32_t cp);
// Offset of the first invalid byte, or npos if `s` is valid strict UTF-8.
size_t find_invalid_utf8(std::string_view s);
// Number of code points in s (invalid bytes count as one each).
size_t count_code_points(std::string_view s);

}  // namespace qd::support
