// Register tiles: qd.simt.Tile16x16 / Tile32x32, Quadrants' simt/_tile.py. A tile is an NxN
// matrix spread over N lanes of a warp, one row per lane: each thread holds its row in N
// registers (a vector Val marked `tile`, a tensor variable when bound to a name). The lanes
// exchange rows with subgroup shuffles; nothing goes through shared memory.
//
//   t = TileNxN.zeros(dtype=D) / TileNxN.eye(dtype=D)     (D: default_fp when not given)
//   t[:] = arr[r0:r1, c0:c1]  /  arr[b, r0:r1, c0:c1]      load lane l's row r0 + l, clipped
//   arr[r0:r1, c0:c1] = t     /  arr[b, r0:r1, c0:c1] = t  store, clipped the same way
//   t -= qd.outer(a, b)        a, b per-lane scalars or columns arr[r0:r1, col] (0 past r1)
//   t.cholesky_(eps)           in place, lower triangle; pivots sqrt(max(x, eps))
//   L.solve_triangular_(B)     B := B L^-T, in place (lower=True only)
//   t.eye_()
// The operations are Quadrants' own, unrolled the same way (the same shuffles, the same float
// operations in the same order), so a kernel's tiles round as they do under Quadrants.
#include <string>
#include <vector>

#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

namespace {

bool full_slice(const ast::Expr* e) {
  const auto* sl = e->as<ast::Slice>();
  return sl != nullptr && sl->lower == nullptr && sl->upper == nullptr && sl->step == nullptr;
}

}  // namespace

void Lowerer::emit_if(const Expr* cond, const std::function<void()>& then, const ast::Pos& pos) {
  Stmt* st = emit(StmtKind::if_, pos);
  st->cond = cond;
  Block* saved = m_block;
  m_block = &st->then_body;
  then();
  m_block = saved;
}

int32_t Lowerer::new_local(const Expr* init, const ast::Pos& pos) {
  int32_t var = m_kernel->new_var("", init->type);
  Stmt* st = emit(StmtKind::assign, pos);
  st->decl = true;
  st->var = var;
  st->value = init;
  return var;
}

const Expr* Lowerer::clip_to_extent(int32_t arr, int32_t axis, const Expr* stop,
                                    const ast::Pos& pos) {
  const Expr* extent = m_kernel->cast(DType::i32, canonical_shape(*m_kernel, arr, axis));
  return materialize(Val::of_scalar(m_kernel->select(
                         m_kernel->binary(BinOp::lt, DType::u1, extent, stop), extent, stop)),
                     pos)
      .expr;
}

const Expr* Lowerer::tile_row(const Val& proxy, const ast::Pos& pos) {
  const Expr* start = proxy.items[proxy.cols == 1 ? 1 : 0].expr;
  return materialize(Val::of_scalar(m_kernel->binary(BinOp::add, DType::i32, start, lane_id())),
                     pos)
      .expr;
}

void Lowerer::set_var(int32_t var, const Expr* value, const ast::Pos& pos) {
  Stmt* st = emit(StmtKind::assign, pos);
  st->var = var;
  st->value = m_kernel->cast(m_kernel->vars[var].type, value);
}

// TileNxN.zeros(dtype=None) / TileNxN.eye(dtype=None).
Val Lowerer::tile_new(int32_t n, bool eye, const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  std::string what =
      "qd.simt.Tile" + std::to_string(n) + "x" + std::to_string(n) + (eye ? ".eye" : ".zeros");
  DType t = m_default_fp;
  if (!args.empty() || c->keywords.size > 1 ||
      (c->keywords.size == 1 && keyword(c, "dtype") == nullptr)) {
    type_error(pos, what + "(dtype=None) takes only the keyword dtype");
  }
  if (const ast::Expr* d = keyword(c, "dtype")) {
    Val dt = eval(d);
    if (dt.kind != Val::Kind::dtype) {
      type_error(d->pos, what + ": dtype must be a float type, got " + dt.describe());
    }
    t = dt.dtype;
  }
  if (!is_float(t)) {
    type_error(pos, what + ": a tile holds floats (f32 or f64), got " + name_of(t));
  }
  if (!in_parallel_loop()) {
    fail(pos, "QD201",
         what + " outside a parallel for loop is not supported in compiled kernels (a tile "
                "belongs to the warp of the loop's thread block)");
  }
  std::vector<const Expr*> rows;
  const Expr* lane = eye ? materialize(Val::of_scalar(lane_id()), pos).expr : nullptr;
  for (int32_t j = 0; j < n; ++j) {
    if (eye) {
      // eye_(): r[j] = 1.0 if tid == j else 0.0
      rows.push_back(m_kernel->select(
          m_kernel->binary(BinOp::eq, DType::u1, lane, m_kernel->constant_int(DType::i32, j)),
          m_kernel->constant_float(t, 1.0), m_kernel->constant_float(t, 0.0)));
    } else {
      rows.push_back(m_kernel->constant_float(t, 0.0));
    }
  }
  Val v = Val::of_tensor(std::move(rows), n, 0, t);
  v.tile = true;
  return v;
}

