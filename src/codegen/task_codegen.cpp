#include "codegen/task_codegen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "codegen/emitter.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace qd::codegen {

namespace {

using namespace ir;

std::string sanitize(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    out += (std::isalnum(c) != 0 || c == '_') && c < 0x80 ? static_cast<char>(c) : '_';
  }
  return out;
}

std::string hex16(uint64_t v) {
  static const char* k_hex = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[i] = k_hex[v & 15];
    v >>= 4;
  }
  return s;
}

std::string float_literal(double v, DType t) {
  bool f32 = t == DType::f32;
  if (std::isnan(v)) {
    return f32 ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
  }
  if (std::isinf(v)) {
    std::string inf = f32 ? "__builtin_inff()" : "__builtin_inf()";
    return v < 0 ? "(-" + inf + ")" : inf;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, f32 ? "%.9g" : "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) {
    s += ".0";
  }
  if (f32) {
    s += "f";
  }
  return s[0] == '-' ? "(" + s + ")" : s;
}

// A C++ string literal of `text`: printable ASCII as is, other bytes as octal escapes (at most
// three digits, so a following digit cannot extend them).
std::string c_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f || c == '?') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);  // '?': no trigraphs
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string int_literal(int64_t v, DType t) {
  if (t == DType::u1) {
    return v != 0 ? "true" : "false";
  }
  std::string ct = c_type_of(t);
  if (t == DType::u64) {
    return "(u64)" + std::to_string(static_cast<uint64_t>(v)) + "ull";
  }
  if (v == INT64_MIN) {
    return "(i64)(-9223372036854775807ll - 1)";
  }
  std::string lit = std::to_string(v) + (t == DType::i64 ? "ll" : t == DType::u32 ? "u" : "");
  if (t == DType::i32) {
    if (v == INT32_MIN) {
      return "(-2147483647 - 1)";  // -2147483648 would be -(long 2147483648): a long
    }
    return v < 0 ? "(" + lit + ")" : lit;
  }
  return "(" + ct + ")" + (v < 0 ? "(" + lit + ")" : lit);
}

const char* unary_fn(UnOp op) {
  switch (op) {
    case UnOp::abs: return "qd::abs";
    case UnOp::sqrt: return "qd::sqrt";
    case UnOp::rsqrt: return "qd::rsqrt";
    case UnOp::sin: return "qd::sin";
    case UnOp::cos: return "qd::cos";
    case UnOp::tan: return "qd::tan";
    case UnOp::asin: return "qd::asin";
    case UnOp::acos: return "qd::acos";
    case UnOp::atan: return "qd::atan";
    case UnOp::tanh: return "qd::tanh";
    case UnOp::exp: return "qd::exp";
    case UnOp::log: return "qd::log";
    case UnOp::floor: return "qd::floor";
    case UnOp::ceil: return "qd::ceil";
    case UnOp::round: return "qd::round";
    case UnOp::popcnt: return "qd::popcnt";
    case UnOp::clz: return "qd::clz";
    case UnOp::isnan: return "qd::isnan";
    case UnOp::isinf: return "qd::isinf";
    case UnOp::ffs: return "qd::ffs";
    default: return nullptr;
  }
}

const char* binary_fn(BinOp op) {
  switch (op) {
    case BinOp::raw_div: return "qd::raw_div";
    case BinOp::floordiv: return "qd::floordiv";
    case BinOp::mod: return "qd::mod";
    case BinOp::raw_mod: return "qd::raw_mod";
    case BinOp::pow: return "qd::pow";
    case BinOp::ipow: return "qd::ipow";
    case BinOp::shl: return "qd::shl";
    case BinOp::shr: return "qd::shr";
    case BinOp::bit_shr: return "qd::bit_shr";
    case BinOp::min: return "qd::min";
    case BinOp::max: return "qd::max";
    case BinOp::atan2: return "qd::atan2";
    default: return nullptr;
  }
}

const char* binary_op(BinOp op) {
  switch (op) {
    case BinOp::add: return "+";
    case BinOp::sub: return "-";
    case BinOp::mul: return "*";
    case BinOp::div: return "/";
    case BinOp::bit_and: return "&";
    case BinOp::bit_or: return "|";
    case BinOp::bit_xor: return "^";
    case BinOp::lt: return "<";
    case BinOp::le: return "<=";
    case BinOp::gt: return ">";
    case BinOp::ge: return ">=";
    case BinOp::eq: return "==";
    case BinOp::ne: return "!=";
    default: return nullptr;
  }
}

// What one function of the unit uses.
struct Uses {
  std::set<int32_t> params;
  std::set<std::pair<int32_t, int32_t>> shapes;
  std::set<int32_t> vars;
  std::set<int32_t> written;

