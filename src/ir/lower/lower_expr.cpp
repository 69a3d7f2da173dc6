// Expressions: names, constants, operators with Python's compile-time folding, typing and
// implicit casts (docs/language.md §0).
#include <cmath>
#include <limits>

#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

namespace {

const char* op_text(ast::Operator op) {
  switch (op) {
    case ast::Operator::Add: return "+";
    case ast::Operator::Sub: return "-";
    case ast::Operator::Mult: return "*";
    case ast::Operator::MatMult: return "@";
    case ast::Operator::Div: return "/";
    case ast::Operator::Mod: return "%";
    case ast::Operator::Pow: return "**";
    case ast::Operator::LShift: return "<<";
    case ast::Operator::RShift: return ">>";
    case ast::Operator::BitOr: return "|";
    case ast::Operator::BitXor: return "^";
    case ast::Operator::BitAnd: return "&";
    case ast::Operator::FloorDiv: return "//";
  }
  return "?";
}

bool fits(DType t, sema::Int v) {
  switch (t) {
    case DType::u1: return v == 0 || v == 1;
    case DType::i8: return v >= INT8_MIN && v <= INT8_MAX;
    case DType::i16: return v >= INT16_MIN && v <= INT16_MAX;
    case DType::i32: return v >= INT32_MIN && v <= INT32_MAX;
    case DType::i64: return v >= INT64_MIN && v <= INT64_MAX;
    case DType::u8: return v >= 0 && v <= UINT8_MAX;
    case DType::u16: return v >= 0 && v <= UINT16_MAX;
    case DType::u32: return v >= 0 && v <= UINT32_MAX;
    case DType::u64: return v >= 0 && v <= UINT64_MAX;
    default: return true;
  }
}

// An integer constant's bits as constant_int takes them (unsigned values as their pattern).
int64_t bits_of(sema::Int v) { return static_cast<int64_t>(static_cast<uint64_t>(v)); }

}  // namespace

Val Lowerer::eval(const ast::Expr* e) {
  switch (e->tag) {
    case ast::ExprKind::Constant: return eval_constant(e->as<ast::Constant>());
    case ast::ExprKind::Name: return eval_name(e->as<ast::Name>());
    case ast::ExprKind::Attribute: return eval_attribute(e->as<ast::Attribute>());
    case ast::ExprKind::Subscript: return eval_subscript(e->as<ast::Subscript>());
    case ast::ExprKind::BinOp: return eval_binop(e->as<ast::BinOp>());
    case ast::ExprKind::UnaryOp: return eval_unary(e->as<ast::UnaryOp>());
    case ast::ExprKind::Compare: return eval_compare(e->as<ast::Compare>());
    case ast::ExprKind::BoolOp: return eval_boolop(e->as<ast::BoolOp>());
    case ast::ExprKind::IfExp: return eval_ifexp(e->as<ast::IfExp>());
    case ast::ExprKind::Call: return eval_call(e->as<ast::Call>());
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List: {
      const ast::Seq<ast::Expr*>& elts =
          e->as<ast::Tuple>() != nullptr ? e->as<ast::Tuple>()->elts : e->as<ast::List>()->elts;
      std::vector<Val> items;
      for (const ast::Expr* x : elts) {
        if (x->as<ast::Starred>() != nullptr) {
          Val inner = eval(x->as<ast::Starred>()->value);
          for (Val& v : static_items(inner, x->pos)) {
            items.push_back(std::move(v));
          }
          continue;
        }
        items.push_back(eval(x));
      }
      return Val::of_tuple(std::move(items), e->as<ast::List>() != nullptr);
    }
    case ast::ExprKind::NamedExpr: {
      const auto* n = e->as<ast::NamedExpr>();
      Val v = eval(n->value);
      assign_to(n->target, v, n->pos);
      return eval(n->target);
    }
    case ast::ExprKind::ListComp: {
      const auto* lc = e->as<ast::ListComp>();
      if (lc->generators.size != 1) {
        unsupported(e->pos, "a list comprehension with several 'for' clauses");
      }
      const ast::Comprehension* g = lc->generators[0];
      std::vector<Val> out;
      for (Val& item : static_items(eval(g->iter), g->iter->pos)) {
        push_scope();
        assign_to(g->target, item, e->pos);
        bool keep = true;
        for (const ast::Expr* cond : g->ifs) {
          keep = keep && static_truth(eval(cond), cond->pos);
        }
        if (keep) {
          out.push_back(eval(lc->elt));
        }
        pop_scope();
      }
      return Val::of_tuple(std::move(out), true);
    }
    case ast::ExprKind::Lambda: unsupported(e->pos, "lambda");
    case ast::ExprKind::Dict:
    case ast::ExprKind::DictComp: unsupported(e->pos, "a dict");
    case ast::ExprKind::Set:
    case ast::ExprKind::SetComp: unsupported(e->pos, "a set");
    case ast::ExprKind::GeneratorExp: unsupported(e->pos, "a generator expression");
    case ast::ExprKind::JoinedStr: return eval_joined_str(e->as<ast::JoinedStr>());
    case ast::ExprKind::FormattedValue: unsupported(e->pos, "an f-string part");
    case ast::ExprKind::Starred: unsupported(e->pos, "a starred expression");
    case ast::ExprKind::Slice: type_error(e->pos, "a slice is only an index (v[a:b], m[i, :])");
    default: unsupported(e->pos, std::string("'") + ast::name_of(e->tag) + "'");
  }
}

