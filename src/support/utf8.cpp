#include "support/utf8.hpp"

#include <cstring>

namespace qd::support {

namespace {

// Shared decoder; `allow_surrogates` admits 3-byte encodings of U+D800..U+DFFF.
inline uint32_t decode_one(std::string_view s, size_t& i, bool allow_surrogates) {
  const size_t n = s.size();
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  auto cont = [&](size_t k) -> int {
    if (i + k >= n) {
      return -1;
    }
    const auto b = static_cast<unsigned char>(s[i + k]);
    return (b & 0xC0) == 0x80 ? (b & 0x3F) : -1;
  };
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    const int c1 = cont(1);
    if (c1 >= 0) {
      i += 2;
      return ((b0 & 0x1Fu) << 6) | static_cast<uint32_t>(c1);
    }
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    const int c1 = cont(1);
    const int c2 = c1 >= 0 ? cont(2) : -1;
    if (c2 >= 0) {
      const uint32_t cp =
          ((b0 & 0x0Fu) << 12) | (static_cast<uint32_t>(c1) << 6) | static_cast<uint32_t>(c2);
      if (cp >= 0x800 && (allow_surrogates || cp < 0xD800 || cp > 0xDFFF)) {
        i += 3;
        return cp;
      }
    }
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    const int c1 = cont(1);
    const int c2 = c1 >= 0 ? cont(2) : -1;
    const int c3 = c2 >= 0 ? cont(3) : -1;
    if (c3 >= 0) {
      const uint32_t cp = ((b0 & 0x07u) << 18) | (static_cast<uint32_t>(c1) << 12) |
                          (static_cast<uint32_t>(c2) << 6) | static_cast<uint32_t>(c3);
      if (cp >= 0x10000 && cp <= 0x10FFFF) {
        i += 4;
        return cp;
      }
    }
  }
  ++i;
  return k_invalid_code_point;
}

}  // namespace

uint32_t decode_utf8(std::string_view s, size_t& i) { return decode_one(s, i, false); }

uint32_t decode_utf8_lenient(std::string_view s, size_t& i) { return decode_one(s, i, true); }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    const char buf[2] = {static_cast<char>(0xC0 | (cp >> 6)),
                         static_cast<char>(0x80 | (cp & 0x3F))};
    out.append(buf, 2);
  } else if (cp < 0x10000) {
    const char buf[3] = {static_cast<char>(0xE0 | (cp >> 12)),
                         static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                         static_cast<char>(0x80 | (cp & 0x3F))};
    out.append(buf, 3);
  } else {
    const char buf[4] = {static_cast<char>(0xF0 | ((cp >> 18) & 0x07)),
                         static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
                         static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                         static_cast<char>(0x80 | (cp & 0x3F))};
    out.append(buf, 4);
  }
}

size_t find_invalid_utf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    // ASCII runs 8 bytes at a time.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ull) != 0) {
        break;
      }
      i += 8;
    }
    if (i >= n) {
      break;
    }
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t start = i;
    if (decode_one(s, i, false) == k_invalid_code_point) {
      return start;
    }
  }
  return std::string_view::npos;
}

size_t count_code_points(std::string_view s) {
  size_t i = 0;
  size_t count = 0;
  const size_t n = s.size();
  while (i < n) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
    } else {
      decode_one(s, i, true);
    }
    ++count;
  }
  return count;
}

}  // namespace qd::support