  void expr(const Expr* e) {
    walk_expr(e, [&](const Expr& x) {
      switch (x.kind) {
        case ExprKind::var: vars.insert(x.index); break;
        case ExprKind::arg:
        case ExprKind::load: params.insert(x.index); break;
        case ExprKind::shape: shapes.emplace(x.index, x.axis); break;
        default: break;
      }
    });
  }
  void stmt(const Stmt& s) {
    for_each_expr(s, [&](const Expr* e) { expr(e); });
    if (s.kind == StmtKind::store || (s.kind == StmtKind::atomic && s.target_var < 0)) {
      params.insert(s.array);
    }
    for (int32_t v : {s.var, s.target_var}) {
      if (v >= 0) {
        vars.insert(v);
        if (s.kind != StmtKind::range_for) {
          written.insert(v);
        }
      }
    }
  }
  void block(const Block& b) {
    walk_stmts(b, [&](const Stmt& s) { stmt(s); });
  }
};

class TaskWriter {
public:
  TaskWriter(const Kernel& k, Emitter& out, Flavor flavor)
      : m_k(k), m_out(&out), m_flavor(flavor) {}

  void task(const Task& t, const std::string& sym) {
    m_range = t.range;
    m_names.clear();
    m_refs.clear();
    m_next = 0;
    m_last_comment.clear();
    m_block = is_block_task(t);
    if (m_flavor == Flavor::cuda) {
      cuda_task(t, sym);
      return;
    }
    if (m_block) {
      cpu_block_task(t, sym, block_dim_of(*t.loop));
      return;
    }
    if (t.range) {
      const Stmt& loop = *t.loop;
      out().line("// range task: " + t.label);
      // The extent: evaluated on the launching thread before the task runs.
      Uses bounds;
      bounds.expr(loop.begin);
      bounds.expr(loop.end);
      out().open("QD_TASK i64 " + sym + "__extent(const qdrt_launch_context* ctx) {");
      declarations(bounds, true);
      out().line("return qd::extent((i64)" + paren(ex(loop.begin)) + ", (i64)" +
                 paren(ex(loop.end)) + ");");
      out().close();
      out().line();
      m_names.clear();
      m_next = 0;
      Uses uses;
      uses.stmt(loop);
      uses.block(loop.body);
      out().open("QD_TASK void " + sym +
                 "(const qdrt_launch_context* ctx, i64 first_, i64 last_) {");
      declarations(uses, false);
      privatize(loop);
      if (loop.nd_vars.size() >= 2) {
        cpu_rows(loop);
      } else {
        out().line("const i64 begin_ = (i64)" + paren(ex(loop.begin)) + ";");
        nd_bounds(loop);
        out().open("for (i64 idx_ = first_; idx_ < last_; ++idx_) {");
        loop_index(loop, "begin_ + idx_");
        block(loop.body);
        out().close();
      }
      merge_private();
      out().close();
      return;
    }
    out().line("// serial task: " + t.label);
    Uses uses;
    uses.block(t.body);
    out().open("QD_TASK void " + sym + "(const qdrt_launch_context* ctx, i64, i64) {");
    declarations(uses, false);
    block(t.body);
    out().close();
  }

private:
  static std::string paren(const std::string& s) { return "(" + s + ")"; }
  Emitter& out() { return *m_out; }

  // A local of the generated code: `ct n = init;`, or in a CPU block task's thread body a member
  // of the thread's frame assigned here (a barrier returns to the block's scheduler, so no local
  // may live across one, and the scheduler resumes with case labels inside the body's scopes,
  // which may not pass an initialized declaration). Returns how the code refers to it.
  std::string local(const std::string& ct, const std::string& n, const std::string& init,
                    bool is_const = false) {
    if (m_cpu_block) {
      m_frame.emplace_back(ct, n);
      m_refs[n] = "F_." + n;
      out().line("F_." + n + " = " + init + ";");
      return "F_." + n;
    }
    m_refs[n] = n;
    out().line((is_const ? "const " : "") + ct + " " + n + " = " + init + ";");
    return n;
  }
  std::string ref(const std::string& n) const {
    auto it = m_refs.find(n);
    return it == m_refs.end() ? n : it->second;
  }

  // A range task that uses the block-level language (qd.simt barriers, thread_idx, shared
  // arrays) runs as thread blocks of the loop's block_dim (128 when not configured).
  bool is_block_task(const Task& t) const {
    if (!t.range) {
      return false;
    }
    bool block = false;
    walk_stmts(t.loop->body, [&](const Stmt& s) {
      if ((s.kind == StmtKind::barrier &&
           (s.fence == Fence::block_sync || s.fence == Fence::warp_sync)) ||
          s.kind == StmtKind::warp_op) {
        block = true;
      }
      if ((s.kind == StmtKind::store || s.kind == StmtKind::atomic) && s.target_var < 0 &&
          s.array >= 0 && m_k.params[s.array].kind == Param::Kind::shared) {
        block = true;
      }
      for_each_expr(s, [&](const Expr* e) {
        walk_expr(e, [&](const Expr& x) {
          block = block || x.kind == ExprKind::thread_idx ||
                  (x.kind == ExprKind::load && m_k.params[x.index].kind == Param::Kind::shared);
        });
      });
    });
    return block;
  }

