#include "syntax/literal_decode.hpp"

#include <cstring>

#include "support/hex.hpp"
#include "support/utf8.hpp"
#include "syntax/unicode.hpp"

namespace qd::syntax {

namespace {

bool has_non_ascii(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      return true;
    }
  }
  return false;
}

bool is_octal(char c) { return c >= '0' && c <= '7'; }

// Simple one-character escapes shared by str and bytes; returns -1 if `c` is not one.
int simple_escape(char c) {
  switch (c) {
    case '\\': return '\\';
    case '\'': return '\'';
    case '"': return '"';
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    default: return -1;
  }
}

// CPython decodes str escapes on a copy of the body where each non-ASCII code point became a
// 10-byte "\UXXXXXXXX" escape and a backslash before one gained "u005c"; error messages give
// positions in that copy. Maps a byte offset of `body` (at a character boundary) there.
size_t cpython_position(std::string_view body, size_t offset) {
  size_t pos = 0;
  size_t i = 0;
  while (i < offset && i < body.size()) {
    const auto c = static_cast<unsigned char>(body[i]);
    if (c == '\\') {
      ++pos;
      ++i;
      if (i >= body.size() || static_cast<unsigned char>(body[i]) >= 0x80) {
        pos += 5;
      } else if (i < offset) {
        ++pos;  // the escaped ASCII character travels with its backslash
        ++i;
      }
    } else if (c >= 0x80) {
      support::decode_utf8_lenient(body, i);
      pos += 10;
    } else {
      ++pos;
      ++i;
    }
  }
  return pos;
}

void add_unicode_error(std::string_view body, size_t start, size_t end, const char* reason,
                       std::vector<LiteralProblem>& problems) {
  const size_t a = cpython_position(body, start);
  const size_t b = cpython_position(body, end);
  std::string message = "(unicode error) 'unicodeescape' codec can't decode ";
  if (b - a == 1) {
    static const char k_hex[] = "0123456789abcdef";
    const auto byte = static_cast<unsigned char>(body[start]);
    message += "byte 0x";
    message += k_hex[byte >> 4];
    message += k_hex[byte & 15];
    message += " in position " + std::to_string(a);
  } else {
    message += "bytes in position " + std::to_string(a) + "-" + std::to_string(b - 1);
  }
  message += ": ";
  message += reason;
  problems.push_back({static_cast<uint32_t>(start), true, std::move(message)});
}

// CPython reports only the first invalid escape of a literal, and only if decoding succeeds.
void add_escape_warning(std::string_view body, size_t first_invalid, bool octal,
                        std::vector<LiteralProblem>& problems) {
  std::string message;
  if (octal) {
    message = "invalid octal escape sequence '\\";
    message.append(body.substr(first_invalid + 1, 3));
  } else {
    message = "invalid escape sequence '\\";
    message.push_back(body[first_invalid + 1]);
  }
  message.push_back('\'');
  problems.push_back({static_cast<uint32_t>(first_invalid), false, std::move(message)});
}

constexpr size_t k_none = static_cast<size_t>(-1);

}  // namespace

