// Math calls: Python's and qd.math's functions (with Quadrants' folding of compile-time
// numbers), min/max, and numpy's on compile-time values.
#include <cmath>
#include <optional>

#include "ir/lower/lowerer.hpp"
#include "sema/resolve.hpp"

namespace qd::ir::lower {

namespace {

// Quadrants' math on a compile-time Python number runs in Python, with numpy (ops.py
// _unary_operation: np.sin, np.floor, np.round, ...): a float result (np.round rounds half to
// even; floor/ceil/round give floats too), NaN outside the domain, and an int kept by abs.
std::optional<sema::Value> fold_math(UnOp op, const sema::Value& v) {
  using K = sema::Value::Kind;
  if (v.kind != K::integer && v.kind != K::floating && v.kind != K::boolean) {
    return std::nullopt;
  }
  double x = v.kind == K::floating  ? v.f
             : v.kind == K::boolean ? (v.b ? 1.0 : 0.0)
                                    : static_cast<double>(v.iv);
  switch (op) {
    case UnOp::abs:
      if (v.kind == K::integer) {
        return v.iv < 0 ? sema::unary_op(ast::UnaryOperator::USub, v) : v;
      }
      if (v.kind == K::boolean) {
        return sema::Value::integer(v.b ? 1 : 0);
      }
      return sema::Value::floating(std::fabs(x));
    case UnOp::sin: return sema::Value::floating(std::sin(x));
    case UnOp::cos: return sema::Value::floating(std::cos(x));
    case UnOp::tan: return sema::Value::floating(std::tan(x));
    case UnOp::asin: return sema::Value::floating(std::asin(x));
    case UnOp::acos: return sema::Value::floating(std::acos(x));
    case UnOp::atan: return sema::Value::floating(std::atan(x));
    case UnOp::tanh: return sema::Value::floating(std::tanh(x));
    case UnOp::exp: return sema::Value::floating(std::exp(x));
    case UnOp::log: return sema::Value::floating(std::log(x));
    case UnOp::sqrt: return sema::Value::floating(std::sqrt(x));
    case UnOp::rsqrt: return sema::Value::floating(1.0 / std::sqrt(x));
    case UnOp::floor: return sema::Value::floating(std::floor(x));
    case UnOp::ceil: return sema::Value::floating(std::ceil(x));
    case UnOp::round: return sema::Value::floating(std::nearbyint(x));  // half to even
    default: return std::nullopt;
  }
}

}  // namespace

Val Lowerer::unary_math(UnOp op, const Val& v, const ast::Pos& pos, bool int_to_float,
                        bool int_ok) {
  if (v.kind == Val::Kind::py) {
    if (std::optional<sema::Value> r = fold_math(op, v.py)) {
      return Val::of_py(*r);
    }
  }
  auto one = [&](const Expr* e) -> const Expr* {
    DType t = e->type;
    if (is_integral(t)) {
      if (int_to_float) {
        t = m_default_fp;
      } else if (!int_ok) {
        type_error(pos, std::string(name_of(op)) + "() takes real inputs only, got " + name_of(t));
      }
    }
    return m_kernel->unary(op, t, m_kernel->cast(t, e));
  };
  if (v.kind == Val::Kind::tensor) {
    return tensor_unary(v, one);
  }
  return Val::of_scalar(one(to_scalar(v, pos)));
}

Val Lowerer::min_max(bool is_max, std::vector<Val>& args, const ast::Pos& pos) {
  if (args.size() == 1) {
    Val one = args[0];
    if (one.kind == Val::Kind::tensor) {
      return reduce(one, is_max ? BinOp::max : BinOp::min, pos);
    }
    args = static_items(one, pos);
  }
  if (args.size() < 2) {
    type_error(pos, std::string(is_max ? "max" : "min") + "() needs at least two arguments");
  }
  bool all_py = true;
  for (const Val& a : args) {
    all_py = all_py && a.kind == Val::Kind::py;
  }
  if (all_py) {
    Val best = args[0];
    for (size_t k = 1; k < args.size(); ++k) {
      sema::Value gt = sema::compare_op(ast::CmpOperator::Gt, args[k].py, best.py);
      sema::Value lt = sema::compare_op(ast::CmpOperator::Lt, args[k].py, best.py);
      if ((is_max && gt.b) || (!is_max && lt.b)) {
        best = args[k];
      }
    }
    return best;
  }
  Val acc = args[0];
  for (size_t k = 1; k < args.size(); ++k) {
    const Val& b = args[k];
    BinOp op = is_max ? BinOp::max : BinOp::min;
    if (acc.kind == Val::Kind::tensor || b.kind == Val::Kind::tensor) {
      const Val& shape = acc.kind == Val::Kind::tensor ? acc : b;
      std::vector<const Expr*> elems;
      DType t = promoted(element_type(acc, pos), element_type(b, pos));
      for (int32_t i = 0; i < shape.size(); ++i) {
        const Expr* x = element_of(acc, i, pos);
        const Expr* y = element_of(b, i, pos);
        elems.push_back(m_kernel->binary(op, t, m_kernel->cast(t, x), m_kernel->cast(t, y)));
      }
      acc = Val::of_tensor(std::move(elems), shape.rows, shape.cols, t);
      continue;
    }
    const Expr* x = to_scalar(acc, pos);
    const Expr* y = to_scalar(b, pos);
    DType t = promoted(x->type, y->type);
    acc = Val::of_scalar(m_kernel->binary(op, t, m_kernel->cast(t, x), m_kernel->cast(t, y)));
  }
  return acc;
}

Val Lowerer::call_math(const std::string& name, const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  auto need = [&](size_t n) {
    if (args.size() != n) {
      type_error(pos, "qd." + name + "() takes " + std::to_string(n) + " argument" +
                          (n == 1 ? "" : "s") + ", got " + std::to_string(args.size()));
    }
  };
  struct Un {
    const char* name;
    UnOp op;
    bool int_to_float;
    bool int_ok;
  };
  static const Un k_unary[] = {
      {"sin", UnOp::sin, false, false},    {"cos", UnOp::cos, false, false},
      {"tan", UnOp::tan, false, false},    {"asin", UnOp::asin, false, false},
      {"acos", UnOp::acos, false, false},  {"atan", UnOp::atan, false, false},
      {"tanh", UnOp::tanh, false, false},  {"exp", UnOp::exp, true, false},
      {"log", UnOp::log, true, false},     {"sqrt", UnOp::sqrt, true, false},
      {"rsqrt", UnOp::rsqrt, true, false}, {"abs", UnOp::abs, false, true},
  };
  for (const Un& u : k_unary) {
    if (name == u.name) {
      need(1);
      return unary_math(u.op, args[0], pos, u.int_to_float, u.int_ok);
    }
  }
  if (name == "isnan" || name == "isinf") {
    need(1);
    UnOp op = name == "isnan" ? UnOp::isnan : UnOp::isinf;
    auto one = [&](const Expr* e) -> const Expr* {
      if (!is_float(e->type)) {
        type_error(pos, "qd.math." + name + "() takes real inputs only, got " + name_of(e->type));
      }
      return m_kernel->unary(op, DType::u1, e);
    };
    if (args[0].kind == Val::Kind::tensor) {
      return tensor_unary(args[0], one);
    }
    return Val::of_scalar(one(to_scalar(args[0], pos)));
  }
  if (name == "floor" || name == "ceil" || name == "round") {
    if (args.empty() || args.size() > 2) {
      type_error(pos, "qd." + name + "(x, dtype=None) takes one or two arguments");
    }
    UnOp op = name == "floor" ? UnOp::floor : name == "ceil" ? UnOp::ceil : UnOp::round;
    Val r = unary_math(op, args[0], pos, false, false);
    const ast::Expr* dt = args.size() > 1 ? nullptr : keyword(c, "dtype");
    Val dv = args.size() > 1 ? args[1] : dt != nullptr ? eval(dt) : Val::of_py(sema::Value::none());
    if (dv.kind == Val::Kind::dtype) {
      return cast_val(r, dv.dtype, pos);
    }
    return r;
  }
  if (name == "ffs") {
    need(1);
    if (args[0].kind == Val::Kind::py) {
      type_error(pos, "qd.math.ffs() of a compile-time Python number (Quadrants has no fallback "
                      "for it: the result depends on the bit width; write qd.math.ffs(qd.i32(x)))");
    }
    // The 1-based index of the lowest set bit (0 for 0), an i32 whatever the operand's type,
    // as Quadrants' type check makes it (ops.ffs).
    auto one = [&](const Expr* e) -> const Expr* {
      if (!is_integral(e->type)) {
        type_error(pos, std::string("qd.math.ffs() takes an integer, got ") + name_of(e->type));
      }
      return m_kernel->unary(UnOp::ffs, DType::i32, e);
    };
    if (args[0].kind == Val::Kind::tensor) {
      return tensor_unary(args[0], one);
    }
    return Val::of_scalar(one(to_scalar(args[0], pos)));
  }
  if (name == "popcnt" || name == "clz") {
    need(1);
    UnOp op = name == "popcnt" ? UnOp::popcnt : UnOp::clz;
    auto one = [&](const Expr* e) -> const Expr* {
      if (is_float(e->type)) {
        type_error(pos, "qd." + name + "() takes an integer");
      }
      // popcnt keeps its argument's type (as Quadrants does); clz gives i32.
      return m_kernel->unary(op, op == UnOp::popcnt ? e->type : DType::i32, e);
    };
    if (args[0].kind == Val::Kind::tensor) {
      return tensor_unary(args[0], one);
    }
    return Val::of_scalar(one(to_scalar(args[0], pos)));
  }
  if (name == "atan2") {
    need(2);
    const Expr* y = to_scalar(args[0], pos);
    const Expr* x = to_scalar(args[1], pos);
    DType t = y->type == DType::f64 || x->type == DType::f64 ? DType::f64 : DType::f32;
    return Val::of_scalar(
        m_kernel->binary(BinOp::atan2, t, m_kernel->cast(t, y), m_kernel->cast(t, x)));
  }
  if (name == "pow") {
    need(2);
    return binary(ast::Operator::Pow, args[0], args[1], pos);
  }
  if (name == "max" || name == "min") {
    return min_max(name == "max", args, pos);
  }
  if (name == "log2") {
    need(1);
    Val l = unary_math(UnOp::log, args[0], pos, true, false);
    return binary(ast::Operator::Div, l, Val::of_py(sema::Value::floating(std::log(2.0))), pos);
  }
  if (name == "clamp") {
    need(3);
    std::vector<Val> lo{args[0], args[1]};
    Val m = min_max(true, lo, pos);
    std::vector<Val> hi{m, args[2]};
    return min_max(false, hi, pos);
  }
  if (name == "mix") {
    need(3);  // x * (1 - a) + y * a
    Val one_minus =
        binary(ast::Operator::Sub, Val::of_py(sema::Value::floating(1.0)), args[2], pos);
    return binary(ast::Operator::Add, binary(ast::Operator::Mult, args[0], one_minus, pos),
                  binary(ast::Operator::Mult, args[1], args[2], pos), pos);
  }
  if (name == "fract") {
    need(1);
    Val f = unary_math(UnOp::floor, args[0], pos, false, false);
    return binary(ast::Operator::Sub, args[0], f, pos);
  }
  if (name == "step") {
    need(2);  // 0 if x < edge else 1
    auto one = [&](const Expr* edge, const Expr* x) {
      DType t = promoted(promoted(edge->type, x->type), m_default_fp);
      const Expr* lt =
          m_kernel->binary(BinOp::lt, DType::u1, m_kernel->cast(t, x), m_kernel->cast(t, edge));
      return m_kernel->select(lt, m_kernel->constant_float(t, 0.0),
                              m_kernel->constant_float(t, 1.0));
    };
    if (args[1].kind == Val::Kind::tensor) {
      std::vector<const Expr*> elems;
      for (size_t i = 0; i < args[1].elems.size(); ++i) {
        const Expr* e = element_of(args[0], static_cast<int32_t>(i), pos);
        elems.push_back(one(e, args[1].elems[i]));
      }
      return Val::of_tensor(std::move(elems), args[1].rows, args[1].cols, elems.front()->type);
    }
    return Val::of_scalar(one(to_scalar(args[0], pos), to_scalar(args[1], pos)));
  }
  if (name == "smoothstep") {
    need(3);  // t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2 t)
    Val t = binary(ast::Operator::Div, binary(ast::Operator::Sub, args[2], args[0], pos),
                   binary(ast::Operator::Sub, args[1], args[0], pos), pos);
    std::vector<Val> a{t, Val::of_py(sema::Value::floating(0.0))};
    Val lo = min_max(true, a, pos);
    std::vector<Val> b{lo, Val::of_py(sema::Value::floating(1.0))};
    t = materialize(min_max(false, b, pos), pos);
    Val three_minus =
        binary(ast::Operator::Sub, Val::of_py(sema::Value::floating(3.0)),
               binary(ast::Operator::Mult, Val::of_py(sema::Value::floating(2.0)), t, pos), pos);
    return binary(ast::Operator::Mult, binary(ast::Operator::Mult, t, t, pos), three_minus, pos);
  }
  if (name == "sign") {
    need(1);
    auto one = [&](const Expr* x) {
      const Expr* zero = m_kernel->constant_int(x->type, 0);
      const Expr* pos1 = m_kernel->constant_int(x->type, 1);
      const Expr* neg1 =
          is_float(x->type) || is_signed(x->type) ? m_kernel->constant_int(x->type, -1) : zero;
      return m_kernel->select(
          m_kernel->binary(BinOp::gt, DType::u1, x, zero), pos1,
          m_kernel->select(m_kernel->binary(BinOp::lt, DType::u1, x, zero), neg1, zero));
    };
    if (args[0].kind == Val::Kind::tensor) {
      return tensor_unary(args[0], one);
    }
    return Val::of_scalar(one(to_scalar(args[0], pos)));
  }
  if (name == "degrees" || name == "radians") {
    need(1);
    double f = name == "degrees" ? 180.0 / M_PI : M_PI / 180.0;
    return binary(ast::Operator::Mult, args[0], Val::of_py(sema::Value::floating(f)), pos);
  }
  if (name == "dot") {
    need(2);
    return dot(as_tensor(args[0], pos), as_tensor(args[1], pos), pos);
  }
  if (name == "cross" || name == "length" || name == "normalize" || name == "distance") {
    Val a = as_tensor(args.empty() ? Val{} : args[0], pos);
    std::vector<Val> rest(args.begin() + 1, args.end());
    if (name == "distance") {
      need(2);
      Val d = tensor_binary(ast::Operator::Sub, a, as_tensor(args[1], pos), pos);
      std::vector<Val> none;
      return tensor_method(d, "norm", none, c, pos);
    }
    return tensor_method(a,
                         name == "length"      ? "norm"
                         : name == "normalize" ? "normalized"
                                               : name,
                         rest, c, pos);
  }
  if (name == "reflect") {
    need(2);  // I - 2 * dot(N, I) * N
    Val i = as_tensor(args[0], pos);
    Val n = as_tensor(args[1], pos);
    Val d = dot(n, i, pos);
    Val twice = binary(ast::Operator::Mult, Val::of_py(sema::Value::floating(2.0)), d, pos);
    return tensor_binary(ast::Operator::Sub, i, tensor_binary(ast::Operator::Mult, twice, n, pos),
                         pos);
  }
  unsupported(pos, "qd." + name);
}

Val Lowerer::call_numpy(const std::string& name, const ast::Call* c, std::vector<Val>& args) {
  // numpy at trace time (Quadrants runs it as Python): scalar constructors and nextafter of
  // compile-time values. A numpy float32 keeps its precision in `path` ("f32") until float().
  const ast::Pos& pos = c->pos;
  auto number = [&](const Val& v) -> double {
    if (!v.is_py_number()) {
      fail(pos, "QD206",
           "numpy." + name + "() in a kernel takes compile-time numbers, got " + v.describe() +
               " (numpy runs at compile time only)");
    }
    return v.py.kind == sema::Value::Kind::floating  ? v.py.f
           : v.py.kind == sema::Value::Kind::integer ? static_cast<double>(v.py.iv)
                                                     : (v.py.b ? 1.0 : 0.0);
  };
  auto f32 = [](double x) {
    Val v = Val::of_py(sema::Value::floating(static_cast<double>(static_cast<float>(x))));
    v.path = "f32";
    return v;
  };
  if ((name == "float32" || name == "float64") && args.size() == 1) {
    double x = number(args[0]);
    return name == "float32" ? f32(x) : Val::of_py(sema::Value::floating(x));
  }
  if ((name == "int32" || name == "int64") && args.size() == 1 && args[0].is_py_number()) {
    double x = number(args[0]);
    int64_t i = static_cast<int64_t>(std::trunc(x));
    if (name == "int32") {
      i = static_cast<int32_t>(static_cast<uint32_t>(i));
    }
    return Val::of_int(i);
  }
  if (name == "nextafter" && args.size() == 2) {
    double a = number(args[0]);
    double b = number(args[1]);
    if (args[0].path == "f32" || args[1].path == "f32") {
      return f32(std::nextafterf(static_cast<float>(a), static_cast<float>(b)));
    }
    return Val::of_py(sema::Value::floating(std::nextafter(a, b)));
  }
  unsupported(pos, "numpy." + name +
                       "(...) in a kernel (qdbuild evaluates numpy.float32, float64, "
                       "int32, int64 and nextafter of compile-time numbers)");
}

}  // namespace qd::ir::lower
