// Statements, scopes and assignment (docs/language.md §2).
#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

namespace {

const char* stmt_name(ast::StmtKind k) {
  switch (k) {
    case ast::StmtKind::FunctionDef:
    case ast::StmtKind::AsyncFunctionDef: return "a nested def";
    case ast::StmtKind::ClassDef: return "a class definition";
    case ast::StmtKind::Delete: return "del";
    case ast::StmtKind::TypeAlias: return "a type alias";
    case ast::StmtKind::AsyncFor: return "async for";
    case ast::StmtKind::With:
    case ast::StmtKind::AsyncWith: return "with";
    case ast::StmtKind::Match: return "match";
    case ast::StmtKind::Raise: return "raise";
    case ast::StmtKind::Try:
    case ast::StmtKind::TryStar: return "try";
    case ast::StmtKind::Import:
    case ast::StmtKind::ImportFrom: return "import";
    case ast::StmtKind::Global: return "global";
    case ast::StmtKind::Nonlocal: return "nonlocal";
    default: return "this statement";
  }
}

}  // namespace

namespace {

std::string not_assignable(const Binding& b, std::string_view name) {
  return "cannot assign to the " + b.what + " '" + std::string(name) +
         "': the value bound to it is not assignable (a local variable, an array element or a "
         "vector/matrix component is)";
}

}  // namespace

bool Lowerer::stopped() const { return m_jump != Jump::none || m_frames.back().returned; }

void Lowerer::lower_body(const ast::Seq<ast::Stmt*>& body) {
  push_scope();
  lower_stmts(body);
  pop_scope();
}

void Lowerer::lower_stmts(const ast::Seq<ast::Stmt*>& body) {
  for (const ast::Stmt* s : body) {
    if (stopped()) {
      break;
    }
    lower_stmt(s);
  }
}

void Lowerer::lower_stmt(const ast::Stmt* s) {
  switch (s->tag) {
    case ast::StmtKind::Assign: lower_assign(s->as<ast::Assign>()); return;
    case ast::StmtKind::AnnAssign: lower_ann_assign(s->as<ast::AnnAssign>()); return;
    case ast::StmtKind::AugAssign: lower_aug_assign(s->as<ast::AugAssign>()); return;
    case ast::StmtKind::If: lower_if(s->as<ast::If>()); return;
    case ast::StmtKind::For: lower_for(s->as<ast::For>()); return;
    case ast::StmtKind::While: lower_while(s->as<ast::While>()); return;
    case ast::StmtKind::Return: lower_return(s->as<ast::Return>()); return;
    case ast::StmtKind::ExprStmt: lower_expr_stmt(s->as<ast::ExprStmt>()); return;
    case ast::StmtKind::Pass: return;
    case ast::StmtKind::Break: lower_break_continue(s, true); return;
    case ast::StmtKind::Continue: lower_break_continue(s, false); return;
    case ast::StmtKind::Assert:
      if (m_in.config->debug) {
        unsupported(s->pos, "assert with debug=true");
      }
      return;  // checked only in debug mode (docs/language.md §2)
    case ast::StmtKind::With:
      // `with qd.stream_parallel():` / `with qd.checkpoint():` name their construct.
      for (const ast::WithItem* w : s->as<ast::With>()->items) {
        if (const auto* call = w->context_expr->as<ast::Call>()) {
          Val f = eval(call->func);
          if (f.kind == Val::Kind::api) {
            reject_out_of_reach(f.path, w->context_expr->pos);
            unsupported(s->pos, "'with qd." + f.path + "()'");
          }
        }
      }
      unsupported(s->pos, stmt_name(s->tag));
    default: unsupported(s->pos, stmt_name(s->tag));
  }
}

void Lowerer::lower_expr_stmt(const ast::ExprStmt* s) {
  if (const auto* c = s->value->as<ast::Constant>()) {
    if (c->value.kind == ast::ConstantValue::Kind::Str) {
      return;  // a docstring
    }
  }
  eval(s->value);
}

BindingRef Lowerer::find_local(std::string_view name) {
  std::vector<Scope>& scopes = frame().scopes;
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto f = it->find(std::string(name));
    if (f != it->end()) {
      return f->second;
    }
  }
  return nullptr;
}

