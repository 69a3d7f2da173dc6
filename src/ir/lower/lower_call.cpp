// Calls: their dispatch (eval_call: a func, a method, the qd.* API, math, numpy or a Python
// builtin), keyword arguments, atomics and the Python builtins. The families live beside it:
// lower_math.cpp, lower_api.cpp, lower_func_call.cpp.
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
  if (std::optional<Val> v = tile_method(c)) {
    return *v;  // tile.cholesky_(eps), L.solve_triangular_(B), tile.eye_() (lower_tile.cpp)
  }
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

}  // namespace qd::ir::lower
