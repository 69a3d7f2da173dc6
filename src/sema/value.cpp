#include "sema/value.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "syntax/py_repr.hpp"

namespace qd::sema {

namespace ast = syntax::ast;
using K = Value::Kind;

Value Value::unknown(std::string why) {
  Value v;
  v.s = std::move(why);
  return v;
}
Value Value::none() {
  Value v;
  v.kind = K::none;
  return v;
}
Value Value::boolean(bool b) {
  Value v;
  v.kind = K::boolean;
  v.b = b;
  return v;
}
Value Value::integer(Int i) {
  Value v;
  v.kind = K::integer;
  v.iv = i;
  return v;
}

std::string int_text(Int v) {
  bool neg = v < 0;
  // The magnitude as unsigned (-min is not representable as signed).
  unsigned __int128 m =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits += static_cast<char>('0' + static_cast<int>(m % 10));
    m /= 10;
  } while (m != 0);
  if (neg) {
    digits += '-';
  }
  return {digits.rbegin(), digits.rend()};
}

bool fits_i64(Int v, int64_t& out) {
  if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max()) {
    return false;
  }
  out = static_cast<int64_t>(v);
  return true;
}
Value Value::floating(double f) {
  Value v;
  v.kind = K::floating;
  v.f = f;
  return v;
}
Value Value::string(std::string s) {
  Value v;
  v.kind = K::string;
  v.s = std::move(s);
  return v;
}
Value Value::tuple(std::vector<Value> items) {
  Value v;
  v.kind = K::tuple;
  v.items = std::move(items);
  return v;
}
Value Value::enum_member(std::string qualified, Value value) {
  Value v;
  v.kind = K::enum_member;
  v.s = std::move(qualified);
  v.items.push_back(std::move(value));
  return v;
}

bool Value::is_number() const {
  return kind == K::integer || kind == K::floating || kind == K::boolean;
}

std::string repr(const Value& v) {
  std::string out;
  switch (v.kind) {
    case K::unknown: return "<unknown>";
    case K::none: return "None";
    case K::boolean: return v.b ? "True" : "False";
    case K::integer: return int_text(v.iv);
    case K::floating: syntax::repr_float(out, v.f); return out;
    case K::string: syntax::repr_str(out, v.s); return out;
    case K::tuple:
      out = "(";
      for (size_t k = 0; k < v.items.size(); ++k) {
        out += (k > 0 ? ", " : "") + repr(v.items[k]);
      }
      return out + (v.items.size() == 1 ? ",)" : ")");
    case K::enum_member: return "<" + v.s + ": " + repr(v.items.at(0)) + ">";
  }
  return out;
}

std::string type_name(const Value& v) {
  switch (v.kind) {
    case K::unknown: return "?";
    case K::none: return "NoneType";
    case K::boolean: return "bool";
    case K::integer: return "int";
    case K::floating: return "float";
    case K::string: return "str";
    case K::tuple: return "tuple";
    case K::enum_member: return v.s.substr(0, v.s.rfind('.'));
  }
  return "?";
}

Value constant_value(const ast::ConstantValue& c) {
  using CK = ast::ConstantValue::Kind;
  switch (c.kind) {
    case CK::None: return Value::none();
    case CK::True: return Value::boolean(true);
    case CK::False: return Value::boolean(false);
    case CK::Str: return Value::string(std::string(c.text));
    case CK::Float: return Value::floating(c.number);
    case CK::Int: {
      // The decimal text of the literal's value (the parser normalizes 0x.., 1_000, ...).
      std::string_view t = c.text;
      bool neg = !t.empty() && t[0] == '-';
      if (neg) {
        t.remove_prefix(1);
      }
      Int n = 0;
      bool ok = !t.empty();
      for (char ch : t) {
        if (ch < '0' || ch > '9' || __builtin_mul_overflow(n, Int(10), &n) ||
            __builtin_add_overflow(n, Int(ch - '0'), &n)) {
          ok = false;
          break;
        }
      }
      if (!ok) {
        return Value::unknown("integer literal " + std::string(c.text) +
                              " does not fit in 128 bits (qdbuild evaluates ints as 128-bit)");
      }
      return Value::integer(neg ? -n : n);
    }
    case CK::Ellipsis: return Value::unknown("Ellipsis is not a supported constant");
    case CK::Complex: return Value::unknown("complex numbers are not supported constants");
    case CK::Bytes: return Value::unknown("bytes are not supported constants");
  }
  return Value::unknown("unsupported constant");
}

