// Vectors and matrices (kernel-language.md §1.4, §1.5): scalarized at compile time into one IR
// value per element, row-major.
#include <functional>

#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

namespace {

std::string shape_text(const Val& t) {
  return t.cols == 0 ? "vector of " + std::to_string(t.rows)
                     : std::to_string(t.rows) + "x" + std::to_string(t.cols) + " matrix";
}

}  // namespace

Val Lowerer::make_vector(const std::vector<Val>& items, std::optional<DType> dt,
                         const ast::Pos& pos) {
  std::vector<const Expr*> scalars;
  for (const Val& v : items) {
    if (v.kind == Val::Kind::tensor || v.kind == Val::Kind::tuple) {
      type_error(pos, "a vector element must be a scalar, got " + v.describe());
    }
    scalars.push_back(to_scalar(v, pos));
  }
  if (scalars.empty()) {
    type_error(pos, "an empty vector");
  }
  DType t = dt.value_or(scalars[0]->type);
  if (!dt) {
    for (const Expr* e : scalars) {
      t = promoted(t, e->type);
    }
  }
  for (const Expr*& e : scalars) {
    e = m_kernel->cast(t, e);
  }
  return Val::of_tensor(std::move(scalars), static_cast<int32_t>(items.size()), 0, t);
}

Val Lowerer::make_matrix(const std::vector<Val>& rows, std::optional<DType> dt,
                         const ast::Pos& pos) {
  std::vector<Val> flat;
  int32_t cols = -1;
  for (const Val& r : rows) {
    std::vector<Val> items = static_items(r, pos);
    if (cols >= 0 && static_cast<int32_t>(items.size()) != cols) {
      type_error(pos, "matrix rows of different lengths");
    }
    cols = static_cast<int32_t>(items.size());
    flat.insert(flat.end(), items.begin(), items.end());
  }
  Val v = make_vector(flat, dt, pos);
  v.rows = static_cast<int32_t>(rows.size());
  v.cols = cols;
  return v;
}

Val Lowerer::construct_tensor_type(const Val& type, std::vector<Val>& args, const ast::Pos& pos) {
  int32_t n = type.cols == 0 ? type.rows : type.rows * type.cols;
  std::vector<const Expr*> scalars;
  for (const Val& a : args) {
    if (a.kind == Val::Kind::tensor) {
      scalars.insert(scalars.end(), a.elems.begin(), a.elems.end());
    } else if (a.kind == Val::Kind::tuple ||
               (a.kind == Val::Kind::py && a.py.kind == sema::Value::Kind::tuple)) {
      for (const Val& item : static_items(a, pos)) {
        if (item.kind == Val::Kind::tensor || item.kind == Val::Kind::tuple) {
          Val t = as_tensor(item, pos);
          scalars.insert(scalars.end(), t.elems.begin(), t.elems.end());
        } else {
          scalars.push_back(to_scalar(item, pos));
        }
      }
    } else {
      scalars.push_back(to_scalar(a, pos));
    }
  }
  if (scalars.size() == 1 && n > 1) {
    scalars.assign(n, scalars[0]);  // a scalar fills every element
  }
  if (static_cast<int32_t>(scalars.size()) != n) {
    type_error(pos, "a " + shape_text(type) + " needs " + std::to_string(n) + " values, got " +
                        std::to_string(scalars.size()));
  }
  for (const Expr*& e : scalars) {
    e = m_kernel->cast(type.dtype, e);
  }
  return Val::of_tensor(std::move(scalars), type.rows, type.cols, type.dtype);
}

Val Lowerer::as_tensor(const Val& v, const ast::Pos& pos) {
  if (v.kind == Val::Kind::tensor) {
    return v;
  }
  if (v.kind == Val::Kind::tuple ||
      (v.kind == Val::Kind::py && v.py.kind == sema::Value::Kind::tuple)) {
    std::vector<Val> items = static_items(v, pos);
    if (!items.empty() &&
        (items[0].kind == Val::Kind::tuple || items[0].kind == Val::Kind::tensor ||
         (items[0].kind == Val::Kind::py && items[0].py.kind == sema::Value::Kind::tuple))) {
      return make_matrix(items, std::nullopt, pos);
    }
    return make_vector(items, std::nullopt, pos);
  }
  type_error(pos, "expected a vector or matrix, got " + v.describe());
}

