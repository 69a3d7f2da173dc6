// qd.simt: the block-level GPU language (docs/language.md §5 "Blocks and warps"). A parallel
// loop's iterations are GPU threads; with qd.loop_config(block_dim=B) the iterations
// [k*B, (k+1)*B) of the loop are thread block k, in which:
//   qd.simt.block.sync()            a barrier of the block's threads (Fence::block_sync)
//   qd.simt.warp.sync(mask) / qd.simt.subgroup.sync()
//                                   a barrier of the warp's 32 threads (Fence::warp_sync)
//   qd.simt.block.mem_fence(), qd.simt.grid.mem_fence()
//                                   memory fences (Fence::block_fence / grid_fence)
//   qd.simt.block.thread_idx()      the thread's index in its block (i32)
//   qd.simt.block.SharedArray(shape, dtype)
//                                   an array every thread of the block sees (Param::Kind::shared)
// The rest of qd.simt (subgroup shuffles, ballots, tiled reductions, tiles) is QD201.
#include <functional>
#include <limits>

#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

namespace {

constexpr int64_t k_max_shared_bytes = 48 * 1024;  // CUDA's static shared memory per block

}  // namespace

bool Lowerer::in_parallel_loop() const {
  for (const Loop& l : m_loops) {
    if (l.kind == Loop::Kind::parallel) {
      return true;
    }
  }
  return false;
}

std::optional<Val> Lowerer::call_simt(const std::string& path, const ast::Call* c,
                                      std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  auto no_args = [&](const char* what) {
    if (!args.empty() || !c->keywords.empty()) {
      type_error(pos, std::string("qd.simt.") + what + "() takes no arguments");
    }
  };
  auto fence = [&](Fence f) {
    Stmt* st = emit(StmtKind::barrier, pos);
    st->fence = f;
    return Val::of_py(sema::Value::none());
  };
  if (path == "simt.block.sync") {
    no_args("block.sync");
    return fence(Fence::block_sync);
  }
  if (path == "simt.block.mem_fence" || path == "simt.block.mem_sync") {
    no_args("block.mem_fence");
    return fence(Fence::block_fence);
  }
  if (path == "simt.grid.mem_fence" || path == "simt.grid.memfence") {
    no_args("grid.mem_fence");
    return fence(Fence::grid_fence);
  }
  if (path == "simt.subgroup.sync" || path == "simt.subgroup.barrier") {
    no_args("subgroup.sync");
    return fence(Fence::warp_sync);
  }
  if (path == "simt.warp.sync") {
    // __syncwarp(mask): only the whole warp is supported (the emulation and Quadrants' CUDA
    // code agree on it; a partial mask names a subset of lanes the compiler cannot check).
    if (args.size() != 1 || !c->keywords.empty()) {
      type_error(pos, "qd.simt.warp.sync(mask) takes the mask of the lanes to synchronize");
    }
    require_full_mask(args[0], "sync", pos);
    return fence(Fence::warp_sync);
  }
  if (path.starts_with("simt.warp.") && path != "simt.warp.sync") {
    if (std::optional<Val> v = warp_intrinsic(path.substr(10), c, args)) {
      return *v;
    }
  }
  for (auto [name, op] : {std::pair{"all", WarpOp::block_all}, std::pair{"any", WarpOp::block_any},
                          std::pair{"count", WarpOp::block_count}}) {
    if (path == std::string("simt.block.sync_") + name + "_nonzero") {
      // A block barrier that also reduces the threads' predicates (CUDA's bar.red).
      if (args.size() != 1 || !c->keywords.empty()) {
        type_error(pos, "qd." + path + "(predicate) takes one predicate");
      }
      const Expr* p = to_scalar(args[0], pos);
      if (is_float(p->type)) {
        type_error(pos, "qd." + path + "(predicate): the predicate is an integer");
      }
      return Val::of_scalar(warp_op(op, p, zero_i32(), pos));
    }
  }
  if (path == "simt.block.thread_idx") {
    no_args("block.thread_idx");
    return Val::of_scalar(m_kernel->thread_idx());
  }
  if (path.starts_with("simt.subgroup.")) {
    if (std::optional<Val> v = subgroup_op(path.substr(14), c, args)) {
      return *v;
    }
  }
  if (path == "simt.block.SharedArray" || path == "simt.block.shared_array") {
    return shared_array(c, args);
  }
  for (int32_t n : {16, 32}) {
    std::string tile = "simt.Tile" + std::to_string(n) + "x" + std::to_string(n) + ".";
    if (path == tile + "zeros" || path == tile + "eye") {
      return tile_new(n, path.ends_with("eye"), c, args);  // lower_tile.cpp
    }
  }
  if (path == "simt.block.global_thread_idx") {
    fail(pos, "QD201",
         "qd.simt.block.global_thread_idx() is not supported in compiled kernels: its value "
         "depends on the launch grid, which the device chooses (range tasks run grid-stride "
         "loops); use the loop index, or the block's qd.simt.block.thread_idx()");
  }
  if (path.starts_with("simt.block.")) {
    if (std::optional<Val> v = block_collective(path.substr(11), c, args)) {
      return *v;
    }
  }
  return std::nullopt;
}

