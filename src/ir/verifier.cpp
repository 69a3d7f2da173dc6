#include "ir/verifier.hpp"

#include "ir/printer.hpp"

namespace qd::ir {

namespace {

struct Verifier {
  const Kernel& k;
  std::string error;

  bool bad(const std::string& what) {
    if (error.empty()) {
      error = what;
    }
    return false;
  }

  bool expr(const Expr* e) {
    if (e == nullptr) {
      return bad("missing expression");
    }
    auto ctx = [&]() { return " in " + print_expr(k, e); };
    switch (e->kind) {
      case ExprKind::constant: return true;
      case ExprKind::thread_idx: return e->type == DType::i32 || bad("thread_idx type" + ctx());
      case ExprKind::var:
        if (e->index < 0 || e->index >= static_cast<int32_t>(k.vars.size())) {
          return bad("variable out of range" + ctx());
        }
        return e->type == k.vars[e->index].type || bad("variable type mismatch" + ctx());
      case ExprKind::arg:
        if (e->index < 0 || e->index >= static_cast<int32_t>(k.params.size()) ||
            k.params[e->index].kind != Param::Kind::scalar) {
          return bad("arg of a non-scalar parameter" + ctx());
        }
        return e->type == k.params[e->index].dtype || bad("arg type mismatch" + ctx());
      case ExprKind::shape:
      case ExprKind::load: {
        if (e->index < 0 || e->index >= static_cast<int32_t>(k.params.size()) ||
            !k.params[e->index].is_array() ||
            (e->kind == ExprKind::shape && k.params[e->index].kind != Param::Kind::ndarray)) {
          return bad("array access to a non-array parameter" + ctx());
        }
        if (e->kind == ExprKind::shape) {
          return (e->axis >= 0 && e->axis < k.params[e->index].ndim) || bad("shape axis" + ctx());
        }
        return (expr(e->a) && e->a->type == DType::i64 && e->type == k.params[e->index].dtype) ||
               bad("load index must be i64 and the type the array's" + ctx());
      }
      case ExprKind::unary:
        if (!expr(e->a)) {
          return false;
        }
        if (e->un == UnOp::logical_not || e->un == UnOp::isnan || e->un == UnOp::isinf ||
            e->un == UnOp::popcnt || e->un == UnOp::clz || e->un == UnOp::ffs) {
          return true;
        }
        return e->a->type == e->type || bad("unary operand type" + ctx());
      case ExprKind::binary:
        if (!expr(e->a) || !expr(e->b)) {
          return false;
        }
        if (e->bin == BinOp::ipow) {
          return (e->a->type == e->type && e->b->type == DType::i64) || bad("ipow types" + ctx());
        }
        if (e->a->type != e->b->type) {
          return bad("binary operand types differ" + ctx());
        }
        if (is_comparison(e->bin)) {
          return e->type == DType::u1 || bad("comparison must give u1" + ctx());
        }
        if (e->a->type != e->type) {
          return bad("binary result type" + ctx());
        }
        if ((e->bin == BinOp::bit_and || e->bin == BinOp::bit_or || e->bin == BinOp::bit_xor ||
             e->bin == BinOp::shl || e->bin == BinOp::shr || e->bin == BinOp::bit_shr) &&
            is_float(e->type)) {
          return bad("bit operation on a float" + ctx());
        }
        return true;
      case ExprKind::cast: return expr(e->a);
      case ExprKind::bit_cast:
        return (expr(e->a) && bits(e->a->type) == bits(e->type)) || bad("bit_cast width" + ctx());
      case ExprKind::select:
        return (expr(e->a) && expr(e->b) && expr(e->c) && e->a->type == DType::u1 &&
                e->b->type == e->type && e->c->type == e->type) ||
               bad("select types" + ctx());
    }
    return bad("unknown expression");
  }

  bool var_ok(int32_t v) {
    return (v >= 0 && v < static_cast<int32_t>(k.vars.size())) || bad("variable id");
  }

  bool block(const Block& b, int loops, bool root) {
    for (const Stmt* s : b) {
      if (!stmt(*s, loops, root)) {
        return false;
      }
    }
    return true;
  }

  bool array_ok(int32_t p) {
    return (p >= 0 && p < static_cast<int32_t>(k.params.size()) && k.params[p].is_array()) ||
           bad("a store or atomic on a non-array parameter");
  }