bool decode_str_literal(std::string_view body, bool raw, std::string& out,
                        std::vector<LiteralProblem>& problems) {
  const char* data = body.data();
  const size_t n = body.size();
  const void* first_backslash = raw ? nullptr : std::memchr(data, '\\', n);
  if (first_backslash == nullptr) {
    out.append(body);
    return true;
  }
  size_t first_invalid = k_none;
  bool first_invalid_octal = false;
  size_t i = static_cast<size_t>(static_cast<const char*>(first_backslash) - data);
  out.append(data, i);
  while (i < n) {
    if (data[i] != '\\') {
      const void* next = std::memchr(data + i, '\\', n - i);
      const size_t stop =
          next == nullptr ? n : static_cast<size_t>(static_cast<const char*>(next) - data);
      out.append(data + i, stop - i);
      i = stop;
      continue;
    }
    const size_t start = i;
    ++i;
    if (i >= n) {
      add_unicode_error(body, start, i, "\\ at end of string", problems);
      return false;
    }
    const char c = data[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      out.push_back('\\');  // the non-ASCII character is copied by the loop
      continue;
    }
    ++i;
    if (c == '\n') {
      continue;
    }
    if (const int simple = simple_escape(c); simple >= 0) {
      out.push_back(static_cast<char>(simple));
      continue;
    }
    if (is_octal(c)) {
      uint32_t v = static_cast<uint32_t>(c - '0');
      if (i < n && is_octal(data[i])) {
        v = v * 8 + static_cast<uint32_t>(data[i++] - '0');
        if (i < n && is_octal(data[i])) {
          v = v * 8 + static_cast<uint32_t>(data[i++] - '0');
        }
      }
      if (v > 0377 && first_invalid == k_none) {
        first_invalid = start;
        first_invalid_octal = true;
      }
      support::append_utf8(out, v);
      continue;
    }
    if (c == 'x' || c == 'u' || c == 'U') {
      const int count = c == 'x' ? 2 : c == 'u' ? 4 : 8;
      const char* reason = c == 'x'   ? "truncated \\xXX escape"
                           : c == 'u' ? "truncated \\uXXXX escape"
                                      : "truncated \\UXXXXXXXX escape";
      uint32_t v = 0;
      for (int k = 0; k < count; ++k, ++i) {
        const int h = i < n ? support::hex_digit_value(data[i]) : -1;
        if (h < 0) {
          add_unicode_error(body, start, i, reason, problems);
          return false;
        }
        v = (v << 4) | static_cast<uint32_t>(h);
      }
      if (v > 0x10FFFF) {
        add_unicode_error(body, start, i, "illegal Unicode character", problems);
        return false;
      }
      support::append_utf8(out, v);
      continue;
    }
    if (c == 'N') {
      const char* reason = "malformed \\N character escape";
      if (i < n && data[i] == '{') {
        const size_t name_start = ++i;
        while (i < n && data[i] != '}') {
          ++i;
        }
        if (i < n && i > name_start) {
          ++i;
          uint32_t cp = 0;
          if (lookup_unicode_name(body.substr(name_start, i - 1 - name_start), cp)) {
            support::append_utf8(out, cp);
            continue;
          }
          reason = "unknown Unicode character name";
        }
      }
      add_unicode_error(body, start, i, reason, problems);
      return false;
    }
    if (first_invalid == k_none) {
      first_invalid = start;
      first_invalid_octal = false;
    }
    out.push_back('\\');
    out.push_back(c);
  }
  if (first_invalid != k_none) {
    add_escape_warning(body, first_invalid, first_invalid_octal, problems);
  }
  return true;
}

bool decode_bytes_literal(std::string_view body, bool raw, std::string& out,
                          std::vector<LiteralProblem>& problems) {
  if (has_non_ascii(body)) {
    size_t at = 0;
    while (static_cast<unsigned char>(body[at]) < 0x80) {
      ++at;
    }
    problems.push_back(
        {static_cast<uint32_t>(at), true, "bytes can only contain ASCII literal characters"});
    return false;
  }
  const char* data = body.data();
  const size_t n = body.size();
  const void* first_backslash = raw ? nullptr : std::memchr(data, '\\', n);
  if (first_backslash == nullptr) {
    out.append(body);
    return true;
  }
  size_t first_invalid = k_none;
  bool first_invalid_octal = false;
  size_t i = static_cast<size_t>(static_cast<const char*>(first_backslash) - data);
  out.append(data, i);
  while (i < n) {
    if (data[i] != '\\') {
      const void* next = std::memchr(data + i, '\\', n - i);
      const size_t stop =
          next == nullptr ? n : static_cast<size_t>(static_cast<const char*>(next) - data);
      out.append(data + i, stop - i);
      i = stop;
      continue;
    }
    const size_t start = i;
    ++i;
    if (i >= n) {
      problems.push_back(
          {static_cast<uint32_t>(start), true, "(value error) Trailing \\ in string"});
      return false;
    }
    const char c = data[i++];
    if (c == '\n') {
      continue;
    }
    if (const int simple = simple_escape(c); simple >= 0) {
      out.push_back(static_cast<char>(simple));
      continue;
    }
    if (is_octal(c)) {
      uint32_t v = static_cast<uint32_t>(c - '0');
      if (i < n && is_octal(data[i])) {
        v = v * 8 + static_cast<uint32_t>(data[i++] - '0');
        if (i < n && is_octal(data[i])) {
          v = v * 8 + static_cast<uint32_t>(data[i++] - '0');
        }
      }
      if (v > 0377 && first_invalid == k_none) {
        first_invalid = start;
        first_invalid_octal = true;
      }
      out.push_back(static_cast<char>(v & 0xFF));
      continue;
    }
    if (c == 'x') {
      const int d1 = i + 1 < n ? support::hex_digit_value(data[i]) : -1;
      const int d2 = i + 1 < n ? support::hex_digit_value(data[i + 1]) : -1;
      if (d1 < 0 || d2 < 0) {
        problems.push_back(
            {static_cast<uint32_t>(start), true,
             "(value error) invalid \\x escape at position " + std::to_string(start)});
        return false;
      }
      out.push_back(static_cast<char>((d1 << 4) | d2));
      i += 2;
      continue;
    }
    if (first_invalid == k_none) {
      first_invalid = start;
      first_invalid_octal = false;
    }
    out.push_back('\\');
    out.push_back(c);
  }
  if (first_invalid != k_none) {
    add_escape_warning(body, first_invalid, first_invalid_octal, problems);
  }
  return true;
}

}  // namespace qd::syntax