Val Lowerer::materialize(const Val& v, const ast::Pos& pos) {
  if (v.kind == Val::Kind::scalar) {
    if (v.expr->kind == ExprKind::constant) {
      return v;
    }
    int32_t var = m_kernel->new_var("", v.expr->type);
    Stmt* s = emit(StmtKind::assign, pos);
    s->decl = true;
    s->var = var;
    s->value = v.expr;
    return Val::of_scalar(m_kernel->var_ref(var));
  }
  if (v.kind == Val::Kind::tensor) {
    Val out = v;
    for (const Expr*& e : out.elems) {
      e = materialize(Val::of_scalar(e), pos).expr;
    }
    return out;
  }
  if (v.kind == Val::Kind::tuple) {
    Val out = v;
    for (Val& item : out.items) {
      item = materialize(item, pos);
    }
    return out;
  }
  return v;
}

BindingRef Lowerer::declare(std::string_view name, const Val& value, const ast::Pos& pos,
                            std::optional<DType> annotated) {
  auto b = std::make_shared<Binding>();
  auto new_scalar = [&](const Expr* e) {
    int32_t var = m_kernel->new_var(std::string(name), e->type);
    Stmt* s = emit(StmtKind::assign, pos);
    s->decl = true;
    s->var = var;
    s->value = e;
    return var;
  };
  if (value.kind == Val::Kind::tensor) {
    b->kind = Binding::Kind::tensor_var;
    b->rows = value.rows;
    b->cols = value.cols;
    b->dtype = annotated.value_or(value.dtype);
    for (const Expr* e : value.elems) {
      b->vars.push_back(new_scalar(m_kernel->cast(b->dtype, e)));
    }
  } else if (value.kind == Val::Kind::scalar || value.is_py_number() || annotated) {
    const Expr* e = annotated ? to_typed(value, *annotated, pos) : to_scalar(value, pos);
    b->kind = Binding::Kind::var;
    b->var = new_scalar(e);
  } else {
    b->kind = Binding::Kind::value;
    b->value = materialize(value, pos);
  }
  frame().scopes.back()[std::string(name)] = b;
  return b;
}

void Lowerer::assign_name(std::string_view name, const Val& value, const ast::Pos& pos,
                          std::optional<DType> annotated) {
  BindingRef b = find_local(name);
  if (b == nullptr) {
    declare(name, value, pos, annotated);
    return;
  }
  if (b->immutable) {
    fail(pos, "QD204",
         "cannot assign to " + b->what + " '" + std::string(name) + "': " +
             (b->what == "kernel argument"
                  ? "kernel arguments are immutable (copy it to a local first)"
                  : "loop variables are immutable"));
  }
  switch (b->kind) {
    case Binding::Kind::var: {
      DType t = m_kernel->vars[b->var].type;
      if (annotated && *annotated != t) {
        fail(pos, "QD204",
             "'" + std::string(name) + "' is already declared as " + name_of(t) +
                 "; it cannot be re-annotated as " + name_of(*annotated));
      }
      if (value.kind == Val::Kind::tensor) {
        type_error(pos, "cannot assign a vector/matrix to the scalar variable '" +
                            std::string(name) + "'");
      }
      Stmt* s = emit(StmtKind::assign, pos);
      s->var = b->var;
      s->value = to_typed(value, t, pos);
      return;
    }
    case Binding::Kind::tensor_var: {
      if (value.kind == Val::Kind::scalar || value.is_py_number()) {
        // `v = 0.0` on a vector variable fills it, as Quadrants broadcasts a scalar.
        Val x = materialize(Val::of_scalar(to_scalar(value, pos)), pos);
        for (int32_t var : b->vars) {
          Stmt* s = emit(StmtKind::assign, pos);
          s->var = var;
          s->value = m_kernel->cast(b->dtype, x.expr);
        }
        return;
      }
      if (value.kind != Val::Kind::tensor || value.rows != b->rows || value.cols != b->cols) {
        type_error(pos,
                   "cannot assign " + value.describe() + " to '" + std::string(name) + "', a " +
                       (b->cols == 0
                            ? "vector of " + std::to_string(b->rows)
                            : std::to_string(b->rows) + "x" + std::to_string(b->cols) + " matrix") +
                       " (the shape of a variable is fixed at its first assignment)");
      }
      Val copy = materialize(value, pos);  // `v = m @ v` reads v before writing it
      for (size_t k = 0; k < b->vars.size(); ++k) {
        Stmt* s = emit(StmtKind::assign, pos);
        s->var = b->vars[k];
        s->value = m_kernel->cast(b->dtype, copy.elems[k]);
      }
      return;
    }
    case Binding::Kind::ref: {
      if (annotated) {
        fail(pos, "QD204",
             "'" + std::string(name) +
                 "' is a qd.template() parameter bound to the caller's value; it cannot be "
                 "re-annotated");
      }
      write(b->ref, value, pos);  // stores into the caller's place (§1.8)
      return;
    }
    case Binding::Kind::value: {
      if (b->fixed) {
        fail(pos, "QD204", not_assignable(*b, name));
      }
      // A name bound to a compile-time value is rebound, in the scope that holds it.
      Scope saved = frame().scopes.back();
      BindingRef nb = declare(name, value, pos, annotated);
      frame().scopes.back() = std::move(saved);
      *b = *nb;  // every scope and by-reference alias that holds b sees the new value
      return;
    }
  }
}