Val Lowerer::eval_constant(const ast::Constant* c) {
  using CK = ast::ConstantValue::Kind;
  if (c->value.kind == CK::Complex || c->value.kind == CK::Bytes || c->value.kind == CK::Ellipsis) {
    unsupported(c->pos, "this constant");
  }
  sema::Value v = sema::constant_value(c->value);
  if (!v.known()) {
    fail(c->pos, "QD206", "the integer " + std::string(c->value.text) + " does not fit in 64 bits");
  }
  return Val::of_py(std::move(v));
}

Val Lowerer::eval_name(const ast::Name* n) {
  if (BindingRef b = find_local(n->id)) {
    switch (b->kind) {
      case Binding::Kind::var: return Val::of_scalar(m_kernel->var_ref(b->var));
      case Binding::Kind::tensor_var: {
        std::vector<const Expr*> elems;
        for (int32_t v : b->vars) {
          elems.push_back(m_kernel->var_ref(v));
        }
        Val t = Val::of_tensor(std::move(elems), b->rows, b->cols, b->dtype);
        t.tile = b->tile;
        return t;
      }
      case Binding::Kind::value: return b->value;
      case Binding::Kind::ref: return read(b->ref);
    }
  }
  return global(frame().module, n->id, n->pos);
}

Val Lowerer::eval_attribute(const ast::Attribute* a) {
  Val base = eval(a->value);
  return member(base, a->attr, a->pos);
}

Val Lowerer::eval_subscript(const ast::Subscript* s) {
  Val base = eval(s->value);
  if (base.kind == Val::Kind::api || base.kind == Val::Kind::builtin) {
    // Type expressions: qd.types.NDArray[...], tuple[...].
    Val t = base;
    t.path += "[]";
    if (const auto* tup = s->slice->as<ast::Tuple>()) {
      for (const ast::Expr* x : tup->elts) {
        t.items.push_back(eval(x));
      }
    } else {
      t.items.push_back(eval(s->slice));
    }
    return t;
  }
  std::vector<IndexItem> items = subscript_items(s->slice);
  if (has_slice(items)) {
    switch (base.kind) {
      case Val::Kind::tensor: return tensor_slice(base, items, s->pos);
      case Val::Kind::tuple:
      case Val::Kind::py:
        if (base.kind == Val::Kind::tuple || base.py.kind == sema::Value::Kind::tuple) {
          return python_slice(base, items, s->pos);
        }
        break;
      case Val::Kind::array: return array_slice(base, items, s->pos);  // lower_tile.cpp
      default: break;
    }
    type_error(s->pos, base.describe() + " cannot be sliced");
  }
  std::vector<Val> idx = index_values(items);
  switch (base.kind) {
    case Val::Kind::array: return array_element(base.param, array_index(base.param, idx, s->pos));
    case Val::Kind::object:
      if (base.obj->struct_field && base.obj->parent == nullptr) {
        return struct_element(base, std::move(idx));  // sf[i, j]
      }
      type_error(s->pos, base.describe() + " cannot be indexed");
    case Val::Kind::tensor: return tensor_index(base, idx, s->pos);
    case Val::Kind::tuple:
    case Val::Kind::shape: {
      if (idx.size() != 1) {
        type_error(s->pos, "a tuple takes one index");
      }
      int64_t n = base.kind == Val::Kind::tuple ? static_cast<int64_t>(base.items.size())
                                                : m_kernel->params[base.param].ndim;
      int64_t k = static_int(idx[0], s->pos, "a tuple index");
      if (k < 0) {
        k += n;
      }
      if (k < 0 || k >= n) {
        fail(s->pos, "QD206",
             "index " + std::to_string(k) + " is out of range (size " + std::to_string(n) + ")");
      }
      if (base.kind == Val::Kind::shape) {
        return Val::of_scalar(canonical_shape(*m_kernel, base.param, static_cast<int32_t>(k)));
      }
      return base.items[k];
    }
    case Val::Kind::py:
      if (base.py.kind == sema::Value::Kind::tuple) {
        int64_t n = static_cast<int64_t>(base.py.items.size());
        int64_t k = static_int(idx[0], s->pos, "a tuple index");
        if (k < 0) {
          k += n;
        }
        if (k < 0 || k >= n) {
          fail(s->pos, "QD206", "tuple index out of range");
        }
        return Val::of_py(base.py.items[k]);
      }
      [[fallthrough]];
    default: type_error(s->pos, base.describe() + " cannot be indexed");
  }
}