// arr[r0:r1, c0:c1], arr[b, r0:r1, c0:c1], arr[r0:r1, col], arr[b, r0:r1, col]: what a tile
// loads, stores or takes a column of (Quadrants' tile_slicing.py). Anything else is an error.
Val Lowerer::array_slice(const Val& base, const std::vector<IndexItem>& items,
                         const ast::Pos& pos) {
  std::vector<bool> is_slice;
  for (const IndexItem& it : items) {
    is_slice.push_back(it.is_slice);
  }
  bool batch = !is_slice.empty() && !is_slice[0];
  std::vector<bool> rest(is_slice.begin() + (batch ? 1 : 0), is_slice.end());
  bool tile = rest == std::vector<bool>{true, true};
  bool vec = rest == std::vector<bool>{true, false};
  if (!tile && !vec) {
    type_error(pos, "an ndarray cannot be sliced in a kernel (slice the vector or matrix of "
                    "one element: a[i][1:3]; a register tile takes arr[r0:r1, c0:c1], "
                    "arr[b, r0:r1, c0:c1] and columns arr[r0:r1, col])");
  }
  if (m_kernel->params[base.param].ndim != static_cast<int32_t>(items.size())) {
    type_error(pos, "a tile slice indexes every dimension of the array: it has " +
                        std::to_string(m_kernel->params[base.param].ndim) + ", the slice " +
                        std::to_string(items.size()));
  }
  Val p;
  p.kind = Val::Kind::slice_proxy;
  p.param = base.param;
  p.path = tile ? "tile" : "vec";
  p.cols = batch ? 1 : 0;
  auto bound = [&](const std::optional<Val>& b, const char* which, const IndexItem& it) {
    if (!b) {
      fail(it.pos, "QD206",
           std::string("a tile slice needs both its start and stop (the ") + which + " bounds)");
    }
    return Val::of_scalar(
        materialize(Val::of_scalar(to_typed(*b, DType::i32, it.pos)), it.pos).expr);
  };
  size_t k = 0;
  if (batch) {
    p.items.push_back(Val::of_scalar(to_typed(items[0].value, DType::i32, pos)));
    k = 1;
  }
  for (; k < items.size(); ++k) {
    const IndexItem& it = items[k];
    if (it.is_slice) {
      if (it.step) {
        type_error(it.pos, "a tile slice takes no step");
      }
      const char* which = tile && k + 1 == items.size() ? "column" : "row";
      p.items.push_back(bound(it.lower, which, it));
      p.items.push_back(bound(it.upper, which, it));
    } else {
      p.items.push_back(Val::of_scalar(to_typed(it.value, DType::i32, it.pos)));
    }
  }
  return p;
}

BindingRef Lowerer::tile_binding(const ast::Expr* e) {
  const auto* n = e->as<ast::Name>();
  if (n == nullptr) {
    return nullptr;
  }
  BindingRef b = find_local(n->id);
  return b != nullptr && b->kind == Binding::Kind::tensor_var && b->tile ? b : nullptr;
}

bool Lowerer::tile_assign(const ast::Expr* target, const Val& value, const ast::Pos& pos) {
  const auto* sub = target->as<ast::Subscript>();
  if (sub == nullptr) {
    return false;
  }
  if (full_slice(sub->slice)) {
    if (BindingRef b = tile_binding(sub->value)) {
      // tile[:] = arr[r0:r1, c0:c1]
      if (value.kind != Val::Kind::slice_proxy || value.path != "tile") {
        type_error(pos, "tile[:] takes an array's rows and columns, arr[r0:r1, c0:c1] or "
                        "arr[b, r0:r1, c0:c1]; got " +
                            value.describe());
      }
      tile_load(*b, value, pos);
      return true;
    }
    return false;
  }
  if (!value.tile) {
    return false;
  }
  // arr[r0:r1, c0:c1] = tile
  Val proxy = eval_subscript(sub);
  if (proxy.kind != Val::Kind::slice_proxy || proxy.path != "tile") {
    type_error(pos, "a tile is stored into an array's rows and columns, arr[r0:r1, c0:c1] = tile");
  }
  tile_store(proxy, materialize(value, pos).elems, pos);
  return true;
}