const Expr* Lowerer::warp_op(WarpOp op, const Expr* value, const Expr* index, const ast::Pos& pos) {
  if (op == WarpOp::shuffle || op == WarpOp::shuffle_up || op == WarpOp::shuffle_down) {
    int64_t size = byte_size(value->type);
    if (size != 4 && size != 8) {
      type_error(pos, std::string("a subgroup shuffle moves 32- and 64-bit values (i32, u32, i64, "
                                  "u64, f32, f64), got ") +
                          name_of(value->type));
    }
  }
  bool vote = op == WarpOp::ballot || op == WarpOp::all || op == WarpOp::any || is_block_op(op);
  DType r = op == WarpOp::ballot ? DType::u32 : vote ? DType::i32 : value->type;
  if (vote) {
    value = m_kernel->cast(DType::i32, m_kernel->binary(BinOp::ne, DType::u1, value,
                                                        m_kernel->cast(value->type, zero_i32())));
  }
  int32_t v = m_kernel->new_var("", r);
  Stmt* st = emit(StmtKind::warp_op, pos);
  st->decl = true;
  st->var = v;
  st->warp = op;
  st->value = value;
  st->index = m_kernel->cast(DType::i32, index);
  return m_kernel->var_ref(v);
}

const Expr* Lowerer::zero_i32() { return m_kernel->constant_int(DType::i32, 0); }

// The lane (qd.simt.subgroup.invocation_id(), i32): CUDA's blocks are one-dimensional here, so
// it is thread_idx & 31, as Quadrants' cuda_lane_id.
const Expr* Lowerer::lane_id() {
  return m_kernel->binary(BinOp::bit_and, DType::i32, m_kernel->thread_idx(),
                          m_kernel->constant_int(DType::i32, 31));
}

// The identity of an exclusive scan's op in v's type, as Quadrants builds it: add v - v, mul
// v - v + 1, and ~(v ^ v), or / xor v ^ v; min the type's largest value (+inf for floats), max
// its smallest (-inf; 0 unsigned).
const Expr* Lowerer::scan_identity(const std::string& op, const Expr* v, const ast::Pos& pos) {
  DType t = v->type;
  if (op == "add" || op == "mul") {
    const Expr* zero = m_kernel->binary(BinOp::sub, t, v, v);
    return op == "add" ? zero
                       : m_kernel->binary(BinOp::add, t, zero,
                                          is_float(t) ? m_kernel->constant_float(t, 1.0)
                                                      : m_kernel->constant_int(t, 1));
  }
  if (is_float(t)) {
    if (op == "min" || op == "max") {
      double inf = std::numeric_limits<double>::infinity();
      return m_kernel->constant_float(t, op == "min" ? inf : -inf);
    }
    type_error(pos, "qd.simt.subgroup.exclusive_" + op + " needs an integer value");
  }
  const Expr* zero = m_kernel->binary(BinOp::bit_xor, t, v, v);
  if (op == "and") {
    return m_kernel->unary(UnOp::bit_not, t, zero);
  }
  if (op == "or" || op == "xor") {
    return zero;
  }
  int bits = static_cast<int>(byte_size(t) * 8);
  bool sign = is_signed(t);
  if (op == "min") {  // the largest value: all ones, or 0111...
    return sign ? m_kernel->constant_int(t, static_cast<int64_t>((~uint64_t{0}) >> (65 - bits)))
                : m_kernel->unary(UnOp::bit_not, t, zero);
  }
  // max: the smallest value: 1000... signed, 0 unsigned.
  return sign ? m_kernel->constant_int(t, static_cast<int64_t>(~uint64_t{0} << (bits - 1))) : zero;
}