void Lowerer::assign_to(const ast::Expr* target, const Val& value, const ast::Pos& pos,
                        std::optional<DType> annotated) {
  if (const auto* n = target->as<ast::Name>()) {
    if (value.kind == Val::Kind::object && value.obj->parent != nullptr) {
      unsupported(pos, "an element of the struct field '" + value.obj->parent->path +
                           "' in a variable (read the members it needs: pos = " +
                           value.obj->parent->path + "[i].pos)");
    }
    if (BindingRef b = find_local(n->id); b != nullptr && (b->immutable || b->fixed)) {
      assign_name(n->id, value, n->pos, annotated);  // reports the target
    }
    assign_name(n->id, value, pos, annotated);
    return;
  }
  if (target->as<ast::Tuple>() != nullptr || target->as<ast::List>() != nullptr) {
    const ast::Seq<ast::Expr*>& elts = target->as<ast::Tuple>() != nullptr
                                           ? target->as<ast::Tuple>()->elts
                                           : target->as<ast::List>()->elts;
    std::vector<Val> items;
    if (value.kind == Val::Kind::tuple) {
      items = value.items;
    } else if (value.kind == Val::Kind::tensor && value.cols == 0) {
      for (const Expr* e : value.elems) {
        items.push_back(Val::of_scalar(e));
      }
    } else if (value.kind == Val::Kind::tensor) {
      type_error(pos, "a matrix cannot be unpacked (only tuples, lists and vectors)");
    } else if (value.kind == Val::Kind::shape) {
      for (int32_t k = 0; k < m_kernel->params[value.param].ndim; ++k) {
        items.push_back(Val::of_scalar(canonical_shape(*m_kernel, value.param, k)));
      }
    } else if (value.kind == Val::Kind::py && value.py.kind == sema::Value::Kind::tuple) {
      for (const sema::Value& x : value.py.items) {
        items.push_back(py_value(x));
      }
    } else {
      type_error(pos, "cannot unpack " + value.describe());
    }
    for (const ast::Expr* e : elts) {
      if (e->as<ast::Starred>() != nullptr) {
        unsupported(e->pos, "starred assignment");
      }
    }
    if (items.size() != elts.size) {
      fail(pos, "QD206",
           "cannot unpack " + std::to_string(items.size()) + " values into " +
               std::to_string(elts.size) + " targets");
    }
    // The right-hand side is copied first, so `a, b = b, a` swaps.
    for (Val& item : items) {
      item = materialize(item, pos);
    }
    for (size_t k = 0; k < elts.size; ++k) {
      assign_to(elts[k], items[k], pos);
    }
    return;
  }
  if (target->as<ast::Subscript>() != nullptr || target->as<ast::Attribute>() != nullptr) {
    if (annotated) {
      unsupported(pos, "an annotated assignment to a subscript or attribute");
    }
    if (struct_element_of(target) != nullptr) {
      assign_struct_element(target->as<ast::Subscript>(), value, pos);  // sf[i] = sf2[j]
      return;
    }
    LValue lv = lvalue(target);
    write(lv, value, pos);
    return;
  }
  unsupported(target->pos, "this assignment target");
}