  bool stmt(const Stmt& s, int loops, bool root) {
    std::string at = " (line " + std::to_string(s.line) + ")";
    switch (s.kind) {
      case StmtKind::assign:
        return var_ok(s.var) && expr(s.value) &&
               (s.value->type == k.vars[s.var].type || bad("assignment type mismatch" + at));
      case StmtKind::barrier: return true;
      case StmtKind::warp_op: {
        if (!var_ok(s.var) || !expr(s.value) || !expr(s.index) || s.index->type != DType::i32) {
          return bad("warp op operands" + at);
        }
        DType r = k.vars[s.var].type;
        bool vote = s.warp == WarpOp::ballot || s.warp == WarpOp::all || s.warp == WarpOp::any ||
                    is_block_op(s.warp);
        if (vote) {
          return r == (s.warp == WarpOp::ballot ? DType::u32 : DType::i32) ||
                 bad("warp vote result type" + at);
        }
        int64_t size = byte_size(r);
        return (r == s.value->type && (size == 4 || size == 8)) ||
               bad("a warp shuffle of a type other than 32- or 64-bit" + at);
      }
      case StmtKind::store:
        return array_ok(s.array) && expr(s.index) && expr(s.value) && s.index->type == DType::i64 &&
               (s.value->type == k.params[s.array].dtype || bad("store type mismatch" + at));
      case StmtKind::atomic: {
        if (!expr(s.value)) {
          return false;
        }
        DType t = s.target_var >= 0 ? k.vars[s.target_var].type : k.params[s.array].dtype;
        if (s.target_var < 0 && (!array_ok(s.array) || !expr(s.index))) {
          return false;
        }
        if (s.var >= 0 && k.vars[s.var].type != t) {
          return bad("atomic result type" + at);
        }
        if ((s.op == AtomicOp::cas) != (s.expected != nullptr)) {
          return bad("an atomic cas needs its expected value, other atomics none" + at);
        }
        if (s.expected != nullptr && (!expr(s.expected) || s.expected->type != t)) {
          return bad("atomic cas expected type" + at);
        }
        return s.value->type == t || bad("atomic operand type" + at);
      }
      case StmtKind::if_:
        return expr(s.cond) && (s.cond->type == DType::u1 || bad("if condition must be u1" + at)) &&
               block(s.then_body, loops, false) && block(s.else_body, loops, false);
      case StmtKind::while_: return block(s.body, loops + 1, false);
      case StmtKind::range_for:
        if (s.parallel && !root) {
          return bad("a parallel loop below the kernel root" + at);
        }
        for (size_t d = 0; d < s.nd_vars.size(); ++d) {
          if (!var_ok(s.nd_vars[d]) || k.vars[s.nd_vars[d]].type != DType::i32 ||
              d >= s.nd_begins.size() || d >= s.nd_extents.size() || !expr(s.nd_begins[d]) ||
              !expr(s.nd_extents[d]) || s.nd_begins[d]->type != DType::i32 ||
              s.nd_extents[d]->type != DType::i64) {
            return bad("ndrange dimension " + std::to_string(d) + at);
          }
        }
        return var_ok(s.var) && expr(s.begin) && expr(s.end) &&
               ((s.begin->type == k.vars[s.var].type && s.end->type == k.vars[s.var].type) ||
                bad("loop bound types" + at)) &&
               block(s.body, loops + 1, false);
      case StmtKind::graph_loop:
        if (!root) {
          return bad("a graph loop below the kernel root" + at);
        }
        if (s.array < 0 || s.array >= static_cast<int32_t>(k.params.size()) ||
            k.params[s.array].kind != Param::Kind::ndarray ||
            k.params[s.array].dtype != DType::i32 || k.params[s.array].ndim != 0 ||
            k.params[s.array].slot < 0) {
          return bad("a graph loop's condition must be a passed 0-dim i32 array" + at);
        }
        return !s.body.empty() && block(s.body, loops, true);
      case StmtKind::break_:
      case StmtKind::continue_: return loops > 0 || bad("break/continue outside a loop" + at);
      case StmtKind::ret:
        return expr(s.value) && k.ret && (s.value->type == *k.ret || bad("return type" + at));
      case StmtKind::random: {
        if (!var_ok(s.var)) {
          return false;
        }
        DType t = k.vars[s.var].type;
        return t == DType::f32 || t == DType::f64 || t == DType::i32 || t == DType::i64 ||
               t == DType::u32 || t == DType::u64 || bad("qd.random of an unsupported type" + at);
      }
      case StmtKind::print: {
        size_t conversions = 0;
        for (size_t i = 0; i < s.format.size(); ++i) {
          if (s.format[i] == '%') {
            if (i + 1 < s.format.size() && s.format[i + 1] == '%') {
              ++i;
            } else {
              ++conversions;
            }
          }
        }
        if (conversions != s.args.size()) {
          return bad("print format and arguments disagree" + at);
        }
        for (const Expr* a : s.args) {
          if (!expr(a)) {
            return false;
          }
        }
        return true;
      }
    }
    return bad("unknown statement");
  }
};

}  // namespace

std::string verify(const Kernel& k) {
  Verifier v{k, {}};
  v.block(k.body, 0, true);
  if (v.error.empty() && !k.tasks.empty()) {
    for (const Task& t : k.tasks) {
      if (t.range && (t.loop == nullptr || !t.loop->parallel)) {
        v.bad("a range task without its parallel loop");
      }
    }
  }
  return v.error;
}

}  // namespace qd::ir