  // The shared arrays a task uses, each with its byte offset in the block's shared memory.
  std::vector<std::pair<int32_t, uint64_t>> shared_layout(const Uses& u, uint64_t& bytes) const {
    std::vector<std::pair<int32_t, uint64_t>> out;
    bytes = 0;
    for (int32_t p : u.params) {
      const Param& prm = m_k.params[p];
      if (prm.kind != Param::Kind::shared) {
        continue;
      }
      bytes = (bytes + 15) & ~uint64_t{15};
      out.emplace_back(p, bytes);
      bytes += static_cast<uint64_t>(prm.shared_elements()) * byte_size(prm.dtype);
    }
    return out;
  }

  // A CPU block task (docs/compiler.md "Block tasks"): the runtime's range is the blocks; each
  // block runs its threads as a state machine in lockstep between barriers (qd::block_release).
  void cpu_block_task(const Task& t, const std::string& sym, int32_t block_dim) {
    const Stmt& loop = *t.loop;
    std::string bd = std::to_string(block_dim);
    out().line("// range task: " + t.label + " (thread blocks of " + bd + ")");
    Uses bounds;
    bounds.expr(loop.begin);
    bounds.expr(loop.end);
    out().open("QD_TASK i64 " + sym + "__extent(const qdrt_launch_context* ctx) {");
    declarations(bounds, true);
    out().line("return qd::block_count(qd::extent((i64)" + paren(ex(loop.begin)) + ", (i64)" +
               paren(ex(loop.end)) + "), " + bd + ");");
    out().close();
    out().line();
    m_names.clear();
    m_refs.clear();
    m_next = 0;
    Uses uses;
    uses.stmt(loop);
    uses.block(loop.body);
    // The function's prologue first (parameters, temporaries, bounds: shared by the threads),
    // then the threads' body apart: its frame is known once it is written.
    Emitter prologue;
    Emitter* saved = m_out;
    m_out = &prologue;
    declarations(uses, false);
    out().line("const i64 begin_ = (i64)" + paren(ex(loop.begin)) + ";");
    out().line("const i64 extent_ = qd::extent(begin_, (i64)" + paren(ex(loop.end)) + ");");
    nd_bounds(loop);
    Emitter body;
    m_out = &body;
    m_cpu_block = true;
    m_frame.clear();
    m_next_state = 1;
    loop_index(loop, "begin_ + idx_");
    block(loop.body);
    m_cpu_block = false;
    m_out = saved;
    std::string frame = sym + "_frame";
    out().open("struct " + frame + " {");
    out().line("i32 state_;");
    out().line("i32 wait_;");
    out().line(
        "i32 xop_;  // the warp operation it waits at (0: none), its argument, value, result");
    out().line("i32 xa_;");
    out().line("u64 xv_;");
    out().line("u64 xr_;");
    for (const auto& [v, n] : m_names) {
      if (!is_temp(v)) {
        out().line(std::string(c_type_of(m_k.vars[v].type)) + " " + n + ";");
      }
    }
    for (const auto& [ct, n] : m_frame) {
      out().line(ct + " " + n + ";");
    }
    out().close("};");
    out().open("QD_TASK void " + sym + "(const qdrt_launch_context* ctx, i64 first_, i64 last_) {");
    out().lines(prologue.text());
    out().line(frame + " frames_[" + bd + "];");
    out().open("for (i64 blk_ = first_; blk_ < last_; ++blk_) {");
    if (shared_bytes_ > 0) {
      out().line("__builtin_memset(shared_, 0, " + std::to_string(shared_bytes_) + ");");
    }
    out().line("const i32 n_ = (i32)qd::min((i64)" + bd + ", extent_ - blk_ * " + bd + ");");
    out().open("for (i32 t_ = 0; t_ < n_; ++t_) {");
    out().line("frames_[t_].state_ = 0;");
    out().line("frames_[t_].wait_ = qd::k_running;");
    out().close();
    out().open("do {");
    out().open("for (i32 t_ = 0; t_ < n_; ++t_) {");
    out().line(frame + "& F_ = frames_[t_];");
    out().open("if (F_.wait_ != qd::k_running) {");
    out().line("continue;");
    out().close();
    out().line("const i64 idx_ = blk_ * " + bd + " + t_;");
    out().open("switch (F_.state_) {");
    out().line("case 0:;");
    out().lines(body.text());
    out().close();
    out().line("F_.wait_ = qd::k_exited;");
    out().line("qd_yield_:;");
    out().close();
    out().close("} while (qd::block_release(frames_, n_));");
    out().close();
    out().close();
  }

  static int32_t block_dim_of(const Stmt& loop) {
    return loop.block_dim > 0 ? loop.block_dim : ir::k_default_block_dim;
  }

