// Vectors and matrices (docs/language.md §3): scalarized at compile time into one IR
// value per element, row-major.
#include <functional>
#include <map>

#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

namespace {

std::string shape_text(const Val& t) {
  return t.cols == 0 ? "vector of " + std::to_string(t.rows)
                     : std::to_string(t.rows) + "x" + std::to_string(t.cols) + " matrix";
}

}  // namespace

const Expr* Lowerer::element_of(const Val& v, int32_t i, const ast::Pos& pos) {
  return v.kind == Val::Kind::tensor ? v.elems[i] : to_scalar(v, pos);
}

DType Lowerer::element_type(const Val& v, const ast::Pos& pos) {
  return v.kind == Val::Kind::tensor ? v.dtype : to_scalar(v, pos)->type;
}

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
  if (type.any_dtype) {
    type_error(pos, "qd.types." + std::string(type.cols == 0 ? "vector(n)" : "matrix(n, m)") +
                        " without a dtype only annotates a func parameter (it keeps the "
                        "argument's dtype); give a dtype to construct or declare one");
  }
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
    const Expr* x = element_of(a, i, pos);
    const Expr* y = element_of(b, i, pos);
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
    // Static constructors: qd.Matrix.identity(dt, n), qd.Vector.zero(dt, n), ...; keyword
    // arguments by Quadrants' parameter names (qd.Matrix.identity(dt=qd.f32, n=3)).
    static const std::map<std::string, std::vector<std::string>, std::less<>> k_params = {
        {"identity", {"dt", "n"}},
        {"zero", {"dt", "n", "m"}},
        {"one", {"dt", "n", "m"}},
        {"diag", {"dim", "val"}},
        {"unit", {"n", "i", "dt"}}};
    if (auto it = k_params.find(name); it != k_params.end() && c != nullptr) {
      for (size_t i = args.size(); i < it->second.size(); ++i) {
        const ast::Expr* kw = keyword(c, it->second[i]);
        if (kw == nullptr) {
          break;
        }
        args.push_back(eval(kw));
      }
    }
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
    if (name == "rows" || name == "cols") {
      // qd.Matrix.rows([v0, v1, ...]) / .cols(...): a list of vectors or lists of one shape
      // (matrix_ops.rows: Matrix([[x for x in row] for row in rows]); cols is its transpose).
      if (args.size() != 1) {
        type_error(pos, "qd." + t.path + "() takes one list of vectors or lists");
      }
      std::vector<Val> rows = static_items(args[0], pos);
      int32_t len = -1;
      for (const Val& r : rows) {
        bool vec = r.kind == Val::Kind::tensor && r.cols == 0;
        bool list = r.kind == Val::Kind::tuple ||
                    (r.kind == Val::Kind::py && r.py.kind == sema::Value::Kind::tuple);
        if (!vec && !list) {
          type_error(pos, "Cols/rows must be a list of lists, or a list of vectors, got " +
                              r.describe());
        }
        int32_t n = vec ? r.rows : static_cast<int32_t>(static_items(r, pos).size());
        if (len >= 0 && n != len) {
          type_error(pos, "qd." + t.path + "() needs vectors or lists of one length");
        }
        len = n;
      }
      if (rows.empty()) {
        type_error(pos, "qd." + t.path + "() of an empty list");
      }
      Val m = make_matrix(rows, std::nullopt, pos);
      std::vector<Val> none;
      return name == "rows" ? m : tensor_method(m, "transpose", none, c, pos);
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
  if (name == "get_shape") {
    std::vector<Val> dims{Val::of_int(t.rows)};
    if (t.cols != 0) {
      dims.push_back(Val::of_int(t.cols));
    }
    return Val::of_tuple(std::move(dims));
  }
  if (name == "determinant" || name == "inverse") {
    return det_inverse(t, name == "inverse", pos);
  }
  unsupported(pos, "the vector/matrix method " + name + "()");
}

}  // namespace qd::ir::lower

