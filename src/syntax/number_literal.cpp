#include "syntax/number_literal.hpp"

#include "support/hex.hpp"
#include <charconv>
#include <cstdint>
#include <limits>
#include <vector>

namespace qd::syntax {

namespace {

bool has_base_prefix(std::string_view text) {
  return text.size() >= 2 && text[0] == '0' &&
         (text[1] == 'x' || text[1] == 'X' || text[1] == 'o' || text[1] == 'O' || text[1] == 'b' ||
          text[1] == 'B');
}

int digit_value(char c) {
  int v = support::hex_digit_value(c);
  return v < 0 ? 99 : v;
}

// Digits without underscores and leading zeros ("" for zero).
std::string significant_digits(std::string_view digits) {
  std::string out;
  out.reserve(digits.size());
  for (const char c : digits) {
    if (c == '_' || (out.empty() && c == '0')) {
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// Base 2/8/16 digits (no underscores, no leading zeros) of any length to decimal.
std::string big_power_of_two_to_decimal(const std::string& digits, int bits_per_digit) {
  // Little-endian 32-bit limbs.
  std::vector<uint32_t> limbs((digits.size() * bits_per_digit + 31) / 32 + 1, 0);
  size_t bit = 0;
  for (size_t k = digits.size(); k-- > 0;) {
    const auto v = static_cast<uint64_t>(digit_value(digits[k]));
    const size_t limb = bit / 32;
    const size_t shift = bit % 32;
    const uint64_t wide = v << shift;
    limbs[limb] |= static_cast<uint32_t>(wide);
    if ((wide >> 32) != 0) {
      limbs[limb + 1] |= static_cast<uint32_t>(wide >> 32);
    }
    bit += static_cast<size_t>(bits_per_digit);
  }
  while (!limbs.empty() && limbs.back() == 0) {
    limbs.pop_back();
  }
  // Repeated division by 10^9 yields base-10^9 chunks, least significant first.
  std::vector<uint32_t> chunks;
  while (!limbs.empty()) {
    uint64_t rem = 0;
    for (size_t k = limbs.size(); k-- > 0;) {
      const uint64_t cur = (rem << 32) | limbs[k];
      limbs[k] = static_cast<uint32_t>(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    chunks.push_back(static_cast<uint32_t>(rem));
    while (!limbs.empty() && limbs.back() == 0) {
      limbs.pop_back();
    }
  }
  std::string out = std::to_string(chunks.back());
  for (size_t k = chunks.size() - 1; k-- > 0;) {
    const std::string part = std::to_string(chunks[k]);
    out.append(9 - part.size(), '0');
    out.append(part);
  }
  return out;
}

}  // namespace

NumberKind classify_number(std::string_view text) {
  if (has_base_prefix(text)) {
    return NumberKind::Int;
  }
  if (!text.empty() && (text.back() == 'j' || text.back() == 'J')) {
    return NumberKind::Imaginary;
  }
  for (const char c : text) {
    if (c == '.' || c == 'e' || c == 'E') {
      return NumberKind::Float;
    }
  }
  return NumberKind::Int;
}

std::string int_literal_decimal(std::string_view text) {
  int base = 10;
  int bits = 0;
  if (has_base_prefix(text)) {
    const char p = text[1];
    base = (p == 'x' || p == 'X') ? 16 : (p == 'o' || p == 'O') ? 8 : 2;
    bits = base == 16 ? 4 : base == 8 ? 3 : 1;
    text.remove_prefix(2);
  }
  const std::string digits = significant_digits(text);
  if (digits.empty()) {
    return "0";
  }
  if (base == 10) {
    return digits;
  }
  if (static_cast<size_t>(bits) * digits.size() <= 64) {
    uint64_t v = 0;
    for (const char c : digits) {
      v = (v << bits) | static_cast<uint64_t>(digit_value(c));
    }
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
  }
  return big_power_of_two_to_decimal(digits, bits);
}

double float_literal_value(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (const char c : text) {
    if (c != '_') {
      clean.push_back(c);
    }
  }
  if (!clean.empty() && (clean.back() == 'j' || clean.back() == 'J')) {
    clean.pop_back();
  }
  double value = 0.0;
  const char* first = clean.data();
  const char* last = clean.data() + clean.size();
  const auto res = std::from_chars(first, last, value, std::chars_format::general);
  if (res.ec == std::errc()) {
    return value;
  }
  if (res.ec != std::errc::result_out_of_range) {
    return 0.0;  // The lexer has checked the syntax; not reached for valid literals.
  }
  // Out of range: decide between overflow (inf) and underflow (0.0) from the decimal
  // magnitude of the first significant digit.
  const size_t e_pos = clean.find_first_of("eE");
  const std::string_view mantissa(clean.data(), e_pos == std::string::npos ? clean.size() : e_pos);
  long long exponent = 0;
  if (e_pos != std::string::npos) {
    size_t k = e_pos + 1;
    bool negative = false;
    if (k < clean.size() && (clean[k] == '+' || clean[k] == '-')) {
      negative = clean[k] == '-';
      ++k;
    }
    for (; k < clean.size(); ++k) {
      if (exponent < 1'000'000'000'000LL) {
        exponent = exponent * 10 + (clean[k] - '0');
      }
    }
    exponent = negative ? -exponent : exponent;
  }
  const size_t dot = mantissa.find('.');
  const size_t int_len = dot == std::string_view::npos ? mantissa.size() : dot;
  long long magnitude = 0;
  bool found = false;
  for (size_t k = 0; k < mantissa.size(); ++k) {
    if (mantissa[k] >= '1' && mantissa[k] <= '9') {
      magnitude = k < int_len ? static_cast<long long>(int_len - k) - 1
                              : -static_cast<long long>(k - int_len);
      found = true;
      break;
    }
  }
  if (!found) {
    return 0.0;
  }
  return magnitude + exponent > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace qd::syntax
