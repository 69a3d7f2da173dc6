#include "ir/ir.hpp"

namespace qd::ir {

const char* name_of(UnOp op) {
  static constexpr const char* k_names[] = {"neg",    "bit_not", "not",   "abs",   "sqrt", "rsqrt",
                                            "sin",    "cos",     "tan",   "asin",  "acos", "atan",
                                            "tanh",   "exp",     "log",   "floor", "ceil", "round",
                                            "popcnt", "clz",     "isnan", "isinf", "ffs"};
  return k_names[static_cast<int>(op)];
}

const char* name_of(BinOp op) {
  static constexpr const char* k_names[] = {
      "add",  "sub", "mul", "div",     "raw_div", "floordiv", "mod",  "raw_mod", "pow",
      "ipow", "shl", "shr", "bit_shr", "and",     "or",       "xor",  "lt",      "le",
      "gt",   "ge",  "eq",  "ne",      "min",     "max",      "atan2"};
  return k_names[static_cast<int>(op)];
}

bool is_comparison(BinOp op) {
  return op == BinOp::lt || op == BinOp::le || op == BinOp::gt || op == BinOp::ge ||
         op == BinOp::eq || op == BinOp::ne;
}

const char* name_of(AtomicOp op) {
  static constexpr const char* k_names[] = {"add", "sub", "mul", "min",      "max",
                                            "and", "or",  "xor", "exchange", "cas"};
  return k_names[static_cast<int>(op)];
}

const char* name_of(Fence f) {
  static constexpr const char* k_names[] = {"block_sync", "warp_sync", "block_fence", "grid_fence"};
  return k_names[static_cast<int>(f)];
}

const char* name_of(WarpOp op) {
  static constexpr const char* k_names[] = {
      "",    "shuffle",   "shuffle_up", "shuffle_down", "ballot",    "all",
      "any", "block_all", "block_any",  "block_count",  "match_any", "match_all"};
  return k_names[static_cast<int>(op)];
}

int64_t Param::shared_elements() const {
  int64_t n = element_count();
  for (int64_t d : field_shape) {
    n *= d;
  }
  return n;
}

int32_t Param::element_count() const {
  int32_t n = 1;
  for (int32_t d : element_shape) {
    n *= d;
  }
  return n;
}

bool Param::field_contiguous() const {
  std::vector<int64_t> dims = field_shape;
  dims.insert(dims.end(), element_shape.begin(), element_shape.end());
  if (field_strides.size() != dims.size()) {
    return true;
  }
  int64_t expect = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] > 1 && field_strides[d] != expect) {
      return false;
    }
    expect *= dims[d];
  }
  return true;
}

const Expr* Kernel::constant_int(DType t, int64_t v) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::constant;
  e.type = t;
  if (is_float(t)) {
    e.fval = static_cast<double>(v);
  } else {
    e.ival = v;
  }
  return &e;
}

const Expr* Kernel::constant_float(DType t, double v) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::constant;
  e.type = t;
  e.fval = t == DType::f32 ? static_cast<double>(static_cast<float>(v)) : v;
  return &e;
}

const Expr* Kernel::var_ref(int32_t var) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::var;
  e.type = vars[var].type;
  e.index = var;
  return &e;
}

const Expr* Kernel::arg(int32_t param) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::arg;
  e.type = params[param].dtype;
  e.index = param;
  return &e;
}

const Expr* Kernel::shape(int32_t param, int32_t axis) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::shape;
  e.type = DType::i32;
  e.index = param;
  e.axis = axis;
  return &e;
}

const Expr* Kernel::load(int32_t param, const Expr* flat_index) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::load;
  e.type = params[param].dtype;
  e.index = param;
  e.a = flat_index;
  return &e;
}

const Expr* Kernel::unary(UnOp op, DType t, const Expr* a) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::unary;
  e.type = t;
  e.un = op;
  e.a = a;
  return &e;
}

const Expr* Kernel::binary(BinOp op, DType t, const Expr* a, const Expr* b) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::binary;
  e.type = t;
  e.bin = op;
  e.a = a;
  e.b = b;
  return &e;
}

const Expr* Kernel::cast(DType t, const Expr* a) {
  if (a->type == t) {
    return a;
  }
  if (a->kind == ExprKind::constant) {
    // Fold: the value a C cast would give (u1: != 0).
    Expr& e = m_exprs.emplace_back(*a);
    e.type = t;
    if (t == DType::u1) {
      e.ival = is_float(a->type) ? (a->fval != 0.0) : (a->ival != 0);
      e.fval = 0.0;
      return &e;
    }
    if (is_float(t)) {
      double v = is_float(a->type) ? a->fval
                 : (is_signed(a->type) || a->type == DType::u1)
                     ? static_cast<double>(a->ival)
                     : static_cast<double>(static_cast<uint64_t>(a->ival));
      e.fval = t == DType::f32 ? static_cast<double>(static_cast<float>(v)) : v;
      e.ival = 0;
      return &e;
    }
    if (!is_float(a->type)) {
      uint64_t raw = static_cast<uint64_t>(a->ival);
      int b = bits(t);
      if (b < 64) {
        raw &= (uint64_t{1} << b) - 1;
        if (is_signed(t) && (raw >> (b - 1)) != 0) {
          raw |= ~((uint64_t{1} << b) - 1);
        }
      }
      e.ival = static_cast<int64_t>(raw);
      return &e;
    }
    // float -> int: only fold values in range (out of range is undefined, left to run time).
    double v = a->fval;
    if (v > -9.2e18 && v < 9.2e18) {
      int64_t iv = static_cast<int64_t>(v);
      Expr tmp;
      tmp.kind = ExprKind::constant;
      tmp.type = DType::i64;
      tmp.ival = iv;
      m_exprs.pop_back();
      const Expr* as_int = &m_exprs.emplace_back(tmp);
      return cast(t, as_int);
    }
    m_exprs.pop_back();
  }
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::cast;
  e.type = t;
  e.a = a;
  return &e;
}

const Expr* Kernel::bit_cast(DType t, const Expr* a) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::bit_cast;
  e.type = t;
  e.a = a;
  return &e;
}

const Expr* Kernel::select(const Expr* c, const Expr* a, const Expr* b) {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::select;
  e.type = a->type;
  e.a = c;
  e.b = a;
  e.c = b;
  return &e;
}

const Expr* Kernel::thread_idx() {
  Expr& e = m_exprs.emplace_back();
  e.kind = ExprKind::thread_idx;
  e.type = DType::i32;
  return &e;
}

Stmt* Kernel::stmt(StmtKind kind, int32_t line) {
  Stmt& s = m_stmts.emplace_back();
  s.kind = kind;
  s.line = line;
  return &s;
}

void Kernel::renumber_params(const std::vector<int32_t>& new_of_old) {
  std::vector<Param> reordered(params.size());
  for (size_t k = 0; k < params.size(); ++k) {
    reordered[new_of_old[k]] = std::move(params[k]);
  }
  params = std::move(reordered);
  for (Expr& e : m_exprs) {
    if ((e.kind == ExprKind::arg || e.kind == ExprKind::shape || e.kind == ExprKind::load) &&
        e.index >= 0) {
      e.index = new_of_old[e.index];
    }
  }
  for (Stmt& s : m_stmts) {
    if (s.array >= 0) {
      s.array = new_of_old[s.array];
    }
  }
}

int32_t Kernel::new_var(std::string name, DType t) {
  vars.push_back(Var{std::move(name), t});
  return static_cast<int32_t>(vars.size()) - 1;
}

}  // namespace qd::ir