// A Python slice of a compile-time tuple or list (Python's own semantics: negative bounds count
// from the end).
Val Lowerer::python_slice(const Val& base, const std::vector<IndexItem>& items,
                          const ast::Pos& pos) {
  if (items.size() != 1) {
    type_error(pos, "a tuple takes one index");
  }
  std::vector<Val> all = static_items(base, pos);
  int64_t n = static_cast<int64_t>(all.size());
  auto bound = [&](const std::optional<Val>& v, const char* what) -> std::optional<int64_t> {
    if (!v || (v->kind == Val::Kind::py && v->py.kind == sema::Value::Kind::none)) {
      return std::nullopt;
    }
    return static_int(*v, pos, what);
  };
  std::optional<int64_t> lo = bound(items[0].lower, "a slice start");
  std::optional<int64_t> hi = bound(items[0].upper, "a slice stop");
  int64_t step = bound(items[0].step, "a slice step").value_or(1);
  if (step == 0) {
    fail(pos, "QD206", "slice step cannot be zero");
  }
  auto clamp = [&](std::optional<int64_t> x, int64_t dflt) {
    if (!x) {
      return dflt;
    }
    int64_t v = *x < 0 ? *x + n : *x;
    if (v < 0) {
      return step < 0 ? int64_t{-1} : int64_t{0};
    }
    if (v >= n) {
      return step < 0 ? n - 1 : n;
    }
    return v;
  };
  int64_t start = clamp(lo, step < 0 ? n - 1 : 0);
  int64_t stop = clamp(hi, step < 0 ? -1 : n);
  std::vector<Val> out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push_back(all[i]);
  }
  return Val::of_tuple(std::move(out), base.kind == Val::Kind::tuple && base.is_list);
}

const Expr* Lowerer::array_index(int32_t param, const std::vector<Val>& indices,
                                 const ast::Pos& pos) {
  const Param& p = m_kernel->params[param];
  std::vector<const Expr*> idx;
  for (const Val& v : indices) {
    if (v.kind == Val::Kind::tensor) {
      for (const Expr* e : v.elems) {
        idx.push_back(e);
      }
    } else if (v.kind == Val::Kind::tuple) {
      for (const Val& item : v.items) {
        idx.push_back(to_scalar(item, pos));
      }
    } else {
      idx.push_back(to_scalar(v, pos));
    }
  }
  if (static_cast<int32_t>(idx.size()) != p.ndim) {
    type_error(pos, "ndarray '" + p.name + "' has " + std::to_string(p.ndim) +
                        (p.ndim == 1 ? " dimension" : " dimensions") + ", indexed with " +
                        std::to_string(idx.size()) +
                        (p.ndim == 0               ? " (index a 0-d ndarray with x[None])"
                         : p.element_shape.empty() ? ""
                                                   : " (index its elements with a second [])"));
  }
  if (!p.layout.empty()) {
    // A permuted layout: canonical indices (i_0 .. i_n-1) address the physical element
    // (i_layout[0] .. i_layout[n-1]) of the buffer, which has the permuted shape.
    std::vector<const Expr*> physical(idx.size());
    for (size_t k = 0; k < idx.size(); ++k) {
      physical[k] = idx[p.layout[k]];
    }
    idx = std::move(physical);
  }
  const Expr* flat = nullptr;
  bool strided = p.field && !p.field_contiguous();
  for (size_t k = 0; k < idx.size(); ++k) {
    if (is_float(idx[k]->type)) {
      type_error(pos,
                 std::string("an ndarray index must be an integer, got ") + name_of(idx[k]->type));
    }
    if (idx[k]->kind == ExprKind::constant && idx[k]->ival < 0 && is_signed(idx[k]->type)) {
      fail(pos, "QD206",
           "negative constant index " + std::to_string(idx[k]->ival) + " into ndarray '" + p.name +
               "'");
    }
    // Indices are i32 (docs/language.md §3); the flat offset is computed in i64.
    const Expr* i = m_kernel->cast(DType::i64, m_kernel->cast(DType::i32, idx[k]));
    if (strided) {
      // A field's own layout (lower_field.cpp): the element's place, in elements of the dtype.
      const Expr* term = m_kernel->binary(BinOp::mul, DType::i64, i,
                                          m_kernel->constant_int(DType::i64, p.field_strides[k]));
      flat = flat == nullptr ? term : m_kernel->binary(BinOp::add, DType::i64, flat, term);
      continue;
    }
    if (flat == nullptr) {
      flat = i;
    } else {
      const Expr* extent =
          p.kind == Param::Kind::shared
              ? m_kernel->constant_int(DType::i64, p.field_shape[k])
              : m_kernel->cast(DType::i64, m_kernel->shape(param, static_cast<int32_t>(k)));
      flat = m_kernel->binary(BinOp::add, DType::i64,
                              m_kernel->binary(BinOp::mul, DType::i64, flat, extent), i);
    }
  }
  if (flat == nullptr) {
    flat = m_kernel->constant_int(DType::i64, 0);  // a 0-d ndarray: x[None]
  }
  return flat;
}

