// qd.svd(A, dt) of a 3x3 matrix: A = U @ S @ V.T with U, V rotations and S diagonal, as
// Quadrants computes it (quadrants/_funcs.py _svd3d): the method of McAdams, Selle, Tamstorf,
// Teran and Sifakis, "Computing the Singular Value Decomposition of 3x3 matrices with minimal
// branching and elementary floating point operations" (2011), then the singular values sorted in
// descending order with U's and V's columns.
//
//   1. Jacobi eigenanalysis of the symmetric A.T @ A: `sweeps` sweeps (5 for f32, 8 for f64) of
//      three approximate Givens conjugations, pairs (1,2), (2,3), (3,1), accumulated in a
//      quaternion; V is the normalized quaternion's rotation.
//   2. B = A @ V, its columns sorted by norm (descending; each swap negates one column to keep
//      V a rotation).
//   3. B = U @ R by three Givens rotations (rows (1,2), (1,3), (2,3)); S is R's diagonal.
//
// Every step is the same sequence of float operations Quadrants builds for it, in the same
// order (its branch-free masks are selects here): the results agree to rounding.
#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

namespace {

class SvdBuilder {
public:
  SvdBuilder(Kernel& k, DType t, std::function<const Expr*(const Expr*)> let)
      : m_k(k), m_t(t), m_let(std::move(let)) {}

  const Expr* c(double v) { return m_k.constant_float(m_t, v); }
  const Expr* mul(const Expr* a, const Expr* b) { return m_let(m_k.binary(BinOp::mul, m_t, a, b)); }
  const Expr* add(const Expr* a, const Expr* b) { return m_let(m_k.binary(BinOp::add, m_t, a, b)); }
  const Expr* sub(const Expr* a, const Expr* b) { return m_let(m_k.binary(BinOp::sub, m_t, a, b)); }
  const Expr* max(const Expr* a, const Expr* b) { return m_let(m_k.binary(BinOp::max, m_t, a, b)); }
  const Expr* rsqrt(const Expr* a) { return m_let(m_k.unary(UnOp::rsqrt, m_t, a)); }
  const Expr* ge(const Expr* a, const Expr* b) { return m_k.binary(BinOp::ge, DType::u1, a, b); }
  const Expr* le(const Expr* a, const Expr* b) { return m_k.binary(BinOp::le, DType::u1, a, b); }
  const Expr* lt(const Expr* a, const Expr* b) { return m_k.binary(BinOp::lt, DType::u1, a, b); }
  const Expr* pick(const Expr* cond, const Expr* a, const Expr* b) {
    return m_let(m_k.select(cond, a, b));
  }

  // r * (1.5 - 0.5 * x * r * r) for r = rsqrt(x), as r + 0.5 r - x (r (r 0.5 r)).
  const Expr* refined_rsqrt(const Expr* x) {
    const Expr* r = rsqrt(x);
    const Expr* half = mul(r, c(0.5));
    const Expr* t = mul(r, half);
    t = mul(r, t);
    t = mul(x, t);
    r = add(r, half);
    return sub(r, t);
  }

