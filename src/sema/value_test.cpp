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

TEST_CASE("value: overflow beyond int64 is unknown, never wrapped") {
  Value v = binary_op(O::Mult, I(std::numeric_limits<int64_t>::max()), I(2));
  CHECK_FALSE(v.known());
  CHECK(v.s.find("int64") != std::string::npos);
  CHECK_FALSE(binary_op(O::Pow, I(2), I(64)).known());
  CHECK(binary_op(O::Pow, I(2), I(62)).i == (int64_t(1) << 62));
  CHECK_FALSE(binary_op(O::LShift, I(1), I(63)).known());
  CHECK_FALSE(
      unary_op(syntax::ast::UnaryOperator::USub, I(std::numeric_limits<int64_t>::min())).known());
  CHECK_FALSE(binary_op(O::FloorDiv, I(1), I(0)).known());
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