  // CUDA (task_abi.h "CUDA modules"): one kernel per task; a range task computes its extent on
  // every thread and grid-strides over it.
  void cuda_task(const Task& t, const std::string& sym) {
    Uses uses;
    if (t.range) {
      uses.stmt(*t.loop);
      uses.block(t.loop->body);
    } else {
      uses.block(t.body);
    }
    out().line(std::string("// ") + (t.range ? "range" : "serial") + " task: " + t.label);
    int32_t slots = 1;  // the context's argument slots: max(1, passed) (task_abi.h, ABI 3)
    for (const Param& p : m_k.params) {
      slots = std::max(slots, p.slot + 1);
    }
    out().open("QD_TASK void " + sym + "(qd_cuda_context<" + std::to_string(slots) + "> ctx_) {");
    out().line("const qdrt_cuda_context* ctx = reinterpret_cast<const qdrt_cuda_context*>(&ctx_);");
    declarations(uses, false);
    if (!t.range) {
      block(t.body);
      out().close();
      return;
    }
    const Stmt& loop = *t.loop;
    privatize(loop);
    out().line("const i64 begin_ = (i64)" + paren(ex(loop.begin)) + ";");
    out().line("const i64 extent_ = qd::extent(begin_, (i64)" + paren(ex(loop.end)) + ");");
    nd_bounds(loop);
    out().open(
        "for (i64 idx_ = qd::thread_index(); idx_ < extent_; idx_ += qd::thread_stride()) {");
    loop_index(loop, "begin_ + idx_");
    block(loop.body);
    out().close();
    merge_private();
    out().close();
  }

  // The loop variable of a range loop at flat position `flat`; for an ndrange loop the index
  // variables instead, decomposed from it (last dimension fastest).
  void loop_index(const Stmt& loop, const std::string& flat) {
    DType vt = m_k.vars[loop.var].type;
    if (loop.nd_vars.empty()) {
      if (m_cpu_block) {
        out().line(name(loop.var) + " = (" + c_type_of(vt) + ")(" + flat + ");");
        return;
      }
      out().line(std::string("const ") + c_type_of(vt) + " " + name(loop.var) + " = (" +
                 c_type_of(vt) + ")(" + flat + ");");
      return;
    }
    std::string rest = local("i64", base_name(loop.var) + "_rest", flat);
    for (size_t d = loop.nd_vars.size(); d-- > 0;) {
      std::string v = name(loop.nd_vars[d]);
      std::string lhs = m_cpu_block ? v : "const i32 " + v;
      if (d == 0) {
        out().line(lhs + " = (i32)(" + nd_name(loop, "b", d) + " + " + rest + ");");
        break;
      }
      out().line(lhs + " = (i32)(" + nd_name(loop, "b", d) + " + " + rest + " % " +
                 nd_name(loop, "e", d) + ");");
      out().line(rest + " /= " + nd_name(loop, "e", d) + ";");
    }
  }

  std::string nd_name(const Stmt& loop, const char* what, size_t d) {
    return ref(base_name(loop.var) + "_" + what + std::to_string(d));
  }

  // The begin and extent of every ndrange dimension, evaluated once before the loop.
  void nd_bounds(const Stmt& loop) {
    for (size_t d = 0; d < loop.nd_vars.size(); ++d) {
      std::string prefix = base_name(loop.var) + "_";
      local("i32", prefix + "b" + std::to_string(d), ex(loop.nd_begins[d]), true);
      local("i64", prefix + "e" + std::to_string(d), ex(loop.nd_extents[d]), true);
    }
  }

  // A multi-dimensional ndrange chunk [first_, last_) row by row: one division per row, and the
  // innermost dimension a plain loop the compiler can vectorize.
  void cpu_rows(const Stmt& loop) {
    nd_bounds(loop);
    size_t last = loop.nd_vars.size() - 1;
    std::string e_last = nd_name(loop, "e", last);
    std::string outer = name(loop.var) + "_outer";
    out().line("i64 idx_ = first_;");
    out().open("while (idx_ < last_) {");
    out().line("const i64 inner_ = idx_ % " + e_last + ";");
    out().line("const i64 row_end_ = qd::min(last_, idx_ - inner_ + " + e_last + ");");
    out().line("i64 " + outer + " = idx_ / " + e_last + ";");
    for (size_t d = last; d-- > 0;) {
      std::string v = name(loop.nd_vars[d]);
      if (d == 0) {
        out().line("const i32 " + v + " = (i32)(" + nd_name(loop, "b", d) + " + " + outer + ");");
        break;
      }
      out().line("const i32 " + v + " = (i32)(" + nd_name(loop, "b", d) + " + " + outer + " % " +
                 nd_name(loop, "e", d) + ");");
      out().line(outer + " /= " + nd_name(loop, "e", d) + ";");
    }
    out().open("for (i64 in_ = inner_; in_ < inner_ + (row_end_ - idx_); ++in_) {");
    out().line("const i32 " + name(loop.nd_vars[last]) + " = (i32)(" + nd_name(loop, "b", last) +
               " + in_);");
    block(loop.body);
    out().close();
    out().line("idx_ = row_end_;");
    out().close();
  }