  // One approximate Givens conjugation of the symmetric s (lower triangle: s[i][j], i >= j) on
  // the pair (p, q), the third index o; accumulated into the quaternion about axis `axis`.
  void conjugate(int p, int q, int o, int axis) {
    const Expr* tiny = c(1e-20);
    const Expr* sh = mul(S(q, p), c(0.5));
    const Expr* d = sub(S(p, p), S(q, q));  // (Quadrants: Stmp5)
    const Expr* sh2 = mul(sh, sh);
    const Expr* big = ge(sh2, tiny);
    sh = pick(big, sh, c(0.0));
    const Expr* ch = pick(big, d, c(1.0));
    const Expr* sh_sq = mul(sh, sh);
    const Expr* ch_sq = mul(ch, ch);
    const Expr* w = rsqrt(add(sh_sq, ch_sq));
    sh = mul(w, sh);
    ch = mul(w, ch);
    const Expr* exact = le(ch_sq, mul(c(5.82842712474619), sh_sq));
    sh = pick(exact, c(0.3826834323650897), sh);
    ch = pick(exact, c(0.9238795325112867), ch);
    sh_sq = mul(sh, sh);
    ch_sq = mul(ch, ch);
    const Expr* cc = sub(ch_sq, sh_sq);
    const Expr* ss = mul(ch, sh);
    ss = add(ss, ss);
    const Expr* scale = add(sh_sq, ch_sq);
    S(o, o) = mul(S(o, o), scale);
    S(o, p) = mul(S(o, p), scale);
    S(o, q) = mul(S(o, q), scale);
    S(o, o) = mul(S(o, o), scale);
    const Expr* t1 = mul(ss, S(o, p));
    const Expr* t2 = mul(ss, S(o, q));
    S(o, p) = mul(cc, S(o, p));
    S(o, q) = mul(cc, S(o, q));
    S(o, p) = add(t2, S(o, p));
    S(o, q) = sub(S(o, q), t1);
    t2 = mul(ss, ss);
    t1 = mul(S(q, q), t2);
    const Expr* t3 = mul(S(p, p), t2);
    const Expr* t4 = mul(cc, cc);
    S(p, p) = mul(S(p, p), t4);
    S(q, q) = mul(S(q, q), t4);
    S(p, p) = add(S(p, p), t1);
    S(q, q) = add(S(q, q), t3);
    t4 = sub(t4, t2);
    t2 = add(S(q, p), S(q, p));
    S(q, p) = mul(S(q, p), t4);
    t4 = mul(cc, ss);
    t2 = mul(t2, t4);
    d = mul(d, t4);
    S(p, p) = add(S(p, p), t2);
    S(q, p) = sub(S(q, p), d);
    S(q, q) = sub(S(q, q), t2);
    // The quaternion (qs, q[0..2]) times (ch, sh about `axis`).
    const Expr* tq[3];
    for (int k = 0; k < 3; ++k) {
      tq[k] = mul(sh, m_q[k]);
    }
    sh = mul(sh, m_qs);
    m_qs = mul(ch, m_qs);
    for (int k = 0; k < 3; ++k) {
      m_q[k] = mul(ch, m_q[k]);
    }
    int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    m_q[axis] = add(m_q[axis], sh);
    m_qs = sub(m_qs, tq[axis]);
    m_q[a1] = add(m_q[a1], tq[a2]);
    m_q[a2] = sub(m_q[a2], tq[a1]);
  }

  // Swaps columns i and j of a (and v, and their norms n) when n[i] < n[j], negating column j
  // after the swap (Quadrants: the column that is not the larger one).
  void sort_columns(int i, int j, int negate) {
    const Expr* swap = lt(m_n[i], m_n[j]);
    for (int r = 0; r < 3; ++r) {
      const Expr* ai = m_a[r][i];
      m_a[r][i] = pick(swap, m_a[r][j], ai);
      m_a[r][j] = pick(swap, ai, m_a[r][j]);
    }
    for (int r = 0; r < 3; ++r) {
      const Expr* vi = m_v[r][i];
      m_v[r][i] = pick(swap, m_v[r][j], vi);
      m_v[r][j] = pick(swap, vi, m_v[r][j]);
    }
    const Expr* ni = m_n[i];
    m_n[i] = pick(swap, m_n[j], ni);
    m_n[j] = pick(swap, ni, m_n[j]);
    const Expr* sign = pick(swap, c(-1.0), c(1.0));
    for (int r = 0; r < 3; ++r) {
      m_a[r][negate] = mul(m_a[r][negate], sign);
    }
    for (int r = 0; r < 3; ++r) {
      m_v[r][negate] = mul(m_v[r][negate], sign);
    }
  }

  // The Givens rotation that zeroes a[q][col] against a[p][col], applied to rows p, q of a and
  // columns p, q of u.
  void givens(int p, int q, int col) {
    const Expr* small = c(1e-12);
    const Expr* sh = mul(m_a[q][col], m_a[q][col]);
    sh = pick(ge(sh, small), m_a[q][col], c(0.0));
    const Expr* ch = sub(c(0.0), m_a[p][col]);
    ch = max(ch, m_a[p][col]);
    ch = max(ch, small);
    const Expr* positive = ge(m_a[p][col], c(0.0));
    const Expr* n2 = add(mul(ch, ch), mul(sh, sh));
    ch = add(ch, mul(refined_rsqrt(n2), n2));
    const Expr* ch2 = pick(positive, ch, sh);
    sh = pick(positive, sh, ch);
    ch = ch2;
    n2 = add(mul(ch, ch), mul(sh, sh));
    const Expr* w = refined_rsqrt(n2);
    ch = mul(ch, w);
    sh = mul(sh, w);
    const Expr* cc = sub(mul(ch, ch), mul(sh, sh));
    const Expr* ss = mul(sh, ch);
    ss = add(ss, ss);
    for (int j = 0; j < 3; ++j) {
      const Expr* t1 = mul(ss, m_a[p][j]);
      const Expr* t2 = mul(ss, m_a[q][j]);
      m_a[p][j] = add(mul(cc, m_a[p][j]), t2);
      m_a[q][j] = sub(mul(cc, m_a[q][j]), t1);
    }
    for (int r = 0; r < 3; ++r) {
      const Expr* t1 = mul(ss, m_u[r][p]);
      const Expr* t2 = mul(ss, m_u[r][q]);
      m_u[r][p] = add(mul(cc, m_u[r][p]), t2);
      m_u[r][q] = sub(mul(cc, m_u[r][q]), t1);
    }
  }