// Quadrants' _load / _store (and their 3-D forms): lane l's row is row_start + l; rows at or past
// min(row_stop, the array's rows) and columns at or past min(col_stop, its columns) are skipped.
// `each(j, flat)` runs for column j of the lane's row at the array's flat index.
void Lowerer::tile_rows(const Val& proxy, int32_t n,
                        const std::function<void(int32_t, const Expr*)>& each,
                        const ast::Pos& pos) {
  int32_t arr = proxy.param;
  bool batch = proxy.cols == 1;
  size_t o = batch ? 1 : 0;
  const Expr* row_stop = clip_to_extent(arr, batch ? 1 : 0, proxy.items[o + 1].expr, pos);
  const Expr* row = tile_row(proxy, pos);
  emit_if(
      m_kernel->binary(BinOp::lt, DType::u1, row, row_stop),
      [&] {
        const Expr* col_stop = clip_to_extent(arr, batch ? 2 : 1, proxy.items[o + 3].expr, pos);
        const Expr* c0 = proxy.items[o + 2].expr;
        for (int32_t j = 0; j < n; ++j) {
          const Expr* col =
              m_kernel->binary(BinOp::add, DType::i32, c0, m_kernel->constant_int(DType::i32, j));
          emit_if(
              m_kernel->binary(BinOp::lt, DType::u1, col, col_stop),
              [&] {
                std::vector<Val> idx;
                if (batch) {
                  idx.push_back(proxy.items[0]);
                }
                idx.push_back(Val::of_scalar(row));
                idx.push_back(Val::of_scalar(col));
                each(j, array_index(arr, idx, pos));
              },
              pos);
        }
      },
      pos);
}

void Lowerer::tile_load(const Binding& tile, const Val& proxy, const ast::Pos& pos) {
  tile_rows(
      proxy, tile.rows,
      [&](int32_t j, const Expr* flat) {
        set_var(tile.vars[j], to_scalar(array_element(proxy.param, flat), pos), pos);
      },
      pos);
}

void Lowerer::tile_store(const Val& proxy, const std::vector<const Expr*>& rows,
                         const ast::Pos& pos) {
  tile_rows(
      proxy, static_cast<int32_t>(rows.size()),
      [&](int32_t j, const Expr* flat) {
        write(array_lvalue(proxy.param, flat, true, pos), Val::of_scalar(rows[j]), pos);
      },
      pos);
}

// An operand of qd.outer: a per-lane scalar, or a column arr[r0:r1, col] (lane l reads row
// r0 + l; 0 past min(r1, the array's rows): Quadrants' _resolve_vec2d / _resolve_vec3d).
const Expr* Lowerer::tile_vec(const Val& v, DType t, const ast::Pos& pos) {
  if (v.kind != Val::Kind::slice_proxy) {
    return materialize(Val::of_scalar(to_scalar(v, pos)), pos).expr;
  }
  if (v.path != "vec") {
    type_error(pos, "qd.outer takes columns (arr[r0:r1, col]) or per-lane scalars, not a tile "
                    "slice arr[r0:r1, c0:c1]");
  }
  int32_t arr = v.param;
  bool batch = v.cols == 1;
  size_t o = batch ? 1 : 0;
  const Expr* row_stop = clip_to_extent(arr, batch ? 1 : 0, v.items[o + 1].expr, pos);
  int32_t out = new_local(m_kernel->constant_float(t, 0.0), pos);
  const Expr* row = tile_row(v, pos);
  emit_if(
      m_kernel->binary(BinOp::lt, DType::u1, row, row_stop),
      [&] {
        std::vector<Val> idx;
        if (batch) {
          idx.push_back(v.items[0]);
        }
        idx.push_back(Val::of_scalar(row));
        idx.push_back(v.items[o + 2]);
        set_var(out, to_scalar(array_element(arr, array_index(arr, idx, pos)), pos), pos);
      },
      pos);
  return materialize(Val::of_scalar(m_kernel->var_ref(out)), pos).expr;
}

