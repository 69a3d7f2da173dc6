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
    const Expr* m = args[0].is_runtime() ? args[0].expr : nullptr;
    bool full = false;
    if (args[0].is_py_number() && args[0].py.kind == sema::Value::Kind::integer) {
      full = (static_cast<uint64_t>(args[0].py.iv) & 0xffffffffu) == 0xffffffffu;
    } else if (m != nullptr && m->kind == ExprKind::constant && !is_float(m->type)) {
      full = (static_cast<uint64_t>(m->ival) & 0xffffffffu) == 0xffffffffu;
    }
    if (!full) {
      fail(pos, "QD201",
           "qd.simt.warp.sync(mask) with a mask other than the whole warp (0xFFFFFFFF) is not "
           "supported in compiled kernels");
    }
    return fence(Fence::warp_sync);
  }
  if (path == "simt.block.thread_idx") {
    no_args("block.thread_idx");
    return Val::of_scalar(m_kernel->thread_idx());
  }
  if (path == "simt.subgroup.invocation_id") {
    // The lane: CUDA's blocks are one-dimensional here, so it is thread_idx % 32 (u32, as
    // Quadrants types subgroupInvocationId).
    no_args("subgroup.invocation_id");
    const Expr* lane = m_kernel->binary(BinOp::bit_and, DType::i32, m_kernel->thread_idx(),
                                        m_kernel->constant_int(DType::i32, 31));
    return Val::of_scalar(m_kernel->cast(DType::u32, lane));
  }
  if (path == "simt.block.SharedArray" || path == "simt.block.shared_array") {
    return shared_array(c, args);
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

}  // namespace qd::ir::lower
