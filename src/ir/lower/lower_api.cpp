// The qd.* API (docs/language.md §5), the Quadrants features compiled kernels cannot have (each
// with its reason, QD201), and qd.random.
#include <array>
#include <cmath>
#include <optional>
#include <string_view>

#include "ir/lower/lowerer.hpp"
#include "sema/resolve.hpp"

namespace qd::ir::lower {

namespace {

// Quadrants features that compiled kernels cannot have, each with its own reason (QD201). A
// pattern is a qd.* path ("field"), a prefix ("ad.*": qd.ad.anything) or a suffix ("*.field").
// The first entry that matches is the error.
struct OutOfReach {
  std::array<std::string_view, 4> patterns;
  const char* reason;
};

constexpr OutOfReach k_out_of_reach[] = {
    {{"ad", "ad.*"},
     "autodiff is not supported in compiled kernels (qdbuild builds forward kernels only: no "
     "gradients, tapes, grad_replaced / grad_for); run gradient kernels under Quadrants"},
    {{"simt", "simt.*"},
     "this SIMT operation is not supported in compiled kernels yet (compiled: qd.simt.block's "
     "sync, mem_fence, thread_idx, SharedArray, reductions and scans, qd.simt.grid.mem_fence, "
     "qd.simt.warp's intrinsics, the qd.simt.subgroup operations, register tiles; not yet: "
     "radix ranks)"},
    {{"graph.do_while", "graph_do_while"},
     "qd.graph.do_while() is only the test of a while loop in a graph kernel (`while "
     "qd.graph.do_while(flag):`)"},
    {{"graph.*", "checkpoint", "graph_status*", "checkpoint.*"},
     "graph kernels' parallel regions and checkpoints (qd.graph.parallel_context, "
     "qd.checkpoint) are not supported in compiled kernels (qdbuild runs graph kernels' "
     "qd.graph.do_while loops, one task after another)"},
    {{"algorithms", "algorithms.*"},
     "the qd.algorithms library (sort, scan, reduce) is not supported in compiled kernels (it "
     "launches Quadrants' own kernels); call it from Python between kernel launches"},
    {{"stream*"},
     "concurrent GPU streams (qd.stream_parallel) are not supported in compiled kernels "
     "(qdbuild runs a kernel's loops in order on one stream)"},
    {{"field", "*.field", "root", "root.*"},
     "a field cannot be made in a kernel (fields and SNodes are made in Python before kernels "
     "run; a kernel reads the fields of its data_oriented object, docs/language.md 1.11)"},
};

bool matches(std::string_view path, std::string_view pattern) {
  if (pattern.empty()) {
    return false;
  }
  if (pattern.back() == '*') {
    return path.starts_with(pattern.substr(0, pattern.size() - 1));
  }
  if (pattern.front() == '*') {
    return path.ends_with(pattern.substr(1));
  }
  return path == pattern;
}

}  // namespace

void Lowerer::reject_out_of_reach(const std::string& path, const ast::Pos& pos) {
  for (const OutOfReach& r : k_out_of_reach) {
    for (std::string_view pattern : r.patterns) {
      if (matches(path, pattern)) {
        fail(pos, "QD201", "qd." + path + ": " + r.reason);
      }
    }
  }
}

Val Lowerer::call_api(const std::string& path, const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  if (path == "lang.impl.get_runtime" && args.empty()) {
    // qd.lang.impl.get_runtime(): its default_fp / default_ip are the build's (api_constant).
    return Val::of_api("lang.impl.get_runtime()");
  }
  if (path.starts_with("simt.")) {
    if (std::optional<Val> v = call_simt(path, c, args)) {
      return *v;
    }
  }
  if (path == "outer") {
    // qd.outer(a, b): only as `tile -= qd.outer(a, b)` (lower_tile.cpp).
    if (args.size() != 2 || !c->keywords.empty()) {
      type_error(pos, "qd.outer(a, b) takes two per-lane values or columns");
    }
    Val v;
    v.kind = Val::Kind::outer;
    v.items = args;
    return v;
  }
  reject_out_of_reach(path, pos);
  if (path == "svd" || path == "math.svd") {
    return call_svd(c, args);  // lower_svd.cpp
  }
  if (path == "Struct") {
    return local_struct(c, args);  // lower_field.cpp
  }
  if (path == "static") {
    if (args.size() != 1) {
      if (args.empty()) {
        type_error(pos, "qd.static() takes one argument");
      }
      return Val::of_tuple(args);
    }
    Val v = args[0];
    if (v.is_runtime()) {
      fail(pos, "QD206", "qd.static() needs a compile-time value, got " + v.describe());
    }
    if (v.kind == Val::Kind::range || v.kind == Val::Kind::ndrange ||
        v.kind == Val::Kind::grouped) {
      v.path = "static";
    }
    return v;
  }
  if (path == "static_assert") {
    if (args.empty()) {
      type_error(pos, "qd.static_assert(cond, msg) needs a condition");
    }
    if (!static_truth(args[0], pos)) {
      std::string msg = args.size() > 1 && args[1].kind == Val::Kind::py &&
                                args[1].py.kind == sema::Value::Kind::string
                            ? args[1].py.s
                            : "qd.static_assert failed";
      fail(pos, "QD206", msg);
    }
    return Val::of_py(sema::Value::none());
  }
  if (path == "template" || path == "Template" || path == "types.template" ||
      path.starts_with("types.ndarray") || path.starts_with("types.NDArray")) {
    return Val::of_api(path);  // a parameter annotation
  }
  if (path == "static_print") {
    return Val::of_py(sema::Value::none());
  }
  if (path == "ndrange") {
    Val nd;
    nd.kind = Val::Kind::ndrange;
    for (const Val& a : args) {
      if (a.kind == Val::Kind::tuple) {
        if (a.items.size() != 2) {
          type_error(pos, "an ndrange dimension is n or (begin, end)");
        }
        nd.items.push_back(a);
      } else if (a.kind == Val::Kind::py && a.py.kind == sema::Value::Kind::tuple) {
        if (a.py.items.size() != 2) {
          type_error(pos, "an ndrange dimension is n or (begin, end)");
        }
        nd.items.push_back(Val::of_tuple({Val::of_py(a.py.items[0]), Val::of_py(a.py.items[1])}));
      } else {
        nd.items.push_back(Val::of_tuple({Val::of_int(0), a}));
      }
    }
    if (const ast::Expr* ax = keyword(c, "axes")) {
      // qd.ndrange(..., axes=(...)): the iteration order (outermost first) as a permutation of
      // the canonical axes; the loop variables stay bound to the canonical axes (_Ndrange).
      Val a = eval(ax);
      bool none = a.kind == Val::Kind::py && a.py.kind == sema::Value::Kind::none;
      if (!none) {
        if (a.is_runtime()) {
          fail(ax->pos, "QD206", "qd.ndrange(axes=...) must be a compile-time tuple of ints");
        }
        std::vector<Val> entries = static_items(a, ax->pos);
        size_t n = nd.items.size();
        if (entries.size() != n) {
          fail(ax->pos, "QD206",
               "qd.ndrange(axes=...) has " + std::to_string(entries.size()) +
                   " entries but ndrange was called with " + std::to_string(n) +
                   " dimension argument(s); they must match");
        }
        std::vector<bool> seen(n, false);
        bool identity = true;
        for (size_t k = 0; k < entries.size(); ++k) {
          const Val& e = entries[k];
          if (e.kind != Val::Kind::py || e.py.kind != sema::Value::Kind::integer) {
            type_error(ax->pos,
                       "qd.ndrange(axes=...) entries must be Python ints, got " + e.describe());
          }
          int64_t v = static_int(e, ax->pos, "an ndrange axis");
          if (v < 0 || v >= static_cast<int64_t>(n) || seen[v]) {
            fail(ax->pos, "QD206",
                 "qd.ndrange(axes=...) is not a permutation of range(" + std::to_string(n) + ")");
          }
          seen[v] = true;
          identity = identity && v == static_cast<int64_t>(k);
          nd.order.push_back(static_cast<int32_t>(v));
        }
        if (identity) {
          nd.order.clear();
        }
      }
    }
    return nd;
  }
  if (path == "grouped") {
    if (args.size() != 1) {
      type_error(pos, "qd.grouped() takes one argument");
    }
    Val g;
    g.kind = Val::Kind::grouped;
    g.items.push_back(args[0]);
    return g;
  }
  if (path == "cast") {
    if (args.size() != 2 || args[1].kind != Val::Kind::dtype) {
      type_error(pos, "qd.cast(x, dtype) needs a value and a scalar type");
    }
    // A Python number becomes a default-typed constant first (qd.cast(0.1, qd.f64) is the f32
    // value 0.1 widened, as in Quadrants; write qd.f64(0.1) for full precision).
    if (args[0].kind == Val::Kind::py && args[0].is_py_number()) {
      return Val::of_scalar(m_kernel->cast(args[1].dtype, to_scalar(args[0], pos)));
    }
    return cast_val(args[0], args[1].dtype, pos);
  }
  if (path == "bit_cast") {
    if (args.size() != 2 || args[1].kind != Val::Kind::dtype) {
      type_error(pos, "qd.bit_cast(x, dtype) needs a value and a scalar type");
    }
    const Expr* e = to_scalar(args[0], pos);
    if (bits(e->type) != bits(args[1].dtype)) {
      type_error(pos, "qd.bit_cast() needs types of the same width");
    }
    return Val::of_scalar(m_kernel->bit_cast(args[1].dtype, e));
  }
  if (path == "select") {
    if (args.size() != 3) {
      type_error(pos, "qd.select(cond, a, b) takes three arguments");
    }
    const Val& cv = args[0];
    Val a = args[1];
    Val b = args[2];
    bool tensor =
        cv.kind == Val::Kind::tensor || a.kind == Val::Kind::tensor || b.kind == Val::Kind::tensor;
    if (!tensor) {
      const Expr* x = to_scalar(a, pos);
      const Expr* y = to_scalar(b, pos);
      DType t = promoted(x->type, y->type);
      return Val::of_scalar(
          m_kernel->select(condition(cv, pos), m_kernel->cast(t, x), m_kernel->cast(t, y)));
    }
    const Val& shape = cv.kind == Val::Kind::tensor ? cv : a.kind == Val::Kind::tensor ? a : b;
    std::vector<const Expr*> elems;
    DType t = promoted(element_type(a, pos), element_type(b, pos));
    for (int32_t i = 0; i < shape.size(); ++i) {
      const Expr* ci = element_of(cv, i, pos);
      const Expr* x = element_of(a, i, pos);
      const Expr* y = element_of(b, i, pos);
      elems.push_back(m_kernel->select(condition(Val::of_scalar(ci), pos), m_kernel->cast(t, x),
                                       m_kernel->cast(t, y)));
    }
    return Val::of_tensor(std::move(elems), shape.rows, shape.cols, t);
  }
  if (path == "raw_div" || path == "raw_mod") {
    if (args.size() != 2) {
      type_error(pos, "qd." + path + "(a, b) takes two arguments");
    }
    const Expr* a = to_scalar(args[0], pos);
    const Expr* b = to_scalar(args[1], pos);
    DType t = promoted(a->type, b->type);
    return Val::of_scalar(m_kernel->binary(path == "raw_div" ? BinOp::raw_div : BinOp::raw_mod, t,
                                           m_kernel->cast(t, a), m_kernel->cast(t, b)));
  }
  if (path == "bit_shr") {
    const Expr* a = to_scalar(args.at(0), pos);
    const Expr* b = to_scalar(args.at(1), pos);
    return Val::of_scalar(m_kernel->binary(BinOp::bit_shr, a->type, a, m_kernel->cast(a->type, b)));
  }
  if (path == "volatile_load") {
    if (args.size() != 1) {
      type_error(pos, "qd.volatile_load(x) takes one argument");
    }
    return args[0];
  }
  if (path == "Vector" || path == "math.Vector" || path == "types.Vector") {
    if (args.size() != 1) {
      type_error(pos, "qd.Vector([...]) takes a list");
    }
    std::optional<DType> dt;
    if (const ast::Expr* k = keyword(c, "dt")) {
      dt = eval(k).dtype;
    }
    return make_vector(static_items(args[0], pos), dt, pos);
  }
  if (path == "Matrix" || path == "math.Matrix") {
    if (args.size() != 1) {
      type_error(pos, "qd.Matrix([[...], ...]) takes a list of rows");
    }
    std::optional<DType> dt;
    if (const ast::Expr* k = keyword(c, "dt")) {
      dt = eval(k).dtype;
    }
    std::vector<Val> rows = static_items(args[0], pos);
    if (!rows.empty() && rows[0].kind != Val::Kind::tuple && rows[0].kind != Val::Kind::tensor) {
      return make_vector(rows, dt, pos);  // qd.Matrix([1, 2, 3]) is a vector
    }
    return make_matrix(rows, dt, pos);
  }
  if (path == "types.vector" || path == "types.matrix") {
    bool matrix = path == "types.matrix";
    size_t dims = matrix ? 2 : 1;
    std::vector<Val> a = args;
    if (const ast::Expr* k = keyword(c, "dtype")) {
      a.resize(dims + 1);
      a[dims] = eval(k);
    }
    // Without a dtype (or dtype=None) the type only describes a shape: a func parameter
    // annotated with it keeps the argument's dtype (as every vector/matrix parameter does).
    bool any_dtype = a.size() == dims || (a.size() == dims + 1 && a[dims].kind == Val::Kind::py &&
                                          a[dims].py.kind == sema::Value::Kind::none);
    if (a.size() < dims || a.size() > dims + 1 ||
        (!any_dtype && a[dims].kind != Val::Kind::dtype)) {
      type_error(pos, std::string("qd.types.") +
                          (matrix ? "matrix(n, m, dtype)" : "vector(n, dtype)") +
                          " needs its sizes and a scalar dtype");
    }
    Val t;
    t.kind = Val::Kind::tensor_type;
    t.rows = static_cast<int32_t>(static_int(a[0], pos, "a vector size"));
    t.cols = matrix ? static_cast<int32_t>(static_int(a[1], pos, "a matrix size")) : 0;
    t.any_dtype = any_dtype;
    t.dtype = any_dtype ? m_default_fp : a[dims].dtype;
    return t;
  }
  for (const char* head : {"Matrix.", "Vector.", "math.Matrix.", "math.Vector."}) {
    if (path.starts_with(head)) {
      std::string m = path.substr(std::string_view(head).size());
      return tensor_method(Val::of_api(path), m, args, c, pos);
    }
  }
  if (path == "random") {
    return random_value(c, args);
  }
  std::string name = path.starts_with("math.") ? path.substr(5) : path;
  return call_math(name, c, args);
}

// qd.random(dtype=float): the next number of Quadrants' generator, drawn where the call stands
// (Quadrants' random() is an expr_init: one draw per call, in evaluation order). Floats are
// uniform in [0, 1); 32- and 64-bit integers take every bit pattern.
Val Lowerer::random_value(const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  const ast::Expr* kw = keyword(c, "dtype");
  if (args.size() + (kw != nullptr ? 1 : 0) > 1) {
    type_error(pos, "qd.random(dtype=float) takes one scalar type");
  }
  DType t = m_default_fp;
  if (!args.empty() || kw != nullptr) {
    Val dv = !args.empty() ? args[0] : eval(kw);
    if (dv.kind == Val::Kind::builtin && (dv.path == "float" || dv.path == "int")) {
      t = dv.path == "float" ? m_default_fp : m_default_ip;
    } else if (dv.kind == Val::Kind::dtype) {
      t = dv.dtype;
    } else {
      type_error(pos, "qd.random(dtype) needs a scalar type");
    }
  }
  if (t != DType::f32 && t != DType::f64 && t != DType::i32 && t != DType::i64 && t != DType::u32 &&
      t != DType::u64) {
    type_error(pos, std::string("qd.random(") + name_of(t) +
                        "): Quadrants draws f32, f64, i32, i64, u32 and u64 only");
  }
  int32_t v = m_kernel->new_var("", t);
  Stmt* st = emit(StmtKind::random, pos);
  st->decl = true;
  st->var = v;
  return Val::of_scalar(m_kernel->var_ref(v));
}

}  // namespace qd::ir::lower