  void run(const std::vector<const Expr*>& a, int sweeps) {
    for (int r = 0; r < 3; ++r) {
      for (int j = 0; j < 3; ++j) {
        m_a[r][j] = a[r * 3 + j];
      }
    }
    // s = a.T @ a (lower triangle), each entry summed over the rows in order.
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j <= i; ++j) {
        const Expr* acc = mul(m_a[0][i], m_a[0][j]);
        for (int r = 1; r < 3; ++r) {
          acc = add(mul(m_a[r][i], m_a[r][j]), acc);
        }
        m_s[i][j] = acc;
      }
    }
    m_qs = c(1.0);
    m_q[0] = m_q[1] = m_q[2] = c(0.0);
    for (int k = 0; k < sweeps; ++k) {
      conjugate(0, 1, 2, 2);
      conjugate(1, 2, 0, 0);
      conjugate(2, 0, 1, 1);
    }
    // Normalize the quaternion; V is its rotation matrix.
    const Expr* n2 = mul(m_qs, m_qs);
    for (int k = 0; k < 3; ++k) {
      n2 = add(mul(m_q[k], m_q[k]), n2);
    }
    const Expr* w = refined_rsqrt(n2);
    m_qs = mul(m_qs, w);
    for (int k = 0; k < 3; ++k) {
      m_q[k] = mul(m_q[k], w);
    }
    const Expr* x2 = mul(m_q[0], m_q[0]);
    const Expr* y2 = mul(m_q[1], m_q[1]);
    const Expr* z2 = mul(m_q[2], m_q[2]);
    const Expr* w2 = mul(m_qs, m_qs);
    const Expr* v22 = sub(w2, x2);
    m_v[2][2] = add(sub(v22, y2), z2);
    m_v[1][1] = sub(add(v22, y2), z2);
    m_v[0][0] = sub(sub(add(w2, x2), y2), z2);
    const Expr* x_2 = add(m_q[0], m_q[0]);
    const Expr* y_2 = add(m_q[1], m_q[1]);
    const Expr* z_2 = add(m_q[2], m_q[2]);
    const Expr* sx = mul(m_qs, x_2);
    const Expr* sy = mul(m_qs, y_2);
    const Expr* sz = mul(m_qs, z_2);
    const Expr* xy = mul(m_q[1], x_2);
    const Expr* yz = mul(m_q[2], y_2);
    const Expr* zx = mul(m_q[0], z_2);
    m_v[0][1] = sub(xy, sz);
    m_v[1][2] = sub(yz, sx);
    m_v[2][0] = sub(zx, sy);
    m_v[1][0] = add(xy, sz);
    m_v[2][1] = add(yz, sx);
    m_v[0][2] = add(zx, sy);
    // b = a @ v, row by row.
    for (int r = 0; r < 3; ++r) {
      const Expr* a0 = m_a[r][0];
      const Expr* a1 = m_a[r][1];
      const Expr* a2 = m_a[r][2];
      for (int j = 0; j < 3; ++j) {
        const Expr* acc = mul(m_v[0][j], a0);
        acc = add(acc, mul(m_v[1][j], a1));
        m_a[r][j] = add(acc, mul(m_v[2][j], a2));
      }
    }
    for (int j = 0; j < 3; ++j) {
      const Expr* acc = mul(m_a[0][j], m_a[0][j]);
      acc = add(acc, mul(m_a[1][j], m_a[1][j]));
      m_n[j] = add(acc, mul(m_a[2][j], m_a[2][j]));
    }
    sort_columns(0, 1, 1);
    sort_columns(0, 2, 0);
    sort_columns(1, 2, 2);
    for (int r = 0; r < 3; ++r) {
      for (int j = 0; j < 3; ++j) {
        m_u[r][j] = c(r == j ? 1.0 : 0.0);
      }
    }
    givens(0, 1, 0);
    givens(0, 2, 0);
    givens(1, 2, 1);
  }

  const Expr* m_a[3][3] = {};
  const Expr* m_u[3][3] = {};
  const Expr* m_v[3][3] = {};

private:
  const Expr*& S(int i, int j) { return i >= j ? m_s[i][j] : m_s[j][i]; }

  Kernel& m_k;
  DType m_t;
  std::function<const Expr*(const Expr*)> m_let;
  const Expr* m_s[3][3] = {};
  const Expr* m_qs = nullptr;
  const Expr* m_q[3] = {};
  const Expr* m_n[3] = {};
};

}  // namespace

