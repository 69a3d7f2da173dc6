#include "syntax/py_repr.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "support/utf8.hpp"
#include "syntax/unicode.hpp"

namespace qd::syntax {

namespace {

constexpr char k_hex_digits[] = "0123456789abcdef";

void append_hex_escape(std::string& out, char kind, uint32_t v, int digits) {
  char buf[10];
  buf[0] = '\\';
  buf[1] = kind;
  for (int i = 0; i < digits; ++i) {
    buf[2 + i] = k_hex_digits[(v >> (4 * (digits - 1 - i))) & 15];
  }
  out.append(buf, static_cast<size_t>(2 + digits));
}

// Printable ASCII that needs no escape (the quote and backslash are handled by the caller).
constexpr bool is_plain_ascii(unsigned char c) {
  return c >= 0x20 && c < 0x7F && c != '\\' && c != '\'' && c != '"';
}

struct PlainTable {
  bool m_plain[256];
  constexpr PlainTable() : m_plain() {
    for (int c = 0; c < 256; ++c) {
      m_plain[c] = is_plain_ascii(static_cast<unsigned char>(c));
    }
  }
};
constexpr PlainTable k_plain;

// Picks the quote as CPython does: ' unless the text has ' and no ".
char choose_quote(std::string_view s) {
  const void* single = std::memchr(s.data(), '\'', s.size());
  if (single == nullptr) {
    return '\'';
  }
  return std::memchr(s.data(), '"', s.size()) == nullptr ? '"' : '\'';
}

// Appends the repr() form of one byte that is not plain printable ASCII (c < 0x80 for str).
void append_ascii_escape(std::string& out, unsigned char c, char quote) {
  switch (c) {
    case '\\': out.append("\\\\"); return;
    case '\t': out.append("\\t"); return;
    case '\n': out.append("\\n"); return;
    case '\r': out.append("\\r"); return;
    default: break;
  }
  if (c == static_cast<unsigned char>(quote)) {
    out.push_back('\\');
    out.push_back(static_cast<char>(c));
  } else if (c == '\'' || c == '"') {
    out.push_back(static_cast<char>(c));
  } else {
    append_hex_escape(out, 'x', c, 2);
  }
}

// Python's float_repr_style 'r' formatting of `v`; `add_dot_0` appends ".0" to integral
// values in fixed notation (float repr does, complex repr does not).
void format_double(std::string& out, double v, bool add_dot_0) {
  if (std::isnan(v)) {
    out.append("nan");
    return;
  }
  if (std::isinf(v)) {
    out.append(v < 0 ? "-inf" : "inf");
    return;
  }
  if (v == 0.0) {
    out.append(std::signbit(v) ? "-0" : "0");
    if (add_dot_0) {
      out.append(".0");
    }
    return;
  }
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  // buf: [-]d[.ddd]e(+|-)XX
  const char* p = buf;
  const char* end = res.ptr;
  if (*p == '-') {
    out.push_back('-');
    ++p;
  }
  char digits[32];
  int ndigits = 0;
  while (p < end && *p != 'e') {
    if (*p != '.') {
      digits[ndigits++] = *p;
    }
    ++p;
  }
  int exp10 = 0;
  std::from_chars(p + (p[1] == '+' ? 2 : 1), end, exp10);
  // Strip trailing zeros (to_chars gives the shortest form, but be safe).
  while (ndigits > 1 && digits[ndigits - 1] == '0') {
    --ndigits;
  }
  const int decpt = exp10 + 1;  // value = 0.d1d2... * 10^decpt
  if (decpt <= -4 || decpt > 16) {
    out.push_back(digits[0]);
    if (ndigits > 1) {
      out.push_back('.');
      out.append(digits + 1, static_cast<size_t>(ndigits - 1));
    }
    out.push_back('e');
    out.push_back(exp10 < 0 ? '-' : '+');
    const int a = exp10 < 0 ? -exp10 : exp10;
    if (a < 10) {
      out.push_back('0');
    }
    char ebuf[8];
    const auto er = std::to_chars(ebuf, ebuf + sizeof ebuf, a);
    out.append(ebuf, er.ptr);
    return;
  }
  if (decpt <= 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-decpt), '0');
    out.append(digits, static_cast<size_t>(ndigits));
    return;
  }
  if (ndigits <= decpt) {
    out.append(digits, static_cast<size_t>(ndigits));
    out.append(static_cast<size_t>(decpt - ndigits), '0');
    if (add_dot_0) {
      out.append(".0");
    }
    return;
  }
  out.append(digits, static_cast<size_t>(decpt));
  out.push_back('.');
  out.append(digits + decpt, static_cast<size_t>(ndigits - decpt));
}

}  // namespace

void repr_str(std::string& out, std::string_view utf8) {
  const char quote = choose_quote(utf8);
  out.push_back(quote);
  const char* data = utf8.data();
  const size_t n = utf8.size();
  size_t i = 0;
  while (i < n) {
    size_t run = i;
    while (run < n && k_plain.m_plain[static_cast<unsigned char>(data[run])]) {
      ++run;
    }
    if (run > i) {
      out.append(data + i, run - i);
      i = run;
      if (i >= n) {
        break;
      }
    }
    const auto c = static_cast<unsigned char>(data[i]);
    if (c < 0x80) {
      append_ascii_escape(out, c, quote);
      ++i;
      continue;
    }
    const size_t start = i;
    const uint32_t cp = support::decode_utf8_lenient(utf8, i);
    if (cp == support::k_invalid_code_point) {
      // Not generalized UTF-8; show the byte as CPython would show a surrogateescape'd byte.
      append_hex_escape(out, 'u', 0xDC00 + c, 4);
      continue;
    }
    if (is_printable(cp)) {
      out.append(data + start, i - start);
    } else if (cp <= 0xFF) {
      append_hex_escape(out, 'x', cp, 2);
    } else if (cp <= 0xFFFF) {
      append_hex_escape(out, 'u', cp, 4);
    } else {
      append_hex_escape(out, 'U', cp, 8);
    }
  }
  out.push_back(quote);
}

void repr_bytes(std::string& out, std::string_view bytes) {
  const char quote = choose_quote(bytes);
  out.push_back('b');
  out.push_back(quote);
  const char* data = bytes.data();
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    size_t run = i;
    while (run < n && k_plain.m_plain[static_cast<unsigned char>(data[run])]) {
      ++run;
    }
    out.append(data + i, run - i);
    i = run;
    if (i >= n) {
      break;
    }
    append_ascii_escape(out, static_cast<unsigned char>(data[i]), quote);
    ++i;
  }
  out.push_back(quote);
}

void repr_float(std::string& out, double v) { format_double(out, v, true); }

void repr_imaginary(std::string& out, double imag) {
  format_double(out, imag, false);
  out.push_back('j');
}

}  // namespace qd::syntax
