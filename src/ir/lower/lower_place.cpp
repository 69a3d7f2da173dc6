// Places (lvalues): what an assignment, an augmented assignment or an atomic writes to: a local,
// an ndarray or field element, a vector/matrix component or swizzle, a member of a struct; and
// reading, writing and atomically updating one (docs/language.md §2).
#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

std::string not_assignable(const Binding& b, std::string_view name) {
  return "cannot assign to the " + b.what + " '" + std::string(name) +
         "': the value bound to it is not assignable (a local variable, an array element or a "
         "vector/matrix component is)";
}

Lowerer::LValue Lowerer::lvalue_of_binding(const BindingRef& b, const ast::Expr* at) {
  if (b->kind == Binding::Kind::ref) {
    return b->ref;
  }
  if (b->fixed) {
    const auto* n = at->as<ast::Name>();
    fail(at->pos, "QD204", not_assignable(*b, n != nullptr ? n->id : std::string_view("it")));
  }
  LValue lv;
  if (b->kind == Binding::Kind::var) {
    lv.kind = LValue::Kind::var;
    lv.var = b->var;
    lv.type = m_kernel->vars[b->var].type;
    return lv;
  }
  if (b->kind == Binding::Kind::tensor_var) {
    lv.kind = LValue::Kind::tensor;
    lv.rows = b->rows;
    lv.cols = b->cols;
    lv.type = b->dtype;
    for (int32_t v : b->vars) {
      LValue p;
      p.kind = LValue::Kind::var;
      p.var = v;
      p.type = b->dtype;
      lv.parts.push_back(p);
    }
    return lv;
  }
  unsupported(at->pos, "assigning to " + b->value.describe());
}

