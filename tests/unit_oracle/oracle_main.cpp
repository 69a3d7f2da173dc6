// Driver for tests/unit_oracle/compare.py: runs one function of qd::syntax (MODE) on each
// hex-encoded stdin line and prints one answer per line. Not part of any CMake target; compare.py
// builds it with the sources it exercises.
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "syntax/literal_decode.hpp"
#include "syntax/number_literal.hpp"
#include "syntax/py_repr.hpp"
#include "syntax/unicode.hpp"

namespace {

using namespace qd::syntax;

std::string unhex(std::string_view h) {
  std::string s;
  for (size_t i = 0; i + 1 < h.size(); i += 2) {
    s.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  }
  return s;
}

std::string hex(std::string_view s) {
  static const char k_digits[] = "0123456789abcdef";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    out.push_back(k_digits[c >> 4]);
    out.push_back(k_digits[c & 15]);
  }
  return out;
}

double double_from_hex_bits(const std::string& line) {
  const uint64_t bits = std::stoull(line, nullptr, 16);
  double d = 0;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// "OK <hex value>" or "ERR", then " | E message" / " | W message" per problem.
std::string decode(const std::string& mode, const std::string& body) {
  std::vector<LiteralProblem> problems;
  std::string value;
  const bool raw = mode[0] == 'r';
  const bool ok = mode.find("bytes") != std::string::npos
                      ? decode_bytes_literal(body, raw, value, problems)
                      : decode_str_literal(body, raw, value, problems);
  std::string out = ok ? "OK " + hex(value) : "ERR";
  for (const auto& p : problems) {
    out += std::string(" | ") + (p.is_error ? "E " : "W ") + p.message;
  }
  return out;
}

std::string number(const std::string& text) {
  const NumberKind kind = classify_number(text);
  std::string out;
  if (kind == NumberKind::Int) {
    return "int " + int_literal_decimal(text);
  }
  const double v = float_literal_value(text);
  if (kind == NumberKind::Float) {
    out = "float ";
    repr_float(out, v);
  } else {
    out = "imag ";
    repr_imaginary(out, v);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  if (argc < 2) {
    std::cerr << "usage: oracle MODE < lines\n";
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "props") {
    // One digit per code point: 1 identifier start + 2 identifier continue + 4 printable.
    std::string out;
    for (uint32_t cp = 0; cp < 0x110000; ++cp) {
      out.push_back(static_cast<char>('0' + (is_identifier_start(cp) ? 1 : 0) +
                                      (is_identifier_continue(cp) ? 2 : 0) +
                                      (is_printable(cp) ? 4 : 0)));
    }
    std::cout << out << "\n";
    return 0;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    std::string out;
    if (mode == "nfkc") {
      out = hex(nfkc(unhex(line)));
    } else if (mode == "name") {
      uint32_t cp = 0;
      out = lookup_unicode_name(unhex(line), cp) ? std::to_string(cp) : "-1";
    } else if (mode == "repr_str") {
      repr_str(out, unhex(line));
      out = hex(out);
    } else if (mode == "repr_bytes") {
      repr_bytes(out, unhex(line));
    } else if (mode == "repr_float") {
      repr_float(out, double_from_hex_bits(line));
    } else if (mode == "repr_imag") {
      repr_imaginary(out, double_from_hex_bits(line));
    } else if (mode == "number") {
      out = number(unhex(line));
    } else {
      out = decode(mode, unhex(line));
    }
    std::cout << out << "\n";
  }
  return 0;
}