// qd.simt.subgroup.*: the data movement and votes are warp operations; the tiled reductions and
// scans are Quadrants' own algorithms (its simt/reductions.py and subgroup.py), unrolled the same
// way, so floats are combined in the same order.
std::optional<Val> Lowerer::subgroup_op(const std::string& name, const ast::Call* c,
                                        std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  auto need = [&](size_t n, const char* usage) {
    if (args.size() != n || !c->keywords.empty()) {
      type_error(pos, std::string("qd.simt.subgroup.") + usage);
    }
  };
  auto scalar = [&](size_t i) {
    return materialize(Val::of_scalar(to_scalar(args[i], pos)), pos).expr;
  };
  auto keep = [&](const Expr* e) { return materialize(Val::of_scalar(e), pos).expr; };
  auto i32c = [&](int64_t v) { return m_kernel->constant_int(DType::i32, v); };
  auto log2_of = [&](size_t i, const char* what) {
    int64_t l = static_int(args[i], pos, what);
    if (l < 0 || l > 5) {
      fail(pos, "QD206",
           std::string("qd.simt.subgroup.") + name +
               ": log2_size must be 0..5 (CUDA's "
               "warps have 32 lanes), got " +
               std::to_string(l));
    }
    return static_cast<int32_t>(l);
  };
  auto binop = [&](const std::string& op, const Expr* a, const Expr* b) -> const Expr* {
    DType t = a->type;
    if (op == "add") {
      return m_kernel->binary(BinOp::add, t, a, b);
    }
    if (op == "mul") {
      return m_kernel->binary(BinOp::mul, t, a, b);
    }
    if (op == "min") {
      return m_kernel->binary(BinOp::min, t, a, b);
    }
    if (op == "max") {
      return m_kernel->binary(BinOp::max, t, a, b);
    }
    if (is_float(t)) {
      type_error(pos, "qd.simt.subgroup." + name + " needs an integer value");
    }
    if (op == "and") {
      return m_kernel->binary(BinOp::bit_and, t, a, b);
    }
    if (op == "or") {
      return m_kernel->binary(BinOp::bit_or, t, a, b);
    }
    return m_kernel->binary(BinOp::bit_xor, t, a, b);
  };
  // A tiled operation's `log2_size` argument (after `values` values), or 5 (the whole warp)
  // for its untiled spelling.
  auto width = [&](size_t values, const char* usage) {
    bool tiled = name.ends_with("_tiled");
    need(values + (tiled ? 1 : 0), (name + usage).c_str());
    return tiled ? log2_of(values, "log2_size") : 5;
  };
  auto xor_lane = [&](int64_t mask) {
    return m_kernel->binary(BinOp::bit_xor, DType::i32, lane_id(), i32c(mask));
  };

  if (name == "invocation_id") {
    need(0, "invocation_id() takes no arguments");
    return Val::of_scalar(lane_id());
  }
  if (name == "group_size") {
    need(0, "group_size() takes no arguments");
    return Val::of_int(32);
  }
  if (name == "log2_group_size") {
    need(0, "log2_group_size() takes no arguments");
    return Val::of_int(5);
  }
  if (name == "elect") {
    need(0, "elect() takes no arguments");
    return Val::of_scalar(
        m_kernel->cast(DType::i32, m_kernel->binary(BinOp::eq, DType::u1, lane_id(), zero_i32())));
  }
  if (name == "broadcast_first") {
    need(1, "broadcast_first(value) takes a value");
    return Val::of_scalar(warp_op(WarpOp::shuffle, scalar(0), zero_i32(), pos));
  }
  if (name == "shuffle" || name == "broadcast" || name == "shuffle_up" || name == "shuffle_down" ||
      name == "shuffle_xor") {
    need(2, (name + "(value, lane) takes a value and a lane").c_str());
    const Expr* v = scalar(0);
    const Expr* a = m_kernel->cast(DType::i32, to_scalar(args[1], pos));
    WarpOp op = name == "shuffle_up"     ? WarpOp::shuffle_up
                : name == "shuffle_down" ? WarpOp::shuffle_down
                                         : WarpOp::shuffle;
    if (name == "shuffle_xor") {
      a = m_kernel->binary(BinOp::bit_xor, DType::i32, lane_id(), a);
    }
    return Val::of_scalar(warp_op(op, v, a, pos));
  }
  if (name == "ballot" || name == "ballot_full_subgroup") {
    need(1, "ballot(predicate) takes a predicate");
    return Val::of_scalar(
        m_kernel->cast(DType::u64, warp_op(WarpOp::ballot, scalar(0), zero_i32(), pos)));
  }
  if (name == "ballot_first_n") {
    need(2, "ballot_first_n(predicate, n) takes a predicate and n");
    int64_t n = static_int(args[1], pos, "ballot_first_n's n");
    const Expr* p = scalar(0);
    if (n != 32) {
      const Expr* in = m_kernel->binary(BinOp::lt, DType::u1, m_kernel->cast(DType::u32, lane_id()),
                                        m_kernel->constant_int(DType::u32, n));
      p = m_kernel->binary(BinOp::mul, DType::i32, m_kernel->cast(DType::i32, p),
                           m_kernel->cast(DType::i32, in));
    }
    return Val::of_scalar(warp_op(WarpOp::ballot, p, zero_i32(), pos));
  }
  for (const char* m : {"lt", "le", "eq", "gt", "ge"}) {
    if (name == std::string("lanemask_") + m) {
      need(1, (name + "(lane) takes a lane").c_str());
      const Expr* l = m_kernel->cast(DType::u32, to_scalar(args[0], pos));
      const Expr* one = m_kernel->constant_int(DType::u32, 1);
      const Expr* at = m_kernel->binary(BinOp::shl, DType::u32, one, l);
      const Expr* below = m_kernel->binary(BinOp::sub, DType::u32, at, one);
      const Expr* le = m_kernel->binary(BinOp::bit_or, DType::u32, at, below);
      std::string k = m;
      const Expr* r = k == "lt"   ? below
                      : k == "le" ? le
                      : k == "eq" ? at
                      : k == "gt" ? m_kernel->unary(UnOp::bit_not, DType::u32, le)
                                  : m_kernel->unary(UnOp::bit_not, DType::u32, below);
      return Val::of_scalar(r);
    }
  }
  // Votes: i32 0/1 over 2**log2_size lanes (the warp's vote instruction for the whole warp, else
  // Quadrants' shuffle_xor butterfly).
  bool all_true = name == "all_true_tiled" || name == "all_true";
  bool all_equal = name == "all_equal_tiled" || name == "all_equal";
  if (all_true || all_equal || name == "any_true_tiled" || name == "any_true") {
    int32_t l2 = width(1, name.ends_with("_tiled") ? "(predicate, log2_size)" : "(predicate)");
    const Expr* p = nullptr;
    if (all_equal) {
      // Quadrants' all_equal_tiled: each lane compares its value with its group's first lane's
      // (a shuffle), then all_true_tiled of that.
      const Expr* v = scalar(0);
      const Expr* base = keep(m_kernel->binary(BinOp::bit_and, DType::i32, lane_id(),
                                               i32c(~((int64_t{1} << l2) - 1) & 31)));
      const Expr* first = warp_op(WarpOp::shuffle, v, base, pos);
      p = keep(m_kernel->cast(DType::i32, m_kernel->binary(BinOp::eq, DType::u1, v, first)));
      all_true = true;
    } else {
      p = keep(m_kernel->cast(
          DType::i32, m_kernel->binary(BinOp::ne, DType::u1, to_scalar(args[0], pos),
                                       m_kernel->cast(to_scalar(args[0], pos)->type, zero_i32()))));
    }
    if (l2 == 5) {
      return Val::of_scalar(warp_op(all_true ? WarpOp::all : WarpOp::any, p, zero_i32(), pos));
    }
    for (int32_t i = 0; i < l2; ++i) {
      const Expr* other = warp_op(WarpOp::shuffle, p, xor_lane(int64_t{1} << i), pos);
      p = keep(m_kernel->binary(all_true ? BinOp::bit_and : BinOp::bit_or, DType::i32, p, other));
    }
    return Val::of_scalar(p);
  }
  // bitonic_sort_kv[_tiled](key, value[, log2_size]): Quadrants' bitonic network (sorting.py),
  // an ascending lexicographic sort of the (key, value) pairs of each group of 2**log2_size
  // lanes: for k in 1..log2, j in k-1..0, each lane compares with lane ^ 2**j and keeps the
  // smaller or larger pair. Returns the tuple (key, value).
  if (name == "bitonic_sort_kv_tiled" || name == "bitonic_sort_kv") {
    bool tiled = name.ends_with("_tiled");
    need(tiled ? 3 : 2,
         tiled ? "bitonic_sort_kv_tiled(key, value, log2_size)" : "bitonic_sort_kv(key, value)");
    int32_t l2 = tiled ? log2_of(2, "log2_size") : 5;
    const Expr* key = scalar(0);
    const Expr* value = scalar(1);
    const Expr* lane = keep(lane_id());
    auto u1 = [&](BinOp op, const Expr* a, const Expr* b) {
      return m_kernel->binary(op, DType::u1, a, b);
    };
    auto yes = m_kernel->constant_int(DType::u1, 1);
    auto no = m_kernel->constant_int(DType::u1, 0);
    int64_t tile_mask = (int64_t{1} << l2) - 1;
    for (int32_t k = 1; k <= l2; ++k) {
      int64_t k_mask = int64_t{1} << k;
      for (int32_t j = k - 1; j >= 0; --j) {
        int64_t j_mask = int64_t{1} << j;
        const Expr* partner = m_kernel->binary(BinOp::bit_xor, DType::i32, lane, i32c(j_mask));
        const Expr* their_key = keep(warp_op(WarpOp::shuffle, key, partner, pos));
        const Expr* their_value = keep(warp_op(WarpOp::shuffle, value, partner, pos));
        const Expr* low =
            u1(BinOp::eq, m_kernel->binary(BinOp::bit_and, DType::i32, lane, i32c(j_mask)),
               zero_i32());
        const Expr* ascending = u1(
            BinOp::eq, m_kernel->binary(BinOp::bit_and, DType::i32, lane, i32c(k_mask & tile_mask)),
            zero_i32());
        const Expr* take_min = u1(BinOp::eq, low, ascending);
        // their < mine: their_key < key, or equal keys and their_value < value.
        const Expr* lt =
            keep(m_kernel->select(u1(BinOp::lt, their_key, key), yes,
                                  m_kernel->select(u1(BinOp::eq, their_key, key),
                                                   u1(BinOp::lt, their_value, value), no)));
        const Expr* differ =
            m_kernel->select(u1(BinOp::ne, their_key, key), yes, u1(BinOp::ne, their_value, value));
        const Expr* swap = keep(m_kernel->select(take_min, lt, m_kernel->select(lt, no, differ)));
        key = keep(m_kernel->select(swap, their_key, key));
        value = keep(m_kernel->select(swap, their_value, value));
      }
    }
    return Val::of_tuple({Val::of_scalar(key), Val::of_scalar(value)});
  }
  // Reductions: reduce_<op>_tiled (shuffle_down tree, offsets halving from 2**(log2_size-1) to 1
  // as Quadrants' reductions.py, valid in each group's first lane), reduce_all_<op>_tiled
  // (shuffle-xor butterfly, masks doubling from 1, every lane); without _tiled: the whole warp.
  for (const char* op : {"add", "min", "max"}) {
    for (bool all : {false, true}) {
      std::string base = std::string(all ? "reduce_all_" : "reduce_") + op;
      if (name != base && name != base + "_tiled") {
        continue;
      }
      int32_t l2 = width(1, name.ends_with("_tiled") ? "(value, log2_size)" : "(value)");
      const Expr* v = scalar(0);
      for (int32_t i = 0; i < l2; ++i) {
        const Expr* other =
            all ? warp_op(WarpOp::shuffle, v, xor_lane(int64_t{1} << i), pos)
                : warp_op(WarpOp::shuffle_down, v, i32c(int64_t{1} << (l2 - 1 - i)), pos);
        v = keep(binop(op, v, other));
      }
      return Val::of_scalar(v);
    }
  }
  // Scans. Inclusive: Hillis-Steele over shuffle_up, value = op(partner, value) in lanes at
  // least `offset` into their group. Exclusive: the input shifted up one lane (each group's first
  // lane takes the op's identity), then the inclusive scan of that, as Quadants'
  // _exclusive_scan_tiled.
  for (const char* op : {"add", "mul", "min", "max", "and", "or", "xor"}) {
    bool exclusive = name.starts_with("exclusive_");
    std::string base = std::string(exclusive ? "exclusive_" : "inclusive_") + op;
    if (name != base && name != base + "_tiled") {
      continue;
    }
    int32_t l2 = width(1, name.ends_with("_tiled") ? "(value, log2_size)" : "(value)");
    const Expr* v = scalar(0);
    const Expr* in_group =
        keep(m_kernel->binary(BinOp::bit_and, DType::i32, lane_id(), i32c((int64_t{1} << l2) - 1)));
    if (exclusive) {
      const Expr* prev = warp_op(WarpOp::shuffle_up, v, i32c(1), pos);
      const Expr* first = m_kernel->binary(BinOp::eq, DType::u1, in_group, zero_i32());
      v = keep(m_kernel->select(first, scan_identity(op, v, pos), prev));
    }
    for (int32_t i = 0; i < l2; ++i) {
      const Expr* partner = warp_op(WarpOp::shuffle_up, v, i32c(int64_t{1} << i), pos);
      const Expr* take = m_kernel->binary(BinOp::ge, DType::u1, in_group, i32c(int64_t{1} << i));
      v = keep(m_kernel->select(take, binop(op, partner, v), v));
    }
    return Val::of_scalar(v);
  }
  // Segmented reductions (log2_size <= 5: the u32 bitmask path of Quadants'
  // _segment_head_distance_tiled), then shuffle_up steps guarded by the distance to the head.
  for (const char* op : {"add", "min", "max"}) {
    if (name != std::string("segmented_reduce_") + op + "_tiled") {
      continue;
    }
    int32_t l2 = width(2, "(value, head_flag, log2_size)");
    const Expr* v = scalar(0);
    const Expr* head = to_scalar(args[1], pos);
    const Expr* mask = warp_op(WarpOp::ballot, head, zero_i32(), pos);  // u32
    auto u32c = [&](uint64_t x) {
      return m_kernel->constant_int(DType::u32, static_cast<int64_t>(x));
    };
    const Expr* lane = keep(lane_id());
    const Expr* group_base =
        m_kernel->binary(BinOp::bit_and, DType::u32, m_kernel->cast(DType::u32, lane),
                         u32c(~((uint64_t{1} << l2) - 1) & 0xffffffffu));
    const Expr* bits = u32c(((uint64_t{1} << (1u << l2)) - 1) & 0xffffffffu);
    const Expr* group_mask = m_kernel->binary(BinOp::shl, DType::u32, bits, group_base);
    const Expr* effective = m_kernel->binary(
        BinOp::bit_or, DType::u32, m_kernel->binary(BinOp::bit_and, DType::u32, mask, group_mask),
        m_kernel->binary(BinOp::shl, DType::u32, u32c(1), group_base));
    const Expr* inclusive = m_kernel->binary(
        BinOp::shr, DType::u32, u32c(0xffffffffu),
        m_kernel->cast(DType::u32, m_kernel->binary(BinOp::sub, DType::i32, i32c(31), lane)));
    const Expr* lower = m_kernel->binary(BinOp::bit_and, DType::u32, effective, inclusive);
    const Expr* seg_head = m_kernel->binary(BinOp::sub, DType::i32, i32c(31),
                                            m_kernel->unary(UnOp::clz, DType::i32, lower));
    const Expr* distance = keep(m_kernel->binary(BinOp::sub, DType::i32, lane, seg_head));
    for (int32_t i = 0; i < l2; ++i) {
      const Expr* partner = warp_op(WarpOp::shuffle_up, v, i32c(int64_t{1} << i), pos);
      const Expr* take = m_kernel->binary(BinOp::ge, DType::u1, distance, i32c(int64_t{1} << i));
      v = keep(m_kernel->select(take, binop(op, v, partner), v));
    }
    return Val::of_scalar(v);
  }
  return std::nullopt;
}

