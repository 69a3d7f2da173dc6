// The typed kernel IR: structured, scalar-typed, owned by one Kernel (arenas).
//
// Lowering (src/ir/lower) has already done everything Python does at compile time: constants are
// folded, qd.static branches and loops are resolved, funcs are inlined, vectors and matrices are
// scalarized (one Var per component). What remains is C-like: scalar Vars, expression trees that
// are free of side effects (loads, arithmetic, casts, selects), and statements that do the rest
// (assignments, stores, atomics, control flow). Every expression carries its DType; conversions
// are explicit Cast nodes (the verifier checks that operand types agree).
//
// The offload pass (passes/offload.hpp) splits the kernel's root block into Tasks: each top-level
// parallel RangeFor is one range task, each maximal run of other statements one serial task.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.hpp"

namespace qd::ir {

enum class ExprKind : uint8_t {
  constant,
  var,
  arg,
  shape,
  load,
  unary,
  binary,
  cast,
  bit_cast,
  select,
  thread_idx,  // i32: the thread's index in its block (qd.simt.block.thread_idx(); block tasks)
};

enum class UnOp : uint8_t {
  neg,
  bit_not,
  logical_not,  // x == 0, u1
  abs,
  sqrt,
  rsqrt,
  sin,
  cos,
  tan,
  asin,
  acos,
  atan,
  tanh,
  exp,
  log,
  floor,
  ceil,
  round,  // half away from zero
  popcnt,
  clz,
  isnan,
  isinf,
  ffs,  // 1-based index of the lowest set bit, 0 for 0 (result i32)
};

enum class BinOp : uint8_t {
  add,
  sub,
  mul,
  div,       // floats only
  raw_div,   // C division (integers: truncation)
  floordiv,  // Python //
  mod,       // Python % (sign of the divisor)
  raw_mod,   // C % / fmod
  pow,       // floats: pow()
  ipow,      // integer exponent, repeated squaring (result: base type)
  shl,
  shr,      // arithmetic for signed, logical for unsigned left operands
  bit_shr,  // always logical
  bit_and,
  bit_or,
  bit_xor,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  min,
  max,
  atan2,
};

const char* name_of(UnOp op);
const char* name_of(BinOp op);
bool is_comparison(BinOp op);

struct Expr {
  ExprKind kind = ExprKind::constant;
  DType type = DType::i32;
  int64_t ival = 0;    // constant (integers, u1; unsigned values as their bit pattern)
  double fval = 0.0;   // constant (floats)
  int32_t index = -1;  // var id; arg: parameter index; shape/load: the array parameter
  int32_t axis = 0;    // shape: the axis
  UnOp un = UnOp::neg;
  BinOp bin = BinOp::add;
  const Expr* a = nullptr;  // operand / load: the flat element index (i64) / select: condition
  const Expr* b = nullptr;
  const Expr* c = nullptr;
};

enum class StmtKind : uint8_t {
  assign,     // var = value (decl: first assignment, declares it)
  store,      // array[index] = value
  atomic,     // old = op(target, value): target is array[index] or var `target_var`
  if_,        // if cond: then_body else else_body
  while_,     // while true: body (the condition is an `if not c: break` inside)
  range_for,  // for var in [begin, end): body; parallel at the kernel root
  break_,
  continue_,
  ret,     // the kernel's return value = value
  print,   // print(...): printf-style `format` with the scalar `args` (task_abi.h "Printing")
  random,  // var = qd.random(var's type): the next draw of Quadrants' generator (task_abi.h)
  // do { body } while (array[()] != 0): qd.graph.do_while in a graph kernel, at the kernel root
  // or directly in another one's body; `array` is the condition (a 0-dim i32 ndarray). Offload
  // turns it into the loop ends of the tasks (Task::loop_ends) the runtime repeats.
  graph_loop,
  // qd.simt synchronization (`fence`): a block barrier (block.sync), a warp barrier (warp.sync /
  // subgroup.sync) or a memory fence (block.mem_fence, grid.mem_fence). A range task holding a
  // barrier runs as a block task (docs/compiler.md "Block tasks").
  barrier,
  // var = a warp operation (`warp`) of `value` (scalar, 32- or 64-bit; a predicate for the
  // votes) with `index` (i32: the source lane, offset): the lanes of a warp exchange values
  // (qd.simt.subgroup.shuffle / shuffle_up / shuffle_down / broadcast / ballot, warp votes).
  // A warp barrier too: every live lane of the warp takes part. Block tasks only.
  warp_op,
};

// A range task's threads per block without qd.loop_config(block_dim=...) (the runtime's,
// task_abi.h).
constexpr int32_t k_default_block_dim = 128;

enum class Fence : uint8_t { block_sync, warp_sync, block_fence, grid_fence };
const char* name_of(Fence f);

// shuffle: lane index & 31 (CUDA shfl.sync.idx); up / down: lane -/+ (index & 31), the own value
// where that leaves the warp; ballot: u32, bit l set when lane l's value is non-zero; all / any:
// i32 0 or 1 over the warp's live lanes.
// block_all / block_any / block_count: a block barrier that also reduces every live thread's
// predicate (qd.simt.block.sync_all_nonzero / _any_ / _count_; i32).
enum class WarpOp : uint8_t {
  shuffle = 1,
  shuffle_up,
  shuffle_down,
  ballot,
  all,
  any,
  block_all,
  block_any,
  block_count,
  match_any,  // the lanes whose i32 value is this lane's (CUDA's match.any.sync.b32)
  match_all,  // the live lanes when all of their i32 values are equal, else 0 (match.all)
};
inline bool is_block_op(WarpOp op) {
  return op == WarpOp::block_all || op == WarpOp::block_any || op == WarpOp::block_count;
}
const char* name_of(WarpOp op);

// exchange: old = target; target = value. cas: old = target; if old == expected: target = value.
enum class AtomicOp : uint8_t { add, sub, mul, min, max, bit_and, bit_or, bit_xor, exchange, cas };
const char* name_of(AtomicOp op);

struct Stmt;
using Block = std::vector<Stmt*>;

struct Stmt {
  StmtKind kind = StmtKind::assign;
  int32_t line = 0;
  int32_t col = 0;   // the source column (col_offset) it came from, for diagnostics
  std::string text;  // the Python source line (without comments) it came from, for listings
  bool decl = false;
  int32_t var = -1;         // assign: target; atomic: result var or -1; range_for: loop variable
  int32_t array = -1;       // store / atomic on an array element: the parameter
  int32_t target_var = -1;  // atomic on a variable
  AtomicOp op = AtomicOp::add;
  Fence fence = Fence::block_sync;  // barrier
  WarpOp warp = WarpOp::shuffle;    // warp_op
  const Expr* index = nullptr;      // store / atomic: flat element index (i64)
  const Expr* value = nullptr;
  const Expr* expected = nullptr;  // atomic cas: the value the target must hold
  const Expr* cond = nullptr;
  const Expr* begin = nullptr;  // range_for bounds (i64 for flat loops, else i32)
  const Expr* end = nullptr;
  Block then_body;
  Block else_body;
  Block body;
  bool parallel = false;  // range_for at the kernel root, offloaded as a range task
  int32_t block_dim = 0;  // qd.loop_config(block_dim=N) before the loop; 0: the target's default
  std::string label;      // range_for: "for i in range(n)" as written
  // A flat ndrange loop (qd.ndrange / grouped / struct-for): `var` (i64) runs over [0, product of
  // the extents); dimension d's index variable nd_vars[d] (i32) is nd_begins[d] (i32) plus the
  // flat index's digit d (last dimension fastest). Codegen decomposes (per row on CPU).
  std::vector<int32_t> nd_vars;
  std::vector<const Expr*> nd_begins;
  std::vector<const Expr*> nd_extents;  // i64, each >= 0
  // print: the C printf format (literal text with '%' doubled, one conversion per argument) and
  // the arguments, each a scalar of a printf-promotable type (codegen widens them as C does).
  std::string format;
  std::vector<const Expr*> args;
};

struct Var {
  std::string name;  // source name ("" for compiler temporaries)
  DType type = DType::i32;
};

struct Param {
  // shared: a qd.simt.block.SharedArray, one per thread block, declared in the kernel (not an
  // argument: slot -1); a C-contiguous `field` of field_shape (element_shape for vector dtypes).
  enum class Kind : uint8_t { scalar, ndarray, template_, shared };
  std::string name;
  Kind kind = Kind::scalar;
  DType dtype = DType::i32;
  int32_t ndim = 0;
  std::vector<int32_t> element_shape;  // [n] vector, [n, m] matrix elements
  int32_t slot = -1;                   // index into the launch's args (non-template params)
  std::string text;                    // canonical type text
  // ndarray with a permuted layout (Quadrants' layout=...): the canonical axis held by each
  // physical axis, outermost first. The launch passes the physical buffer; indices and shapes
  // in the kernel are canonical (lowering permutes them). Empty: the identity.
  std::vector<int32_t> layout;
  // A qd.field of a data_oriented object (lower_field.cpp): passed as an ndarray of exactly
  // this shape; its shape is a compile-time value in the kernel, as in Quadrants.
  bool field = false;
  std::vector<int64_t> field_shape;
  // The field's layout in Quadrants' memory: per outer axis, then per element dim, the distance
  // between neighbours in elements of the dtype (a multiple of its size in bytes where recorded;
  // C-contiguous when the record gives none). Indexing uses them as compile-time constants.
  std::vector<int64_t> field_strides;
  bool field_contiguous() const;  // field_strides are the C-contiguous ones
  int32_t element_count() const;
  bool is_array() const { return kind == Kind::ndarray || kind == Kind::shared; }
  int64_t shared_elements() const;  // shared: the element count (field_shape x element_shape)
};

// A graph loop (StmtKind::graph_loop) that ends after a task: while the condition parameter's
// element is non-zero, the launch runs again from task `first_task`.
struct LoopEnd {
  int32_t first_task = 0;
  int32_t condition = -1;  // the parameter
  int32_t line = 0;        // of the `while qd.graph.do_while(...)`
};

struct Task {
  bool range = false;
  const Stmt* loop = nullptr;  // range: the parallel RangeFor
  Block body;                  // serial: the statements
  std::string label;
  int32_t line = 0;
  std::vector<LoopEnd> loop_ends;  // the graph loops that end after this task, innermost first
};

struct Kernel {
  std::string id;    // module:qualname
  std::string path;  // the source file
  std::vector<Param> params;
  std::vector<Var> vars;
  std::optional<DType> ret;
  Block body;