void Lowerer::lower_assign(const ast::Assign* s) {
  Val v = eval(s->value);
  if (v.kind == Val::Kind::object && v.obj->local_struct && s->value->as<ast::Call>() == nullptr) {
    unsupported(s->pos, "copying a qd.Struct value (Quadrants makes a copy; build a new one "
                        "with qd.Struct(...) and assign its members)");
  }
  if (frame().python || is_static_call(s->value)) {
    // `W = qd.static(x)`: the name is bound to the compile-time value itself (Quadrants'
    // static assign: no variable is created, `qd.static(W)` later sees the value).
    for (const ast::Expr* t : s->targets) {
      std::vector<std::pair<const ast::Name*, Val>> binds;
      if (const auto* n = t->as<ast::Name>()) {
        binds.emplace_back(n, v);
      } else if (const auto* tu = t->as<ast::Tuple>()) {
        std::vector<Val> items = static_items(v, s->value->pos);
        if (items.size() != tu->elts.size) {
          fail(s->pos, "QD206",
               "cannot unpack " + std::to_string(items.size()) + " values into " +
                   std::to_string(tu->elts.size) + " targets");
        }
        for (size_t k = 0; k < items.size(); ++k) {
          const auto* n = tu->elts[k]->as<ast::Name>();
          if (n == nullptr) {
            fail(tu->elts[k]->pos, "QD204", "a static assignment binds names only");
          }
          binds.emplace_back(n, items[k]);
        }
      } else {
        fail(t->pos, "QD204",
             "a static assignment (x = qd.static(...)) binds names only, not elements");
      }
      for (auto& [n, value] : binds) {
        if (BindingRef old = find_local(n->id); old != nullptr && old->immutable) {
          fail(n->pos, "QD204", "cannot assign to " + old->what + " '" + std::string(n->id) + "'");
        }
        auto b = std::make_shared<Binding>();
        b->kind = Binding::Kind::value;
        b->value = value;
        frame().scopes.back()[std::string(n->id)] = b;
      }
    }
    return;
  }
  if (s->targets.size > 1) {
    v = materialize(v, s->pos);  // `a = b = e` evaluates e once
  }
  // Conversions of the value are reported at the value; the line is the statement's.
  ast::Pos at = s->value->pos;
  if (at.lineno != s->pos.lineno) {
    at = s->pos;
  }
  for (const ast::Expr* t : s->targets) {
    assign_to(t, v, at);
  }
}

void Lowerer::lower_ann_assign(const ast::AnnAssign* s) {
  Val t = eval(s->annotation);
  if (s->value == nullptr) {
    unsupported(s->pos, "a declaration without a value");
  }
  Val v = eval(s->value);
  if (t.kind == Val::Kind::dtype) {
    if (v.kind == Val::Kind::tensor) {
      assign_to(s->target, tensor_cast(v, t.dtype, s->pos), s->pos);
      return;
    }
    assign_to(s->target, v, s->pos, t.dtype);
    return;
  }
  if (t.kind == Val::Kind::tensor_type) {
    std::vector<Val> args{v};
    assign_to(s->target, construct_tensor_type(t, args, s->pos), s->pos);
    return;
  }
  unsupported(s->annotation->pos, "this annotation (" + t.describe() + ")");
}