// qd.simt.block.SharedArray(shape, dtype): a new shared array (each evaluation is its own
// array, as each Quadrants call allocates one). The shape is compile-time ints; the dtype a
// scalar type or a vector/matrix type (its elements are the array's trailing dims).
Val Lowerer::shared_array(const ast::Call* c, std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  std::vector<Val> a = args;
  for (const char* kw : {"shape", "dtype"}) {
    if (const ast::Expr* e = keyword(c, kw)) {
      a.push_back(eval(e));
    }
  }
  if (a.size() != 2) {
    type_error(pos, "qd.simt.block.SharedArray(shape, dtype) takes a shape and a dtype");
  }
  if (!in_parallel_loop()) {
    fail(pos, "QD201",
         "qd.simt.block.SharedArray outside a parallel for loop is not supported in compiled "
         "kernels (a shared array belongs to the thread block of the loop that declares it)");
  }
  Param p;
  p.kind = Param::Kind::shared;
  p.field = true;
  p.name = "shared" + std::to_string(m_shared_count++);
  const Val& shape = a[0];
  std::vector<Val> dims = shape.kind == Val::Kind::tuple ? shape.items : std::vector<Val>{shape};
  if (dims.empty()) {
    type_error(pos, "qd.simt.block.SharedArray needs at least one dimension");
  }
  for (const Val& d : dims) {
    int64_t n = static_int(d, pos, "a SharedArray dimension");
    if (n <= 0) {
      fail(pos, "QD206", "a SharedArray dimension must be positive, got " + std::to_string(n));
    }
    p.field_shape.push_back(n);
  }
  const Val& dt = a[1];
  if (dt.kind == Val::Kind::dtype) {
    p.dtype = dt.dtype;
  } else if (dt.kind == Val::Kind::tensor_type && !dt.any_dtype) {
    p.dtype = dt.dtype;
    p.element_shape.push_back(dt.rows);
    if (dt.cols != 0) {
      p.element_shape.push_back(dt.cols);
    }
  } else {
    type_error(pos, "qd.simt.block.SharedArray's dtype must be a scalar, vector or matrix type, "
                    "got " +
                        dt.describe());
  }
  p.ndim = static_cast<int32_t>(p.field_shape.size());
  int64_t bytes = byte_size(p.dtype) * p.element_count();
  for (int64_t d : p.field_shape) {
    bytes =
        d > k_max_shared_bytes || bytes > k_max_shared_bytes ? k_max_shared_bytes + 1 : bytes * d;
  }
  m_shared_bytes += bytes;
  if (bytes > k_max_shared_bytes || m_shared_bytes > k_max_shared_bytes) {
    fail(pos, "QD206",
         "the kernel's shared arrays need more than " + std::to_string(k_max_shared_bytes) +
             " bytes per block (CUDA's static shared memory)");
  }
  std::string shape_text;
  for (size_t k = 0; k < p.field_shape.size(); ++k) {
    shape_text += (k > 0 ? ", " : "") + std::to_string(p.field_shape[k]);
  }
  p.text = "SharedArray((" + shape_text + (p.field_shape.size() == 1 ? ",)" : ")") + ", " +
           name_of(p.dtype) + ")";
  // Shared arrays come after every argument (finish_params orders by `order`).
  int32_t id = add_param(std::move(p), {std::numeric_limits<int32_t>::max(), m_shared_count});
  Val v;
  v.kind = Val::Kind::array;
  v.param = id;
  return v;
}