  // Filled by the passes.
  std::vector<Task> tasks;
  std::vector<int32_t> temp_offset;  // per var: byte offset in the temporaries, -1 if none
  uint64_t temps_size = 0;
  std::string whole_reason;  // non-empty: compiled as one unit

  // Construction (the arenas keep addresses stable).
  const Expr* constant_int(DType t, int64_t v);
  const Expr* constant_float(DType t, double v);
  const Expr* var_ref(int32_t var);
  const Expr* arg(int32_t param);
  const Expr* shape(int32_t param, int32_t axis);
  const Expr* load(int32_t param, const Expr* flat_index);
  const Expr* unary(UnOp op, DType t, const Expr* a);
  const Expr* binary(BinOp op, DType t, const Expr* a, const Expr* b);
  const Expr* cast(DType t, const Expr* a);  // no node when the type already matches
  const Expr* bit_cast(DType t, const Expr* a);
  const Expr* select(const Expr* c, const Expr* a, const Expr* b);
  const Expr* thread_idx();
  Stmt* stmt(StmtKind kind, int32_t line);
  int32_t new_var(std::string name, DType t);
  // Reorders `params`: the parameter that was `old` becomes `new_of_old[old]` (a permutation),
  // in every expression and statement that names one.
  void renumber_params(const std::vector<int32_t>& new_of_old);

private:
  std::deque<Expr> m_exprs;
  std::deque<Stmt> m_stmts;
};

// Calls f(stmt) for every statement of a block, nested blocks included (pre-order).
template <class F> void walk_stmts(const Block& block, F&& f) {
  for (const Stmt* s : block) {
    f(*s);
    walk_stmts(s->then_body, f);
    walk_stmts(s->else_body, f);
    walk_stmts(s->body, f);
  }
}

// Calls f(expr) for every expression node under e (pre-order).
template <class F> void walk_expr(const Expr* e, F&& f) {
  if (e == nullptr) {
    return;
  }
  f(*e);
  walk_expr(e->a, f);
  walk_expr(e->b, f);
  walk_expr(e->c, f);
}

// Every expression tree a statement holds directly (not those of nested statements).
template <class F> void for_each_expr(const Stmt& s, F&& f) {
  for (const Expr* e : {s.index, s.value, s.expected, s.cond, s.begin, s.end}) {
    if (e != nullptr) {
      f(e);
    }
  }
  for (const Expr* e : s.nd_begins) {
    f(e);
  }
  for (const Expr* e : s.nd_extents) {
    f(e);
  }
  for (const Expr* e : s.args) {
    f(e);
  }
}

}  // namespace qd::ir
