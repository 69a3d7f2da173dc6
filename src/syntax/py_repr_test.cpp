#include "syntax/py_repr.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

namespace qd::syntax {

namespace {

std::string str(std::string_view s) {
  std::string out;
  repr_str(out, s);
  return out;
}

std::string bytes(std::string_view s) {
  std::string out;
  repr_bytes(out, s);
  return out;
}

std::string flt(double v) {
  std::string out;
  repr_float(out, v);
  return out;
}

std::string imag(double v) {
  std::string out;
  repr_imaginary(out, v);
  return out;
}

}  // namespace

TEST_CASE("py_repr: str quotes and escapes") {
  CHECK(str("") == "''");
  CHECK(str("abc") == "'abc'");
  CHECK(str("it's") == "\"it's\"");
  CHECK(str("'\"") == "'\\'\"'");
  CHECK(str("say \"hi\"") == "'say \"hi\"'");
  CHECK(str("a\\b") == "'a\\\\b'");
  CHECK(str("\t\n\r") == "'\\t\\n\\r'");
  CHECK(str(std::string("\0\x01\x1f\x7f", 4)) == "'\\x00\\x01\\x1f\\x7f'");
}

TEST_CASE("py_repr: str non-ASCII") {
  CHECK(str("\xC3\xA9") == "'\xC3\xA9'");                  // é printable
  CHECK(str("\xC2\xA0") == "'\\xa0'");                     // NO-BREAK SPACE
  CHECK(str("\xC2\xAD") == "'\\xad'");                     // SOFT HYPHEN
  CHECK(str("\xE2\x80\xA8") == "'\\u2028'");               // LINE SEPARATOR
  CHECK(str("\xED\xA0\x80") == "'\\ud800'");               // lone surrogate
  CHECK(str("\xF0\x9F\x98\x80") == "'\xF0\x9F\x98\x80'");  // emoji printable
  CHECK(str("\xF3\xA0\x80\x81") == "'\\U000e0001'");       // LANGUAGE TAG
  CHECK(str("\xF4\x8F\xBF\xBF") == "'\\U0010ffff'");
}

TEST_CASE("py_repr: bytes") {
  CHECK(bytes("") == "b''");
  CHECK(bytes("abc") == "b'abc'");
  CHECK(bytes("it's") == "b\"it's\"");
  CHECK(bytes("'\"") == "b'\\'\"'");
  CHECK(bytes("\\\t\n\r") == "b'\\\\\\t\\n\\r'");
  CHECK(bytes(std::string("\0\x7f\x80\xff", 4)) == "b'\\x00\\x7f\\x80\\xff'");
}

TEST_CASE("py_repr: float") {
  CHECK(flt(1.0) == "1.0");
  CHECK(flt(0.0) == "0.0");
  CHECK(flt(-0.0) == "-0.0");
  CHECK(flt(0.1) == "0.1");
  CHECK(flt(1.5) == "1.5");
  CHECK(flt(1e16) == "1e+16");
  CHECK(flt(1e15) == "1000000000000000.0");
  CHECK(flt(9999999999999998.0) == "9999999999999998.0");
  CHECK(flt(123456789012345678.0) == "1.2345678901234568e+17");
  CHECK(flt(1e-4) == "0.0001");
  CHECK(flt(1e-5) == "1e-05");
  CHECK(flt(1.5e-7) == "1.5e-07");
  CHECK(flt(1e100) == "1e+100");
  CHECK(flt(5e-324) == "5e-324");
  CHECK(flt(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(flt(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(flt(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(flt(std::nan("")) == "nan");
  CHECK(flt(-2.5) == "-2.5");
}

TEST_CASE("py_repr: imaginary") {
  CHECK(imag(1.0) == "1j");
  CHECK(imag(0.0) == "0j");
  CHECK(imag(1.5) == "1.5j");
  CHECK(imag(1e16) == "1e+16j");
  CHECK(imag(1e15) == "1000000000000000j");
  CHECK(imag(1e-5) == "1e-05j");
  CHECK(imag(std::numeric_limits<double>::infinity()) == "infj");
  CHECK(imag(std::nan("")) == "nanj");
}

}  // namespace qd::syntax