namespace {

const char* k_overflow = "integer overflow (qdbuild evaluates ints as 128-bit)";
constexpr Int k_int_max = static_cast<Int>(~static_cast<unsigned __int128>(0) >> 1);
constexpr Int k_int_min = -k_int_max - 1;

// An int view of int/bool; false for other kinds.
bool as_int(const Value& v, Int& out) {
  if (v.kind == K::integer) {
    out = v.iv;
    return true;
  }
  if (v.kind == K::boolean) {
    out = v.b ? 1 : 0;
    return true;
  }
  return false;
}

bool as_float(const Value& v, double& out) {
  Int i = 0;
  if (as_int(v, i)) {
    out = static_cast<double>(i);
    return true;
  }
  if (v.kind == K::floating) {
    out = v.f;
    return true;
  }
  return false;
}

Value int_pow(Int base, Int exp) {
  Int result = 1;
  while (exp > 0) {
    if ((exp & 1) != 0 && __builtin_mul_overflow(result, base, &result)) {
      return Value::unknown(k_overflow);
    }
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(base, base, &base)) {
      return Value::unknown(k_overflow);
    }
  }
  return Value::integer(result);
}

// CPython's float divmod (Objects/floatobject.c _float_div_mod).
void float_divmod(double vx, double wx, double& floordiv, double& mod) {
  mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0.0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) {
      floordiv += 1.0;
    }
  } else {
    floordiv = std::copysign(0.0, vx / wx);
  }
}

Value repeat(const Value& seq, Int count) {
  if (count > (1 << 20)) {
    return Value::unknown("sequence too long");
  }
  int64_t n = count < 0 ? 0 : static_cast<int64_t>(count);
  if (seq.kind == K::string) {
    if (n > 0 && seq.s.size() > (1u << 20) / static_cast<size_t>(n)) {
      return Value::unknown("string too long");
    }
    std::string out;
    for (int64_t k = 0; k < n; ++k) {
      out += seq.s;
    }
    return Value::string(out);
  }
  if (n > 0 && seq.items.size() > (1u << 16) / static_cast<size_t>(n)) {
    return Value::unknown("tuple too long");
  }
  std::vector<Value> out;
  for (int64_t k = 0; k < n; ++k) {
    out.insert(out.end(), seq.items.begin(), seq.items.end());
  }
  return Value::tuple(out);
}

}  // namespace