const Expr* Lowerer::component_index(int32_t param, const Expr* flat, int32_t k) {
  const Param& p = m_kernel->params[param];
  if (p.field && !p.field_contiguous()) {
    // `flat` is the place of component 0 (array_index); component (r, c) lies r and c element
    // strides further.
    size_t nd = static_cast<size_t>(p.ndim);
    int64_t cols = p.element_shape.size() > 1 ? p.element_shape[1] : 1;
    int64_t offset = (k / cols) * p.field_strides[nd];
    if (p.element_shape.size() > 1) {
      offset += (k % cols) * p.field_strides[nd + 1];
    }
    return m_kernel->binary(BinOp::add, DType::i64, flat,
                            m_kernel->constant_int(DType::i64, offset));
  }
  int32_t n = p.element_count();
  return m_kernel->binary(
      BinOp::add, DType::i64,
      m_kernel->binary(BinOp::mul, DType::i64, flat, m_kernel->constant_int(DType::i64, n)),
      m_kernel->constant_int(DType::i64, k));
}

Val Lowerer::array_element(int32_t param, const Expr* flat) {
  const Param& p = m_kernel->params[param];
  if (p.element_shape.empty()) {
    return Val::of_scalar(m_kernel->load(param, flat));
  }
  int32_t n = p.element_count();
  std::vector<const Expr*> elems;
  for (int32_t k = 0; k < n; ++k) {
    elems.push_back(m_kernel->load(param, component_index(param, flat, k)));
  }
  return Val::of_tensor(std::move(elems), p.element_shape[0],
                        p.element_shape.size() > 1 ? p.element_shape[1] : 0, p.dtype);
}

// --- typing helpers ---------------------------------------------------------------------------

const Expr* Lowerer::to_scalar(const Val& v, const ast::Pos& pos) {
  if (v.kind == Val::Kind::scalar) {
    return v.expr;
  }
  if (v.kind == Val::Kind::py) {
    switch (v.py.kind) {
      case sema::Value::Kind::boolean: return m_kernel->constant_int(DType::u1, v.py.b ? 1 : 0);
      case sema::Value::Kind::integer:
        if (!fits(m_default_ip, v.py.iv)) {
          std::string text = sema::int_text(v.py.iv);
          fail(pos, "QD206",
               "the integer " + text + " exceeds the range of " + name_of(m_default_ip) +
                   " (default_ip); write qd.i64(" + text + ") or qd.u32(...)");
        }
        return m_kernel->constant_int(m_default_ip, bits_of(v.py.iv));
      case sema::Value::Kind::floating: return m_kernel->constant_float(m_default_fp, v.py.f);
      default: break;
    }
  }
  type_error(pos, "expected a scalar value, got " + v.describe());
}

const Expr* Lowerer::to_typed(const Val& v, DType t, const ast::Pos& pos) {
  return m_kernel->cast(t, to_scalar(v, pos));
}

const Expr* Lowerer::condition(const Val& v, const ast::Pos& pos) {
  if (v.kind == Val::Kind::tensor) {
    type_error(pos, "a vector condition is ambiguous: use qd.select(c, a, b), .any() or .all()");
  }
  const Expr* e = to_scalar(v, pos);
  if (is_float(e->type)) {
    type_error(pos, std::string("a condition must be an integer, got ") + name_of(e->type));
  }
  if (e->type == DType::u1) {
    return e;
  }
  return m_kernel->binary(BinOp::ne, DType::u1, e, m_kernel->constant_int(e->type, 0));
}

bool Lowerer::static_truth(const Val& v, const ast::Pos& pos) {
  switch (v.kind) {
    case Val::Kind::py: {
      bool known = false;
      bool t = sema::truthy(v.py, known);
      if (!known) {
        fail(pos, "QD206", "the truth value of " + v.describe() + " is not known at compile time");
      }
      return t;
    }
    case Val::Kind::tuple: return !v.items.empty();
    case Val::Kind::scalar:
      if (v.expr->kind == ExprKind::constant) {
        return is_float(v.expr->type) ? v.expr->fval != 0.0 : v.expr->ival != 0;
      }
      fail(pos, "QD206", "a runtime value where a compile-time condition is needed");
    case Val::Kind::tensor: fail(pos, "QD206", "a vector where a compile-time condition is needed");
    default: return true;
  }
}

int64_t Lowerer::static_int(const Val& v, const ast::Pos& pos, const char* what) {
  if (v.kind == Val::Kind::py && v.py.kind == sema::Value::Kind::integer) {
    int64_t out = 0;
    if (!sema::fits_i64(v.py.iv, out)) {
      fail(pos, "QD206",
           std::string(what) + ": the integer " + sema::int_text(v.py.iv) +
               " does not fit in 64 bits");
    }
    return out;
  }
  if (v.kind == Val::Kind::py && v.py.kind == sema::Value::Kind::boolean) {
    return v.py.b ? 1 : 0;
  }
  if (v.kind == Val::Kind::scalar && v.expr->kind == ExprKind::constant &&
      is_integral(v.expr->type)) {
    return v.expr->ival;
  }
  fail(pos, "QD206", std::string(what) + " must be a compile-time integer, got " + v.describe());
}