void Lowerer::lower_aug_assign(const ast::AugAssign* s) {
  if (frame().python && s->target->as<ast::Name>() != nullptr) {
    // Python's `x += y` on a name: rebinds it to the new value.
    const auto* n = s->target->as<ast::Name>();
    Val cur = eval(n);
    Val v = binary(s->op, cur, eval(s->value), s->pos);
    auto b = std::make_shared<Binding>();
    b->kind = Binding::Kind::value;
    b->value = v;
    frame().scopes.back()[std::string(n->id)] = b;
    return;
  }
  LValue lv = lvalue(s->target);
  Val rhs = eval(s->value);
  AtomicOp op{};
  bool is_atomic = true;
  switch (s->op) {
    case ast::Operator::Add: op = AtomicOp::add; break;
    case ast::Operator::Sub: op = AtomicOp::sub; break;
    case ast::Operator::BitAnd: op = AtomicOp::bit_and; break;
    case ast::Operator::BitOr: op = AtomicOp::bit_or; break;
    case ast::Operator::BitXor: op = AtomicOp::bit_xor; break;
    default: is_atomic = false;
  }
  if (is_atomic) {
    atomic(op, lv, rhs, s->pos, false);
    return;
  }
  Val cur = read(lv);
  write(lv, binary(s->op, cur, rhs, s->pos), s->pos);
}

void Lowerer::lower_if(const ast::If* s) {
  if (frame().python) {
    // Python's own `if` at trace time: the condition must be known now.
    Val test = eval(s->test);
    if (test.is_runtime()) {
      fail(s->test->pos, "QD206",
           "the plain Python function '" + m_in.program->def_id(frame().def) +
               "' branches on a runtime value (Quadrants runs it as Python at compile time; make "
               "it a @qd.func)");
    }
    lower_body(static_truth(test, s->test->pos) ? s->body : s->orelse);
    return;
  }
  bool is_static = is_static_call(s->test);
  Val test = eval(s->test);
  if (is_static) {
    bool taken = static_truth(test, s->test->pos);
    // The taken branch is a scope of its own, as every block is (§1.7: a name first assigned
    // in it is not visible after it); a loop in it is still at the kernel's root (§1.2).
    lower_body(taken ? s->body : s->orelse);
    return;
  }
  const Expr* c = condition(test, s->test->pos);  // (also type-checks a compile-time test)
  if (!test.is_runtime()) {
    bool taken = static_truth(test, s->test->pos);
    // An `if` on a compile-time value without qd.static (`if FLAG:`): Quadrants traces both
    // branches as a runtime if (a return in either is refused, each branch is checked) and
    // its optimizer then drops the branch not taken, so a loop in the taken one at the kernel's
    // root is a parallel top-level loop. The same here: the branch not taken is lowered into a
    // block that is dropped.
    ++frame().runtime_depth;
    Block* saved = m_block;
    Block dropped;
    m_block = &dropped;
    lower_body(taken ? s->orelse : s->body);
    m_jump = Jump::none;
    m_block = saved;
    lower_body(taken ? s->body : s->orelse);
    --frame().runtime_depth;
    return;
  }
  Stmt* st = emit(StmtKind::if_, s->pos);
  st->cond = c;
  Block* saved = m_block;
  ++frame().runtime_depth;
  m_block = &st->then_body;
  lower_body(s->body);
  Jump j1 = m_jump;
  m_jump = Jump::none;
  m_block = &st->else_body;
  lower_body(s->orelse);
  m_jump = j1 != Jump::none ? j1 : m_jump;
  m_block = saved;
  --frame().runtime_depth;
}

void Lowerer::lower_return(const ast::Return* s) {
  if (frame().runtime_depth > 0) {
    fail(s->pos, "QD205", "return inside non-static if/for/while is not supported");
  }
  Val v = s->value != nullptr ? eval(s->value) : Val::of_py(sema::Value::none());
  Frame& f = frame();  // after eval: inlined calls may have grown m_frames
  if (f.is_kernel) {
    bool none = v.kind == Val::Kind::py && v.py.kind == sema::Value::Kind::none;
    if (!none) {
      if (!m_kernel->ret) {
        fail(s->pos, "QD205", "returning a value requires a return type annotation on the kernel");
      }
      Stmt* st = emit(StmtKind::ret, s->pos);
      st->value = to_typed(v, *m_kernel->ret, s->pos);
    }
    f.returned = true;
    return;
  }
  f.ret = f.python ? v : materialize(v, s->pos);
  f.returned = true;
}

// --- lvalues ---------------------------------------------------------------------------------

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