namespace {

// A swizzle that lvalue() can assign through: 1-4 letters of one of xyzw / rgba / stpq.
bool is_swizzle(std::string_view attr) {
  if (attr.empty() || attr.size() > 4) {
    return false;
  }
  for (std::string_view set : {"xyzw", "rgba", "stpq"}) {
    if (attr.find_first_not_of(set) == std::string_view::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool Lowerer::is_member_array(const ast::Expr* e) {
  // An attribute chain down to a local bound to an object (a dataclass argument, a template
  // object): reading it has no effect but materializing the member, which the use needs anyway.
  const ast::Expr* root = e;
  while (const auto* a = root->as<ast::Attribute>()) {
    root = a->value;
  }
  const auto* n = root->as<ast::Name>();
  if (root == e || n == nullptr) {
    return false;
  }
  BindingRef b = find_local(n->id);
  if (b == nullptr || b->kind != Binding::Kind::value || b->value.kind != Val::Kind::object) {
    return false;
  }
  return eval(e).kind == Val::Kind::array;
}

bool Lowerer::is_lvalue_expr(const ast::Expr* target) {
  if (const auto* n = target->as<ast::Name>()) {
    BindingRef b = find_local(n->id);
    return b != nullptr && b->kind != Binding::Kind::value && !b->immutable;
  }
  if (const auto* s = target->as<ast::Subscript>()) {
    if (s->slice->as<ast::Slice>() != nullptr) {
      return false;
    }
    if (const auto* n = s->value->as<ast::Name>()) {
      BindingRef b = find_local(n->id);
      if (b == nullptr) {
        return false;
      }
      switch (b->kind) {
        case Binding::Kind::value: return b->value.kind == Val::Kind::array;
        case Binding::Kind::tensor_var: return !b->immutable;
        case Binding::Kind::ref: return b->ref.kind == LValue::Kind::tensor;
        case Binding::Kind::var: return false;
      }
      return false;
    }
    if (is_member_array(s->value)) {
      return true;  // dyn_state.dofs.pos[i]
    }
    return (s->value->as<ast::Subscript>() != nullptr ||
            s->value->as<ast::Attribute>() != nullptr) &&
           is_lvalue_expr(s->value);
  }
  if (const auto* a = target->as<ast::Attribute>()) {
    if (struct_element_of(a->value) != nullptr || local_struct_of(a->value) != nullptr) {
      return true;  // sf[i, j].member, s.member of a qd.Struct
    }
    return is_swizzle(a->attr) && is_lvalue_expr(a->value);
  }
  return false;
}

// The element of ndarray parameter `param` at flat element index `flat` as a place: a scalar
// element, or the components of a vector / matrix element (snapshot: the index evaluated once).
Lowerer::LValue Lowerer::array_lvalue(int32_t param, const Expr* flat, bool snapshot,
                                      const ast::Pos& pos) {
  const Param& p = m_kernel->params[param];
  int32_t n = p.element_count();
  if (snapshot && n > 1) {
    flat = materialize(Val::of_scalar(flat), pos).expr;
  }
  LValue lv;
  if (p.element_shape.empty()) {
    lv.kind = LValue::Kind::element;
    lv.array = param;
    lv.index = flat;
    lv.type = p.dtype;
    return lv;
  }
  lv.kind = LValue::Kind::tensor;
  lv.rows = p.element_shape[0];
  lv.cols = p.element_shape.size() > 1 ? p.element_shape[1] : 0;
  lv.type = p.dtype;
  for (int32_t k = 0; k < n; ++k) {
    LValue part;
    part.kind = LValue::Kind::element;
    part.array = param;
    part.type = p.dtype;
    part.index = component_index(param, flat, k);
    lv.parts.push_back(part);
  }
  return lv;
}

Lowerer::LValue Lowerer::lvalue(const ast::Expr* target, bool snapshot) {
  if (const auto* n = target->as<ast::Name>()) {
    BindingRef b = find_local(n->id);
    if (b == nullptr) {
      global(frame().module, n->id, n->pos);  // a name bound nowhere is QD203 (NameError)
      fail(n->pos, "QD204",
           "cannot assign to the global '" + std::string(n->id) +
               "' in a kernel (globals are compile-time constants)");
    }
    if (b->immutable) {
      fail(n->pos, "QD204",
           "cannot assign to " + b->what + " '" + std::string(n->id) + "'" +
               (b->what == "kernel argument"
                    ? ": kernel arguments are immutable (copy it to a local first)"
                    : ""));
    }
    return lvalue_of_binding(b, target);
  }
  if (const auto* s = target->as<ast::Subscript>()) {
    Val base;
    bool base_is_lvalue = false;
    LValue base_lv;
    if (s->value->as<ast::Name>() != nullptr) {
      BindingRef b = find_local(s->value->as<ast::Name>()->id);
      if (b != nullptr && b->kind != Binding::Kind::value) {
        base_lv = lvalue_of_binding(b, s->value);
        base_is_lvalue = true;
      }
    } else if ((s->value->as<ast::Subscript>() != nullptr ||
                s->value->as<ast::Attribute>() != nullptr) &&
               !is_member_array(s->value)) {
      // x[i][k] / v.xy[0]: the base is itself an lvalue (an array element or a local).
      base_lv = lvalue(s->value, snapshot);
      base_is_lvalue = true;
    }
    std::vector<IndexItem> items = subscript_items(s->slice);
    std::vector<Val> idx = index_values(items);
    if (!base_is_lvalue) {
      base = eval(s->value);
      if (base.kind == Val::Kind::array && has_slice(items)) {
        type_error(s->pos, "an ndarray cannot be sliced in a kernel (slice the vector or matrix of "
                           "one element: a[i][1:3])");
      }
      if (base.kind == Val::Kind::array) {
        return array_lvalue(base.param, array_index(base.param, idx, s->pos), snapshot, s->pos);
      }
      unsupported(s->pos, "assigning to an element of " + base.describe());
    }
    if (base_lv.kind != LValue::Kind::tensor) {
      type_error(s->pos, "a scalar cannot be indexed");
    }
    if (has_slice(items)) {
      // m[i, :] = v, v[1:3] += w: the selected components, each a place (a runtime index of a
      // matrix row selects at run time).
      SliceSelection sel = select_slices(base_lv.rows, base_lv.cols, items, s->pos);
      LValue out;
      out.kind = LValue::Kind::tensor;
      out.type = base_lv.type;
      out.rows = sel.rows;
      out.cols = sel.cols;
      auto part = [&](const std::vector<Val>& at) -> LValue {
        for (const Val& v : at) {
          if (v.kind == Val::Kind::scalar && v.expr->kind != ExprKind::constant) {
            return dynamic_element(base_lv, at, s->pos);
          }
        }
        int64_t i = static_int(at[0], s->pos, "a vector/matrix index");
        int64_t j = at.size() > 1 ? static_int(at[1], s->pos, "a matrix index") : 0;
        int64_t n = at.size() > 1 ? base_lv.cols : base_lv.rows;
        if (i < 0 || i >= base_lv.rows || j < 0 || (at.size() > 1 && j >= n)) {
          fail(s->pos, "QD206", "index out of range for the sliced vector/matrix");
        }
        return base_lv.parts[at.size() > 1 ? i * base_lv.cols + j : i];
      };
      if (sel.axes.size() == 1) {
        for (const Val& i : sel.axes[0]) {
          out.parts.push_back(part({i}));
        }
      } else {
        for (const Val& i : sel.axes[0]) {
          for (const Val& j : sel.axes[1]) {
            out.parts.push_back(part({i, j}));
          }
        }
      }
      return out;
    }
    // Runtime indices into a local vector / matrix select one element at run time.
    bool dynamic = false;
    for (const Val& v : idx) {
      dynamic = dynamic || (v.kind == Val::Kind::scalar && v.expr->kind != ExprKind::constant);
    }
    if (dynamic) {
      return dynamic_element(base_lv, idx, s->pos);
    }
    // Constant indices into a local vector / matrix.
    std::vector<int64_t> k;
    for (const Val& v : idx) {
      if (v.kind == Val::Kind::tensor) {
        for (const Expr* e : v.elems) {
          k.push_back(static_int(Val::of_scalar(e), s->pos, "a vector index"));
        }
      } else {
        k.push_back(static_int(v, s->pos, "a vector/matrix index (use a compile-time constant)"));
      }
    }
    if (base_lv.cols == 0) {
      if (k.size() != 1) {
        type_error(s->pos, "a vector takes one index");
      }
      if (k[0] < 0 || k[0] >= base_lv.rows) {
        fail(s->pos, "QD206",
             "index " + std::to_string(k[0]) + " is out of range for a vector of " +
                 std::to_string(base_lv.rows));
      }
      return base_lv.parts[k[0]];
    }
    if (k.size() == 1) {
      if (k[0] < 0 || k[0] >= base_lv.rows) {
        fail(s->pos, "QD206", "row index out of range");
      }
      LValue row;
      row.kind = LValue::Kind::tensor;
      row.rows = base_lv.cols;
      row.type = base_lv.type;
      for (int32_t c = 0; c < base_lv.cols; ++c) {
        row.parts.push_back(base_lv.parts[k[0] * base_lv.cols + c]);
      }
      return row;
    }
    if (k.size() != 2 || k[0] < 0 || k[0] >= base_lv.rows || k[1] < 0 || k[1] >= base_lv.cols) {
      fail(s->pos, "QD206", "matrix index out of range");
    }
    return base_lv.parts[k[0] * base_lv.cols + k[1]];
  }
  if (const auto* a = target->as<ast::Attribute>()) {
    if (a->attr == "grad" || a->attr == "dual") {
      eval(a);  // x.grad[i] = ...: autodiff, reported by member() (lower_globals.cpp)
    }
    if (struct_element_of(a->value) != nullptr) {
      return struct_member_lvalue(a, snapshot);  // sf[i, j].member
    }
    if (Object* st = local_struct_of(a->value)) {
      auto it = st->locals.find(a->attr);
      if (it == st->locals.end()) {
        fail(a->pos, "QD206", "the qd.Struct has no member '" + std::string(a->attr) + "'");
      }
      return lvalue_of_binding(it->second, target);  // s.member of a qd.Struct
    }
    LValue base = lvalue(a->value, snapshot);
    if (base.kind != LValue::Kind::tensor || base.cols != 0) {
      unsupported(a->pos, "assigning to the attribute '" + std::string(a->attr) + "'");
    }
    std::string_view attr = a->attr;
    LValue out;
    out.kind = LValue::Kind::tensor;
    out.type = base.type;
    for (char ch : attr) {
      int32_t k = -1;
      for (std::string_view set : {"xyzw", "rgba", "stpq"}) {
        size_t at = set.find(ch);
        if (at != std::string_view::npos) {
          k = static_cast<int32_t>(at);
        }
      }
      if (k < 0 || k >= base.rows || attr.size() > 4) {
        unsupported(a->pos, "assigning to the attribute '" + std::string(attr) + "'");
      }
      out.parts.push_back(base.parts[k]);
    }
    if (out.parts.size() == 1) {
      return out.parts[0];
    }
    out.rows = static_cast<int32_t>(out.parts.size());
    return out;
  }
  unsupported(target->pos, "this assignment target");
}

Lowerer::LValue Lowerer::dynamic_element(const LValue& base, const std::vector<Val>& idx,
                                         const ast::Pos& pos) {
  const Expr* flat = nullptr;
  if (base.cols == 0) {
    if (idx.size() != 1) {
      type_error(pos, "a vector takes one index");
    }
    flat = to_typed(idx[0], DType::i32, pos);
  } else {
    if (idx.size() != 2) {
      unsupported(pos, "a runtime row index into a matrix (index both dimensions)");
    }
    flat =
        m_kernel->binary(BinOp::add, DType::i32,
                         m_kernel->binary(BinOp::mul, DType::i32, to_typed(idx[0], DType::i32, pos),
                                          m_kernel->constant_int(DType::i32, base.cols)),
                         to_typed(idx[1], DType::i32, pos));
  }
  LValue lv;
  lv.kind = LValue::Kind::dynamic;
  lv.type = base.type;
  lv.parts = base.parts;
  lv.index = flat;  // evaluated where the place is used (write() copies it into a variable)
  return lv;
}

Val Lowerer::read(const LValue& lv) {
  switch (lv.kind) {
    case LValue::Kind::dynamic: {
      const Expr* sel = read(lv.parts.back()).expr;
      for (size_t i = lv.parts.size() - 1; i-- > 0;) {
        const Expr* hit =
            m_kernel->binary(BinOp::eq, DType::u1, lv.index,
                             m_kernel->constant_int(DType::i32, static_cast<int64_t>(i)));
        sel = m_kernel->select(hit, read(lv.parts[i]).expr, sel);
      }
      return Val::of_scalar(sel);
    }
    case LValue::Kind::var: return Val::of_scalar(m_kernel->var_ref(lv.var));
    case LValue::Kind::element: return Val::of_scalar(m_kernel->load(lv.array, lv.index));
    case LValue::Kind::tensor: {
      std::vector<const Expr*> elems;
      for (const LValue& p : lv.parts) {
        elems.push_back(read(p).expr);
      }
      return Val::of_tensor(std::move(elems), lv.rows, lv.cols, lv.type);
    }
  }
  return {};
}

void Lowerer::write(const LValue& lv, const Val& v, const ast::Pos& pos) {
  switch (lv.kind) {
    case LValue::Kind::dynamic: {
      const Expr* value = materialize(Val::of_scalar(to_typed(v, lv.type, pos)), pos).expr;
      const Expr* index = materialize(Val::of_scalar(lv.index), pos).expr;
      Block* saved = m_block;
      for (size_t i = 0; i < lv.parts.size(); ++i) {
        Stmt* st = emit(StmtKind::if_, pos);
        st->cond = m_kernel->binary(BinOp::eq, DType::u1, index,
                                    m_kernel->constant_int(DType::i32, static_cast<int64_t>(i)));
        m_block = &st->then_body;
        write(lv.parts[i], Val::of_scalar(value), pos);
        m_block = saved;
      }
      return;
    }
    case LValue::Kind::var: {
      Stmt* s = emit(StmtKind::assign, pos);
      s->var = lv.var;
      s->value = to_typed(v, lv.type, pos);
      return;
    }
    case LValue::Kind::element: {
      Stmt* s = emit(StmtKind::store, pos);
      s->array = lv.array;
      s->index = lv.index;
      s->value = to_typed(v, lv.type, pos);
      return;
    }
    case LValue::Kind::tensor: {
      Val t = v;
      if (t.kind == Val::Kind::tuple ||
          (t.kind == Val::Kind::py && t.py.kind == sema::Value::Kind::tuple)) {
        t = as_tensor(t, pos);  // a list / tuple (a compile-time one too: fill(((0, 0), ...)))
      }
      if (t.kind == Val::Kind::scalar || t.is_py_number()) {
        // A scalar stored into a vector / matrix place fills every component (Quadrants
        // broadcasts it: `m[1, :] = 0.0`, `a[i] = 1.0` for a vector ndarray).
        Val x = materialize(Val::of_scalar(to_scalar(t, pos)), pos);
        for (const LValue& part : lv.parts) {
          write(part, x, pos);
        }
        return;
      }
      if (t.kind != Val::Kind::tensor || t.size() != static_cast<int32_t>(lv.parts.size()) ||
          (t.cols != lv.cols && !(t.cols == 0 && lv.cols == 0))) {
        type_error(pos, "cannot store " + v.describe() + " into a " +
                            (lv.cols == 0 ? "vector of " + std::to_string(lv.rows)
                                          : std::to_string(lv.rows) + "x" +
                                                std::to_string(lv.cols) + " matrix"));
      }
      t = materialize(t, pos);
      for (size_t k = 0; k < lv.parts.size(); ++k) {
        write(lv.parts[k], Val::of_scalar(t.elems[k]), pos);
      }
      return;
    }
  }
}

Val Lowerer::atomic(AtomicOp op, const LValue& lv, const Val& v, const ast::Pos& pos, bool want_old,
                    const Val* expected) {
  if (lv.type == DType::u1 && lv.kind != LValue::Kind::tensor) {
    // One bit: + and - wrap modulo 2 (an exclusive or), * is an and, as u1 arithmetic does in
    // Quadrants; a byte-wide atomic add would store 2 into a bool.
    if (op == AtomicOp::add || op == AtomicOp::sub) {
      op = AtomicOp::bit_xor;
    } else if (op == AtomicOp::mul) {
      op = AtomicOp::bit_and;
    }
  }
  if (lv.kind == LValue::Kind::dynamic) {
    // Thread-private elements: a read-modify-write through the selected element.
    Val old = materialize(read(lv), pos);
    static const ast::Operator k_ops[] = {
        ast::Operator::Add, ast::Operator::Sub,    ast::Operator::Mult,  ast::Operator::Add,
        ast::Operator::Add, ast::Operator::BitAnd, ast::Operator::BitOr, ast::Operator::BitXor};
    Val updated;
    if (op == AtomicOp::exchange) {
      updated = Val::of_scalar(to_typed(v, lv.type, pos));
    } else if (op == AtomicOp::cas) {
      const Expr* hit =
          m_kernel->binary(BinOp::eq, DType::u1, old.expr, to_typed(*expected, lv.type, pos));
      updated = Val::of_scalar(m_kernel->select(hit, to_typed(v, lv.type, pos), old.expr));
    } else if (op == AtomicOp::min || op == AtomicOp::max) {
      std::vector<Val> two{old, Val::of_scalar(to_typed(v, lv.type, pos))};
      updated = min_max(op == AtomicOp::max, two, pos);
    } else {
      updated =
          binary(k_ops[static_cast<int>(op)], old, Val::of_scalar(to_typed(v, lv.type, pos)), pos);
    }
    write(lv, updated, pos);
    return old;
  }
  if (lv.kind == LValue::Kind::tensor) {
    Val t = v;
    if (t.kind == Val::Kind::tuple) {
      t = as_tensor(t, pos);
    }
    if (t.kind == Val::Kind::tensor && t.size() != static_cast<int32_t>(lv.parts.size())) {
      type_error(pos, "atomic operands of different shapes");
    }
    std::vector<const Expr*> olds;
    for (size_t k = 0; k < lv.parts.size(); ++k) {
      Val part = t.kind == Val::Kind::tensor ? Val::of_scalar(t.elems[k]) : t;
      Val old = atomic(op, lv.parts[k], part, pos, want_old, expected);
      olds.push_back(want_old ? old.expr : nullptr);
    }
    if (!want_old) {
      return {};
    }
    return Val::of_tensor(std::move(olds), lv.rows, lv.cols, lv.type);
  }
  if (v.kind == Val::Kind::tensor) {
    type_error(pos, "an atomic update of a scalar with " + v.describe());
  }
  if ((op == AtomicOp::bit_and || op == AtomicOp::bit_or || op == AtomicOp::bit_xor) &&
      is_float(lv.type)) {
    type_error(pos, std::string("atomic ") + name_of(op) + " needs an integer target, not " +
                        name_of(lv.type));
  }
  const Expr* value = to_typed(v, lv.type, pos);
  const Expr* compare = expected != nullptr ? to_typed(*expected, lv.type, pos) : nullptr;
  Stmt* s = emit(StmtKind::atomic, pos);
  s->op = op;
  s->value = value;
  s->expected = compare;
  if (lv.kind == LValue::Kind::var) {
    s->target_var = lv.var;
  } else {
    s->array = lv.array;
    s->index = lv.index;
  }
  if (!want_old) {
    return {};
  }
  s->var = m_kernel->new_var("", lv.type);
  s->decl = true;
  return Val::of_scalar(m_kernel->var_ref(s->var));
}

}  // namespace qd::ir::lower