Val Lowerer::cast_val(const Val& v, DType t, const ast::Pos& pos) {
  if (v.kind == Val::Kind::tensor) {
    return tensor_cast(v, t, pos);
  }
  if (v.kind == Val::Kind::tuple) {
    return tensor_cast(as_tensor(v, pos), t, pos);
  }
  // A Python number is a typed literal first (int -> default_ip, float -> default_fp rounded),
  // then converted, as every implicit cast and qd.cast do in Quadrants: a func parameter
  // `x: qd.f64` given 0.1 holds the f32 value of 0.1 widened. Only T(literal) keeps the
  // literal's precision (construct_scalar).
  return Val::of_scalar(m_kernel->cast(t, to_scalar(v, pos)));
}

Val Lowerer::construct_scalar(const Val& v, DType t, const ast::Pos& pos) {
  if (v.kind == Val::Kind::py) {
    // T(literal): a constant of type T with the literal's full value; the literal's kind must
    // match T's and an integer must be in T's range (Quadrants' rules).
    switch (v.py.kind) {
      case sema::Value::Kind::floating:
        if (!is_float(t)) {
          type_error(pos, std::string("floating-point literals must be annotated with a "
                                      "floating-point type, not ") +
                              name_of(t) + " (use qd.cast(x, qd." + name_of(t) + ") to convert)");
        }
        return Val::of_scalar(m_kernel->constant_float(t, v.py.f));
      case sema::Value::Kind::integer:
        if (is_float(t)) {
          type_error(pos, std::string("integer literals must be annotated with an integer "
                                      "type, not ") +
                              name_of(t) + " (write " + sema::int_text(v.py.iv) +
                              ".0, or use qd.cast)");
        }
        if (!fits(t, v.py.iv)) {
          fail(pos, "QD206",
               "the integer literal " + sema::int_text(v.py.iv) + " exceeds the range of " +
                   name_of(t));
        }
        return Val::of_scalar(m_kernel->constant_int(t, bits_of(v.py.iv)));
      case sema::Value::Kind::boolean:
        if (is_float(t)) {
          return Val::of_scalar(m_kernel->constant_float(t, v.py.b ? 1.0 : 0.0));
        }
        return Val::of_scalar(m_kernel->constant_int(t, v.py.b ? 1 : 0));
      default: break;
    }
  }
  return cast_val(v, t, pos);
}

// --- operators --------------------------------------------------------------------------------

Val Lowerer::eval_binop(const ast::BinOp* b) {
  Val l = eval(b->left);
  Val r = eval(b->right);
  return binary(b->op, l, r, b->pos);
}

Val Lowerer::binary(ast::Operator op, const Val& a, const Val& b, const ast::Pos& pos) {
  if (a.kind == Val::Kind::py && b.kind == Val::Kind::py) {
    sema::Value v = sema::binary_op(op, a.py, b.py);
    if (!v.known()) {
      fail(pos, "QD206",
           std::string("cannot evaluate ") + sema::repr(a.py) + " " + op_text(op) + " " +
               sema::repr(b.py) + " at compile time" + (v.s.empty() ? "" : ": " + v.s));
    }
    if ((a.path == "f32" || b.path == "f32") && v.kind == sema::Value::Kind::floating &&
        !(a.path == "f64" || b.path == "f64")) {
      // numpy.float32 arithmetic (call_numpy) stays float32: each result is rounded to it.
      Val r = Val::of_py(sema::Value::floating(static_cast<double>(static_cast<float>(v.f))));
      r.path = "f32";
      return r;
    }
    return Val::of_py(std::move(v));
  }
  if (a.kind == Val::Kind::tuple && b.kind == Val::Kind::tuple && op == ast::Operator::Add) {
    Val out = a;
    out.items.insert(out.items.end(), b.items.begin(), b.items.end());
    return out;
  }
  if (op == ast::Operator::Mult && (a.kind == Val::Kind::tuple || b.kind == Val::Kind::tuple) &&
      (a.is_py_number() || b.is_py_number())) {
    // Python's sequence repetition: [x] * n, n * (a, b).
    const Val& seq = a.kind == Val::Kind::tuple ? a : b;
    const Val& count = a.kind == Val::Kind::tuple ? b : a;
    if (count.py.kind != sema::Value::Kind::integer) {
      type_error(pos, "a sequence can only be repeated by an int");
    }
    int64_t n = count.py.iv;
    if (n * static_cast<int64_t>(seq.items.size()) > 65536) {
      fail(pos, "QD206", "the repeated sequence would have more than 65536 items");
    }
    Val out = seq;
    out.items.clear();
    for (int64_t k = 0; k < n; ++k) {
      out.items.insert(out.items.end(), seq.items.begin(), seq.items.end());
    }
    return out;
  }
  if (op == ast::Operator::MatMult) {
    return matmul(as_tensor(a, pos), as_tensor(b, pos), pos);
  }
  if (a.kind == Val::Kind::tensor || b.kind == Val::Kind::tensor) {
    return tensor_binary(op, a, b, pos);
  }
  return Val::of_scalar(scalar_binary(op, to_scalar(a, pos), to_scalar(b, pos), pos));
}

