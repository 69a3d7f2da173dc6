#include "syntax/number_literal.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace qd::syntax {

TEST_CASE("number_literal: classify") {
  CHECK(classify_number("0") == NumberKind::Int);
  CHECK(classify_number("1_000") == NumberKind::Int);
  CHECK(classify_number("0xE") == NumberKind::Int);
  CHECK(classify_number("0xe5") == NumberKind::Int);
  CHECK(classify_number("1e5") == NumberKind::Float);
  CHECK(classify_number("1.") == NumberKind::Float);
  CHECK(classify_number(".5") == NumberKind::Float);
  CHECK(classify_number("1j") == NumberKind::Imaginary);
  CHECK(classify_number("1.5E3J") == NumberKind::Imaginary);
}

TEST_CASE("number_literal: ints") {
  CHECK(int_literal_decimal("0") == "0");
  CHECK(int_literal_decimal("00") == "0");
  CHECK(int_literal_decimal("0_0") == "0");
  CHECK(int_literal_decimal("1_000") == "1000");
  CHECK(int_literal_decimal("0x_FF") == "255");
  CHECK(int_literal_decimal("0XdeadBEEF") == "3735928559");
  CHECK(int_literal_decimal("0o17") == "15");
  CHECK(int_literal_decimal("0b1") == "1");
  CHECK(int_literal_decimal("0b_0000") == "0");
  CHECK(int_literal_decimal("0xFFFFFFFFFFFFFFFF") == "18446744073709551615");
  CHECK(int_literal_decimal("0x10000000000000000") == "18446744073709551616");
  CHECK(int_literal_decimal("0xFFFFFFFFFFFFFFFFFFFFFFFFFFFF") ==
        "5192296858534827628530496329220095");
  CHECK(int_literal_decimal("0o7777777777777777777777777") == "37778931862957161709567");
  CHECK(int_literal_decimal("123456789012345678901234567890") == "123456789012345678901234567890");
}

TEST_CASE("number_literal: floats") {
  CHECK(float_literal_value("1.5") == 1.5);
  CHECK(float_literal_value("1_000.5e-1_0j") == 1000.5e-10);
  CHECK(float_literal_value("1.") == 1.0);
  CHECK(float_literal_value(".5") == 0.5);
  CHECK(float_literal_value("0.1") == 0.1);
  CHECK(float_literal_value("1E5J") == 1e5);
  CHECK(float_literal_value("2.4703282292062328e-324") == 5e-324);
  CHECK(std::isinf(float_literal_value("1e400")));
  CHECK(std::isinf(float_literal_value("1.7976931348623159e308")));
  CHECK(float_literal_value("1e-400") == 0.0);
  CHECK(float_literal_value("0e99999999999999999999") == 0.0);
  CHECK(std::isinf(float_literal_value("0.0001e99999999999999999999")));
}

}  // namespace qd::syntax