// tile -= qd.outer(a, b): Quadrants' _ger_sub, r[j] = r[j] - a * shuffle(b, j).
bool Lowerer::tile_aug_assign(const ast::AugAssign* s) {
  BindingRef b = tile_binding(s->target);
  if (b == nullptr) {
    return false;
  }
  Val rhs = eval(s->value);
  if (s->op != ast::Operator::Sub || rhs.kind != Val::Kind::outer) {
    type_error(s->pos, "a tile's only augmented assignment is tile -= qd.outer(a, b)");
  }
  DType t = b->dtype;
  const Expr* a = tile_vec(rhs.items[0], t, s->pos);
  const Expr* c = tile_vec(rhs.items[1], t, s->pos);
  for (int32_t j = 0; j < b->rows; ++j) {
    const Expr* bc = warp_op(WarpOp::shuffle, c, m_kernel->constant_int(DType::i32, j), s->pos);
    Val prod = binary(ast::Operator::Mult, Val::of_scalar(a), Val::of_scalar(bc), s->pos);
    Val diff =
        binary(ast::Operator::Sub, Val::of_scalar(m_kernel->var_ref(b->vars[j])), prod, s->pos);
    set_var(b->vars[j], to_scalar(diff, s->pos), s->pos);
  }
  return true;
}

// Quadrants' cholesky_: for each pivot k, lane k takes sqrt(max(r[k] - |row|^2, eps)), every
// lane gets it by a shuffle, the lanes below compute their column-k entry from the dot of their
// row with row k (two interleaved partial sums, even and odd columns) and add its square to
// their running row norm.
void Lowerer::tile_cholesky(const Binding& tile, const Val& eps_val, const ast::Pos& pos) {
  DType t = tile.dtype;
  auto keep = [&](const Expr* e) { return materialize(Val::of_scalar(e), pos).expr; };
  auto i32c = [&](int64_t v) { return m_kernel->constant_int(DType::i32, v); };
  auto r = [&](int32_t j) { return m_kernel->var_ref(tile.vars[j]); };
  const Expr* eps = keep(to_typed(eps_val, t, pos));
  const Expr* tid = keep(lane_id());
  int32_t norm = new_local(m_kernel->constant_float(t, 0.0), pos);
  const Expr* zero = m_kernel->constant_float(t, 0.0);
  for (int32_t k = 0; k < tile.rows; ++k) {
    const Expr* is_k = keep(m_kernel->binary(BinOp::eq, DType::u1, tid, i32c(k)));
    const Expr* pivot = m_kernel->unary(
        UnOp::sqrt, t,
        m_kernel->binary(BinOp::max, t,
                         m_kernel->binary(BinOp::sub, t, r(k), m_kernel->var_ref(norm)), eps));
    const Expr* diag_val = keep(m_kernel->select(is_k, pivot, zero));
    set_var(tile.vars[k], m_kernel->select(is_k, diag_val, r(k)), pos);
    const Expr* diag_k = warp_op(WarpOp::shuffle, diag_val, i32c(k), pos);
    const Expr* dot0 = zero;
    const Expr* dot1 = zero;
    for (int32_t j = 0; j < k; ++j) {
      const Expr* my_col = keep(r(j));
      const Expr* lkj = warp_op(WarpOp::shuffle, my_col, i32c(k), pos);
      const Expr* p = m_kernel->binary(BinOp::mul, t, lkj, my_col);
      if (j % 2 == 0) {
        dot0 = keep(m_kernel->binary(BinOp::add, t, dot0, p));
      } else {
        dot1 = keep(m_kernel->binary(BinOp::add, t, dot1, p));
      }
    }
    const Expr* dot = keep(m_kernel->binary(BinOp::add, t, dot0, dot1));
    const Expr* below = keep(m_kernel->binary(BinOp::gt, DType::u1, tid, i32c(k)));
    const Expr* new_val = keep(m_kernel->select(
        below, m_kernel->binary(BinOp::div, t, m_kernel->binary(BinOp::sub, t, r(k), dot), diag_k),
        zero));
    set_var(tile.vars[k], m_kernel->select(below, new_val, r(k)), pos);
    set_var(norm,
            m_kernel->select(below,
                             m_kernel->binary(BinOp::add, t, m_kernel->var_ref(norm),
                                              m_kernel->binary(BinOp::mul, t, new_val, new_val)),
                             m_kernel->var_ref(norm)),
            pos);
  }
}