const Expr* Lowerer::scalar_binary(ast::Operator op, const Expr* a, const Expr* b,
                                   const ast::Pos& pos) {
  Kernel& k = *m_kernel;
  DType t = promoted(a->type, b->type);
  auto integral_only = [&]() {
    if (is_float(a->type) || is_float(b->type)) {
      type_error(pos, std::string("operator '") + op_text(op) + "' needs integer operands, got " +
                          name_of(a->type) + " and " + name_of(b->type));
    }
  };
  auto arith = [&](BinOp o, DType rt) { return k.binary(o, rt, k.cast(rt, a), k.cast(rt, b)); };
  switch (op) {
    case ast::Operator::Add: return arith(BinOp::add, t);
    case ast::Operator::Sub: return arith(BinOp::sub, t);
    case ast::Operator::Mult: return arith(BinOp::mul, t);
    case ast::Operator::Div: {
      DType rt = is_integral(a->type) && is_integral(b->type) ? m_default_fp : t;
      return arith(BinOp::div, rt);
    }
    case ast::Operator::FloorDiv: return arith(BinOp::floordiv, t);
    case ast::Operator::Mod: return arith(BinOp::mod, t);
    case ast::Operator::Pow:
      if (is_integral(b->type)) {
        if (is_integral(a->type) && b->kind == ExprKind::constant && b->ival < 0 &&
            is_signed(b->type)) {
          type_error(pos, "an integer base with a negative exponent (use a float base)");
        }
        if (a->type == DType::u1) {
          // The result has the base's type, u1 too (computed as an int: 0 or 1 either way).
          return k.cast(DType::u1, k.binary(BinOp::ipow, m_default_ip, k.cast(m_default_ip, a),
                                            k.cast(DType::i64, b)));
        }
        return k.binary(BinOp::ipow, a->type, a, k.cast(DType::i64, b));
      }
      return arith(BinOp::pow, t);
    case ast::Operator::LShift:
    case ast::Operator::RShift: {
      integral_only();
      DType lt = a->type == DType::u1 ? m_default_ip : a->type;
      return k.binary(op == ast::Operator::LShift ? BinOp::shl : BinOp::shr, lt, k.cast(lt, a),
                      k.cast(lt, b));
    }
    case ast::Operator::BitAnd: integral_only(); return arith(BinOp::bit_and, t);
    case ast::Operator::BitOr: integral_only(); return arith(BinOp::bit_or, t);
    case ast::Operator::BitXor: integral_only(); return arith(BinOp::bit_xor, t);
    case ast::Operator::MatMult: type_error(pos, "'@' needs vectors or matrices");
  }
  type_error(pos, "unknown operator");
}

const Expr* Lowerer::compare(ast::CmpOperator op, const Expr* a, const Expr* b,
                             const ast::Pos& pos) {
  DType t = promoted(a->type, b->type);
  BinOp o{};
  switch (op) {
    case ast::CmpOperator::Eq: o = BinOp::eq; break;
    case ast::CmpOperator::NotEq: o = BinOp::ne; break;
    case ast::CmpOperator::Lt: o = BinOp::lt; break;
    case ast::CmpOperator::LtE: o = BinOp::le; break;
    case ast::CmpOperator::Gt: o = BinOp::gt; break;
    case ast::CmpOperator::GtE: o = BinOp::ge; break;
    default:
      unsupported(pos, "'is' / 'in' on runtime values (they work only inside qd.static(...))");
  }
  return m_kernel->binary(o, DType::u1, m_kernel->cast(t, a), m_kernel->cast(t, b));
}