  // Thread-local reductions: a temporary that this range task only updates with one kind of
  // atomic (+=/-=, min, max, &, |, ^, *) and never reads accumulates in a private variable per
  // chunk (CPU) or thread (CUDA), merged with one atomic at the end.
  void privatize(const Stmt& loop) {
    m_private.clear();
    std::map<int32_t, AtomicOp> kind;
    std::set<int32_t> blocked;
    auto cls = [](AtomicOp op) { return op == AtomicOp::sub ? AtomicOp::add : op; };
    walk_stmts(loop.body, [&](const Stmt& s) {
      for_each_expr(s, [&](const Expr* e) {
        walk_expr(e, [&](const Expr& x) {
          if (x.kind == ExprKind::var) {
            blocked.insert(x.index);
          }
        });
      });
      if (s.kind == StmtKind::assign) {
        blocked.insert(s.var);
      }
      if (s.kind == StmtKind::atomic && s.target_var >= 0) {
        if (s.var >= 0 || s.op == AtomicOp::exchange || s.op == AtomicOp::cas) {
          blocked.insert(s.target_var);  // not a reduction
        }
        auto [it, inserted] = kind.emplace(s.target_var, cls(s.op));
        if (!inserted && it->second != cls(s.op)) {
          blocked.insert(s.target_var);
        }
      }
    });
    for (const auto& [v, op] : kind) {
      if (!is_temp(v) || blocked.count(v) != 0) {
        continue;
      }
      DType t = m_k.vars[v].type;
      std::string ct = c_type_of(t);
      std::string init;
      switch (op) {
        case AtomicOp::min:
          init = is_float(t) ? std::string(t == DType::f32 ? "__builtin_inff()" : "__builtin_inf()")
                             : "qd::max_of<" + ct + ">()";
          break;
        case AtomicOp::max:
          init = is_float(t)
                     ? std::string(t == DType::f32 ? "-__builtin_inff()" : "-__builtin_inf()")
                     : "qd::min_of<" + ct + ">()";
          break;
        case AtomicOp::mul: init = "(" + ct + ")1"; break;
        case AtomicOp::bit_and: init = "(" + ct + ")~(" + ct + ")0"; break;
        default: init = "(" + ct + ")0"; break;
      }
      std::string priv = name(v) + "_local";
      m_private.emplace(v, std::make_pair(priv, op));
      out().line(ct + " " + priv + " = " + init + ";  // thread-local part of the reduction");
    }
  }

  void merge_private() {
    for (const auto& [v, p] : m_private) {
      out().line(std::string("qd::atomic_") + name_of(p.second) + "(&" + name(v) + ", " + p.first +
                 ");");
    }
    m_private.clear();
  }
  std::string name(int32_t v) {
    std::string n = base_name(v);
    return m_cpu_block && !is_temp(v) ? "F_." + n : n;
  }
  std::string base_name(int32_t v) {
    auto it = m_names.find(v);
    if (it != m_names.end()) {
      return it->second;
    }
    const Var& x = m_k.vars[v];
    std::string n = "v" + std::to_string(m_next++) + (x.name.empty() ? "" : "_" + sanitize(x.name));
    m_names.emplace(v, n);
    return n;
  }
  // The C type before a declaring assignment ("" in a CPU block task: frame members).
  std::string decl_type(DType t) const {
    return m_cpu_block ? std::string() : std::string(c_type_of(t)) + " ";
  }

  std::string param_name(int32_t p) { return "arg_" + sanitize(m_k.params[p].name); }

  void declarations(const Uses& u, bool read_only) {
    uint64_t shared_bytes = 0;
    std::vector<std::pair<int32_t, uint64_t>> shared = shared_layout(u, shared_bytes);
    shared_bytes_ = shared_bytes;
    if (shared_bytes > 0 && m_flavor == Flavor::cpu) {
      out().line("alignas(16) unsigned char shared_[" + std::to_string(shared_bytes) + "];");
    }
    for (const auto& [p, offset] : shared) {
      const Param& prm = m_k.params[p];
      std::string ct = c_type_of(prm.dtype);
      std::string n = param_name(p);
      if (m_flavor == Flavor::cuda) {
        // Static shared memory, left uninitialized as CUDA's __shared__ variables are.
        out().line("[[clang::loader_uninitialized]] static __attribute__((address_space(3))) " +
                   ct + " " + n + "_storage[" + std::to_string(prm.shared_elements()) + "];");
        out().line(ct + "* const " + n + " = (" + ct + "*)" + n + "_storage;");
      } else {
        out().line(ct + "* const " + n + " = reinterpret_cast<" + ct + "*>(shared_ + " +
                   std::to_string(offset) + ");");
      }
    }
    for (int32_t p : u.params) {
      const Param& prm = m_k.params[p];
      std::string ct = c_type_of(prm.dtype);
      if (prm.kind == Param::Kind::shared) {
        continue;
      }
      if (prm.kind == Param::Kind::scalar) {
        out().line("const " + ct + " " + param_name(p) + " = qd::arg_scalar<" + ct + ">(ctx, " +
                   std::to_string(prm.slot) + ");");
      } else {
        out().line(ct + "* const " + param_name(p) + " = qd::array_data<" + ct +
                   ">(qd::arg_array(ctx, " + std::to_string(prm.slot) + "));");
      }
    }
    for (const auto& [p, axis] : u.shapes) {
      out().line("const i32 " + param_name(p) + "_shape" + std::to_string(axis) +
                 " = (i32)qd::arg_array(ctx, " + std::to_string(m_k.params[p].slot) + ")->shape[" +
                 std::to_string(axis) + "];");
    }
    for (int32_t v : u.vars) {
      int32_t off = m_k.temp_offset.empty() ? -1 : m_k.temp_offset[v];
      if (off < 0) {
        continue;
      }
      std::string ct = c_type_of(m_k.vars[v].type);
      bool written = !read_only && u.written.count(v) != 0;
      // Values only read here are copied once; written ones are references into the buffer.
      out().line((written ? ct + "& " : "const " + ct + " ") + name(v) + " = *qd::temp<" + ct +
                 ">(ctx, " + std::to_string(off) + ");");
    }
  }