// qd.simt.block's reductions and scans (Quadrants' simt/block.py): each warp reduces or scans
// its lanes (shuffle_down offsets 16 .. 1; Hillis-Steele over shuffle_up), one lane per warp
// stages the warp's aggregate in a shared array of its own, a block barrier, then thread 0
// (reduce) or every thread (scans) folds the warps' aggregates in warp order. `op` is add, min,
// max or a @qd.func of two values; the same operations in the same order as Quadrants.
std::optional<Val> Lowerer::block_collective(const std::string& name, const ast::Call* c,
                                             std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  std::string kind;  // reduce, reduce_all, inclusive, exclusive
  std::string op;    // add, min, max; empty: the `op` argument
  if (name == "reduce" || name == "reduce_all") {
    kind = name;
  } else if (name == "inclusive_scan" || name == "exclusive_scan") {
    kind = name.substr(0, 9);
  } else {
    for (const char* k : {"reduce_all_", "reduce_", "inclusive_", "exclusive_"}) {
      for (const char* o : {"add", "min", "max"}) {
        if (name == std::string(k) + o) {
          kind = std::string(k).substr(0, std::string(k).size() - 1);
          op = o;
        }
      }
      if (!kind.empty()) {
        break;
      }
    }
  }
  if (kind.empty()) {
    return std::nullopt;
  }
  // (value, block_dim[, op][, identity], dtype), positionally or by name.
  std::vector<std::string> names = {"value", "block_dim"};
  if (op.empty()) {
    names.push_back("op");
    if (kind == "exclusive") {
      names.push_back("identity");
    }
  }
  names.push_back("dtype");
  std::vector<Val> a = args;
  for (size_t k = a.size(); k < names.size(); ++k) {
    if (const ast::Expr* e = keyword(c, names[k].c_str())) {
      a.push_back(eval(e));
    }
  }
  std::string usage = "qd.simt.block." + name + "(";
  for (size_t k = 0; k < names.size(); ++k) {
    usage += (k > 0 ? ", " : "") + names[k];
  }
  usage += ")";
  if (a.size() != names.size() || c->keywords.size + args.size() != names.size()) {
    type_error(pos, usage + " takes " + std::to_string(names.size()) + " arguments");
  }
  const Expr* value = materialize(Val::of_scalar(to_scalar(a[0], pos)), pos).expr;
  int64_t block_dim = static_int(a[1], pos, "block_dim");
  if (block_dim < 32 || block_dim % 32 != 0) {
    fail(pos, "QD206",
         "qd.simt.block." + name +
             ": block_dim must be a positive multiple of the subgroup size "
             "(32), got " +
             std::to_string(block_dim));
  }
  // The block it reduces is the enclosing parallel loop's (CUDA would read past it silently).
  for (const Loop& l : m_loops) {
    if (l.kind != Loop::Kind::parallel) {
      continue;
    }
    int64_t threads = l.block_dim == 0 ? k_default_block_dim : l.block_dim;
    if (threads != block_dim) {
      fail(pos, "QD206",
           "qd.simt.block." + name + ": block_dim is " + std::to_string(block_dim) +
               " but the loop's blocks have " + std::to_string(threads) + " threads" +
               (l.block_dim == 0 ? " (no qd.loop_config(block_dim=...): 128)" : ""));
    }
  }
  const Val& dtype = a.back();
  if (dtype.kind != Val::Kind::dtype) {
    type_error(pos, usage + ": dtype must be a scalar type, got " + dtype.describe());
  }
  Val fn;
  if (op.empty()) {
    fn = a[2];
    if (fn.kind != Val::Kind::func || fn.obj != nullptr) {
      type_error(pos, usage + ": op must be a @qd.func taking two values, got " + fn.describe());
    }
  }
  auto keep = [&](const Expr* e) { return materialize(Val::of_scalar(e), pos).expr; };
  auto i32c = [&](int64_t v) { return m_kernel->constant_int(DType::i32, v); };
  DType t = value->type;
  // op(x, y), in the value's type.
  auto apply = [&](const Expr* x, const Expr* y) -> const Expr* {
    if (op == "add") {
      return keep(m_kernel->binary(BinOp::add, t, x, y));
    }
    if (op == "min" || op == "max") {
      return keep(m_kernel->binary(op == "min" ? BinOp::min : BinOp::max, t, x, y));
    }
    ast::Call call = *c;
    call.args = {};
    call.keywords = {};
    std::vector<Val> fa = {Val::of_scalar(x), Val::of_scalar(y)};
    std::vector<BindingRef> refs;
    Val r = call_func(fn.def, &call, fa, refs);
    return keep(to_typed(r, t, pos));
  };
  auto shared = [&](int64_t n) {
    ast::Call call = *c;
    call.args = {};
    call.keywords = {};
    std::vector<Val> sa = {Val::of_tuple({Val::of_int(n)}), dtype};
    return shared_array(&call, sa).param;
  };
  auto element = [&](int32_t arr, const Expr* index) {
    return array_lvalue(arr, array_index(arr, {Val::of_scalar(index)}, pos), true, pos);
  };
  auto load = [&](int32_t arr, const Expr* index) {
    return keep(to_typed(read(element(arr, index)), t, pos));
  };
  int64_t warps = block_dim / 32;
  const Expr* lane_in_warp = keep(lane_id());
  const Expr* warp = nullptr;
  if (warps > 1) {
    warp = keep(m_kernel->binary(BinOp::shr, DType::i32, m_kernel->thread_idx(), i32c(5)));
  }

  if (kind == "reduce" || kind == "reduce_all") {
    const Expr* agg = value;
    for (int32_t i = 0; i < 5; ++i) {
      agg = apply(agg, warp_op(WarpOp::shuffle_down, agg, i32c(int64_t{1} << (4 - i)), pos));
    }
    const Expr* result = agg;
    if (warps > 1) {
      int32_t staged = shared(warps);
      emit_if(
          m_kernel->binary(BinOp::eq, DType::u1, lane_in_warp, zero_i32()),
          [&] { write(element(staged, warp), Val::of_scalar(agg), pos); }, pos);
      fence_block(pos);
      int32_t r = new_local(agg, pos);
      emit_if(
          m_kernel->binary(BinOp::eq, DType::u1, m_kernel->thread_idx(), zero_i32()),
          [&] {
            set_var(r, load(staged, zero_i32()), pos);
            for (int64_t w = 1; w < warps; ++w) {
              set_var(r, apply(m_kernel->var_ref(r), load(staged, i32c(w))), pos);
            }
          },
          pos);
      result = keep(m_kernel->var_ref(r));
    }
    if (kind == "reduce_all") {
      int32_t bcast = shared(1);
      emit_if(
          m_kernel->binary(BinOp::eq, DType::u1, m_kernel->thread_idx(), zero_i32()),
          [&] { write(element(bcast, zero_i32()), Val::of_scalar(result), pos); }, pos);
      fence_block(pos);
      result = load(bcast, zero_i32());
    }
    return Val::of_scalar(result);
  }

  // Scans.
  const Expr* identity = nullptr;
  const Expr* scan = value;
  if (kind == "exclusive") {
    identity = op.empty() ? keep(to_typed(a[3], t, pos)) : keep(scan_identity(op, value, pos));
    const Expr* prev = warp_op(WarpOp::shuffle_up, value, i32c(1), pos);
    scan = keep(m_kernel->select(m_kernel->binary(BinOp::eq, DType::u1, lane_in_warp, zero_i32()),
                                 identity, prev));
  }
  for (int32_t i = 0; i < 5; ++i) {
    const Expr* partner = warp_op(WarpOp::shuffle_up, scan, i32c(int64_t{1} << i), pos);
    const Expr* take = m_kernel->binary(BinOp::ge, DType::u1, lane_in_warp, i32c(int64_t{1} << i));
    scan = keep(m_kernel->select(take, apply(partner, scan), scan));
  }
  if (warps == 1) {
    return Val::of_scalar(scan);
  }
  int32_t staged = shared(warps);
  emit_if(
      m_kernel->binary(BinOp::eq, DType::u1, lane_in_warp, i32c(31)),
      [&] {
        write(element(staged, warp),
              Val::of_scalar(kind == "exclusive" ? apply(scan, value) : scan), pos);
      },
      pos);
  ;
  fence_block(pos);
  const Expr* aggregate = load(staged, zero_i32());
  const Expr* prefix = kind == "exclusive" ? identity : aggregate;
  for (int64_t w = 1; w < warps; ++w) {
    prefix = keep(
        m_kernel->select(m_kernel->binary(BinOp::eq, DType::u1, warp, i32c(w)), aggregate, prefix));
    aggregate = apply(aggregate, load(staged, i32c(w)));
  }
  scan = keep(m_kernel->select(m_kernel->binary(BinOp::ne, DType::u1, warp, zero_i32()),
                               apply(prefix, scan), scan));
  return Val::of_scalar(scan);
}