Val Lowerer::eval_compare(const ast::Compare* c) {
  std::vector<Val> operands{eval(c->left)};
  for (const ast::Expr* e : c->comparators) {
    operands.push_back(eval(e));
  }
  bool all_static = true;
  for (const Val& v : operands) {
    all_static = all_static && !v.is_runtime();
  }
  if (all_static) {
    for (size_t k = 0; k < c->ops.size; ++k) {
      const Val& a = operands[k];
      const Val& b = operands[k + 1];
      bool result = false;
      ast::CmpOperator op = c->ops[k];
      if (op == ast::CmpOperator::Is || op == ast::CmpOperator::IsNot) {
        bool a_none = a.kind == Val::Kind::py && a.py.kind == sema::Value::Kind::none;
        bool b_none = b.kind == Val::Kind::py && b.py.kind == sema::Value::Kind::none;
        bool same = (a_none && b_none) ||
                    (a.kind == Val::Kind::py && b.kind == Val::Kind::py && a.py.kind == b.py.kind &&
                     sema::equal(a.py, b.py) && a.py.kind == sema::Value::Kind::boolean) ||
                    (a.kind == Val::Kind::func && b.kind == Val::Kind::func && a.def == b.def);
        result = (op == ast::CmpOperator::Is) == same;
      } else if (op == ast::CmpOperator::In || op == ast::CmpOperator::NotIn) {
        bool found = false;
        if (b.kind == Val::Kind::tuple) {
          for (const Val& item : b.items) {
            found = found || (item.kind == Val::Kind::py && a.kind == Val::Kind::py &&
                              sema::equal(item.py, a.py));
          }
        } else if (b.kind == Val::Kind::py && b.py.kind == sema::Value::Kind::tuple &&
                   a.kind == Val::Kind::py) {
          for (const sema::Value& item : b.py.items) {
            found = found || sema::equal(item, a.py);
          }
        } else {
          type_error(c->pos, "'in' needs a tuple or list on its right");
        }
        result = (op == ast::CmpOperator::In) == found;
      } else if (a.kind == Val::Kind::py && b.kind == Val::Kind::py) {
        sema::Value v = sema::compare_op(op, a.py, b.py);
        if (v.kind != sema::Value::Kind::boolean) {
          fail(c->pos, "QD206",
               "cannot compare " + a.describe() + " and " + b.describe() + " at compile time");
        }
        result = v.b;
      } else if (op == ast::CmpOperator::Eq || op == ast::CmpOperator::NotEq) {
        // Compile-time objects compare by identity: functions, types, classes, modules.
        bool same = a.kind == b.kind && ((a.kind == Val::Kind::func && a.def == b.def) ||
                                         (a.kind == Val::Kind::dtype && a.dtype == b.dtype) ||
                                         (a.kind == Val::Kind::tensor_type && a.rows == b.rows &&
                                          a.cols == b.cols && a.dtype == b.dtype) ||
                                         (a.kind == Val::Kind::class_ && a.cls == b.cls) ||
                                         (a.kind == Val::Kind::module && a.module == b.module) ||
                                         (a.kind == Val::Kind::object && a.obj == b.obj));
        result = (op == ast::CmpOperator::Eq) == same;
      } else {
        fail(c->pos, "QD206", "cannot compare " + a.describe() + " and " + b.describe());
      }
      if (!result) {
        return Val::of_bool(false);
      }
    }
    return Val::of_bool(true);
  }
  const Expr* acc = nullptr;
  for (size_t k = 0; k < c->ops.size; ++k) {
    const Val& a = operands[k];
    const Val& b = operands[k + 1];
    if (a.kind == Val::Kind::tensor || b.kind == Val::Kind::tensor) {
      if (c->ops.size != 1) {
        unsupported(c->pos, "a chained comparison of vectors");
      }
      // Element-wise comparison of vectors (u1 elements).
      const Val& shape = a.kind == Val::Kind::tensor ? a : b;
      std::vector<const Expr*> elems;
      for (int32_t i = 0; i < shape.size(); ++i) {
        const Expr* x = element_of(a, i, c->pos);
        const Expr* y = element_of(b, i, c->pos);
        elems.push_back(compare(c->ops[k], x, y, c->pos));
      }
      return Val::of_tensor(std::move(elems), shape.rows, shape.cols, DType::u1);
    }
    const Expr* r = compare(c->ops[k], to_scalar(a, c->pos), to_scalar(b, c->pos), c->pos);
    acc = acc == nullptr ? r : m_kernel->binary(BinOp::bit_and, DType::u1, acc, r);
  }
  return Val::of_scalar(acc);
}

Val Lowerer::eval_unary(const ast::UnaryOp* u) {
  Val v = eval(u->operand);
  if (v.kind == Val::Kind::py) {
    sema::Value r = sema::unary_op(u->op, v.py);
    if (!r.known()) {
      fail(u->pos, "QD206", "cannot evaluate this unary operation at compile time");
    }
    return Val::of_py(std::move(r));
  }
  Kernel& k = *m_kernel;
  auto one = [&](const Expr* e) -> const Expr* {
    switch (u->op) {
      case ast::UnaryOperator::UAdd: return e;
      case ast::UnaryOperator::USub: return k.unary(UnOp::neg, e->type, e);
      case ast::UnaryOperator::Not:
        if (is_float(e->type)) {
          type_error(u->pos, "'not' needs an integer operand");
        }
        return k.binary(BinOp::eq, DType::u1, e, k.constant_int(e->type, 0));
      case ast::UnaryOperator::Invert:
        if (is_float(e->type)) {
          type_error(u->pos, std::string("'~' needs an integer operand, got ") + name_of(e->type));
        }
        return k.unary(UnOp::bit_not, e->type, e);
    }
    return e;
  };
  if (v.kind == Val::Kind::tensor) {
    return tensor_unary(v, one);
  }
  return Val::of_scalar(one(to_scalar(v, u->pos)));
}