Val Lowerer::tensor_cast(const Val& t, DType dt, const ast::Pos& pos) {
  Val x = as_tensor(t, pos);
  for (const Expr*& e : x.elems) {
    e = m_kernel->cast(dt, e);
  }
  x.dtype = dt;
  return x;
}

Val Lowerer::tensor_unary(const Val& v, const std::function<const Expr*(const Expr*)>& f) {
  Val out = v;
  for (const Expr*& e : out.elems) {
    e = f(e);
  }
  out.dtype = out.elems.empty() ? v.dtype : out.elems[0]->type;
  return out;
}

Val Lowerer::tensor_binary(ast::Operator op, const Val& a0, const Val& b0, const ast::Pos& pos) {
  Val a = a0.kind == Val::Kind::tuple ? as_tensor(a0, pos) : a0;
  Val b = b0.kind == Val::Kind::tuple ? as_tensor(b0, pos) : b0;
  if (a.kind == Val::Kind::tensor && b.kind == Val::Kind::tensor &&
      (a.rows != b.rows || a.cols != b.cols)) {
    type_error(pos, "element-wise operation on a " + shape_text(a) + " and a " + shape_text(b));
  }
  const Val& shape = a.kind == Val::Kind::tensor ? a : b;
  std::vector<const Expr*> elems;
  for (int32_t i = 0; i < shape.size(); ++i) {
    const Expr* x = a.kind == Val::Kind::tensor ? a.elems[i] : to_scalar(a, pos);
    const Expr* y = b.kind == Val::Kind::tensor ? b.elems[i] : to_scalar(b, pos);
    elems.push_back(scalar_binary(op, x, y, pos));
  }
  DType t = elems.empty() ? shape.dtype : elems[0]->type;
  return Val::of_tensor(std::move(elems), shape.rows, shape.cols, t);
}

Val Lowerer::dot(const Val& a, const Val& b, const ast::Pos& pos) {
  if (a.size() != b.size()) {
    type_error(pos, "dot() of a " + shape_text(a) + " and a " + shape_text(b));
  }
  Val prod = tensor_binary(ast::Operator::Mult, a, b, pos);
  return reduce(prod, BinOp::add, pos);
}

Val Lowerer::reduce(const Val& t, BinOp op, const ast::Pos& pos) {
  (void)pos;
  const Expr* acc = t.elems[0];
  for (size_t i = 1; i < t.elems.size(); ++i) {
    acc = m_kernel->binary(op, acc->type, acc, m_kernel->cast(acc->type, t.elems[i]));
  }
  return Val::of_scalar(acc);
}

