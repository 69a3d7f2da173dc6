// Calls: Python builtins, the qd.* API (docs/language.md §5), atomics, and qd.func inlining
// with its by-value / by-reference parameter rules (§1.8).
#include <cmath>
#include <optional>

#include "ir/lower/lowerer.hpp"
#include "sema/resolve.hpp"

namespace qd::ir::lower {

const ast::Expr* Lowerer::keyword(const ast::Call* c, std::string_view name) {
  for (const ast::Keyword* k : c->keywords) {
    if (!ast::is_absent(k->arg) && k->arg == name) {
      return k->value;
    }
  }
  return nullptr;
}

Val Lowerer::eval_call(const ast::Call* c) {
  if (const auto* a = c->func->as<ast::Attribute>(); a != nullptr && a->attr == "fill") {
    bool place = is_lvalue_expr(a->value);
    if (const auto* n = a->value->as<ast::Name>()) {
      BindingRef b = find_local(n->id);
      place = place || (b != nullptr && b->kind != Binding::Kind::value);
    }
    if (place) {
      return call_fill(a, c);  // v.fill(x), m[i].fill(x): assigns into the place
    }
  }
  Val callee = eval(c->func);
  if (callee.kind == Val::Kind::api) {
    const std::string& p = callee.path;
    if (p.starts_with("atomic_")) {
      return call_atomic(p, c);
    }
    if (p == "loop_config") {
      if (const ast::Expr* s = keyword(c, "serialize")) {
        m_pending_serialize = static_truth(eval(s), s->pos);
      }
      if (const ast::Expr* b = keyword(c, "block_dim")) {
        int64_t n = static_int(eval(b), b->pos, "qd.loop_config(block_dim=...)");
        if (n < 1 || n > 1024) {
          fail(b->pos, "QD206", "block_dim must be between 1 and 1024, got " + std::to_string(n));
        }
        m_pending_block_dim = n;
      }
      return Val::of_py(sema::Value::none());
    }
  }
  // A qd.template() parameter of a func binds its argument by reference (§1.8).
  std::vector<bool> by_ref;
  if (callee.kind == Val::Kind::func) {
    by_ref = template_params(callee.def);
  }
  std::vector<Val> args;
  std::vector<BindingRef> refs;
  size_t bound_first = 0;
  if (callee.kind == Val::Kind::func && callee.obj != nullptr) {
    // A bound method (self.weight(x)): the object is its first parameter.
    Val self;
    self.kind = Val::Kind::object;
    self.obj = callee.obj;
    args.push_back(std::move(self));
    refs.emplace_back();
    bound_first = 1;
  }
  for (const ast::Expr* a : c->args) {
    if (const auto* st = a->as<ast::Starred>()) {
      for (Val& v : static_items(eval(st->value), a->pos)) {
        args.push_back(std::move(v));
        refs.emplace_back();
      }
      continue;
    }
    size_t k = args.size();
    if (k < by_ref.size() && by_ref[k]) {
      Val v;
      refs.push_back(bind_by_reference(a, v, "qd.template() parameter"));
      args.push_back(std::move(v));
      continue;
    }
    args.push_back(eval(a));
    refs.emplace_back();
  }
  switch (callee.kind) {
    case Val::Kind::api: return call_api(callee.path, c, args);
    case Val::Kind::builtin: return call_builtin(callee.path, c, args);
    case Val::Kind::func: return call_func(callee.def, c, args, refs, bound_first);
    case Val::Kind::dtype:
      if (args.size() != 1) {
        type_error(c->pos, std::string(name_of(callee.dtype)) + "() takes one argument");
      }
      return construct_scalar(args[0], callee.dtype, c->pos);
    case Val::Kind::tensor_type: return construct_tensor_type(callee, args, c->pos);
    case Val::Kind::method: return call_method(callee, c, args);
    case Val::Kind::class_:
      unsupported(c->pos, "creating an instance of the class '" +
                              sema::class_path(*m_in.program, callee.cls) +
                              "' in a kernel (kernels take dataclasses as parameters)");
    default: unsupported(c->pos, "calling " + callee.describe());
  }
}

Val Lowerer::call_atomic(const std::string& name, const ast::Call* c) {
  if (name == "atomic_cas") {
    // qd.atomic_cas(x, expected, desired): integers only, the old value back.
    if (c->args.size != 3) {
      type_error(c->pos, "qd.atomic_cas(x, expected, desired) takes three arguments");
    }
    LValue lv = lvalue(c->args[0]);
    if (lv.kind == LValue::Kind::tensor) {
      fail(c->pos, "QD201",
           "qd.atomic_cas on a vector or matrix is not supported in kernels (as in Quadrants: "
           "'atomic_cas' on tensor destinations is not supported); use one component");
    }
    Val expected = eval(c->args[1]);
    Val desired = eval(c->args[2]);
    if (!is_integral(lv.type)) {
      type_error(c->pos,
                 std::string("qd.atomic_cas needs an integer target, not ") + name_of(lv.type));
    }
    return atomic(AtomicOp::cas, lv, desired, c->pos, true, &expected);
  }
  if (c->args.size != 2) {
    type_error(c->pos, "qd." + name + "(x, y) takes two arguments");
  }
  static const std::pair<const char*, AtomicOp> k_ops[] = {
      {"atomic_add", AtomicOp::add},           {"atomic_sub", AtomicOp::sub},
      {"atomic_mul", AtomicOp::mul},           {"atomic_min", AtomicOp::min},
      {"atomic_max", AtomicOp::max},           {"atomic_and", AtomicOp::bit_and},
      {"atomic_or", AtomicOp::bit_or},         {"atomic_xor", AtomicOp::bit_xor},
      {"atomic_exchange", AtomicOp::exchange},
  };
  for (const auto& [n, op] : k_ops) {
    if (name == n) {
      LValue lv = lvalue(c->args[0]);
      Val v = eval(c->args[1]);
      return atomic(op, lv, v, c->pos, true);
    }
  }
  unsupported(c->pos, "qd." + name);
}

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
      DType t = promoted(acc.kind == Val::Kind::tensor ? acc.dtype : to_scalar(acc, pos)->type,
                         b.kind == Val::Kind::tensor ? b.dtype : to_scalar(b, pos)->type);
      for (int32_t i = 0; i < shape.size(); ++i) {
        const Expr* x = acc.kind == Val::Kind::tensor ? acc.elems[i] : to_scalar(acc, pos);
        const Expr* y = b.kind == Val::Kind::tensor ? b.elems[i] : to_scalar(b, pos);
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
        const Expr* e =
            args[0].kind == Val::Kind::tensor ? args[0].elems[i] : to_scalar(args[0], pos);
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

// Quadrants features that compiled kernels cannot have, each with its own reason (QD201).
void Lowerer::reject_out_of_reach(const std::string& path, const ast::Pos& pos) {
  auto starts = [&](const char* head) { return path.rfind(head, 0) == 0; };
  std::string q = "qd." + path;
  if (starts("ad.") || path == "ad") {
    fail(pos, "QD201",
         q + ": autodiff is not supported in compiled kernels (qdbuild builds forward kernels "
             "only: no gradients, tapes, grad_replaced / grad_for); run gradient kernels under "
             "Quadrants");
  }
  if (starts("simt.") || path == "simt") {
    fail(pos, "QD201",
         q + ": SIMT warp, block, subgroup and shared-memory intrinsics are not supported in "
             "compiled kernels (qdbuild's tasks have no warp or block scope)");
  }
  if (starts("graph.") || path == "graph_do_while") {
    fail(pos, "QD201",
         q + ": graph kernels (@qd.kernel(graph=True), qd.graph.do_while) are not supported in "
             "compiled kernels (qdbuild launches a kernel's tasks one after another, with no "
             "CUDA graph)");
  }
  if (starts("algorithms.") || path == "algorithms") {
    fail(pos, "QD201",
         q + ": the qd.algorithms library (sort, scan, reduce) is not supported in compiled "
             "kernels (it launches Quadrants' own kernels); call it from Python between "
             "kernel launches");
  }
  if (path == "stream_parallel" || starts("stream")) {
    fail(pos, "QD201",
         q + ": concurrent GPU streams (qd.stream_parallel) are not supported in compiled "
             "kernels (qdbuild runs a kernel's loops in order on one stream)");
  }
  if (path == "field" || path.ends_with(".field") || path == "root" || starts("root.")) {
    fail(pos, "QD201",
         q + ": a field cannot be made in a kernel (fields and SNodes are made in Python before "
             "kernels run; a kernel reads the fields of its data_oriented object, "
             "docs/language.md 1.11)");
  }
}

Val Lowerer::call_api(const std::string& path, const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  if (path == "lang.impl.get_runtime" && args.empty()) {
    // qd.lang.impl.get_runtime(): its default_fp / default_ip are the build's (api_constant).
    return Val::of_api("lang.impl.get_runtime()");
  }
  reject_out_of_reach(path, pos);
  if (path == "svd" || path == "math.svd") {
    return call_svd(c, args);  // lower_svd.cpp
  }
  if (path == "Struct") {
    return local_struct(c, args);  // lower_field.cpp
  }
  if (path == "static") {
    if (args.size() != 1) {
      if (args.empty()) {
        type_error(pos, "qd.static() takes one argument");
      }
      return Val::of_tuple(args);
    }
    Val v = args[0];
    if (v.is_runtime()) {
      fail(pos, "QD206", "qd.static() needs a compile-time value, got " + v.describe());
    }
    if (v.kind == Val::Kind::range || v.kind == Val::Kind::ndrange ||
        v.kind == Val::Kind::grouped) {
      v.path = "static";
    }
    return v;
  }
  if (path == "static_assert") {
    if (args.empty()) {
      type_error(pos, "qd.static_assert(cond, msg) needs a condition");
    }
    if (!static_truth(args[0], pos)) {
      std::string msg = args.size() > 1 && args[1].kind == Val::Kind::py &&
                                args[1].py.kind == sema::Value::Kind::string
                            ? args[1].py.s
                            : "qd.static_assert failed";
      fail(pos, "QD206", msg);
    }
    return Val::of_py(sema::Value::none());
  }
  if (path == "template" || path == "Template" || path == "types.template" ||
      path.starts_with("types.ndarray") || path.starts_with("types.NDArray")) {
    return Val::of_api(path);  // a parameter annotation
  }
  if (path == "static_print") {
    return Val::of_py(sema::Value::none());
  }
  if (path == "ndrange") {
    Val nd;
    nd.kind = Val::Kind::ndrange;
    for (const Val& a : args) {
      if (a.kind == Val::Kind::tuple) {
        if (a.items.size() != 2) {
          type_error(pos, "an ndrange dimension is n or (begin, end)");
        }
        nd.items.push_back(a);
      } else if (a.kind == Val::Kind::py && a.py.kind == sema::Value::Kind::tuple) {
        if (a.py.items.size() != 2) {
          type_error(pos, "an ndrange dimension is n or (begin, end)");
        }
        nd.items.push_back(Val::of_tuple({Val::of_py(a.py.items[0]), Val::of_py(a.py.items[1])}));
      } else {
        nd.items.push_back(Val::of_tuple({Val::of_int(0), a}));
      }
    }
    if (const ast::Expr* ax = keyword(c, "axes")) {
      // qd.ndrange(..., axes=(...)): the iteration order (outermost first) as a permutation of
      // the canonical axes; the loop variables stay bound to the canonical axes (_Ndrange).
      Val a = eval(ax);
      bool none = a.kind == Val::Kind::py && a.py.kind == sema::Value::Kind::none;
      if (!none) {
        if (a.is_runtime()) {
          fail(ax->pos, "QD206", "qd.ndrange(axes=...) must be a compile-time tuple of ints");
        }
        std::vector<Val> entries = static_items(a, ax->pos);
        size_t n = nd.items.size();
        if (entries.size() != n) {
          fail(ax->pos, "QD206",
               "qd.ndrange(axes=...) has " + std::to_string(entries.size()) +
                   " entries but ndrange was called with " + std::to_string(n) +
                   " dimension argument(s); they must match");
        }
        std::vector<bool> seen(n, false);
        bool identity = true;
        for (size_t k = 0; k < entries.size(); ++k) {
          const Val& e = entries[k];
          if (e.kind != Val::Kind::py || e.py.kind != sema::Value::Kind::integer) {
            type_error(ax->pos,
                       "qd.ndrange(axes=...) entries must be Python ints, got " + e.describe());
          }
          int64_t v = static_int(e, ax->pos, "an ndrange axis");
          if (v < 0 || v >= static_cast<int64_t>(n) || seen[v]) {
            fail(ax->pos, "QD206",
                 "qd.ndrange(axes=...) is not a permutation of range(" + std::to_string(n) + ")");
          }
          seen[v] = true;
          identity = identity && v == static_cast<int64_t>(k);
          nd.order.push_back(static_cast<int32_t>(v));
        }
        if (identity) {
          nd.order.clear();
        }
      }
    }
    return nd;
  }
  if (path == "grouped") {
    if (args.size() != 1) {
      type_error(pos, "qd.grouped() takes one argument");
    }
    Val g;
    g.kind = Val::Kind::grouped;
    g.items.push_back(args[0]);
    return g;
  }
  if (path == "cast") {
    if (args.size() != 2 || args[1].kind != Val::Kind::dtype) {
      type_error(pos, "qd.cast(x, dtype) needs a value and a scalar type");
    }
    // A Python number becomes a default-typed constant first (qd.cast(0.1, qd.f64) is the f32
    // value 0.1 widened, as in Quadrants; write qd.f64(0.1) for full precision).
    if (args[0].kind == Val::Kind::py && args[0].is_py_number()) {
      return Val::of_scalar(m_kernel->cast(args[1].dtype, to_scalar(args[0], pos)));
    }
    return cast_val(args[0], args[1].dtype, pos);
  }
  if (path == "bit_cast") {
    if (args.size() != 2 || args[1].kind != Val::Kind::dtype) {
      type_error(pos, "qd.bit_cast(x, dtype) needs a value and a scalar type");
    }
    const Expr* e = to_scalar(args[0], pos);
    if (bits(e->type) != bits(args[1].dtype)) {
      type_error(pos, "qd.bit_cast() needs types of the same width");
    }
    return Val::of_scalar(m_kernel->bit_cast(args[1].dtype, e));
  }
  if (path == "select") {
    if (args.size() != 3) {
      type_error(pos, "qd.select(cond, a, b) takes three arguments");
    }
    const Val& cv = args[0];
    Val a = args[1];
    Val b = args[2];
    bool tensor =
        cv.kind == Val::Kind::tensor || a.kind == Val::Kind::tensor || b.kind == Val::Kind::tensor;
    if (!tensor) {
      const Expr* x = to_scalar(a, pos);
      const Expr* y = to_scalar(b, pos);
      DType t = promoted(x->type, y->type);
      return Val::of_scalar(
          m_kernel->select(condition(cv, pos), m_kernel->cast(t, x), m_kernel->cast(t, y)));
    }
    const Val& shape = cv.kind == Val::Kind::tensor ? cv : a.kind == Val::Kind::tensor ? a : b;
    std::vector<const Expr*> elems;
    DType t = promoted(a.kind == Val::Kind::tensor ? a.dtype : to_scalar(a, pos)->type,
                       b.kind == Val::Kind::tensor ? b.dtype : to_scalar(b, pos)->type);
    for (int32_t i = 0; i < shape.size(); ++i) {
      const Expr* ci = cv.kind == Val::Kind::tensor ? cv.elems[i] : to_scalar(cv, pos);
      const Expr* x = a.kind == Val::Kind::tensor ? a.elems[i] : to_scalar(a, pos);
      const Expr* y = b.kind == Val::Kind::tensor ? b.elems[i] : to_scalar(b, pos);
      elems.push_back(m_kernel->select(condition(Val::of_scalar(ci), pos), m_kernel->cast(t, x),
                                       m_kernel->cast(t, y)));
    }
    return Val::of_tensor(std::move(elems), shape.rows, shape.cols, t);
  }
  if (path == "raw_div" || path == "raw_mod") {
    if (args.size() != 2) {
      type_error(pos, "qd." + path + "(a, b) takes two arguments");
    }
    const Expr* a = to_scalar(args[0], pos);
    const Expr* b = to_scalar(args[1], pos);
    DType t = promoted(a->type, b->type);
    return Val::of_scalar(m_kernel->binary(path == "raw_div" ? BinOp::raw_div : BinOp::raw_mod, t,
                                           m_kernel->cast(t, a), m_kernel->cast(t, b)));
  }
  if (path == "bit_shr") {
    const Expr* a = to_scalar(args.at(0), pos);
    const Expr* b = to_scalar(args.at(1), pos);
    return Val::of_scalar(m_kernel->binary(BinOp::bit_shr, a->type, a, m_kernel->cast(a->type, b)));
  }
  if (path == "volatile_load") {
    if (args.size() != 1) {
      type_error(pos, "qd.volatile_load(x) takes one argument");
    }
    return args[0];
  }
  if (path == "Vector" || path == "math.Vector" || path == "types.Vector") {
    if (args.size() != 1) {
      type_error(pos, "qd.Vector([...]) takes a list");
    }
    std::optional<DType> dt;
    if (const ast::Expr* k = keyword(c, "dt")) {
      dt = eval(k).dtype;
    }
    return make_vector(static_items(args[0], pos), dt, pos);
  }
  if (path == "Matrix" || path == "math.Matrix") {
    if (args.size() != 1) {
      type_error(pos, "qd.Matrix([[...], ...]) takes a list of rows");
    }
    std::optional<DType> dt;
    if (const ast::Expr* k = keyword(c, "dt")) {
      dt = eval(k).dtype;
    }
    std::vector<Val> rows = static_items(args[0], pos);
    if (!rows.empty() && rows[0].kind != Val::Kind::tuple && rows[0].kind != Val::Kind::tensor) {
      return make_vector(rows, dt, pos);  // qd.Matrix([1, 2, 3]) is a vector
    }
    return make_matrix(rows, dt, pos);
  }
  if (path == "types.vector" || path == "types.matrix") {
    bool matrix = path == "types.matrix";
    size_t dims = matrix ? 2 : 1;
    std::vector<Val> a = args;
    if (const ast::Expr* k = keyword(c, "dtype")) {
      a.resize(dims + 1);
      a[dims] = eval(k);
    }
    // Without a dtype (or dtype=None) the type only describes a shape: a func parameter
    // annotated with it keeps the argument's dtype (as every vector/matrix parameter does).
    bool any_dtype = a.size() == dims || (a.size() == dims + 1 && a[dims].kind == Val::Kind::py &&
                                          a[dims].py.kind == sema::Value::Kind::none);
    if (a.size() < dims || a.size() > dims + 1 ||
        (!any_dtype && a[dims].kind != Val::Kind::dtype)) {
      type_error(pos, std::string("qd.types.") +
                          (matrix ? "matrix(n, m, dtype)" : "vector(n, dtype)") +
                          " needs its sizes and a scalar dtype");
    }
    Val t;
    t.kind = Val::Kind::tensor_type;
    t.rows = static_cast<int32_t>(static_int(a[0], pos, "a vector size"));
    t.cols = matrix ? static_cast<int32_t>(static_int(a[1], pos, "a matrix size")) : 0;
    t.any_dtype = any_dtype;
    t.dtype = any_dtype ? m_default_fp : a[dims].dtype;
    return t;
  }
  for (const char* head : {"Matrix.", "Vector.", "math.Matrix.", "math.Vector."}) {
    if (path.starts_with(head)) {
      std::string m = path.substr(std::string_view(head).size());
      return tensor_method(Val::of_api(path), m, args, c, pos);
    }
  }
  if (path == "random") {
    return random_value(c, args);
  }
  std::string name = path.starts_with("math.") ? path.substr(5) : path;
  return call_math(name, c, args);
}

// qd.random(dtype=float): the next number of Quadrants' generator, drawn where the call stands
// (Quadrants' random() is an expr_init: one draw per call, in evaluation order). Floats are
// uniform in [0, 1); 32- and 64-bit integers take every bit pattern.
Val Lowerer::random_value(const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  const ast::Expr* kw = keyword(c, "dtype");
  if (args.size() + (kw != nullptr ? 1 : 0) > 1) {
    type_error(pos, "qd.random(dtype=float) takes one scalar type");
  }
  DType t = m_default_fp;
  if (!args.empty() || kw != nullptr) {
    Val dv = !args.empty() ? args[0] : eval(kw);
    if (dv.kind == Val::Kind::builtin && (dv.path == "float" || dv.path == "int")) {
      t = dv.path == "float" ? m_default_fp : m_default_ip;
    } else if (dv.kind == Val::Kind::dtype) {
      t = dv.dtype;
    } else {
      type_error(pos, "qd.random(dtype) needs a scalar type");
    }
  }
  if (t != DType::f32 && t != DType::f64 && t != DType::i32 && t != DType::i64 && t != DType::u32 &&
      t != DType::u64) {
    type_error(pos, std::string("qd.random(") + name_of(t) +
                        "): Quadrants draws f32, f64, i32, i64, u32 and u64 only");
  }
  int32_t v = m_kernel->new_var("", t);
  Stmt* st = emit(StmtKind::random, pos);
  st->decl = true;
  st->var = v;
  return Val::of_scalar(m_kernel->var_ref(v));
}

Val Lowerer::call_builtin(const std::string& name, const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  if (name == "range") {
    if (args.empty() || args.size() > 3) {
      type_error(pos, "range() takes 1 to 3 arguments");
    }
    Val r;
    r.kind = Val::Kind::range;
    if (args.size() == 1) {
      r.items = {Val::of_int(0), args[0]};
    } else {
      r.items = args;
    }
    if (args.size() == 3) {
      r.path = "step";
    }
    return r;
  }
  if (name == "getattr" || name == "hasattr") {
    // getattr(x, "name"[, default]) / hasattr(x, "name") with a constant name, as Python at
    // trace time: the attribute, or the default where x has none.
    size_t n = name == "getattr" ? args.size() : args.size() + 1;
    if ((n != 2 && n != 3) || args.size() < 2 || args[1].kind != Val::Kind::py ||
        args[1].py.kind != sema::Value::Kind::string) {
      type_error(pos, name + "() takes an object and a constant attribute name" +
                          (name == "getattr" ? std::string(" (and a default)") : ""));
    }
    const Val& x = args[0];
    const std::string& attr = args[1].py.s;
    bool missing = false;
    if (x.kind == Val::Kind::array && m_kernel->params[x.param].field && x.path.empty()) {
      const Param& prm = m_kernel->params[x.param];
      missing = (attr == "n" || attr == "m" || attr == "ndim") && prm.element_shape.empty();
    } else if (x.kind == Val::Kind::object && x.obj->parent == nullptr && !x.obj->dataclass &&
               x.obj->values != nullptr) {
      missing = !x.obj->values->table.contains(attr) && x.obj->cls == sema::k_none;
    } else if (args.size() == 3 || name == "hasattr") {
      unsupported(pos, name + "() with a default of " + x.describe());
    }
    if (name == "hasattr") {
      return Val::of_bool(!missing);
    }
    if (missing && args.size() == 3) {
      return args[2];
    }
    return member(x, attr, pos);
  }
  if (name == "len") {
    if (args.size() != 1) {
      type_error(pos, "len() takes one argument");
    }
    const Val& v = args[0];
    switch (v.kind) {
      case Val::Kind::tensor: return Val::of_int(v.rows);
      case Val::Kind::tuple: return Val::of_int(static_cast<int64_t>(v.items.size()));
      case Val::Kind::shape: return Val::of_int(m_kernel->params[v.param].ndim);
      case Val::Kind::array: return Val::of_scalar(canonical_shape(*m_kernel, v.param, 0));
      case Val::Kind::py:
        if (v.py.kind == sema::Value::Kind::tuple) {
          return Val::of_int(static_cast<int64_t>(v.py.items.size()));
        }
        break;
      default: break;
    }
    type_error(pos, "len() of " + v.describe());
  }
  if (name.starts_with("numpy.")) {
    return call_numpy(name.substr(6), c, args);
  }
  if (name == "int" || name == "float" || name == "bool") {
    if (args.size() != 1) {
      type_error(pos, name + "() takes one argument");
    }
    const Val& v = args[0];
    if (v.kind == Val::Kind::py) {
      sema::Value r;
      if (name == "int") {
        if (v.py.kind == sema::Value::Kind::floating && !(std::fabs(v.py.f) < 1.7e38)) {
          fail(pos, "QD206", "int() of the float " + std::to_string(v.py.f) + " is out of range");
        }
        r = v.py.kind == sema::Value::Kind::floating
                ? sema::Value::integer(static_cast<sema::Int>(std::trunc(v.py.f)))
            : v.py.kind == sema::Value::Kind::boolean ? sema::Value::integer(v.py.b ? 1 : 0)
                                                      : v.py;
      } else if (name == "float") {
        r = v.py.kind == sema::Value::Kind::integer
                ? sema::Value::floating(static_cast<double>(v.py.iv))
            : v.py.kind == sema::Value::Kind::boolean ? sema::Value::floating(v.py.b ? 1.0 : 0.0)
                                                      : v.py;
      } else {
        bool known = false;
        r = sema::Value::boolean(sema::truthy(v.py, known));
      }
      return Val::of_py(r);
    }
    DType t = name == "int" ? m_default_ip : name == "float" ? m_default_fp : DType::u1;
    return cast_val(v, t, pos);
  }
  if (name == "abs") {
    if (args.size() != 1) {
      type_error(pos, "abs() takes one argument");
    }
    if (args[0].kind == Val::Kind::py) {
      sema::Value v = args[0].py;
      if (v.kind == sema::Value::Kind::integer) {
        return Val::of_py(v.iv < 0 ? sema::unary_op(ast::UnaryOperator::USub, v) : v);
      }
      if (v.kind == sema::Value::Kind::floating) {
        return Val::of_py(sema::Value::floating(std::fabs(v.f)));
      }
    }
    return unary_math(UnOp::abs, args[0], pos, false, true);
  }
  if (name == "min" || name == "max") {
    return min_max(name == "max", args, pos);
  }
  if (name == "pow") {
    if (args.size() != 2) {
      type_error(pos, "pow() takes two arguments here");
    }
    return binary(ast::Operator::Pow, args[0], args[1], pos);
  }
  if (name == "enumerate") {
    Val v;
    v.kind = Val::Kind::enumerate_;
    v.items = args;
    return v;
  }
  if (name == "zip") {
    Val v;
    v.kind = Val::Kind::zip_;
    v.items = args;
    return v;
  }
  if (name == "tuple" || name == "list") {
    if (args.size() != 1) {
      type_error(pos, name + "() takes one argument");
    }
    return Val::of_tuple(static_items(args[0], pos), name == "list");
  }
  if (name == "print") {
    return call_print(c, args);
  }
  unsupported(pos, "the builtin " + name + "()");
}

Val Lowerer::cast_to_annotation(const Val& v, const ast::Expr* annotation, int32_t module,
                                const ast::Pos& pos) {
  Val t = eval_module_expr(module, annotation);
  if (t.kind == Val::Kind::dtype) {
    return cast_val(v, t.dtype, pos);
  }
  if (t.kind == Val::Kind::tensor_type) {
    // A func's vector / matrix return annotation casts nothing and checks nothing (Quadrants
    // casts only primitive return types of an inlined func).
    return v;
  }
  if ((t.kind == Val::Kind::builtin || t.kind == Val::Kind::api) && t.path.ends_with("[]") &&
      t.path.starts_with("tuple")) {
    std::vector<Val> items = static_items(v, pos);
    if (items.size() != t.items.size()) {
      type_error(pos, "the function returns " + std::to_string(items.size()) +
                          " values, its annotation says " + std::to_string(t.items.size()));
    }
    for (size_t k = 0; k < items.size(); ++k) {
      const Val& tk = t.items[k];
      if (tk.kind == Val::Kind::dtype) {
        items[k] = cast_val(items[k], tk.dtype, pos);
      }  // vector / matrix members: as they are (see above)
    }
    return Val::of_tuple(std::move(items));
  }
  return v;
}

std::vector<const ast::Arg*> Lowerer::func_params(sema::DefId def) const {
  const ast::Arguments* a = m_in.program->defs[def].args;
  std::vector<const ast::Arg*> params;
  for (const ast::Arg* x : a->posonlyargs) {
    params.push_back(x);
  }
  for (const ast::Arg* x : a->args) {
    params.push_back(x);
  }
  return params;
}

bool Lowerer::is_template_param(sema::DefId def, const ast::Arg* prm) {
  if (prm->annotation == nullptr) {
    return false;
  }
  Val ann = eval_module_expr(m_in.program->defs[def].module, prm->annotation);
  return ann.kind == Val::Kind::api &&
         (ann.path == "template" || ann.path == "Template" || ann.path == "types.template");
}

std::vector<bool> Lowerer::template_params(sema::DefId def) {
  const sema::DefInfo& d = m_in.program->defs[def];
  std::vector<bool> out;
  if (d.role == sema::DefRole::kernel || d.args == nullptr) {
    return out;
  }
  for (const ast::Arg* prm : func_params(def)) {
    out.push_back(is_template_param(def, prm));
  }
  return out;
}

BindingRef Lowerer::bind_by_reference(const ast::Expr* e, Val& value, const char* what) {
  if (const auto* n = e->as<ast::Name>()) {
    if (BindingRef b = find_local(n->id)) {
      value = eval(e);
      return b;  // the caller's variable itself
    }
  }
  auto b = std::make_shared<Binding>();
  if (is_lvalue_expr(e)) {
    b->kind = Binding::Kind::ref;  // an array element, a vector / matrix component
    b->ref = lvalue(e, false);
    value = read(b->ref);
    return b;
  }
  // Any other value: read again at every use (a runtime expression is not copied), and not
  // assignable (Quadrants: "non-writable target" / "cannot be assigned").
  value = eval(e);
  b->kind = Binding::Kind::value;
  b->value = value;
  b->fixed = true;
  b->what = what;
  return b;
}

Val Lowerer::call_func(sema::DefId def, const ast::Call* c, std::vector<Val>& args,
                       std::vector<BindingRef>& refs, size_t bound_first) {
  const sema::Program& p = *m_in.program;
  const sema::DefInfo& d = p.defs[def];
  if (d.role == sema::DefRole::kernel) {
    fail(c->pos, "QD205", "a kernel cannot call a kernel ('" + p.def_id(def) + "')");
  }
  if (d.decorator == "real_func") {
    unsupported(c->pos, "calling the @qd.real_func '" + p.def_id(def) +
                            "' (a real function call with its own stack frame; qdbuild inlines "
                            "@qd.func only)");
  }
  if (d.decorator == "pyfunc") {
    unsupported(c->pos, "calling the @qd.pyfunc '" + p.def_id(def) +
                            "' from a kernel (qdbuild inlines @qd.func; decorate it with "
                            "@qd.func)");
  }
  if (m_inline_depth > 48) {
    fail(c->pos, "QD205", "'" + p.def_id(def) + "' calls itself: recursion is not supported");
  }
  const ast::Arguments* a = d.args;
  std::vector<const ast::Arg*> params = func_params(def);
  if (a->vararg != nullptr || a->kwarg != nullptr || a->kwonlyargs.size > 0) {
    unsupported(c->pos, "calling a function with *args, **kwargs or keyword-only parameters");
  }
  if (args.size() > params.size()) {
    type_error(c->pos, "'" + p.def_id(def) + "' takes " + std::to_string(params.size()) +
                           " arguments, got " + std::to_string(args.size()));
  }
  std::vector<std::optional<Val>> bound(params.size());
  std::vector<BindingRef> bound_ref(params.size());
  std::vector<const ast::Expr*> arg_ast(params.size(), nullptr);
  for (size_t k = 0; k < args.size(); ++k) {
    bound[k] = args[k];
    bound_ref[k] = k < refs.size() ? refs[k] : nullptr;
    arg_ast[k] =
        k >= bound_first && k - bound_first < c->args.size ? c->args[k - bound_first] : nullptr;
  }
  for (const ast::Keyword* kw : c->keywords) {
    if (ast::is_absent(kw->arg)) {
      unsupported(kw->pos, "**kwargs in a call");
    }
    bool found = false;
    for (size_t k = 0; k < params.size(); ++k) {
      if (params[k]->arg == kw->arg) {
        if (bound[k]) {
          type_error(kw->pos, "argument '" + std::string(kw->arg) + "' given twice");
        }
        if (is_template_param(def, params[k])) {
          Val v;
          bound_ref[k] = bind_by_reference(kw->value, v, "qd.template() parameter");
          bound[k] = std::move(v);
        } else {
          bound[k] = eval(kw->value);
        }
        arg_ast[k] = kw->value;
        found = true;
      }
    }
    if (!found) {
      type_error(kw->pos,
                 "'" + p.def_id(def) + "' has no parameter '" + std::string(kw->arg) + "'");
    }
  }
  size_t first_default = params.size() - a->defaults.size;
  for (size_t k = 0; k < params.size(); ++k) {
    if (!bound[k]) {
      if (k < first_default) {
        type_error(c->pos, "'" + p.def_id(def) + "' is missing the argument '" +
                               std::string(params[k]->arg) + "'");
      }
      bound[k] = eval_module_expr(d.module, a->defaults[k - first_default]);
    }
  }
  // Bind the parameters in the callee's frame (§1.8).
  Frame f;
  f.module = d.module;
  f.def = def;
  f.returns = d.returns;
  if (d.role == sema::DefRole::plain) {
    // A plain Python function runs as Python at trace time: its parameters are the arguments
    // themselves (values, arrays, expressions), never copies.
    f.python = true;
    f.scopes.emplace_back();
    for (size_t k = 0; k < params.size(); ++k) {
      auto b = std::make_shared<Binding>();
      b->kind = Binding::Kind::value;
      b->value = *bound[k];
      f.scopes.back()[std::string(params[k]->arg)] = b;
    }
    m_frames.push_back(std::move(f));
    ++m_inline_depth;
    push_scope();
    lower_stmts(*d.body);
    pop_scope();
    Frame done = std::move(m_frames.back());
    m_frames.pop_back();
    --m_inline_depth;
    m_jump = Jump::none;
    return done.ret.value_or(Val::of_py(sema::Value::none()));
  }
  f.scopes.emplace_back();
  std::vector<std::pair<std::string, BindingRef>> bindings;
  for (size_t k = 0; k < params.size(); ++k) {
    const ast::Arg* prm = params[k];
    const Val& v = *bound[k];
    std::string name(prm->arg);
    Val ann;
    bool annotated = prm->annotation != nullptr;
    if (annotated) {
      ann = eval_module_expr(d.module, prm->annotation);
    }
    bool by_ref =
        annotated && ann.kind == Val::Kind::api &&
        (ann.path == "template" || ann.path == "Template" || ann.path == "types.template");
    bool is_array_ann =
        annotated && ann.kind == Val::Kind::api &&
        (ann.path.starts_with("types.ndarray") || ann.path.starts_with("types.NDArray") ||
         ann.path == "Tensor" || ann.path.starts_with("Tensor["));
    if (annotated && ann.kind == Val::Kind::class_ && !p.classes[ann.cls].is_enum) {
      // A dataclass parameter: the argument's members, passed as they are.
      if (v.kind != Val::Kind::object) {
        type_error(arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos,
                   "parameter '" + name + "' is a " + sema::class_path(p, ann.cls) + ", got " +
                       v.describe());
      }
      auto b = std::make_shared<Binding>();
      b->kind = Binding::Kind::value;
      b->value = v;
      b->fixed = true;
      b->what = "dataclass parameter";
      bindings.emplace_back(name, b);
      continue;
    }
    if (v.kind == Val::Kind::object && v.obj->local_struct && !by_ref) {
      unsupported(arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos,
                  "passing a qd.Struct to the parameter '" + name +
                      "', which is not qd.template() (take it as a qd.template() parameter)");
    }
    if (v.kind == Val::Kind::object && v.obj->parent != nullptr) {
      unsupported(arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos,
                  "passing an element of a struct field to a function (pass the struct field "
                  "and its index, or the members it reads)");
    }
    if (by_ref || is_array_ann || v.kind == Val::Kind::array || v.kind == Val::Kind::object) {
      if (is_array_ann && v.kind != Val::Kind::array) {
        type_error(arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos,
                   "parameter '" + name + "' is an ndarray, got " + v.describe());
      }
      BindingRef b = by_ref ? bound_ref[k] : nullptr;
      if (b == nullptr) {
        b = std::make_shared<Binding>();  // an ndarray, or a default value
        b->kind = Binding::Kind::value;
        b->value = v;
        b->fixed = by_ref;
        b->what = "qd.template() parameter";
      }
      bindings.emplace_back(name, b);
      continue;
    }
    // By value: primitive / vector / matrix annotations cast; unannotated values are copied.
    Val x = v;
    if (annotated) {
      if (ann.kind == Val::Kind::dtype) {
        x = cast_val(v, ann.dtype, c->pos);
      } else if (ann.kind == Val::Kind::tensor_type) {
        // A vector / matrix parameter is a copy of the argument with the argument's own dtype,
        // whatever dtype the annotation names (Quadrants: expr_init_func(data), no cast); the
        // argument must be a vector / matrix of the annotated shape.
        std::string shape =
            ann.cols == 0 ? "vector of " + std::to_string(ann.rows)
                          : std::to_string(ann.rows) + "x" + std::to_string(ann.cols) + " matrix";
        const ast::Pos& at = arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos;
        if (v.kind != Val::Kind::tensor) {
          type_error(at, "parameter '" + name + "' expects a " + shape + ", got " + v.describe() +
                             " (a vector/matrix parameter takes a vector or matrix value, "
                             "not a list or scalar)");
        }
        if (v.rows != ann.rows || v.cols != ann.cols) {
          type_error(at, "parameter '" + name + "' expects a " + shape + ", got " + v.describe());
        }
      }
    }
    bindings.emplace_back(name, nullptr);
    bound[k] = x;
  }
  m_frames.push_back(std::move(f));
  ++m_inline_depth;
  for (size_t k = 0; k < params.size(); ++k) {
    if (bindings[k].second != nullptr) {
      frame().scopes.back()[bindings[k].first] = bindings[k].second;
    } else {
      declare(bindings[k].first, *bound[k], d.node->pos);
    }
  }
  push_scope();
  lower_stmts(*d.body);
  pop_scope();
  Frame done = std::move(m_frames.back());
  m_frames.pop_back();
  --m_inline_depth;
  m_jump = Jump::none;
  Val result = done.ret.value_or(Val::of_py(sema::Value::none()));
  if (d.returns != nullptr) {
    Val t = eval_module_expr(d.module, d.returns);
    bool returns_none = t.kind == Val::Kind::py && t.py.kind == sema::Value::Kind::none;
    if (!returns_none && !done.ret) {
      fail(d.node->pos, "QD205",
           "'" + p.def_id(def) + "' has a return type but no return statement");
    }
    if (!returns_none) {
      result = cast_to_annotation(result, d.returns, d.module, c->pos);
    }
  }
  return result;
}

Val Lowerer::call_method(const Val& method, const ast::Call* c, std::vector<Val>& args) {
  const Val& receiver = method.items[0];
  if (receiver.kind == Val::Kind::py && receiver.py.kind == sema::Value::Kind::string &&
      method.path == "format") {
    return format_string(receiver.py.s, c, args);
  }
  if (receiver.kind == Val::Kind::tensor && method.path == "fill") {
    // fill() of a value that is not a place assigns into a temporary: nothing to do.
    if (args.size() != 1 || args[0].kind == Val::Kind::tensor || args[0].kind == Val::Kind::tuple) {
      type_error(c->pos, "fill(value) takes one scalar");
    }
    return Val::of_py(sema::Value::none());
  }
  if (receiver.kind == Val::Kind::tensor) {
    return tensor_method(receiver, method.path, args, c, c->pos);
  }
  if (receiver.kind == Val::Kind::array && method.path == "fill") {
    if (args.size() != 1 || !c->keywords.empty()) {
      type_error(c->pos, "fill(value) takes one scalar");
    }
    return fill_array(receiver.param, args[0], c->pos);  // a field's / ndarray's every element
  }
  unsupported(c->pos, "the method " + method.path + "() of " + receiver.describe());
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
