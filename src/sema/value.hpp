// Compile-time values of module constants, evaluated with Python semantics.
//
// qdbuild evaluates module-level constant expressions (literals, arithmetic, tuples, references
// to other constants, enum members) without running Python. Ints are 128-bit (so every u64 and
// i64 value, and the arithmetic on them, is exact): an operation whose exact Python result does
// not fit yields an unknown value whose `why` says so (QD111), so a key never holds a wrong
// value. Floats are IEEE doubles as in CPython; `repr` prints exactly
// what Python's repr() prints for these types (the text that enters kernel keys).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "syntax/ast_nodes.hpp"

namespace qd::sema {

using Int = __int128;

// Decimal text of an Int, as Python prints it.
std::string int_text(Int v);
// Whether v fits int64_t (and then `out` holds it).
bool fits_i64(Int v, int64_t& out);

struct Value {
  enum class Kind : uint8_t {
    unknown,
    none,
    boolean,
    integer,
    floating,
    string,
    tuple,
    enum_member
  };
  Kind kind = Kind::unknown;
  bool b = false;
  Int iv = 0;  // integer
  double f = 0.0;
  // string: the text (UTF-8). enum_member: "module.Class.MEMBER". unknown: why it is unknown.
  std::string s;
  // tuple: the items. enum_member: one item, the member's value.
  std::vector<Value> items;

  static Value unknown(std::string why);
  static Value none();
  static Value boolean(bool v);
  static Value integer(Int v);
  static Value floating(double v);
  static Value string(std::string v);
  static Value tuple(std::vector<Value> v);
  static Value enum_member(std::string qualified, Value value);

  bool known() const { return kind != Kind::unknown; }
  // int, float or bool (what Quadrants checks a captured value for), str included separately.
  bool is_number() const;
};

// Python's repr(); an enum member prints as "<module.Class.MEMBER: value>" (the class is named,
// unlike Quadrants' keys); unknown prints as "<unknown>".
std::string repr(const Value& v);
// Python's type name: "int", "float", "bool", "str", "tuple", "NoneType", or the enum class.
std::string type_name(const Value& v);

// The value of a Constant node (Int beyond 128 bits is unknown; bytes/complex/... are unknown).
Value constant_value(const syntax::ast::ConstantValue& c);

// Python arithmetic. Unknown operands or unsupported operations give unknown values.
Value binary_op(syntax::ast::Operator op, const Value& a, const Value& b);
Value unary_op(syntax::ast::UnaryOperator op, const Value& a);
Value compare_op(syntax::ast::CmpOperator op, const Value& a, const Value& b);
// bool(v); `known` is false when the truth value is not known.
bool truthy(const Value& v, bool& known);
// Python equality (1 == 1.0 == True).
bool equal(const Value& a, const Value& b);

}  // namespace qd::sema