Val Lowerer::matmul(const Val& a, const Val& b, const ast::Pos& pos) {
  auto at = [](const Val& m, int32_t r, int32_t c) { return m.elems[r * m.cols + c]; };
  Kernel& k = *m_kernel;
  auto mul_add = [&](const Expr* acc, const Expr* x, const Expr* y) {
    DType t = promoted(x->type, y->type);
    const Expr* p = k.binary(BinOp::mul, t, k.cast(t, x), k.cast(t, y));
    if (acc == nullptr) {
      return p;
    }
    DType u = promoted(acc->type, t);
    return k.binary(BinOp::add, u, k.cast(u, acc), k.cast(u, p));
  };
  if (a.cols == 0 && b.cols == 0) {
    return dot(a, b, pos);
  }
  if (a.cols != 0 && b.cols == 0) {  // matrix @ vector
    if (a.cols != b.rows) {
      type_error(pos, "'@' of a " + shape_text(a) + " and a " + shape_text(b));
    }
    std::vector<const Expr*> out;
    for (int32_t r = 0; r < a.rows; ++r) {
      const Expr* acc = nullptr;
      for (int32_t c = 0; c < a.cols; ++c) {
        acc = mul_add(acc, at(a, r, c), b.elems[c]);
      }
      out.push_back(acc);
    }
    return Val::of_tensor(out, a.rows, 0, out[0]->type);
  }
  if (a.cols == 0 && b.cols != 0) {  // vector @ matrix
    if (a.rows != b.rows) {
      type_error(pos, "'@' of a " + shape_text(a) + " and a " + shape_text(b));
    }
    std::vector<const Expr*> out;
    for (int32_t c = 0; c < b.cols; ++c) {
      const Expr* acc = nullptr;
      for (int32_t r = 0; r < b.rows; ++r) {
        acc = mul_add(acc, a.elems[r], at(b, r, c));
      }
      out.push_back(acc);
    }
    return Val::of_tensor(out, b.cols, 0, out[0]->type);
  }
  if (a.cols != b.rows) {
    type_error(pos, "'@' of a " + shape_text(a) + " and a " + shape_text(b));
  }
  std::vector<const Expr*> out;
  for (int32_t r = 0; r < a.rows; ++r) {
    for (int32_t c = 0; c < b.cols; ++c) {
      const Expr* acc = nullptr;
      for (int32_t i = 0; i < a.cols; ++i) {
        acc = mul_add(acc, at(a, r, i), at(b, i, c));
      }
      out.push_back(acc);
    }
  }
  return Val::of_tensor(out, a.rows, b.cols, out[0]->type);
}

Val Lowerer::tensor_index(const Val& t, const std::vector<Val>& idx, const ast::Pos& pos) {
  bool dynamic = false;
  for (const Val& v : idx) {
    dynamic = dynamic || (v.kind == Val::Kind::scalar && v.expr->kind != ExprKind::constant);
  }
  if (dynamic) {
    // A runtime index selects among the elements (qd.select chain).
    const Expr* flat = nullptr;
    if (t.cols == 0) {
      if (idx.size() != 1) {
        type_error(pos, "a vector takes one index");
      }
      flat = to_typed(idx[0], DType::i32, pos);
    } else if (idx.size() == 2) {
      flat = m_kernel->binary(BinOp::add, DType::i32,
                              m_kernel->binary(BinOp::mul, DType::i32,
                                               to_typed(idx[0], DType::i32, pos),
                                               m_kernel->constant_int(DType::i32, t.cols)),
                              to_typed(idx[1], DType::i32, pos));
    } else {
      // A runtime row of a matrix: one selection per column.
      const Expr* r = to_typed(idx[0], DType::i32, pos);
      std::vector<const Expr*> row;
      for (int32_t c = 0; c < t.cols; ++c) {
        const Expr* sel = t.elems[(t.rows - 1) * t.cols + c];
        for (int32_t i = t.rows - 1; i-- > 0;) {
          sel = m_kernel->select(
              m_kernel->binary(BinOp::eq, DType::u1, r, m_kernel->constant_int(DType::i32, i)),
              t.elems[i * t.cols + c], sel);
        }
        row.push_back(sel);
      }
      return Val::of_tensor(row, t.cols, 0, t.dtype);
    }
    flat = materialize(Val::of_scalar(flat), pos).expr;
    const Expr* sel = t.elems.back();
    for (size_t i = t.elems.size() - 1; i-- > 0;) {
      sel = m_kernel->select(
          m_kernel->binary(BinOp::eq, DType::u1, flat,
                           m_kernel->constant_int(DType::i32, static_cast<int64_t>(i))),
          t.elems[i], sel);
    }
    return Val::of_scalar(sel);
  }
  std::vector<int64_t> k;
  for (const Val& v : idx) {
    k.push_back(static_int(v, pos, "a vector/matrix index"));
  }
  if (t.cols == 0) {
    if (k.size() != 1) {
      type_error(pos, "a vector takes one index");
    }
    if (k[0] < 0 || k[0] >= t.rows) {
      fail(pos, "QD206",
           "index " + std::to_string(k[0]) + " is out of range for a " + shape_text(t));
    }
    return Val::of_scalar(t.elems[k[0]]);
  }
  if (k.size() == 1) {
    if (k[0] < 0 || k[0] >= t.rows) {
      fail(pos, "QD206", "row " + std::to_string(k[0]) + " is out of range for a " + shape_text(t));
    }
    std::vector<const Expr*> row(t.elems.begin() + k[0] * t.cols,
                                 t.elems.begin() + (k[0] + 1) * t.cols);
    return Val::of_tensor(row, t.cols, 0, t.dtype);
  }
  if (k.size() != 2 || k[0] < 0 || k[0] >= t.rows || k[1] < 0 || k[1] >= t.cols) {
    fail(pos, "QD206", "index out of range for a " + shape_text(t));
  }
  return Val::of_scalar(t.elems[k[0] * t.cols + k[1]]);
}

