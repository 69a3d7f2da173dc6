// Loops (docs/language.md §4): runtime range / ndrange / grouped loops (parallel at the kernel
// root), while, break / continue, and qd.static unrolling.
#include <functional>

#include "ir/lower/lowerer.hpp"
#include "syntax/ast_blocks.hpp"

namespace qd::ir::lower {

namespace {

// "for i in range(n):" -> "for i in range(n)"
std::string loop_label(std::string text) {
  while (!text.empty() && (text.back() == ':' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

// qd.ndrange over every index of ndarray parameter `param` (struct-for, qd.grouped(array)).
Val shape_ndrange(Kernel& kernel, int32_t param) {
  Val nd;
  nd.kind = Val::Kind::ndrange;
  for (int32_t k = 0; k < kernel.params[param].ndim; ++k) {
    nd.items.push_back(
        Val::of_tuple({Val::of_int(0), Val::of_scalar(canonical_shape(kernel, param, k))}));
  }
  // A permuted layout iterates in memory order (Quadrants: the physical loop indices, each
  // bound to the canonical axis it holds).
  nd.order = kernel.params[param].layout;
  return nd;
}

bool has_load(const Expr* e) {
  bool found = false;
  walk_expr(e, [&](const Expr& x) { found = found || x.kind == ExprKind::load; });
  return found;
}

}  // namespace

bool Lowerer::at_root() const {
  return m_block == &m_kernel->body || (m_graph_body != nullptr && m_block == m_graph_body);
}

Block* Lowerer::enter_loop(Stmt* st, Loop::Kind kind) {
  Block* saved = m_block;
  m_block = &st->body;
  ++frame().runtime_depth;
  m_loops.push_back(Loop{kind, 0, m_frames.size() - 1, st->block_dim});
  return saved;
}

void Lowerer::leave_loop(Block* saved) {
  m_loops.pop_back();
  --frame().runtime_depth;
  m_block = saved;
}

const Expr* Lowerer::loop_bound(const Val& v, const ast::Pos& pos) {
  const Expr* e = to_scalar(v, pos);
  return m_kernel->cast(DType::i32, e);
}

void Lowerer::lower_for(const ast::For* s) {
  if (!s->orelse.empty()) {
    fail(s->pos, "QD205", "'for ... else' is not supported in kernels");
  }
  if (const ast::Seq<ast::Expr*>* elts = static_display(s)) {
    lower_static_display_for(s, *elts);
    return;
  }
  Val it = eval(s->iter);
  switch (it.kind) {
    case Val::Kind::range:
      if (it.path == "static") {
        lower_static_for(s, it);
        return;
      }
      if (it.items.size() != 2) {
        fail(s->iter->pos, "QD205",
             "Range should have 1 or 2 arguments (no step) in a runtime loop");
      }
      lower_range_for(s, loop_bound(it.items[0], s->iter->pos),
                      loop_bound(it.items[1], s->iter->pos));
      return;
    case Val::Kind::ndrange:
      if (it.path == "static") {
        lower_static_for(s, it);
        return;
      }
      lower_ndrange_for(s, it, false);
      return;
    case Val::Kind::grouped: {
      const Val& inner = it.items[0];
      if (it.path == "static" || inner.path == "static") {
        lower_static_for(s, it);
        return;
      }
      if (inner.kind == Val::Kind::ndrange) {
        lower_ndrange_for(s, inner, true);
        return;
      }
      if (inner.kind == Val::Kind::array) {
        lower_ndrange_for(s, shape_ndrange(*m_kernel, inner.param), true);
        return;
      }
      type_error(s->iter->pos, "qd.grouped() takes qd.ndrange(...) or an ndarray");
    }
    case Val::Kind::array: {
      // A struct-for over an ndarray: every index of its shape.
      lower_ndrange_for(s, shape_ndrange(*m_kernel, it.param), false);
      return;
    }
    case Val::Kind::tuple:
    case Val::Kind::enumerate_:
    case Val::Kind::zip_:
      static_iterable(s);
      lower_static_for(s, it);
      return;
    case Val::Kind::py:
      if (it.py.kind == sema::Value::Kind::tuple) {
        static_iterable(s);
        lower_static_for(s, it);
        return;
      }
      [[fallthrough]];
    default:
      unsupported(s->iter->pos, "iterating over " + it.describe() +
                                    " (use range, qd.ndrange, qd.grouped or qd.static(...))");
  }
}

std::vector<Val> Lowerer::static_items(const Val& it, const ast::Pos& pos) {
  std::vector<Val> out;
  switch (it.kind) {
    case Val::Kind::range: {
      int64_t b = static_int(it.items[0], pos, "a qd.static range bound");
      int64_t e = static_int(it.items[1], pos, "a qd.static range bound");
      int64_t step = it.items.size() > 2 ? static_int(it.items[2], pos, "a range step") : 1;
      if (step == 0) {
        fail(pos, "QD206", "range() step must not be zero");
      }
      for (int64_t i = b; step > 0 ? i < e : i > e; i += step) {
        out.push_back(Val::of_int(i));
      }
      return out;
    }
    case Val::Kind::ndrange:
    case Val::Kind::grouped: {
      bool grouped = it.kind == Val::Kind::grouped;
      const Val& nd = grouped ? it.items[0] : it;
      if (nd.kind != Val::Kind::ndrange) {
        type_error(pos, "qd.static(qd.grouped(...)) needs qd.ndrange(...) with constant bounds");
      }
      // The dimensions in iteration order (qd.ndrange(axes=...): outermost first); each index
      // is put back at its canonical axis.
      std::vector<size_t> axis_of(nd.items.size());
      for (size_t p = 0; p < axis_of.size(); ++p) {
        axis_of[p] = nd.order.empty() ? p : static_cast<size_t>(nd.order[p]);
      }
      std::vector<std::pair<int64_t, int64_t>> dims;
      for (size_t p = 0; p < nd.items.size(); ++p) {
        const Val& d = nd.items[axis_of[p]];
        int64_t b = static_int(d.items[0], pos, "a qd.static ndrange bound");
        int64_t e = static_int(d.items[1], pos, "a qd.static ndrange bound");
        dims.emplace_back(b, std::max(b, e));
      }
      std::vector<int64_t> cur;
      for (auto& d : dims) {
        cur.push_back(d.first);
      }
      bool empty = false;
      for (auto& d : dims) {
        empty = empty || d.first >= d.second;
      }
      while (!empty) {
        std::vector<Val> items(cur.size());
        std::vector<const Expr*> elems(cur.size());
        for (size_t p = 0; p < cur.size(); ++p) {
          items[axis_of[p]] = Val::of_int(cur[p]);
          elems[axis_of[p]] = m_kernel->constant_int(DType::i32, cur[p]);
        }
        if (grouped) {
          out.push_back(Val::of_tensor(elems, static_cast<int32_t>(elems.size()), 0, DType::i32));
        } else {
          out.push_back(items.size() == 1 ? items[0] : Val::of_tuple(items));
        }
        size_t k = dims.size();
        while (k > 0) {
          --k;
          if (++cur[k] < dims[k].second) {
            break;
          }
          cur[k] = dims[k].first;
          if (k == 0) {
            empty = true;
          }
        }
        if (dims.empty()) {
          break;
        }
      }
      return out;
    }
    case Val::Kind::tuple: return it.items;
    case Val::Kind::py:
      if (it.py.kind == sema::Value::Kind::tuple) {
        for (const sema::Value& v : it.py.items) {
          out.push_back(Val::of_py(v));
        }
        return out;
      }
      break;
    case Val::Kind::tensor:
      if (it.cols == 0) {
        for (const Expr* e : it.elems) {
          out.push_back(Val::of_scalar(e));
        }
        return out;
      }
      for (int32_t r = 0; r < it.rows; ++r) {
        std::vector<const Expr*> row(it.elems.begin() + r * it.cols,
                                     it.elems.begin() + (r + 1) * it.cols);
        out.push_back(Val::of_tensor(row, it.cols, 0, it.dtype));
      }
      return out;
    case Val::Kind::enumerate_: {
      std::vector<Val> inner = static_items(it.items[0], pos);
      int64_t start = it.items.size() > 1 ? static_int(it.items[1], pos, "enumerate start") : 0;
      for (size_t k = 0; k < inner.size(); ++k) {
        out.push_back(Val::of_tuple({Val::of_int(start + static_cast<int64_t>(k)), inner[k]}));
      }
      return out;
    }
    case Val::Kind::zip_: {
      std::vector<std::vector<Val>> lists;
      size_t n = SIZE_MAX;
      for (const Val& x : it.items) {
        lists.push_back(static_items(x, pos));
        n = std::min(n, lists.back().size());
      }
      for (size_t k = 0; k < n && !lists.empty(); ++k) {
        std::vector<Val> t;
        for (auto& l : lists) {
          t.push_back(l[k]);
        }
        out.push_back(Val::of_tuple(std::move(t)));
      }
      return out;
    }
    default: break;
  }
  fail(pos, "QD206", "cannot iterate over " + it.describe() + " at compile time");
}

bool Lowerer::is_static_call(const ast::Expr* e) {
  const auto* c = e->as<ast::Call>();
  if (c == nullptr) {
    return false;
  }
  // Only a dotted name can be qd.static; anything else (`Vector([f(x)]).norm_sqr`) is not
  // evaluated here, since evaluating it lowers its calls (a func's atomics would run twice).
  const ast::Expr* root = c->func;
  while (const auto* a = root->as<ast::Attribute>()) {
    root = a->value;
  }
  if (root->as<ast::Name>() == nullptr) {
    return false;
  }
  Val callee = eval(c->func);
  return callee.kind == Val::Kind::api && callee.path == "static";
}

void Lowerer::static_iterable(const ast::For* s) {
  // Quadrants unrolls a loop over a tuple, list, enumerate or zip only under qd.static (or an
  // iterable chosen by `A if qd.static(c) else B`); a runtime loop over one is refused there.
  const ast::Expr* iter = s->iter;
  if (const auto* ie = iter->as<ast::IfExp>(); ie != nullptr && is_static_call(ie->test)) {
    return;
  }
  if (!is_static_call(iter)) {
    fail(iter->pos, "QD205",
         "a for loop over a tuple, list, enumerate or zip needs qd.static(...) (it is unrolled "
         "at compile time)");
  }
}

const ast::Seq<ast::Expr*>* Lowerer::static_display(const ast::For* s) {
  if (s->target->as<ast::Name>() == nullptr) {
    return nullptr;
  }
  const ast::Expr* iter = s->iter;
  const auto* c = iter->as<ast::Call>();
  if (c == nullptr || c->args.size != 1 || c->keywords.size != 0 || !is_static_call(c)) {
    return nullptr;
  }
  iter = c->args[0];
  const ast::Seq<ast::Expr*>* elts = nullptr;
  if (const auto* t = iter->as<ast::Tuple>()) {
    elts = &t->elts;
  } else if (const auto* l = iter->as<ast::List>()) {
    elts = &l->elts;
  } else {
    return nullptr;
  }
  for (const ast::Expr* e : *elts) {
    if (e->as<ast::Starred>() != nullptr) {
      return nullptr;
    }
  }
  return elts;
}

void Lowerer::lower_static_display_for(const ast::For* s, const ast::Seq<ast::Expr*>& elts) {
  // The display is built first; each element binds the loop variable as a func's
  // qd.template() parameter is bound (Quadrants iterates over the elements' Exprs): a place is
  // assigned through, another runtime value is read again at every use.
  std::vector<BindingRef> items;
  for (const ast::Expr* e : elts) {
    Val v;
    items.push_back(bind_by_reference(e, v, "qd.static loop variable"));
  }
  const std::string name(s->target->as<ast::Name>()->id);
  m_loops.push_back(Loop{Loop::Kind::static_, frame().runtime_depth, m_frames.size() - 1});
  for (const BindingRef& b : items) {
    push_scope();
    frame().scopes.back()[name] = b;
    lower_stmts(s->body);
    pop_scope();
    Jump j = m_jump;
    m_jump = Jump::none;
    if (j == Jump::break_ || frame().returned) {
      break;
    }
  }
  m_loops.pop_back();
}

void Lowerer::lower_static_for(const ast::For* s, const Val& iterable) {
  std::vector<Val> items = static_items(iterable, s->iter->pos);
  m_loops.push_back(Loop{Loop::Kind::static_, frame().runtime_depth, m_frames.size() - 1});
  // Binds the target to compile-time values (a tuple target unpacks).
  std::function<void(const ast::Expr*, const Val&)> bind = [&](const ast::Expr* t, const Val& v) {
    if (const auto* n = t->as<ast::Name>()) {
      // A compile-time value or a runtime value read again at every use (Quadrants binds the
      // item itself); either way not assignable.
      auto b = std::make_shared<Binding>();
      b->kind = Binding::Kind::value;
      b->value = v;
      b->fixed = true;
      b->what = "qd.static loop variable";
      frame().scopes.back()[std::string(n->id)] = b;
      return;
    }
    const ast::Seq<ast::Expr*>* elts = nullptr;
    if (const auto* tt = t->as<ast::Tuple>()) {
      elts = &tt->elts;
    } else if (const auto* tl = t->as<ast::List>()) {
      elts = &tl->elts;
    } else {
      unsupported(t->pos, "this loop target");
    }
    std::vector<Val> parts = static_items(v, t->pos);
    if (parts.size() != elts->size) {
      fail(t->pos, "QD206",
           "cannot unpack " + std::to_string(parts.size()) + " values into " +
               std::to_string(elts->size) + " loop targets");
    }
    for (size_t k = 0; k < parts.size(); ++k) {
      bind((*elts)[k], parts[k]);
    }
  };
  for (const Val& item : items) {
    push_scope();
    bind(s->target, item);
    lower_stmts(s->body);
    pop_scope();
    Jump j = m_jump;
    m_jump = Jump::none;
    if (j == Jump::break_ || frame().returned) {
      break;
    }
  }
  m_loops.pop_back();
}

void Lowerer::lower_range_for(const ast::For* s, const Expr* begin, const Expr* end) {
  const auto* target = s->target->as<ast::Name>();
  if (target == nullptr) {
    type_error(s->target->pos, "range() gives one index per iteration: use a single loop variable");
  }
  bool parallel = at_root() && !m_pending_serialize;
  m_pending_serialize = false;
  int64_t block_dim = m_pending_block_dim;
  m_pending_block_dim = 0;
  if (parallel) {
    for (const Expr** b : {&begin, &end}) {
      if (has_load(*b)) {
        *b = materialize(Val::of_scalar(*b), s->pos).expr;  // evaluated once, before the loop
      }
    }
  }
  if (find_local(target->id) != nullptr) {
    fail(s->target->pos, "QD204",
         "the loop variable '" + std::string(target->id) +
             "' shadows a variable of an enclosing scope");
  }
  Stmt* st = emit(StmtKind::range_for, s->pos);
  st->parallel = parallel;
  st->block_dim = static_cast<int32_t>(block_dim);
  st->begin = begin;
  st->end = end;
  st->label = loop_label(st->text);
  st->var = m_kernel->new_var(std::string(target->id), DType::i32);
  Block* saved = enter_loop(st, parallel ? Loop::Kind::parallel : Loop::Kind::serial);
  push_scope();
  auto b = std::make_shared<Binding>();
  b->kind = Binding::Kind::var;
  b->var = st->var;
  b->immutable = true;
  b->what = "loop variable";
  frame().scopes.back()[std::string(target->id)] = b;
  lower_body(s->body);
  pop_scope();
  leave_loop(saved);
}

void Lowerer::lower_ndrange_for(const ast::For* s, const Val& nd, bool grouped) {
  size_t dims = nd.items.size();
  std::vector<const ast::Name*> names;
  if (grouped) {
    const auto* n = s->target->as<ast::Name>();
    if (n == nullptr) {
      type_error(s->target->pos,
                 "qd.grouped(...) gives one vector index: use a single loop variable");
    }
    names.push_back(n);
  } else if (const auto* n = s->target->as<ast::Name>()) {
    names.push_back(n);
  } else if (const auto* t = s->target->as<ast::Tuple>()) {
    for (const ast::Expr* e : t->elts) {
      if (e->as<ast::Name>() == nullptr) {
        unsupported(e->pos, "this loop target");
      }
      names.push_back(e->as<ast::Name>());
    }
  } else {
    unsupported(s->target->pos, "this loop target");
  }
  if (!grouped && names.size() != dims) {
    type_error(s->target->pos, "the loop has " + std::to_string(names.size()) + " targets for " +
                                   std::to_string(dims) +
                                   " ndrange dimensions (they must be equal)");
  }
  bool parallel = at_root() && !m_pending_serialize;
  m_pending_serialize = false;
  int64_t block_dim = m_pending_block_dim;
  m_pending_block_dim = 0;
  Kernel& k = *m_kernel;
  // Physical level p (outermost first, the last one fastest) iterates the canonical axis
  // axis_of[p]: the identity, or qd.ndrange(axes=...); the loop variables stay canonical.
  std::vector<size_t> axis_of(dims);
  for (size_t p = 0; p < dims; ++p) {
    axis_of[p] = nd.order.empty() ? p : static_cast<size_t>(nd.order[p]);
  }
  std::vector<const Expr*> begins;
  std::vector<const Expr*> extents;
  const Expr* total = k.constant_int(DType::i64, 1);
  for (size_t p = 0; p < dims; ++p) {
    const Val& d = nd.items[axis_of[p]];
    const Expr* b = loop_bound(d.items[0], s->iter->pos);
    const Expr* e = loop_bound(d.items[1], s->iter->pos);
    if (parallel && has_load(b)) {
      b = materialize(Val::of_scalar(b), s->pos).expr;
    }
    if (parallel && has_load(e)) {
      e = materialize(Val::of_scalar(e), s->pos).expr;
    }
    // end is clamped to max(begin, end).
    const Expr* extent =
        k.binary(BinOp::sub, DType::i64, k.cast(DType::i64, k.binary(BinOp::max, DType::i32, b, e)),
                 k.cast(DType::i64, b));
    begins.push_back(b);
    extents.push_back(extent);
    total = total->kind == ExprKind::constant && total->ival == 1
                ? extent
                : k.binary(BinOp::mul, DType::i64, total, extent);
  }
  for (const ast::Name* n : names) {
    if (find_local(n->id) != nullptr) {
      fail(n->pos, "QD204",
           "the loop variable '" + std::string(n->id) +
               "' shadows a variable of an enclosing scope");
    }
  }
  Stmt* st = emit(StmtKind::range_for, s->pos);
  st->parallel = parallel;
  st->block_dim = static_cast<int32_t>(block_dim);
  st->begin = k.constant_int(DType::i64, 0);
  st->end = total;
  st->label = loop_label(st->text);
  st->var = k.new_var("", DType::i64);
  Block* saved = enter_loop(st, parallel ? Loop::Kind::parallel : Loop::Kind::serial);
  push_scope();
  // The index variables; codegen decomposes the flat index (last dimension fastest).
  std::vector<int32_t> index_vars(dims, -1);  // per physical level
  for (size_t p = 0; p < dims; ++p) {
    size_t a = axis_of[p];
    std::string name =
        grouped ? std::string(names[0]->id) + "_" + std::to_string(a) : std::string(names[a]->id);
    index_vars[p] = k.new_var(name, DType::i32);
  }
  std::vector<int32_t> canonical_vars(dims, -1);  // per canonical axis
  for (size_t p = 0; p < dims; ++p) {
    canonical_vars[axis_of[p]] = index_vars[p];
  }
  st->nd_vars = index_vars;
  st->nd_begins = begins;
  st->nd_extents = extents;
  auto b = std::make_shared<Binding>();
  b->immutable = true;
  b->what = "loop variable";
  if (grouped) {
    b->kind = Binding::Kind::tensor_var;
    b->vars = canonical_vars;
    b->rows = static_cast<int32_t>(dims);
    b->dtype = DType::i32;
    frame().scopes.back()[std::string(names[0]->id)] = b;
  } else {
    for (size_t d = 0; d < dims; ++d) {
      auto bd = std::make_shared<Binding>(*b);
      bd->kind = Binding::Kind::var;
      bd->var = canonical_vars[d];
      frame().scopes.back()[std::string(names[d]->id)] = bd;
    }
  }
  lower_body(s->body);
  pop_scope();
  leave_loop(saved);
}

void Lowerer::lower_while(const ast::While* s) {
  if (!s->orelse.empty()) {
    fail(s->pos, "QD205", "'while ... else' is not supported in kernels");
  }
  if (const auto* call = s->test->as<ast::Call>()) {
    Val f = eval(call->func);
    if (f.kind == Val::Kind::api && (f.path == "graph.do_while" || f.path == "graph_do_while")) {
      lower_graph_loop(s, call);
      return;
    }
  }
  if (frame().python) {
    // Trace-time Python (a plain function called from a kernel): the loop runs now, as Python
    // runs it when Quadrants traces the kernel; its test must be a compile-time value.
    constexpr int64_t k_max_passes = 1000000;
    m_loops.push_back(Loop{Loop::Kind::static_, frame().runtime_depth, m_frames.size() - 1});
    for (int64_t pass = 0;; ++pass) {
      Val test = eval(s->test);
      if (test.is_runtime()) {
        fail(s->test->pos, "QD206",
             "a while loop of trace-time Python (a plain function called from a kernel) needs a "
             "compile-time condition, got " +
                 test.describe());
      }
      if (!static_truth(test, s->test->pos)) {
        break;
      }
      if (pass == k_max_passes) {
        fail(s->pos, "QD206",
             "a while loop of trace-time Python ran " + std::to_string(k_max_passes) +
                 " passes without ending");
      }
      lower_stmts(s->body);
      Jump j = m_jump;
      m_jump = Jump::none;
      if (j == Jump::break_ || frame().returned) {
        break;
      }
    }
    m_loops.pop_back();
    return;
  }
  Stmt* st = m_kernel->stmt(StmtKind::while_, s->pos.lineno);
  st->text = line_text(s->pos.lineno);
  Block* saved = enter_loop(st, Loop::Kind::serial);
  push_scope();
  Val test = eval(s->test);
  if (!test.is_runtime()) {
    if (!static_truth(test, s->test->pos)) {
      pop_scope();
      leave_loop(saved);
      return;  // `while False:` never runs
    }
  } else {
    const Expr* c = condition(test, s->test->pos);
    Stmt* exit = emit(StmtKind::if_, s->pos);
    exit->cond = m_kernel->binary(BinOp::eq, DType::u1, c, m_kernel->constant_int(DType::u1, 0));
    exit->then_body.push_back(m_kernel->stmt(StmtKind::break_, s->pos.lineno));
  }
  lower_body(s->body);
  pop_scope();
  leave_loop(saved);
  m_block->push_back(st);
}

// `while qd.graph.do_while(flag):` in a graph kernel: the body runs, then again while flag[()]
// is non-zero, the flag read after each pass (a host loop over the body's tasks; Quadrants runs
// the same on the CPU and below sm_90, and as a CUDA graph's conditional node on sm_90+). Its
// statements are at the kernel root: each of its parallel loops is a task, the rest serial tasks.
namespace {

// `while qd.graph.do_while(...)` / `while qd.graph_do_while(...)` by spelling, as Quadrants
// recognizes it (graph_api.matches) when it checks a graph kernel's structure.
bool is_graph_loop_spelling(const ast::Stmt* s) {
  const auto* w = s->as<ast::While>();
  const auto* call = w != nullptr ? w->test->as<ast::Call>() : nullptr;
  if (call == nullptr) {
    return false;
  }
  if (const auto* a = call->func->as<ast::Attribute>()) {
    if (a->attr == "graph_do_while") {
      return true;
    }
    if (a->attr != "do_while") {
      return false;
    }
    const auto* base_attr = a->value->as<ast::Attribute>();
    const auto* base_name = a->value->as<ast::Name>();
    return (base_attr != nullptr && base_attr->attr == "graph") ||
           (base_name != nullptr && base_name->id == "graph");
  }
  const auto* n = call->func->as<ast::Name>();
  return n != nullptr && n->id == "graph_do_while";
}

bool uses_graph_loop(const ast::Seq<ast::Stmt*>& body) {
  for (const ast::Stmt* s : body) {
    if (is_graph_loop_spelling(s)) {
      return true;
    }
    bool found = false;
    ast::for_each_nested_block(
        s, [&](const ast::Seq<ast::Stmt*>& b) { found = found || uses_graph_loop(b); });
    if (found) {
      return true;
    }
  }
  return false;
}

}  // namespace

// Quadrants' structure rule for a kernel that uses qd.graph.do_while
// (FunctionDefTransformer._validate_graph_do_while_stmt_list): its body and every loop's body
// hold only for loops, graph loops, expression statements, assignments and ifs (checked inside).
void Lowerer::check_graph_structure(const ast::Seq<ast::Stmt*>& stmts, bool kernel_top) {
  for (uint32_t i = 0; i < stmts.size; ++i) {
    const ast::Stmt* s = stmts[i];
    switch (s->tag) {
      case ast::StmtKind::For:
      case ast::StmtKind::ExprStmt:
      case ast::StmtKind::Assign:
      case ast::StmtKind::AugAssign:
      case ast::StmtKind::AnnAssign: continue;
      case ast::StmtKind::If:
        check_graph_structure(s->as<ast::If>()->body, kernel_top);
        check_graph_structure(s->as<ast::If>()->orelse, kernel_top);
        continue;
      case ast::StmtKind::While:
        if (is_graph_loop_spelling(s)) {
          if (!s->as<ast::While>()->orelse.empty()) {
            fail(s->pos, "QD205", "'else' clause for 'while' not supported in Quadrants kernels");
          }
          check_graph_structure(s->as<ast::While>()->body, false);
          continue;
        }
        break;
      default: break;
    }
    std::string kind = ast::name_of(s->tag);
    fail(s->pos, "QD205",
         "When a kernel uses qd.graph.do_while(), " +
             std::string(kernel_top ? "the kernel body" : "a qd.graph.do_while() body") +
             " may not contain a " + kind +
             " statement. Allowed: for-loops, qd.graph.do_while() while-loops, bare assignments, "
             "and @qd.func calls (freely mixed and nested). [offending stmt " +
             std::to_string(i) + ": " + kind + "]");
  }
}

// `while qd.graph.do_while(flag):` in a graph kernel: the body runs, then again while flag[()]
// is non-zero, the flag read after each pass (a host loop over the body's tasks; Quadrants runs
// the same on the CPU and below sm_90, and as a CUDA graph's conditional node on sm_90+). Its
// statements are at the kernel root: each of its parallel loops is a task, the rest serial tasks.
void Lowerer::lower_graph_loop(const ast::While* s, const ast::Call* call) {
  const sema::DefInfo& def = m_in.program->defs[m_in.kernel];
  if (def.graph != sema::DefInfo::Flag::on) {
    fail(s->pos, "QD205",
         def.graph == sema::DefInfo::Flag::unknown
             ? "qd.graph.do_while() requires @qd.kernel(graph=True) (graph= is not a True or "
               "False literal here, so qdbuild cannot tell)"
             : "qd.graph.do_while() requires @qd.kernel(graph=True)");
  }
  if (!m_graph_checked) {
    m_graph_checked = true;
    // (docstrings are expression statements, allowed as any other)
    if (uses_graph_loop(*def.body)) {
      check_graph_structure(*def.body, true);
    }
  }
  if (!m_loops.empty()) {
    fail(s->pos, "QD205",
         "qd.graph.do_while() must be at the kernel top level or directly nested inside another "
         "qd.graph.do_while(); it cannot appear inside a for-loop.");
  }
  if (!at_root()) {
    // Quadrants 1.3.3 compiles a graph loop inside a runtime if, and runs its body only once.
    fail(s->pos, "QD201",
         "a qd.graph.do_while() loop inside a runtime if is not supported in compiled kernels "
         "(Quadrants runs its body only once whatever the flag); put it at the kernel top level "
         "or directly inside another qd.graph.do_while()");
  }
  if (call->args.size != 1 || !call->keywords.empty() ||
      (call->args[0]->as<ast::Name>() == nullptr &&
       call->args[0]->as<ast::Attribute>() == nullptr)) {
    fail(call->pos, "QD205",
         "qd.graph.do_while() takes one argument: the flag, a kernel ndarray parameter (or a "
         "member of a dataclass or data_oriented parameter) given by name");
  }
  Val flag = eval(call->args[0]);
  if (flag.kind != Val::Kind::array) {
    fail(call->args[0]->pos, "QD205",
         "qd.graph.do_while()'s flag must be an ndarray parameter of the kernel, not " +
             flag.describe());
  }
  const Param& p = m_kernel->params[flag.param];
  if (p.dtype != DType::i32 || p.ndim != 0 || !p.element_shape.empty()) {
    fail(call->args[0]->pos, "QD205",
         "qd.graph.do_while()'s flag must be a 0-dim qd.i32 ndarray (a scalar counter), not '" +
             p.name + "': " + p.text);
  }
  Stmt* st = m_kernel->stmt(StmtKind::graph_loop, s->pos.lineno);
  st->col = s->pos.col_offset;
  st->text = line_text(s->pos.lineno);
  st->array = flag.param;
  size_t outer_vars = m_kernel->vars.size();
  Block* saved_block = m_block;
  Block* saved_graph = m_graph_body;
  m_block = &st->body;
  m_graph_body = &st->body;
  push_scope();
  lower_body(s->body);
  pop_scope();
  m_graph_body = saved_graph;
  m_block = saved_block;
  // A local declared before the loop and changed in its body: Quadrants does not carry it from
  // one pass to the next (each pass sees its value at the loop's entry), where the compiled
  // kernel's temporaries would. Refused rather than run either way.
  walk_stmts(st->body, [&](const Stmt& x) {
    int32_t v = x.kind == StmtKind::assign || x.kind == StmtKind::random ? x.var
                : x.kind == StmtKind::atomic                             ? x.target_var
                                                                         : -1;
    if (v >= 0 && static_cast<size_t>(v) < outer_vars) {
      fail(ast::Pos{x.line, x.col, x.line, x.col}, "QD201",
           "the local '" + m_kernel->vars[v].name +
               "', declared before the qd.graph.do_while() "
               "loop of line " +
               std::to_string(s->pos.lineno) +
               ", changes in its body: Quadrants does not carry a kernel local from one pass to "
               "the next (each pass sees its value at the loop's entry), so compiled kernels "
               "refuse it; keep loop-carried state in an ndarray");
    }
  });
  m_block->push_back(st);
}

void Lowerer::lower_break_continue(const ast::Stmt* s, bool is_break) {
  const char* word = is_break ? "break" : "continue";
  if (m_loops.empty() || m_loops.back().frame != m_frames.size() - 1) {
    fail(s->pos, "QD205", std::string("'") + word + "' outside a loop");
  }
  const Loop& l = m_loops.back();
  if (l.kind == Loop::Kind::static_) {
    if (frame().runtime_depth != l.runtime_depth) {
      fail(s->pos, "QD205",
           std::string("'") + word + "' in a qd.static for loop cannot be inside a non-static if");
    }
    m_jump = is_break ? Jump::break_ : Jump::continue_;
    return;
  }
  if (l.kind == Loop::Kind::parallel && is_break) {
    fail(s->pos, "QD205",
         "Cannot break in the outermost loop: it is a parallel loop (put "
         "qd.loop_config(serialize=True) before it to run it serially)");
  }
  emit(is_break ? StmtKind::break_ : StmtKind::continue_, s->pos);
}

}  // namespace qd::ir::lower