  bool is_temp(int32_t v) const { return !m_k.temp_offset.empty() && m_k.temp_offset[v] >= 0; }

  void comment(const Stmt& s) {
    if (!s.text.empty() && s.text != m_last_comment) {
      out().line("// " + s.text);
      m_last_comment = s.text;
    }
  }

  void block(const Block& b) {
    for (const Stmt* s : b) {
      stmt(*s);
    }
  }

  std::string element(int32_t array, const Expr* index) {
    return param_name(array) + "[" + ex(index) + "]";
  }

  void stmt(const Stmt& s) {
    comment(s);
    switch (s.kind) {
      case StmtKind::assign: {
        bool decl = s.decl && !is_temp(s.var);
        out().line((decl ? decl_type(m_k.vars[s.var].type) : "") + name(s.var) + " = " +
                   ex(s.value) + ";");
        return;
      }
      case StmtKind::store:
        out().line(element(s.array, s.index) + " = " + ex(s.value) + ";");
        return;
      case StmtKind::atomic: {
        DType t = s.target_var >= 0 ? m_k.vars[s.target_var].type : m_k.params[s.array].dtype;
        std::string ct = c_type_of(t);
        std::string target = s.target_var >= 0 ? name(s.target_var) : element(s.array, s.index);
        if (s.target_var >= 0 && m_private.count(s.target_var) != 0) {
          target = m_private.at(s.target_var).first;  // a thread-local reduction (privatize)
        }
        bool real = m_range && (s.target_var < 0 || is_temp(s.target_var)) &&
                    !(s.target_var >= 0 && m_private.count(s.target_var) != 0);
        std::string result = s.var >= 0 ? decl_type(t) + name(s.var) + " = " : "";
        std::string expected = s.expected != nullptr ? ex(s.expected) + ", " : "";
        if (real) {
          out().line(result + "qd::atomic_" + name_of(s.op) + "(&" + target + ", " + expected +
                     ex(s.value) + ");");
          return;
        }
        // Thread-private or serial: a plain read-modify-write.
        if (s.var >= 0) {
          out().line(result + target + ";");
        }
        std::string v = ex(s.value);
        if (s.op == AtomicOp::cas) {
          std::string old = s.var >= 0 ? name(s.var) : target;
          out().line("if (" + old + " == " + ex(s.expected) + ") " + target + " = " + v + ";");
          return;
        }
        std::string updated;
        switch (s.op) {
          case AtomicOp::add: updated = "(" + ct + ")(" + target + " + " + v + ")"; break;
          case AtomicOp::sub: updated = "(" + ct + ")(" + target + " - " + v + ")"; break;
          case AtomicOp::mul: updated = "(" + ct + ")(" + target + " * " + v + ")"; break;
          case AtomicOp::min: updated = "qd::min(" + target + ", " + v + ")"; break;
          case AtomicOp::max: updated = "qd::max(" + target + ", " + v + ")"; break;
          case AtomicOp::bit_and: updated = "(" + ct + ")(" + target + " & " + v + ")"; break;
          case AtomicOp::bit_or: updated = "(" + ct + ")(" + target + " | " + v + ")"; break;
          case AtomicOp::bit_xor: updated = "(" + ct + ")(" + target + " ^ " + v + ")"; break;
          case AtomicOp::exchange: updated = v; break;
          case AtomicOp::cas: break;  // above
        }
        out().line(target + " = " + updated + ";");
        return;
      }
      case StmtKind::if_:
        out().open("if (" + ex(s.cond) + ") {");
        block(s.then_body);
        if (!s.else_body.empty()) {
          out().reopen("} else {");
          block(s.else_body);
        }
        out().close();
        return;
      case StmtKind::while_:
        out().open("while (true) {");
        ++m_depth;
        block(s.body);
        --m_depth;
        out().close();
        return;
      case StmtKind::range_for: {
        std::string ct = c_type_of(m_k.vars[s.var].type);
        out().open("{");
        std::string end = local(ct, "end_" + base_name(s.var), ex(s.end), true);
        nd_bounds(s);
        out().open("for (" + decl_type(m_k.vars[s.var].type) + name(s.var) + " = " + ex(s.begin) +
                   "; " + name(s.var) + " < " + end + "; ++" + name(s.var) + ") {");
        if (!s.nd_vars.empty()) {
          loop_index(s, name(s.var));
        }
        ++m_depth;
        block(s.body);
        --m_depth;
        out().close();
        out().close();
        return;
      }
      case StmtKind::break_:
      case StmtKind::continue_:
        if (m_cpu_block && m_depth == 0) {
          // `continue` in the parallel loop's body: this thread's iteration is done.
          out().line("F_.wait_ = qd::k_exited;");
          out().line("goto qd_yield_;");
          return;
        }
        out().line(s.kind == StmtKind::break_ ? "break;" : "continue;");
        return;
      case StmtKind::ret: {
        std::string ct = c_type_of(s.value->type);
        out().line("*qd::result<" + ct + ">(ctx) = " + ex(s.value) + ";");
        out().line("return;");
        return;
      }
      case StmtKind::random: {
        DType t = m_k.vars[s.var].type;
        bool decl = s.decl && !is_temp(s.var);
        out().line((decl ? decl_type(t) : std::string()) + name(s.var) + " = qd::rand_" +
                   std::string(name_of(t)) + "(ctx);");
        return;
      }
      case StmtKind::print: {
        std::string call = "qd::print(ctx, " + c_string(s.format);
        for (const Expr* a : s.args) {
          call += ", " + print_arg(a);
        }
        out().line(call + ");");
        return;
      }
      case StmtKind::barrier: barrier(s.fence); return;
      case StmtKind::warp_op: {
        DType t = m_k.vars[s.var].type;
        std::string ct = c_type_of(t);
        std::string op = std::to_string(static_cast<int>(s.warp));
        bool decl = s.decl && !is_temp(s.var);
        if (!m_cpu_block) {
          // CUDA: the hardware's; a CPU serial task: a warp of one lane.
          std::string vt = c_type_of(s.value->type);
          out().line((decl ? decl_type(t) : "") + name(s.var) + " = (" + ct + ")qd::warp_op<" + op +
                     ", " + vt + ">(" + ex(s.value) + ", " + ex(s.index) + ");");
          return;
        }
        // A CPU block task: the lanes meet at the operation (a warp barrier); the scheduler
        // computes every lane's result from their values (qd::warp_exchange).
        out().line("F_.xop_ = " + op + ";");
        out().line("F_.xv_ = qd::to_bits(" + ex(s.value) + ");");
        out().line("F_.xa_ = " + ex(s.index) + ";");
        std::string k = std::to_string(m_next_state++);
        out().line("F_.state_ = " + k + ";");
        out().line(is_block_op(s.warp) ? "F_.wait_ = qd::k_at_block_sync;"
                                       : "F_.wait_ = qd::k_at_warp_sync;");
        out().line("goto qd_yield_;");
        out().line("case " + k + ":;");
        if (s.warp == WarpOp::shuffle || s.warp == WarpOp::shuffle_up ||
            s.warp == WarpOp::shuffle_down) {
          out().line(name(s.var) + " = qd::from_bits<" + ct + ">(F_.xr_);");
        } else {
          out().line(name(s.var) + " = (" + ct + ")F_.xr_;");
        }
        return;
      }
      case StmtKind::graph_loop:
        // Offload splits graph loops into tasks and their loop ends; none reaches a task.
        out().line("#error \"a graph loop inside a task\"");
        return;
    }
  }