namespace qd::ir::lower {

// --- subscripts and slices --------------------------------------------------------------------

std::vector<Lowerer::IndexItem> Lowerer::subscript_items(const ast::Expr* slice) {
  std::vector<IndexItem> out;
  auto one = [&](const ast::Expr* e) {
    IndexItem item;
    item.pos = e->pos;
    if (const auto* sl = e->as<ast::Slice>()) {
      item.is_slice = true;
      if (sl->lower != nullptr) {
        item.lower = eval(sl->lower);
      }
      if (sl->upper != nullptr) {
        item.upper = eval(sl->upper);
      }
      if (sl->step != nullptr) {
        item.step = eval(sl->step);
      }
    } else {
      item.value = eval(e);
    }
    out.push_back(std::move(item));
  };
  if (const auto* t = slice->as<ast::Tuple>()) {
    for (const ast::Expr* x : t->elts) {
      one(x);
    }
  } else {
    one(slice);
  }
  // x[None]: no index (impl.subscript), the element of a 0-d ndarray.
  if (out.size() == 1 && !out[0].is_slice && out[0].value.kind == Val::Kind::py &&
      out[0].value.py.kind == sema::Value::Kind::none) {
    out.clear();
  }
  return out;
}

bool Lowerer::has_slice(const std::vector<IndexItem>& items) {
  for (const IndexItem& i : items) {
    if (i.is_slice) {
      return true;
    }
  }
  return false;
}

std::vector<Val> Lowerer::index_values(const std::vector<IndexItem>& items) {
  std::vector<Val> out;
  for (const IndexItem& i : items) {
    out.push_back(i.value);
  }
  return out;
}

std::vector<int64_t> Lowerer::slice_indices(const IndexItem& item, int64_t n, const ast::Pos& pos) {
  auto bound = [&](const std::optional<Val>& v, const char* what) -> int64_t {
    if (!v) {
      return 0;
    }
    if (v->is_runtime()) {
      fail(item.pos, "QD206",
           "a slice bound must be a compile-time integer (Quadrants does not support variables "
           "in slices; use qd.static values or constants)");
    }
    return static_int(*v, item.pos, what);
  };
  int64_t lo = bound(item.lower, "a slice start");
  int64_t hi = bound(item.upper, "a slice stop");
  int64_t step = bound(item.step, "a slice step");
  if (lo < 0 || hi < 0) {
    fail(item.pos, "QD206", "negative indices are not supported in kernels (slice bounds too)");
  }
  // _calc_slice: `start or 0`, `stop or n`, `step or 1` (a 0 stop or step is the default).
  int64_t stop = hi != 0 ? hi : n;
  step = step != 0 ? step : 1;
  std::vector<int64_t> out;
  for (int64_t i = lo; step > 0 ? i < stop : i > stop; i += step) {
    if (i >= n) {
      fail(item.pos, "QD206",
           "the slice reaches index " + std::to_string(i) + ", out of range for " +
               std::to_string(n) + " elements");
    }
    out.push_back(i);
  }
  if (out.empty()) {
    fail(item.pos, "QD206", "the slice selects no element");
  }
  (void)pos;
  return out;
}

Lowerer::SliceSelection Lowerer::select_slices(int32_t rows, int32_t cols,
                                               const std::vector<IndexItem>& items,
                                               const ast::Pos& pos) {
  size_t dims = cols == 0 ? 1 : 2;
  if (items.size() != dims) {
    type_error(pos, cols == 0 ? "a vector slice takes one index (v[a:b])"
                              : "a matrix slice takes two indices (m[i, :], m[:, j], m[a:b, c:d])");
  }
  SliceSelection sel;
  std::vector<int32_t> lengths;
  for (size_t d = 0; d < dims; ++d) {
    const IndexItem& it = items[d];
    int64_t n = d == 0 ? rows : cols;
    std::vector<Val> axis;
    if (it.is_slice) {
      for (int64_t i : slice_indices(it, n, pos)) {
        axis.push_back(Val::of_int(i));
      }
      lengths.push_back(static_cast<int32_t>(axis.size()));
    } else {
      if (it.value.kind == Val::Kind::tensor || it.value.kind == Val::Kind::tuple) {
        type_error(it.pos, "an index next to a slice must be a scalar");
      }
      axis.push_back(it.value);
    }
    sel.axes.push_back(std::move(axis));
  }
  if (lengths.size() == 2) {
    sel.rows = lengths[0];
    sel.cols = lengths[1];
  } else {
    sel.rows = lengths[0];
  }
  return sel;
}

Val Lowerer::tensor_slice(const Val& t, const std::vector<IndexItem>& items, const ast::Pos& pos) {
  SliceSelection sel = select_slices(t.rows, t.cols, items, pos);
  std::vector<const Expr*> elems;
  if (sel.axes.size() == 1) {
    for (const Val& i : sel.axes[0]) {
      elems.push_back(tensor_index(t, {i}, pos).expr);
    }
  } else {
    for (const Val& i : sel.axes[0]) {
      for (const Val& j : sel.axes[1]) {
        elems.push_back(tensor_index(t, {i, j}, pos).expr);
      }
    }
  }
  return Val::of_tensor(std::move(elems), sel.rows, sel.cols, t.dtype);
}

// v.fill(x) (matrix_ops.fill: mat[i] = val for every element, each an assignment with its
// implicit cast). On a value that is not a place (`(v + 1).fill(0)`) it assigns into a temporary,
// as in Quadrants: nothing observable happens.
Val Lowerer::call_fill(const ast::Attribute* a, const ast::Call* c) {
  const ast::Pos& pos = c->pos;
  bool place = is_lvalue_expr(a->value);
  if (const auto* n = a->value->as<ast::Name>()) {
    BindingRef b = find_local(n->id);
    place = place || (b != nullptr && b->kind != Binding::Kind::value);
  }
  LValue lv;
  Val base;
  if (place) {
    lv = lvalue(a->value);
  } else {
    base = eval(a->value);
  }
  if (c->args.size != 1 || c->keywords.size != 0) {
    type_error(pos, "fill(value) takes one argument");
  }
  Val v = eval(c->args[0]);
  bool tensor = place ? lv.kind == LValue::Kind::tensor : base.kind == Val::Kind::tensor;
  if (!tensor) {
    type_error(a->pos, "fill() needs a vector or matrix, got " +
                           (place ? std::string("a scalar") : base.describe()));
  }
  if (v.kind == Val::Kind::tensor || v.kind == Val::Kind::tuple) {
    type_error(c->args[0]->pos, "fill() takes a scalar, got " + v.describe());
  }
  if (!place) {
    return Val::of_py(sema::Value::none());
  }
  Val x = materialize(Val::of_scalar(to_scalar(v, c->args[0]->pos)), pos);
  for (const LValue& part : lv.parts) {
    write(part, x, pos);
  }
  return Val::of_py(sema::Value::none());
}

}  // namespace qd::ir::lower