Val Lowerer::swizzle(const Val& t, std::string_view attr, const ast::Pos& pos, bool* ok) {
  *ok = false;
  if (t.cols != 0 || attr.empty() || attr.size() > 4) {
    return {};
  }
  std::vector<const Expr*> out;
  for (std::string_view set : {"xyzw", "rgba", "stpq"}) {
    out.clear();
    // A swizzle only if every letter is of this set: `.all` / `.any` are methods, not an
    // out-of-range `.a` on a 3-vector.
    if (attr.find_first_not_of(set) != std::string_view::npos) {
      continue;
    }
    for (char ch : attr) {
      size_t at = set.find(ch);
      if (static_cast<int32_t>(at) >= t.rows) {
        fail(pos, "QD206", "'." + std::string(attr) + "' is out of range for a " + shape_text(t));
      }
      out.push_back(t.elems[at]);
    }
    if (!out.empty()) {
      *ok = true;
      if (out.size() == 1) {
        return Val::of_scalar(out[0]);
      }
      return Val::of_tensor(out, static_cast<int32_t>(out.size()), 0, t.dtype);
    }
  }
  return {};
}

Val Lowerer::tensor_method(const Val& t, const std::string& name, std::vector<Val>& args,
                           const ast::Call* c, const ast::Pos& pos) {
  Kernel& k = *m_kernel;
  auto fval = [&](double v) { return Val::of_py(sema::Value::floating(v)); };
  auto eps_arg = [&]() -> Val {
    if (!args.empty()) {
      return args[0];
    }
    if (const ast::Expr* e = keyword(c, "eps")) {
      return eval(e);
    }
    return fval(0.0);
  };
  if (t.kind == Val::Kind::api) {
    // Static constructors: qd.Matrix.identity(dt, n), qd.Vector.zero(dt, n), ...
    auto dtype_at = [&](size_t i) {
      if (i >= args.size() || args[i].kind != Val::Kind::dtype) {
        type_error(pos, "qd." + t.path + "() needs a dtype argument");
      }
      return args[i].dtype;
    };
    auto int_at = [&](size_t i) {
      if (i >= args.size()) {
        type_error(pos, "qd." + t.path + "() is missing a size argument");
      }
      return static_cast<int32_t>(static_int(args[i], pos, "a size"));
    };
    bool is_matrix = t.path.find("Matrix") != std::string::npos;
    if (name == "identity") {
      DType dt = dtype_at(0);
      int32_t n = int_at(1);
      std::vector<const Expr*> e;
      for (int32_t r = 0; r < n; ++r) {
        for (int32_t cc = 0; cc < n; ++cc) {
          e.push_back(k.constant_int(dt, r == cc ? 1 : 0));
        }
      }
      return Val::of_tensor(e, n, n, dt);
    }
    if (name == "zero" || name == "one") {
      DType dt = dtype_at(0);
      int32_t n = int_at(1);
      int32_t m = is_matrix && args.size() > 2 ? int_at(2) : 0;
      std::vector<const Expr*> e(m == 0 ? n : n * m, k.constant_int(dt, name == "one" ? 1 : 0));
      return Val::of_tensor(e, n, m, dt);
    }
    if (name == "diag") {
      int32_t n = int_at(0);
      const Expr* v = to_scalar(args.at(1), pos);
      std::vector<const Expr*> e;
      for (int32_t r = 0; r < n; ++r) {
        for (int32_t cc = 0; cc < n; ++cc) {
          e.push_back(r == cc ? v : k.constant_int(v->type, 0));
        }
      }
      return Val::of_tensor(e, n, n, v->type);
    }
    if (name == "unit") {
      int32_t n = int_at(0);
      int32_t i = int_at(1);
      DType dt = args.size() > 2 ? dtype_at(2) : m_default_fp;
      std::vector<const Expr*> e;
      for (int32_t r = 0; r < n; ++r) {
        e.push_back(k.constant_int(dt, r == i ? 1 : 0));
      }
      return Val::of_tensor(e, n, 0, dt);
    }
    unsupported(pos, "qd." + t.path);
  }
  if (name == "dot") {
    return dot(t, as_tensor(args.at(0), pos), pos);
  }
  if (name == "cross") {
    Val b = as_tensor(args.at(0), pos);
    if (t.cols != 0 || b.cols != 0 || t.rows != b.rows || (t.rows != 2 && t.rows != 3)) {
      type_error(pos, "cross() needs two 2-D or two 3-D vectors");
    }
    auto m = [&](int32_t i, int32_t j) {
      return scalar_binary(ast::Operator::Mult, t.elems[i], b.elems[j], pos);
    };
    auto sub = [&](const Expr* x, const Expr* y) {
      return scalar_binary(ast::Operator::Sub, x, y, pos);
    };
    if (t.rows == 2) {
      return Val::of_scalar(sub(m(0, 1), m(1, 0)));
    }
    std::vector<const Expr*> e{sub(m(1, 2), m(2, 1)), sub(m(2, 0), m(0, 2)), sub(m(0, 1), m(1, 0))};
    return Val::of_tensor(e, 3, 0, e[0]->type);
  }
  if (name == "norm_sqr") {
    return dot(t, t, pos);
  }
  if (name == "norm" || name == "norm_inv" || name == "normalized") {
    Val eps = eps_arg();
    Val sq = dot(t, t, pos);
    if (name == "norm") {
      return unary_math(UnOp::sqrt, binary(ast::Operator::Add, sq, eps, pos), pos, true, false);
    }
    if (name == "norm_inv") {
      return unary_math(UnOp::rsqrt, binary(ast::Operator::Add, sq, eps, pos), pos, true, false);
    }
    Val n = unary_math(UnOp::sqrt, sq, pos, true, false);
    Val inv = materialize(
        binary(ast::Operator::Div, fval(1.0), binary(ast::Operator::Add, n, eps, pos), pos), pos);
    return tensor_binary(ast::Operator::Mult, t, inv, pos);
  }
  if (name == "sum") {
    return reduce(t, BinOp::add, pos);
  }
  if (name == "max" || name == "min") {
    return reduce(t, name == "max" ? BinOp::max : BinOp::min, pos);
  }
  if (name == "any" || name == "all") {
    const Expr* acc = nullptr;
    for (const Expr* e : t.elems) {
      const Expr* b = condition(Val::of_scalar(e), pos);
      acc = acc == nullptr
                ? b
                : k.binary(name == "any" ? BinOp::bit_or : BinOp::bit_and, DType::u1, acc, b);
    }
    return Val::of_scalar(acc);
  }
  if (name == "transpose") {
    if (t.cols == 0) {
      unsupported(pos, "transposing a vector");
    }
    std::vector<const Expr*> e;
    for (int32_t cc = 0; cc < t.cols; ++cc) {
      for (int32_t r = 0; r < t.rows; ++r) {
        e.push_back(t.elems[r * t.cols + cc]);
      }
    }
    return Val::of_tensor(e, t.cols, t.rows, t.dtype);
  }
  if (name == "trace") {
    if (t.cols != t.rows) {
      type_error(pos, "trace() needs a square matrix");
    }
    const Expr* acc = t.elems[0];
    for (int32_t i = 1; i < t.rows; ++i) {
      acc = k.binary(BinOp::add, acc->type, acc, t.elems[i * t.cols + i]);
    }
    return Val::of_scalar(acc);
  }
  if (name == "outer_product") {
    Val b = as_tensor(args.at(0), pos);
    std::vector<const Expr*> e;
    for (int32_t r = 0; r < t.rows; ++r) {
      for (int32_t cc = 0; cc < b.rows; ++cc) {
        e.push_back(scalar_binary(ast::Operator::Mult, t.elems[r], b.elems[cc], pos));
      }
    }
    return Val::of_tensor(e, t.rows, b.rows, e[0]->type);
  }
  if (name == "cast") {
    if (args.size() != 1 || args[0].kind != Val::Kind::dtype) {
      type_error(pos, "cast() takes a scalar dtype");
    }
    return tensor_cast(t, args[0].dtype, pos);
  }
  if (name == "frobenius_inner") {
    return dot(t, as_tensor(args.at(0), pos), pos);
  }
  if (name == "determinant" || name == "inverse") {
    if (t.cols != t.rows || t.rows < 1 || t.rows > 3) {
      unsupported(pos, name + "() of a " + shape_text(t) + " (up to 3x3 here)");
    }
    Val m = materialize(t, pos);
    auto e = [&](int32_t r, int32_t cc) { return m.elems[r * m.cols + cc]; };
    auto mul = [&](const Expr* x, const Expr* y) {
      return scalar_binary(ast::Operator::Mult, x, y, pos);
    };
    auto sub = [&](const Expr* x, const Expr* y) {
      return scalar_binary(ast::Operator::Sub, x, y, pos);
    };
    auto add = [&](const Expr* x, const Expr* y) {
      return scalar_binary(ast::Operator::Add, x, y, pos);
    };
    int32_t n = t.rows;
    // Cofactor matrix (transposed = adjugate).
    std::vector<const Expr*> cof(n * n);
    const Expr* det = nullptr;
    if (n == 1) {
      det = e(0, 0);
      cof[0] = k.constant_int(t.dtype, 1);
    } else if (n == 2) {
      det = sub(mul(e(0, 0), e(1, 1)), mul(e(0, 1), e(1, 0)));
      cof = {e(1, 1), k.unary(UnOp::neg, t.dtype, e(1, 0)), k.unary(UnOp::neg, t.dtype, e(0, 1)),
             e(0, 0)};
    } else {
      for (int32_t r = 0; r < 3; ++r) {
        for (int32_t cc = 0; cc < 3; ++cc) {
          int32_t r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (cc + 1) % 3, c2 = (cc + 2) % 3;
          cof[r * 3 + cc] = sub(mul(e(r1, c1), e(r2, c2)), mul(e(r1, c2), e(r2, c1)));
        }
      }
      det = add(add(mul(e(0, 0), cof[0]), mul(e(0, 1), cof[1])), mul(e(0, 2), cof[2]));
    }
    if (name == "determinant") {
      return Val::of_scalar(det);
    }
    Val inv_det = materialize(binary(ast::Operator::Div, fval(1.0), Val::of_scalar(det), pos), pos);
    std::vector<const Expr*> out(n * n);
    for (int32_t r = 0; r < n; ++r) {
      for (int32_t cc = 0; cc < n; ++cc) {
        out[r * n + cc] = scalar_binary(ast::Operator::Mult, cof[cc * n + r], inv_det.expr, pos);
      }
    }
    return Val::of_tensor(out, n, n, out[0]->type);
  }
  unsupported(pos, "the vector/matrix method " + name + "()");
}

}  // namespace qd::ir::lower