void Lowerer::fence_block(const ast::Pos& pos) {
  Stmt* st = emit(StmtKind::barrier, pos);
  st->fence = Fence::block_sync;
}

// A warp intrinsic's mask must name the whole warp: the compiler cannot check a subset of lanes
// (the emulation and Quadrants' CUDA code agree only there).
void Lowerer::require_full_mask(const Val& mask, const std::string& what, const ast::Pos& pos) {
  const Expr* m = mask.is_runtime() ? mask.expr : nullptr;
  bool full = false;
  if (mask.is_py_number() && mask.py.kind == sema::Value::Kind::integer) {
    full = (static_cast<uint64_t>(mask.py.iv) & 0xffffffffu) == 0xffffffffu;
  } else if (m != nullptr && m->kind == ExprKind::constant && !is_float(m->type)) {
    full = (static_cast<uint64_t>(m->ival) & 0xffffffffu) == 0xffffffffu;
  } else if (m != nullptr && m->kind == ExprKind::cast && m->a->kind == ExprKind::constant &&
             !is_float(m->a->type)) {
    full = (static_cast<uint64_t>(m->a->ival) & 0xffffffffu) == 0xffffffffu;
  }
  if (!full) {
    fail(pos, "QD201",
         "qd.simt.warp." + what +
             "(mask, ...) with a mask other than the whole warp (the "
             "constant 0xFFFFFFFF, written in the call) is not supported in compiled kernels");
  }
}