Value binary_op(ast::Operator op, const Value& a0, const Value& b0) {
  if (!a0.known()) {
    return a0;
  }
  if (!b0.known()) {
    return b0;
  }
  // Enum members take part in arithmetic through their value (IntEnum / IntFlag).
  const Value& a = a0.kind == K::enum_member ? a0.items[0] : a0;
  const Value& b = b0.kind == K::enum_member ? b0.items[0] : b0;
  using O = ast::Operator;
  Int x = 0;
  Int y = 0;
  bool ints = as_int(a, x) && as_int(b, y);
  // Sequences.
  if (op == O::Add && a.kind == b.kind && (a.kind == K::string || a.kind == K::tuple)) {
    if (a.kind == K::string) {
      return Value::string(a.s + b.s);
    }
    std::vector<Value> items = a.items;
    items.insert(items.end(), b.items.begin(), b.items.end());
    return Value::tuple(items);
  }
  if (op == O::Mult && (a.kind == K::string || a.kind == K::tuple) && as_int(b, y)) {
    return repeat(a, y);
  }
  if (op == O::Mult && (b.kind == K::string || b.kind == K::tuple) && as_int(a, x)) {
    return repeat(b, x);
  }
  if (ints) {
    Int r = 0;
    switch (op) {
      case O::Add:
        return __builtin_add_overflow(x, y, &r) ? Value::unknown(k_overflow) : Value::integer(r);
      case O::Sub:
        return __builtin_sub_overflow(x, y, &r) ? Value::unknown(k_overflow) : Value::integer(r);
      case O::Mult:
        return __builtin_mul_overflow(x, y, &r) ? Value::unknown(k_overflow) : Value::integer(r);
      case O::Div:
        if (y == 0) {
          return Value::unknown("division by zero");
        }
        return Value::floating(static_cast<double>(x) / static_cast<double>(y));
      case O::FloorDiv:
      case O::Mod: {
        if (y == 0) {
          return Value::unknown("integer division or modulo by zero");
        }
        if (x == k_int_min && y == -1) {
          return op == O::Mod ? Value::integer(0) : Value::unknown(k_overflow);
        }
        Int q = x / y;
        Int m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
          q -= 1;
          m += y;
        }
        return Value::integer(op == O::Mod ? m : q);
      }
      case O::Pow:
        if (y < 0) {
          if (x == 0) {
            return Value::unknown("0 cannot be raised to a negative power");
          }
          return Value::floating(std::pow(static_cast<double>(x), static_cast<double>(y)));
        }
        return int_pow(x, y);
      case O::LShift:
        if (y < 0) {
          return Value::unknown("negative shift count");
        }
        if (x == 0) {
          return Value::integer(0);
        }
        if (y >= 127 || (x > 0 ? x > (k_int_max >> y) : x < (k_int_min >> y))) {
          return Value::unknown(k_overflow);
        }
        return Value::integer(static_cast<Int>(static_cast<unsigned __int128>(x) << y));
      case O::RShift:
        if (y < 0) {
          return Value::unknown("negative shift count");
        }
        return Value::integer(y >= 127 ? (x < 0 ? -1 : 0) : (x >> y));
      case O::BitAnd:
        if (a.kind == K::boolean && b.kind == K::boolean) {
          return Value::boolean(a.b && b.b);
        }
        return Value::integer(x & y);
      case O::BitOr:
        if (a.kind == K::boolean && b.kind == K::boolean) {
          return Value::boolean(a.b || b.b);
        }
        return Value::integer(x | y);
      case O::BitXor:
        if (a.kind == K::boolean && b.kind == K::boolean) {
          return Value::boolean(a.b != b.b);
        }
        return Value::integer(x ^ y);
      case O::MatMult: return Value::unknown("unsupported operand for @");
    }
  }
  double fx = 0;
  double fy = 0;
  if (as_float(a, fx) && as_float(b, fy)) {
    switch (op) {
      case O::Add: return Value::floating(fx + fy);
      case O::Sub: return Value::floating(fx - fy);
      case O::Mult: return Value::floating(fx * fy);
      case O::Div:
        if (fy == 0.0) {
          return Value::unknown("float division by zero");
        }
        return Value::floating(fx / fy);
      case O::FloorDiv:
      case O::Mod: {
        if (fy == 0.0) {
          return Value::unknown("float modulo or floor division by zero");
        }
        double q = 0;
        double m = 0;
        float_divmod(fx, fy, q, m);
        return Value::floating(op == O::Mod ? m : q);
      }
      case O::Pow:
        if (fx == 0.0 && fy < 0) {
          return Value::unknown("0.0 cannot be raised to a negative power");
        }
        if (fx < 0 && fy != std::floor(fy)) {
          return Value::unknown("negative number to a fractional power is complex");
        }
        return Value::floating(std::pow(fx, fy));
      default: break;
    }
  }
  return Value::unknown("unsupported operand types for " + std::string(ast::name_of(op)) + ": '" +
                        type_name(a) + "' and '" + type_name(b) + "'");
}