  // qd.simt's barriers and fences. CUDA: the hardware's. A CPU block task: the thread stops here
  // (its frame says where it resumes and what it waits for) and returns to the scheduler. A
  // serial task is one thread: barriers are nothing to wait for.
  void barrier(Fence f) {
    bool sync = f == Fence::block_sync || f == Fence::warp_sync;
    if (m_flavor == Flavor::cuda) {
      if (sync && !m_block && m_range) {
        out().line("#error \"a barrier outside a block task\"");
        return;
      }
      out().line(std::string("qd::") + name_of(f) + "();");
      return;
    }
    if (!sync) {
      out().line(std::string("qd::") + name_of(f) + "();");
      return;
    }
    if (!m_cpu_block) {
      out().line(std::string("// ") + name_of(f) + ": one thread");
      return;
    }
    out().line("F_.xop_ = 0;");
    std::string k = std::to_string(m_next_state++);
    out().line("F_.state_ = " + k + ";");
    out().line(std::string("F_.wait_ = ") +
               (f == Fence::block_sync ? "qd::k_at_block_sync;" : "qd::k_at_warp_sync;"));
    out().line("goto qd_yield_;");
    out().line("case " + k + ":;");
  }

  // A print argument as C's default argument promotions pass it (a float as a double, narrow
  // integers and bools as an int), with the 64-bit types spelled as %lld / %llu expect.
  std::string print_arg(const Expr* a) {
    std::string v = ex(a);
    switch (a->type) {
      case DType::f32: return "(f64)" + v;
      case DType::i8:
      case DType::i16:
      case DType::u8:
      case DType::u16:
      case DType::u1: return "(i32)" + v;
      case DType::i64: return "(long long)" + v;
      case DType::u64: return "(unsigned long long)" + v;
      default: return v;
    }
  }