Val Lowerer::eval_boolop(const ast::BoolOp* b) {
  bool is_and = b->op == ast::BoolOperator::And;
  Val acc = eval(b->values[0]);
  for (size_t i = 1; i < b->values.size; ++i) {
    const ast::Expr* next = b->values[i];
    if (!acc.is_runtime()) {
      // Python semantics on a compile-time left operand.
      bool t = static_truth(acc, b->pos);
      if (t != is_and) {
        return acc;
      }
      acc = eval(next);
      continue;
    }
    const Expr* a = to_scalar(acc, b->pos);
    if (is_float(a->type)) {
      type_error(b->pos, std::string("'and'/'or' need integer operands, got ") + name_of(a->type));
    }
    const Expr* a_true = condition(acc, b->pos);
    // Short-circuit: evaluate `next` only when needed (docs/language.md §3).
    Stmt* st = m_kernel->stmt(StmtKind::if_, b->pos.lineno);
    st->text = line_text(b->pos.lineno);
    st->cond = is_and ? a_true
                      : m_kernel->binary(BinOp::eq, DType::u1, a_true,
                                         m_kernel->constant_int(DType::u1, 0));
    Block* saved = m_block;
    m_block = &st->then_body;
    push_scope();
    Val nv = eval(next);
    const Expr* n = to_scalar(nv, next->pos);
    if (is_float(n->type)) {
      type_error(next->pos,
                 std::string("'and'/'or' need integer operands, got ") + name_of(n->type));
    }
    pop_scope();
    m_block = saved;
    DType t = promoted(a->type, n->type);
    acc = Val::of_scalar(branch_results(st, t, {a}, {n}, {}, b->pos)[0]);
  }
  return acc;
}

Val Lowerer::eval_ifexp(const ast::IfExp* e) {
  Val test = eval(e->test);
  if (!test.is_runtime()) {
    return eval(static_truth(test, e->test->pos) ? e->body : e->orelse);
  }
  if (test.kind == Val::Kind::tensor) {
    type_error(e->test->pos, "a vector condition in 'a if c else b': use qd.select(c, a, b)");
  }
  const Expr* c = condition(test, e->test->pos);
  Stmt* st = m_kernel->stmt(StmtKind::if_, e->pos.lineno);
  st->text = line_text(e->pos.lineno);
  st->cond = c;
  Block* saved = m_block;
  m_block = &st->then_body;
  push_scope();
  Val a = eval(e->body);
  pop_scope();
  m_block = &st->else_body;
  push_scope();
  Val b = eval(e->orelse);
  pop_scope();
  m_block = saved;
  // Tuples of scalars on both sides select element-wise, as vectors (Quadrants' ifte on
  // sequences: `x[(i, j) if c else (j, i)]`).
  if (a.kind == Val::Kind::tensor || b.kind == Val::Kind::tensor ||
      (a.kind == Val::Kind::tuple && b.kind == Val::Kind::tuple)) {
    Val ta = as_tensor(a, e->pos);
    Val tb = as_tensor(b, e->pos);
    if (ta.rows != tb.rows || ta.cols != tb.cols) {
      type_error(e->pos, "the two sides of 'a if c else b' have different shapes");
    }
    DType t = promoted(ta.dtype, tb.dtype);
    std::vector<const Expr*> zeros(ta.elems.size(), m_kernel->constant_int(t, 0));
    return Val::of_tensor(branch_results(st, t, zeros, ta.elems, tb.elems, e->pos), ta.rows,
                          ta.cols, t);
  }
  const Expr* x = to_scalar(a, e->body->pos);
  const Expr* y = to_scalar(b, e->orelse->pos);
  DType t = promoted(x->type, y->type);
  return Val::of_scalar(branch_results(st, t, {m_kernel->constant_int(t, 0)}, {x}, {y}, e->pos)[0]);
}

std::vector<const Expr*> Lowerer::branch_results(Stmt* st, DType t,
                                                 const std::vector<const Expr*>& init,
                                                 const std::vector<const Expr*>& then_values,
                                                 const std::vector<const Expr*>& else_values,
                                                 const ast::Pos& pos) {
  // Result variables are declared (with `init`) before the `if`, which is then appended; each
  // branch assigns its values at its end, after the statements its expressions needed.
  std::vector<const Expr*> results;
  std::vector<int32_t> vars;
  for (const Expr* v : init) {
    int32_t r = m_kernel->new_var("", t);
    Stmt* decl = emit(StmtKind::assign, pos);
    decl->decl = true;
    decl->var = r;
    decl->value = m_kernel->cast(t, v);
    vars.push_back(r);
    results.push_back(m_kernel->var_ref(r));
  }
  m_block->push_back(st);
  auto assign = [&](Block& block, const std::vector<const Expr*>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      Stmt* set = m_kernel->stmt(StmtKind::assign, pos.lineno);
      set->var = vars[i];
      set->value = m_kernel->cast(t, values[i]);
      block.push_back(set);
    }
  };
  assign(st->then_body, then_values);
  assign(st->else_body, else_values);
  return results;
}

}  // namespace qd::ir::lower