Value unary_op(ast::UnaryOperator op, const Value& a0) {
  if (!a0.known()) {
    return a0;
  }
  using U = ast::UnaryOperator;
  if (op == U::Not) {
    bool known = false;
    bool t = truthy(a0, known);
    return known ? Value::boolean(!t) : Value::unknown("truth value not known");
  }
  const Value& a = a0.kind == K::enum_member ? a0.items[0] : a0;
  Int x = 0;
  if (as_int(a, x)) {
    switch (op) {
      case U::UAdd: return Value::integer(x);
      case U::USub:
        if (x == k_int_min) {
          return Value::unknown(k_overflow);
        }
        return Value::integer(-x);
      case U::Invert: return Value::integer(~x);
      case U::Not: break;
    }
  }
  if (a.kind == K::floating) {
    if (op == U::UAdd) {
      return a;
    }
    if (op == U::USub) {
      return Value::floating(-a.f);
    }
  }
  return Value::unknown("bad operand type for unary " + std::string(ast::name_of(op)) + ": '" +
                        type_name(a) + "'");
}

bool truthy(const Value& v, bool& known) {
  known = true;
  switch (v.kind) {
    case K::unknown: known = false; return false;
    case K::none: return false;
    case K::boolean: return v.b;
    case K::integer: return v.iv != 0;
    case K::floating: return v.f != 0.0;
    case K::string: return !v.s.empty();
    case K::tuple: return !v.items.empty();
    case K::enum_member: return truthy(v.items[0], known);
  }
  known = false;
  return false;
}

bool equal(const Value& a, const Value& b) {
  double fx = 0;
  double fy = 0;
  Int x = 0;
  Int y = 0;
  if (as_int(a, x) && as_int(b, y)) {
    return x == y;
  }
  if (as_float(a, fx) && as_float(b, fy)) {
    return fx == fy;
  }
  if (a.kind != b.kind) {
    return false;
  }
  switch (a.kind) {
    case K::none: return true;
    case K::string: return a.s == b.s;
    case K::enum_member: return a.s == b.s;
    case K::tuple:
      if (a.items.size() != b.items.size()) {
        return false;
      }
      for (size_t k = 0; k < a.items.size(); ++k) {
        if (!equal(a.items[k], b.items[k])) {
          return false;
        }
      }
      return true;
    default: return false;
  }
}

Value compare_op(ast::CmpOperator op, const Value& a, const Value& b) {
  if (!a.known()) {
    return a;
  }
  if (!b.known()) {
    return b;
  }
  using C = ast::CmpOperator;
  switch (op) {
    case C::Eq: return Value::boolean(equal(a, b));
    case C::NotEq: return Value::boolean(!equal(a, b));
    case C::Is:
    case C::IsNot:
      if (a.kind == K::none || b.kind == K::none || a.kind == K::boolean ||
          a.kind == K::enum_member) {
        bool same = a.kind == b.kind && equal(a, b);
        return Value::boolean(op == C::Is ? same : !same);
      }
      return Value::unknown("identity of values is not known statically");
    case C::In:
    case C::NotIn:
      if (b.kind == K::tuple) {
        bool found = false;
        for (const Value& item : b.items) {
          found = found || equal(a, item);
        }
        return Value::boolean(op == C::In ? found : !found);
      }
      if (b.kind == K::string && a.kind == K::string) {
        bool found = b.s.find(a.s) != std::string::npos;
        return Value::boolean(op == C::In ? found : !found);
      }
      return Value::unknown("unsupported operand for 'in'");
    default: break;
  }
  double fx = 0;
  double fy = 0;
  int c = 0;
  if (as_float(a, fx) && as_float(b, fy)) {
    Int x = 0;
    Int y = 0;
    if (as_int(a, x) && as_int(b, y)) {
      c = x < y ? -1 : (x > y ? 1 : 0);
    } else if (std::isnan(fx) || std::isnan(fy)) {
      return Value::boolean(false);
    } else {
      c = fx < fy ? -1 : (fx > fy ? 1 : 0);
    }
  } else if (a.kind == K::string && b.kind == K::string) {
    c = a.s.compare(b.s);
  } else {
    return Value::unknown("unsupported comparison");
  }
  switch (op) {
    case C::Lt: return Value::boolean(c < 0);
    case C::LtE: return Value::boolean(c <= 0);
    case C::Gt: return Value::boolean(c > 0);
    case C::GtE: return Value::boolean(c >= 0);
    default: break;
  }
  return Value::unknown("unsupported comparison");
}

}  // namespace qd::sema