  std::string ex(const Expr* e) {
    std::string ct = c_type_of(e->type);
    switch (e->kind) {
      case ExprKind::constant:
        return is_float(e->type) ? float_literal(e->fval, e->type) : int_literal(e->ival, e->type);
      case ExprKind::var: return name(e->index);
      case ExprKind::arg: return param_name(e->index);
      case ExprKind::shape: return param_name(e->index) + "_shape" + std::to_string(e->axis);
      case ExprKind::load: return element(e->index, e->a);
      case ExprKind::unary:
        switch (e->un) {
          case UnOp::neg: return "(" + ct + ")(-" + ex(e->a) + ")";
          case UnOp::bit_not:
            if (e->type == DType::u1) {
              return "(!" + ex(e->a) + ")";  // ~ on one bit (C++'s ~ works on the promoted int)
            }
            return "(" + ct + ")(~" + ex(e->a) + ")";
          case UnOp::logical_not: return "(!" + ex(e->a) + ")";
          default: return std::string(unary_fn(e->un)) + "(" + ex(e->a) + ")";
        }
      case ExprKind::binary: {
        if (const char* fn = binary_fn(e->bin)) {
          return std::string(fn) + "(" + ex(e->a) + ", " + ex(e->b) + ")";
        }
        std::string s = ex(e->a) + " " + binary_op(e->bin) + " " + ex(e->b);
        if (e->type == DType::u1 && !is_comparison(e->bin)) {
          return "(bool)((" + s + ") & 1)";  // u1 arithmetic wraps modulo 2, as in Quadrants
        }
        if (is_comparison(e->bin) || e->type == DType::i32 || e->type == DType::i64 ||
            e->type == DType::u32 || e->type == DType::u64 || is_float(e->type)) {
          return "(" + s + ")";
        }
        return "(" + ct + ")(" + s + ")";  // narrow types: C++ promotes to int
      }
      case ExprKind::cast: return "(" + ct + ")" + ex(e->a);
      case ExprKind::bit_cast: return "__builtin_bit_cast(" + ct + ", " + ex(e->a) + ")";
      case ExprKind::select: return "(" + ex(e->a) + " ? " + ex(e->b) + " : " + ex(e->c) + ")";
      case ExprKind::thread_idx:
        if (m_flavor == Flavor::cuda) {
          return "qd::block_thread_idx()";
        }
        return m_cpu_block ? "t_" : "0";  // a serial task is a block of one thread
    }
    return "0";
  }

  const Kernel& m_k;
  Emitter* m_out;  // where lines go (a CPU block task writes its threads' body apart first)
  // A CPU block task's thread body (cpu_block_task): locals are members of the thread's frame.
  bool m_cpu_block = false;
  std::vector<std::pair<std::string, std::string>> m_frame;  // (C type, name) beyond the vars
  std::map<std::string, std::string> m_refs;  // a local's name -> how the code refers to it
  int32_t m_next_state = 0;                   // the next barrier's resume point
  int32_t m_depth = 0;   // loops of the task's body around the statement being written
  bool m_block = false;  // the task is a block task (CPU or CUDA)
  Flavor m_flavor = Flavor::cpu;
  bool m_range = false;
  std::map<int32_t, std::string> m_names;
  std::map<int32_t, std::pair<std::string, AtomicOp>> m_private;  // var -> (local name, op class)
  int32_t m_next = 0;
  uint64_t shared_bytes_ = 0;  // the shared arrays' bytes of the task being written
  std::string m_last_comment;
};

}  // namespace

std::string emit_unit(const ir::Kernel& k, const std::vector<size_t>& tasks,
                      std::vector<std::string>& symbols, Flavor flavor) {
  Emitter out;
  out.line("// Generated by qdbuild: do not edit.");
  out.line("#include \"qd_prelude.hpp\"");
  out.line();
  out.line("using namespace qd;");
  TaskWriter w(k, out, flavor);
  for (size_t i = 0; i < tasks.size(); ++i) {
    out.line();
    w.task(k.tasks[tasks[i]], "@SYM" + std::to_string(i) + "@");
  }
  std::string text = out.take();
  uint64_t h = XXH3_64bits(text.data(), text.size());
  symbols.clear();
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string sym = "qd_" + hex16(h + i);
    symbols.push_back(sym);
    std::string ph = "@SYM" + std::to_string(i) + "@";
    for (size_t at = text.find(ph); at != std::string::npos; at = text.find(ph, at)) {
      text.replace(at, ph.size(), sym);
    }
  }
  return text;
}

}  // namespace qd::codegen