Val Lowerer::call_svd(const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  if (args.empty() || args.size() > 2 || !c->keywords.empty()) {
    type_error(pos, "qd.svd(A, dt=None) takes a matrix and an optional float type");
  }
  Val a = as_tensor(args[0], pos);
  if (a.cols == 0 || a.rows != a.cols || (a.rows != 3)) {
    unsupported(pos, "qd.svd of a " + std::to_string(a.rows) + "x" +
                         std::to_string(a.cols == 0 ? 1 : a.cols) +
                         " matrix (qdbuild implements Quadrants' 3x3 SVD; 2x2 is not yet)");
  }
  DType t = default_fp();
  if (args.size() == 2 &&
      !(args[1].kind == Val::Kind::py && args[1].py.kind == sema::Value::Kind::none)) {
    if (args[1].kind != Val::Kind::dtype || !is_float(args[1].dtype)) {
      type_error(pos, "qd.svd(A, dt): dt must be qd.f32 or qd.f64, got " + args[1].describe());
    }
    t = args[1].dtype;
  }
  if (t != DType::f32 && t != DType::f64) {
    type_error(pos, "qd.svd: dt must be qd.f32 or qd.f64");
  }
  std::vector<const Expr*> entries;
  for (const Expr* e : a.elems) {
    entries.push_back(m_kernel->cast(t, e));
  }
  SvdBuilder b(*m_kernel, t,
               [&](const Expr* e) { return materialize(Val::of_scalar(e), pos).expr; });
  b.run(entries, t == DType::f32 ? 5 : 8);
  // quadrants/_funcs.py get_result: the singular values sorted descending by selection, U's and
  // V's columns with them; an odd number of swaps negates column 0 of both (det stays +1).
  const Expr* sig[3] = {b.m_a[0][0], b.m_a[1][1], b.m_a[2][2]};
  const Expr* u[3][3];
  const Expr* v[3][3];
  for (int r = 0; r < 3; ++r) {
    for (int j = 0; j < 3; ++j) {
      u[r][j] = b.m_u[r][j];
      v[r][j] = b.m_v[r][j];
    }
  }
  Kernel& k = *m_kernel;
  auto let = [&](const Expr* e) { return materialize(Val::of_scalar(e), pos).expr; };
  const Expr* parity = k.constant_int(DType::i32, 0);
  for (int i = 0; i < 3; ++i) {
    const Expr* max_idx = k.constant_int(DType::i32, i);
    const Expr* max_val = sig[i];
    for (int j = i + 1; j < 3; ++j) {
      const Expr* bigger = k.binary(BinOp::gt, DType::u1, sig[j], max_val);
      max_val = let(k.select(bigger, sig[j], max_val));
      max_idx = let(k.select(bigger, k.constant_int(DType::i32, j), max_idx));
    }
    const Expr* moved = k.binary(BinOp::ne, DType::u1, max_idx, k.constant_int(DType::i32, i));
    for (int j = i + 1; j < 3; ++j) {
      const Expr* here = k.binary(BinOp::eq, DType::u1, max_idx, k.constant_int(DType::i32, j));
      sig[j] = let(k.select(here, sig[i], sig[j]));
      for (int r = 0; r < 3; ++r) {
        const Expr* ui = u[r][i];
        u[r][i] = let(k.select(here, u[r][j], ui));
        u[r][j] = let(k.select(here, ui, u[r][j]));
        const Expr* vi = v[r][i];
        v[r][i] = let(k.select(here, v[r][j], vi));
        v[r][j] = let(k.select(here, vi, v[r][j]));
      }
    }
    sig[i] = let(k.select(moved, max_val, sig[i]));
    parity = let(k.select(
        moved, k.binary(BinOp::sub, DType::i32, k.constant_int(DType::i32, 1), parity), parity));
  }
  const Expr* odd = k.binary(BinOp::eq, DType::u1, parity, k.constant_int(DType::i32, 1));
  for (int r = 0; r < 3; ++r) {
    u[r][0] = let(k.select(odd, k.unary(UnOp::neg, t, u[r][0]), u[r][0]));
    v[r][0] = let(k.select(odd, k.unary(UnOp::neg, t, v[r][0]), v[r][0]));
  }
  std::vector<const Expr*> ue, se, ve;
  for (int r = 0; r < 3; ++r) {
    for (int j = 0; j < 3; ++j) {
      ue.push_back(u[r][j]);
      ve.push_back(v[r][j]);
      se.push_back(r == j ? sig[r] : k.constant_float(t, 0.0));
    }
  }
  return Val::of_tuple(
      {Val::of_tensor(ue, 3, 3, t), Val::of_tensor(se, 3, 3, t), Val::of_tensor(ve, 3, 3, t)});
}

}  // namespace qd::ir::lower
