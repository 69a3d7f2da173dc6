// Statements, scopes and assignment (docs/language.md §2). What an assignment writes to, a
// place, is lower_place.cpp's.
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
  // `xs.append(v)` on a name bound to a compile-time list (`caps = []` in trace-time Python):
  // the list grows, as the Python list does when Quadrants traces it.
  if (const auto* call = s->value->as<ast::Call>()) {
    const auto* attr = call->func->as<ast::Attribute>();
    const auto* name = attr != nullptr ? attr->value->as<ast::Name>() : nullptr;
    BindingRef b = name != nullptr && attr->attr == "append" ? find_local(name->id) : nullptr;
    if (b != nullptr && b->kind == Binding::Kind::value && b->value.kind == Val::Kind::tuple &&
        b->value.is_list) {
      if (call->args.size != 1 || call->keywords.size != 0) {
        type_error(call->pos, "list.append(x) takes one argument");
      }
      Val v = eval(call->args[0]);
      if (v.is_runtime()) {
        unsupported(call->pos, "appending a runtime value to a list (a list of the kernel is a "
                               "compile-time value)");
      }
      b->value.items.push_back(std::move(v));
      return;
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
    b->tile = value.tile;
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
  if (tile_assign(target, value, pos)) {
    return;  // tile[:] = arr[...], arr[...] = tile (lower_tile.cpp)
  }
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
  if (tile_aug_assign(s)) {
    return;  // tile -= qd.outer(a, b) (lower_tile.cpp)
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

}  // namespace qd::ir::lower