// qd.simt.warp's CUDA intrinsics (Quadrants' simt/warp.py) over the whole warp: votes, ballot,
// the typed shuffles (shfl.sync's clamps: idx and down 31, up 0), match_any / match_all,
// active_mask.
std::optional<Val> Lowerer::warp_intrinsic(const std::string& name, const ast::Call* c,
                                           std::vector<Val>& args) {
  const ast::Pos& pos = c->pos;
  auto need = [&](size_t n, const char* usage) {
    if (args.size() != n || !c->keywords.empty()) {
      type_error(pos, std::string("qd.simt.warp.") + name + usage);
    }
  };
  auto keep = [&](const Expr* e) { return materialize(Val::of_scalar(e), pos).expr; };
  if (name == "all_nonzero" || name == "any_nonzero" || name == "unique") {
    need(2, "(mask, predicate) takes a mask and a predicate");
    require_full_mask(args[0], name, pos);
    const Expr* p = to_scalar(args[1], pos);
    if (name == "unique") {
      // vote.uni: every live lane's predicate the same (all, or none).
      const Expr* all = keep(warp_op(WarpOp::all, p, zero_i32(), pos));
      const Expr* any = keep(warp_op(WarpOp::any, p, zero_i32(), pos));
      return Val::of_scalar(
          m_kernel->binary(BinOp::bit_or, DType::i32, all,
                           m_kernel->binary(BinOp::bit_xor, DType::i32, any,
                                            m_kernel->constant_int(DType::i32, 1))));
    }
    return Val::of_scalar(
        warp_op(name == "all_nonzero" ? WarpOp::all : WarpOp::any, p, zero_i32(), pos));
  }
  if (name == "match_any" || name == "match_all") {
    // match.any.sync / match.all.sync.b32 (sm_70+, as Quadrants requires) on the value as i32:
    // the lanes holding this lane's value; the live lanes when every one holds the same, else 0.
    need(2, "(mask, value) takes a mask and a value");
    require_full_mask(args[0], name, pos);
    const Expr* v = keep(to_typed(args[1], DType::i32, pos));
    return Val::of_scalar(
        warp_op(name == "match_any" ? WarpOp::match_any : WarpOp::match_all, v, zero_i32(), pos));
  }
  if (name == "ballot") {
    need(1, "(predicate) takes a predicate");
    return Val::of_scalar(m_kernel->cast(
        DType::i32, warp_op(WarpOp::ballot, to_scalar(args[0], pos), zero_i32(), pos)));
  }
  if (name == "active_mask") {
    need(0, "() takes no arguments");
    return Val::of_scalar(
        m_kernel->cast(DType::i32, warp_op(WarpOp::ballot, m_kernel->constant_int(DType::i32, 1),
                                           zero_i32(), pos)));
  }
  for (const char* t : {"i32", "f32"}) {
    for (auto [stem, op] :
         {std::pair{"shfl_sync_", WarpOp::shuffle}, std::pair{"shfl_up_", WarpOp::shuffle_up},
          std::pair{"shfl_down_", WarpOp::shuffle_down}, std::pair{"shfl_xor_", WarpOp::shuffle}}) {
      if (name != std::string(stem) + t || (std::string(stem) == "shfl_xor_" && t[0] == 'f')) {
        continue;
      }
      need(3, "(mask, value, offset) takes a mask, a value and a lane or offset");
      require_full_mask(args[0], name, pos);
      DType dt = t[0] == 'i' ? DType::i32 : DType::f32;
      const Expr* v = keep(to_typed(args[1], dt, pos));
      const Expr* k = m_kernel->cast(DType::i32, to_scalar(args[2], pos));
      if (std::string(stem) == "shfl_xor_") {
        k = m_kernel->binary(BinOp::bit_xor, DType::i32, lane_id(), k);
      }
      return Val::of_scalar(warp_op(op, v, k, pos));
    }
  }
  return std::nullopt;
}

}  // namespace qd::ir::lower