namespace qd::ir::lower {

// determinant() and inverse() in matrix_ops.py's operation order (closed forms up to 4x4; E(x, y)
// wraps its indices modulo n). Every operation goes through binary() with Quadrants' typing:
// (-1) ** i and the literal 0 of `mat[0, 0] * 0` are i32 constants, 1.0 is f32.
Val Lowerer::det_inverse(const Val& t, bool inverse, const ast::Pos& pos) {
  if (t.cols == 0 || t.cols != t.rows) {
    type_error(pos, std::string(inverse ? "inverse" : "determinant") +
                        "() needs a square matrix, got " + shape_text(t));
  }
  int32_t n = t.rows;
  if (n > 4) {
    fail(pos, "QD201",
         std::string(inverse ? "inverse" : "determinant") + "() of a " + shape_text(t) +
             " is not supported in kernels: qdbuild has Quadrants' closed forms up to 4x4, not "
             "the Gauss elimination with pivoting it uses for larger matrices");
  }
  Val m = materialize(t, pos);
  auto E = [&](int32_t r, int32_t c) { return Val::of_scalar(m.elems[(r % n) * n + (c % n)]); };
  auto mul = [&](const Val& a, const Val& b) { return binary(ast::Operator::Mult, a, b, pos); };
  auto sub = [&](const Val& a, const Val& b) { return binary(ast::Operator::Sub, a, b, pos); };
  auto add = [&](const Val& a, const Val& b) { return binary(ast::Operator::Add, a, b, pos); };
  auto sign = [&](int32_t k) { return Val::of_int(k % 2 == 0 ? 1 : -1); };  // (-1) ** k
  // The 3x3 minor expansion of the 4x4 forms, rows i+1..i+3 and columns j+1..j+3.
  auto minor3 = [&](int32_t i, int32_t j) {
    return add(sub(mul(E(i + 1, j + 1), sub(mul(E(i + 2, j + 2), E(i + 3, j + 3)),
                                            mul(E(i + 3, j + 2), E(i + 2, j + 3)))),
                   mul(E(i + 2, j + 1), sub(mul(E(i + 1, j + 2), E(i + 3, j + 3)),
                                            mul(E(i + 3, j + 2), E(i + 1, j + 3))))),
               mul(E(i + 3, j + 1), sub(mul(E(i + 1, j + 2), E(i + 2, j + 3)),
                                        mul(E(i + 2, j + 2), E(i + 1, j + 3)))));
  };
  auto determinant = [&]() -> Val {
    switch (n) {
      case 1: return E(0, 0);
      case 2: return sub(mul(E(0, 0), E(1, 1)), mul(E(0, 1), E(1, 0)));
      case 3:
        return add(sub(mul(E(0, 0), sub(mul(E(1, 1), E(2, 2)), mul(E(2, 1), E(1, 2)))),
                       mul(E(1, 0), sub(mul(E(0, 1), E(2, 2)), mul(E(2, 1), E(0, 2))))),
                   mul(E(2, 0), sub(mul(E(0, 1), E(1, 2)), mul(E(1, 1), E(0, 2)))));
      default: {
        Val det = mul(E(0, 0), Val::of_int(0));  // keep type
        for (int32_t i = 0; i < 4; ++i) {
          det = add(det, mul(sign(i), mul(E(i, 0), minor3(i, 0))));
        }
        return det;
      }
    }
  };
  if (!inverse) {
    return determinant();
  }
  Val one = Val::of_py(sema::Value::floating(1.0));
  if (n == 1) {
    std::vector<Val> rows{Val::of_tuple({binary(ast::Operator::Div, one, E(0, 0), pos)})};
    return make_matrix(rows, std::nullopt, pos);
  }
  Val inv_det = materialize(binary(ast::Operator::Div, one, determinant(), pos), pos);
  std::vector<Val> rows;
  auto neg = [&](const Val& v) {
    return Val::of_scalar(m_kernel->unary(UnOp::neg, v.expr->type, v.expr));
  };
  if (n == 2) {
    rows = {Val::of_tuple({E(1, 1), neg(E(0, 1))}), Val::of_tuple({neg(E(1, 0)), E(0, 0)})};
  } else {
    for (int32_t j = 0; j < n; ++j) {
      std::vector<Val> row;
      for (int32_t i = 0; i < n; ++i) {
        if (n == 3) {
          row.push_back(
              sub(mul(E(i + 1, j + 1), E(i + 2, j + 2)), mul(E(i + 2, j + 1), E(i + 1, j + 2))));
        } else {
          row.push_back(mul(sign(i + j), minor3(i, j)));
        }
      }
      rows.push_back(Val::of_tuple(std::move(row)));
    }
  }
  return tensor_binary(ast::Operator::Mult, inv_det, make_matrix(rows, std::nullopt, pos), pos);
}

}  // namespace qd::ir::lower