// Quadrants' _trsm (B.solve with L, lower): for each column c, dot = sum over j < c of
// B[j] * L[c][j] (L's row c by shuffles), then B[c] = (B[c] - dot) / L[c][c].
void Lowerer::tile_trsm(const Binding& b, const Binding& l, const ast::Pos& pos) {
  DType t = b.dtype;
  auto keep = [&](const Expr* e) { return materialize(Val::of_scalar(e), pos).expr; };
  auto i32c = [&](int64_t v) { return m_kernel->constant_int(DType::i32, v); };
  for (int32_t c = 0; c < b.rows; ++c) {
    const Expr* dot = m_kernel->constant_float(t, 0.0);
    for (int32_t j = 0; j < c; ++j) {
      const Expr* lkj =
          warp_op(WarpOp::shuffle, m_kernel->cast(t, m_kernel->var_ref(l.vars[j])), i32c(c), pos);
      dot = keep(m_kernel->binary(
          BinOp::add, t, dot, m_kernel->binary(BinOp::mul, t, m_kernel->var_ref(b.vars[j]), lkj)));
    }
    const Expr* diag =
        warp_op(WarpOp::shuffle, m_kernel->cast(t, m_kernel->var_ref(l.vars[c])), i32c(c), pos);
    set_var(b.vars[c],
            m_kernel->binary(BinOp::div, t,
                             m_kernel->binary(BinOp::sub, t, m_kernel->var_ref(b.vars[c]), dot),
                             diag),
            pos);
  }
}

// tile.cholesky_(eps), L.solve_triangular_(B, lower=True), tile.eye_(): in place on the tile a
// name is bound to.
std::optional<Val> Lowerer::tile_method(const ast::Call* c) {
  const auto* a = c->func->as<ast::Attribute>();
  if (a == nullptr ||
      (a->attr != "cholesky_" && a->attr != "solve_triangular_" && a->attr != "eye_")) {
    return std::nullopt;
  }
  BindingRef t = tile_binding(a->value);
  if (t == nullptr) {
    return std::nullopt;
  }
  const ast::Pos& pos = c->pos;
  std::string what = "tile." + std::string(a->attr);
  if (a->attr == "eye_") {
    if (!c->args.empty() || !c->keywords.empty()) {
      type_error(pos, what + "() takes no arguments");
    }
    const Expr* lane = materialize(Val::of_scalar(lane_id()), pos).expr;
    for (int32_t j = 0; j < t->rows; ++j) {
      set_var(t->vars[j],
              m_kernel->select(m_kernel->binary(BinOp::eq, DType::u1, lane,
                                                m_kernel->constant_int(DType::i32, j)),
                               m_kernel->constant_float(t->dtype, 1.0),
                               m_kernel->constant_float(t->dtype, 0.0)),
              pos);
    }
  } else if (a->attr == "cholesky_") {
    if (c->args.size != 1 || !c->keywords.empty()) {
      type_error(pos, what + "(eps) takes the pivots' floor");
    }
    tile_cholesky(*t, eval(c->args[0]), pos);
  } else {
    const ast::Expr* lower = keyword(c, "lower");
    if (c->args.size < 1 || c->args.size > 2 || c->keywords.size != (lower != nullptr ? 1u : 0u)) {
      type_error(pos, what + "(B, lower=True) takes the tile to solve in place");
    }
    const ast::Expr* flag = c->args.size == 2 ? c->args[1] : lower;
    if (flag != nullptr && !static_truth(eval(flag), flag->pos)) {
      type_error(flag->pos, what + ": only lower=True is supported");
    }
    BindingRef b = tile_binding(c->args[0]);
    if (b == nullptr) {
      type_error(c->args[0]->pos, what + "(B): B must be a tile variable (solved in place)");
    }
    if (b->rows != t->rows) {
      type_error(pos, what + ": tiles of " + std::to_string(t->rows) + " and " +
                          std::to_string(b->rows) + " rows");
    }
    tile_trsm(*b, *t, pos);
  }
  return Val::of_py(sema::Value::none());
}

}  // namespace qd::ir::lower
