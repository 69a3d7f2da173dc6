#include "sema/value.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

namespace qd::sema {
namespace {

using O = syntax::ast::Operator;
using C = syntax::ast::CmpOperator;

Value I(int64_t v) { return Value::integer(v); }
Value F(double v) { return Value::floating(v); }

TEST_CASE("value: Python integer arithmetic (floor division and modulo follow the divisor)") {
  CHECK(repr(binary_op(O::FloorDiv, I(7), I(2))) == "3");
  CHECK(repr(binary_op(O::FloorDiv, I(-7), I(2))) == "-4");
  CHECK(repr(binary_op(O::Mod, I(-7), I(3))) == "2");
  CHECK(repr(binary_op(O::Mod, I(7), I(-3))) == "-2");
  CHECK(repr(binary_op(O::Div, I(1), I(3))) == "0.3333333333333333");
  CHECK(repr(binary_op(O::Div, I(4), I(2))) == "2.0");
  CHECK(repr(binary_op(O::Pow, I(2), I(10))) == "1024");
  CHECK(repr(binary_op(O::Pow, I(2), I(-1))) == "0.5");
  CHECK(repr(binary_op(O::LShift, I(1), I(4))) == "16");
  CHECK(repr(binary_op(O::RShift, I(-16), I(2))) == "-4");
  CHECK(repr(binary_op(O::Add, Value::boolean(true), I(1))) == "2");  // bool is an int
  CHECK(repr(binary_op(O::BitOr, Value::boolean(true), Value::boolean(false))) == "True");
  CHECK(repr(unary_op(syntax::ast::UnaryOperator::Invert, I(5))) == "-6");
}

TEST_CASE("value: ints are exact to 128 bits; beyond that they are unknown, never wrapped") {
  // u64 constants and arithmetic on them are exact (0xFFFFFFFFFFFFFFFF masks, 2**63).
  CHECK(repr(binary_op(O::Mult, I(std::numeric_limits<int64_t>::max()), I(2))) ==
        "18446744073709551614");
  CHECK(repr(binary_op(O::Pow, I(2), I(64))) == "18446744073709551616");
  CHECK(repr(binary_op(O::Sub, binary_op(O::Pow, I(2), I(64)), I(1))) == "18446744073709551615");
  CHECK(repr(binary_op(O::LShift, I(1), I(126))) == "85070591730234615865843651857942052864");
  CHECK(repr(unary_op(syntax::ast::UnaryOperator::USub, I(std::numeric_limits<int64_t>::min()))) ==
        "9223372036854775808");
  CHECK(repr(binary_op(O::FloorDiv, binary_op(O::Pow, I(2), I(100)), I(-3))) ==
        "-422550200076076467165567735126");
  CHECK(binary_op(O::Pow, I(2), I(62)).iv == (int64_t(1) << 62));
  Value v = binary_op(O::Pow, I(2), I(127));
  CHECK_FALSE(v.known());
  CHECK(v.s.find("128-bit") != std::string::npos);
  CHECK_FALSE(binary_op(O::LShift, I(1), I(127)).known());
  CHECK_FALSE(binary_op(O::Mult, binary_op(O::Pow, I(2), I(100)), I(1 << 30)).known());
  CHECK_FALSE(binary_op(O::FloorDiv, I(1), I(0)).known());
  int64_t out = 0;
  CHECK_FALSE(fits_i64(binary_op(O::Pow, I(2), I(63)).iv, out));
  CHECK(fits_i64(binary_op(O::Sub, I(0), binary_op(O::Pow, I(2), I(63))).iv, out));
  CHECK(out == std::numeric_limits<int64_t>::min());
}

TEST_CASE("value: floats as CPython (divmod signs, repr)") {
  CHECK(repr(binary_op(O::Mod, F(-7.5), F(2.0))) == "0.5");
  CHECK(repr(binary_op(O::FloorDiv, F(-7.5), F(2.0))) == "-4.0");
  CHECK(repr(binary_op(O::Mod, F(7.5), F(-2.0))) == "-0.5");
  CHECK(repr(binary_op(O::Mult, F(0.1), I(3))) == "0.30000000000000004");
  CHECK(repr(F(1e16)) == "1e+16");
  CHECK(repr(binary_op(O::Add, F(1e-6 * 10), F(0))) == "9.999999999999999e-06");
}

TEST_CASE("value: strings, tuples, comparisons, truth") {
  CHECK(repr(binary_op(O::Add, Value::string("ab"), Value::string("c"))) == "'abc'");
  CHECK(repr(binary_op(O::Mult, Value::string("ab"), I(2))) == "'abab'");
  Value t = Value::tuple({I(1), F(2.5), Value::string("x")});
  CHECK(repr(t) == "(1, 2.5, 'x')");
  CHECK(repr(Value::tuple({I(1)})) == "(1,)");
  CHECK(repr(binary_op(O::Add, t, Value::tuple({I(4)}))) == "(1, 2.5, 'x', 4)");
  CHECK(compare_op(C::Eq, I(1), F(1.0)).b);
  CHECK(compare_op(C::Eq, Value::boolean(true), I(1)).b);
  CHECK(compare_op(C::Lt, Value::string("a"), Value::string("b")).b);
  CHECK(compare_op(C::In, I(2), Value::tuple({I(1), I(2)})).b);
  CHECK_FALSE(compare_op(C::Lt, F(std::nan("")), F(1)).b);
  bool known = false;
  CHECK_FALSE(truthy(Value::tuple({}), known));
  CHECK(known);
  truthy(Value::unknown("x"), known);
  CHECK_FALSE(known);
}

TEST_CASE("value: enum members keep their class in repr and act as their value") {
  Value red = Value::enum_member("colors.Color.RED", I(1));
  CHECK(repr(red) == "<colors.Color.RED: 1>");
  CHECK(type_name(red) == "colors.Color");
  CHECK(repr(binary_op(O::Add, red, I(1))) == "2");
}

}  // namespace
}  // namespace qd::sema
