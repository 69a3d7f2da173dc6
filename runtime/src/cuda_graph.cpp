#include "cuda_graph.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "cuda_launch.hpp"

namespace qdrt::cuda {

// The device side of a WHILE node: cudaGraphSetConditional, which the driver resolves when it
// loads the module (no device runtime library is linked). One thread each: concurrent calls on
// one handle are undefined. The flag was written by the body's last task, which the condition
// kernel follows in the graph. PTX ISA 8.3 (CUDA 12.3, the first with conditional nodes); ctest
// cuda_graph_ptx assembles it with ptxas.
const char* const k_graph_condition_ptx = R"PTX(
.version 8.3
.target sm_90
.address_size 64

.extern .func cudaGraphSetConditional
(
	.param .b64 cudaGraphSetConditional_param_0,
	.param .b32 cudaGraphSetConditional_param_1
)
;

.visible .entry qdrt_graph_while_next(
	.param .u64 qdrt_graph_while_next_param_0,
	.param .u64 qdrt_graph_while_next_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<4>;

	ld.param.u64 	%rd1, [qdrt_graph_while_next_param_0];
	ld.param.u64 	%rd2, [qdrt_graph_while_next_param_1];
	cvta.to.global.u64 	%rd3, %rd2;
	ld.volatile.global.u32 	%r1, [%rd3];
	setp.ne.s32 	%p1, %r1, 0;
	selp.u32 	%r2, 1, 0, %p1;
	{
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r2;
	call.uni cudaGraphSetConditional, (param0, param1);
	}
	ret;
}

.visible .entry qdrt_graph_while_arm(
	.param .u64 qdrt_graph_while_arm_param_0
)
{
	.reg .b64 	%rd<2>;

	ld.param.u64 	%rd1, [qdrt_graph_while_arm_param_0];
	{
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 	[param1+0], 1;
	call.uni cudaGraphSetConditional, (param0, param1);
	}
	ret;
}
)PTX";

namespace {

constexpr uint32_t k_min_graph_arch = 90;  // as Quadrants: native graph loops on sm_90+
constexpr int k_min_graph_driver = 12030;  // conditional nodes: CUDA 12.3
constexpr unsigned long long k_no_flags = 0;

struct Loop {
  uint32_t first = 0;
  uint32_t last = 0;
  uint32_t condition = 0;
  uint32_t rank = 0;  // position in the last task's loop_ends (innermost 0)
  std::vector<size_t> children;
};

bool graphs_disabled() {
  const char* v = std::getenv("QDRT_CUDA_GRAPHS");
  return v != nullptr && std::strcmp(v, "0") == 0;
}

}  // namespace

Status plan_graph(const std::vector<TaskInfo>& tasks, std::vector<GraphPlanNode>& out) {
  out.clear();
  std::vector<Loop> loops;
  for (size_t j = 0; j < tasks.size(); ++j) {
    for (size_t r = 0; r < tasks[j].loop_ends.size(); ++r) {
      const qdrt_task_loop_end& e = tasks[j].loop_ends[r];
      if (e.first_task > j) {
        return Status::error(QDRT_ERROR_CORRUPT, "a graph loop ending after task " +
                                                     std::to_string(j) + " starts after it");
      }
      loops.push_back(
          {e.first_task, static_cast<uint32_t>(j), e.condition, static_cast<uint32_t>(r), {}});
    }
  }
  // Outer loops before the loops they hold: by first task, then the longer first, then (the same
  // tasks) the outer one, which comes later in loop_ends.
  std::sort(loops.begin(), loops.end(), [](const Loop& a, const Loop& b) {
    if (a.first != b.first) {
      return a.first < b.first;
    }
    if (a.last != b.last) {
      return a.last > b.last;
    }
    return a.rank > b.rank;
  });
  std::vector<size_t> roots;
  std::vector<size_t> open;  // the loops holding the current one, outermost first
  for (size_t k = 0; k < loops.size(); ++k) {
    while (!open.empty() && loops[open.back()].last < loops[k].first) {
      open.pop_back();
    }
    if (!open.empty() && loops[open.back()].last < loops[k].last) {
      return Status::error(QDRT_ERROR_CORRUPT,
                           "graph loops over tasks " + std::to_string(loops[open.back()].first) +
                               "-" + std::to_string(loops[open.back()].last) + " and " +
                               std::to_string(loops[k].first) + "-" +
                               std::to_string(loops[k].last) + " overlap without nesting");
    }
    (open.empty() ? roots : loops[open.back()].children).push_back(k);
    open.push_back(k);
  }
  // The nodes of tasks [begin, end] with the loops `inner` (in order) as loop nodes.
  auto emit = [&](auto& self, uint32_t begin, uint32_t end, const std::vector<size_t>& inner,
                  std::vector<GraphPlanNode>& nodes) -> void {
    uint32_t t = begin;
    for (size_t c : inner) {
      for (; t < loops[c].first; ++t) {
        nodes.push_back({false, t, 0, {}});
      }
      GraphPlanNode loop{true, 0, loops[c].condition, {}};
      self(self, loops[c].first, loops[c].last, loops[c].children, loop.body);
      nodes.push_back(std::move(loop));
      t = loops[c].last + 1;
    }
    for (; t <= end && t < tasks.size(); ++t) {
      nodes.push_back({false, t, 0, {}});
    }
  };
  if (!tasks.empty()) {
    emit(emit, 0, static_cast<uint32_t>(tasks.size() - 1), roots, out);
  }
  return {};
}

struct GraphCache::Conditions {
  Status status;  // the module failed to load: every graph in this context takes the host loop
  CUmodule module = nullptr;
  CUfunction next = nullptr;
  CUfunction arm = nullptr;
};

struct GraphCache::Entry {
  std::mutex mutex;  // held by the launch that uses the entry (cuda_launch.cpp)
  CUcontext cctx = nullptr;
  CUstream stream = nullptr;
  const Conditions* conditions = nullptr;
  std::vector<GraphPlanNode> plan;
  bool failed = false;  // a build failed: the host loop from now on
  CUgraphExec exec = nullptr;
  std::vector<unsigned char> built_with;  // the packed context the graph's nodes hold
  CUdeviceptr buffer = 0;                 // temporaries and result
  uint64_t buffer_bytes = 0;
};

GraphCache::GraphCache() = default;

GraphCache::~GraphCache() {
  const Driver* d = nullptr;
  if (m_entries.empty() || !load_driver(d).ok()) {
    return;
  }
  auto in_context = [&](CUcontext cctx, auto&& f) {
    // The context may be gone (destroyed by the app): then its graphs and memory went with it.
    if (d->cuCtxPushCurrent(cctx) == CUDA_SUCCESS) {
      f();
      CUcontext popped = nullptr;
      d->cuCtxPopCurrent(&popped);
    }
  };
  for (auto& [key, e] : m_entries) {
    in_context(e->cctx, [&] {
      if (e->exec != nullptr) {
        d->cuGraphExecDestroy(e->exec);
      }
      if (e->buffer != 0) {
        d->cuMemFree(e->buffer);
      }
    });
  }
  for (auto& [cctx, c] : m_conditions) {
    if (c->module != nullptr) {
      in_context(cctx, [&] { d->cuModuleUnload(c->module); });
    }
  }
}

Status GraphCache::conditions(const Driver& d, CUcontext cctx, const Conditions*& out) {
  auto& slot = m_conditions[cctx];
  if (!slot) {
    slot = std::make_unique<Conditions>();
    constexpr size_t k_log = 4096;
    std::vector<char> log(k_log, '\0');
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log.data(), reinterpret_cast<void*>(uintptr_t{k_log - 1})};
    CUresult r = d.cuModuleLoadDataEx(&slot->module, k_graph_condition_ptx, 2, opts, vals);
    if (r != CUDA_SUCCESS) {
      slot->module = nullptr;
      slot->status = call_error(d, "the graph condition kernels", "cuModuleLoadDataEx", r);
      if (log[0] != '\0') {
        slot->status.message += ": " + std::string(log.data()).substr(0, 1000);
      }
    } else if ((r = d.cuModuleGetFunction(&slot->next, slot->module, "qdrt_graph_while_next")) !=
                   CUDA_SUCCESS ||
               (r = d.cuModuleGetFunction(&slot->arm, slot->module, "qdrt_graph_while_arm")) !=
                   CUDA_SUCCESS) {
      slot->status = call_error(d, "the graph condition kernels", "cuModuleGetFunction", r);
    }
  }
  out = slot.get();
  return slot->status;
}

std::mutex& GraphCache::mutex_of(Entry& e) { return e.mutex; }

GraphCache::Entry* GraphCache::entry(const Driver& d, const ContextScope& scope, const Kernel& k,
                                     const Instance& inst, CUstream stream) {
  if (graphs_disabled() || scope.device().arch < k_min_graph_arch ||
      d.version < k_min_graph_driver || d.cuGraphCreate == nullptr || d.cuGraphDestroy == nullptr ||
      d.cuGraphAddKernelNode == nullptr || d.cuGraphAddNode == nullptr ||
      d.cuGraphConditionalHandleCreate == nullptr || d.cuGraphInstantiateWithFlags == nullptr ||
      d.cuGraphLaunch == nullptr || d.cuGraphExecDestroy == nullptr) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(m_mutex);
  auto& slot = m_entries[{scope.context(), &inst, stream}];
  if (!slot) {
    slot = std::make_unique<Entry>();
    slot->cctx = scope.context();
    slot->stream = stream;
    const Conditions* c = nullptr;
    Status s = conditions(d, scope.context(), c);
    if (s.ok()) {
      s = plan_graph(inst.tasks, slot->plan);
    }
    if (!s.ok()) {
      log_warning(kernel_what(k, inst) +
                  ": running its graph loops as a host loop (no CUDA graph: " + s.message + ")");
      slot->failed = true;
    }
    slot->conditions = c;
  }
  return slot->failed ? nullptr : slot.get();
}

Status GraphCache::buffer(const Driver& d, Entry& e, uint64_t bytes, const Kernel& k,
                          const Instance& inst, CUdeviceptr& out) {
  if (e.buffer_bytes < bytes) {
    if (e.buffer != 0) {
      // The graph holds the old address in its nodes' contexts; it is rebuilt with the new one.
      d.cuStreamSynchronize(e.stream);
      d.cuMemFree(e.buffer);
      e.buffer = 0;
      e.buffer_bytes = 0;
    }
    if (CUresult r = d.cuMemAlloc(&e.buffer, bytes); r != CUDA_SUCCESS) {
      e.buffer = 0;
      return call_error(d, kernel_what(k, inst), "cuMemAlloc", r);
    }
    e.buffer_bytes = bytes;
  }
  out = e.buffer;
  return {};
}

namespace {

// Builds a plan's nodes into a graph: each node after the one before it.
class Builder {
public:
  Builder(const Driver& d, CUcontext cctx, CUfunction next, CUfunction arm,
          const std::vector<LoadedTask>& tasks, const qdrt_cuda_context& ctx)
      : m_d(d), m_cctx(cctx), m_next(next), m_arm(arm), m_tasks(tasks), m_ctx(ctx) {}

  // The nodes of `nodes` into `graph`; `tail`: the last one added. `nested`: the graph is a
  // loop's body (an inner loop's condition is set to 1 before its node: a handle's default
  // applies at the graph's launch only, and a do-while runs its body once before it tests).
  Status add(CUgraph graph, const std::vector<GraphPlanNode>& nodes, bool nested,
             CUgraphNode& tail) {
    CUgraphNode prev = nullptr;
    for (const GraphPlanNode& n : nodes) {
      CUgraphNode node = nullptr;
      CUresult r = CUDA_SUCCESS;
      if (!n.loop) {
        const LoadedTask& t = m_tasks[n.task];
        void* params[] = {const_cast<qdrt_cuda_context*>(&m_ctx)};
        if ((r = kernel(graph, prev, t.fn, t.grid, t.block, params, node)) != CUDA_SUCCESS) {
          return fail("cuGraphAddKernelNode", r);
        }
        prev = node;
        continue;
      }
      CUgraphConditionalHandle handle = 0;
      if ((r = m_d.cuGraphConditionalHandleCreate(&handle, graph, m_cctx, 1,
                                                  GRAPH_COND_ASSIGN_DEFAULT)) != CUDA_SUCCESS) {
        return fail("cuGraphConditionalHandleCreate", r);
      }
      if (nested) {
        void* params[] = {&handle};
        if ((r = kernel(graph, prev, m_arm, 1, 1, params, node)) != CUDA_SUCCESS) {
          return fail("cuGraphAddKernelNode", r);
        }
        prev = node;
      }
      GraphNodeParams p;
      std::memset(&p, 0, sizeof p);
      p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
      p.conditional.handle = handle;
      p.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
      p.conditional.size = 1;
      p.conditional.ctx = m_cctx;
      if ((r = m_d.cuGraphAddNode(&node, graph, prev != nullptr ? &prev : nullptr,
                                  prev != nullptr ? 1 : 0, &p)) != CUDA_SUCCESS) {
        return fail("cuGraphAddNode", r);
      }
      prev = node;
      CUgraph body = p.conditional.body_out != nullptr ? p.conditional.body_out[0] : nullptr;
      if (body == nullptr) {
        return Status::error(QDRT_ERROR_CUDA, ": cuGraphAddNode gave the WHILE node no body");
      }
      CUgraphNode body_tail = nullptr;
      if (Status s = add(body, n.body, true, body_tail); !s.ok()) {
        return s;
      }
      // The body's last node: the condition from the flag its tasks left.
      void* flag = m_ctx.args[n.condition].data;
      void* params[] = {&handle, &flag};
      CUgraphNode cond = nullptr;
      if ((r = kernel(body, body_tail, m_next, 1, 1, params, cond)) != CUDA_SUCCESS) {
        return fail("cuGraphAddKernelNode", r);
      }
    }
    tail = prev;
    return {};
  }

private:
  CUresult kernel(CUgraph graph, CUgraphNode after, CUfunction fn, unsigned grid, unsigned block,
                  void** params, CUgraphNode& out) {
    KernelNodeParams k;
    std::memset(&k, 0, sizeof k);
    k.func = fn;
    k.grid_x = grid;
    k.grid_y = k.grid_z = 1;
    k.block_x = block;
    k.block_y = k.block_z = 1;
    k.params = params;  // copied into the node
    return m_d.cuGraphAddKernelNode(&out, graph, after != nullptr ? &after : nullptr,
                                    after != nullptr ? 1 : 0, &k);
  }
  // ": <call> failed: <name> (<text>)", appended to what the caller says.
  Status fail(const char* call, CUresult r) { return call_error(m_d, "", call, r); }

  const Driver& m_d;
  CUcontext m_cctx;
  CUfunction m_next;
  CUfunction m_arm;
  const std::vector<LoadedTask>& m_tasks;
  const qdrt_cuda_context& m_ctx;
};

}  // namespace

Status GraphCache::launch(const Driver& d, Entry& e, const std::vector<LoadedTask>& tasks,
                          const qdrt_cuda_context& ctx, size_t ctx_bytes, const Kernel& k,
                          const Instance& inst, bool& ran) {
  ran = false;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&ctx);
  bool same = e.exec != nullptr && e.built_with.size() == ctx_bytes &&
              std::memcmp(e.built_with.data(), bytes, ctx_bytes) == 0;
  if (!same) {
    if (e.exec != nullptr) {
      // Launches on this stream that still use it are ordered before the next one; the driver
      // keeps a launched graph alive until it completes.
      d.cuGraphExecDestroy(e.exec);
      e.exec = nullptr;
    }
    CUgraph graph = nullptr;
    CUresult r = d.cuGraphCreate(&graph, 0);
    Status s = r == CUDA_SUCCESS ? Status{} : call_error(d, "", "cuGraphCreate", r);
    if (s.ok()) {
      Builder b(d, e.cctx, e.conditions->next, e.conditions->arm, tasks, ctx);
      CUgraphNode tail = nullptr;
      s = b.add(graph, e.plan, false, tail);
    }
    if (s.ok()) {
      if (r = d.cuGraphInstantiateWithFlags(&e.exec, graph, k_no_flags); r != CUDA_SUCCESS) {
        e.exec = nullptr;
        s = call_error(d, "", "cuGraphInstantiateWithFlags", r);
      }
    }
    if (graph != nullptr) {
      d.cuGraphDestroy(graph);
    }
    if (!s.ok()) {
      log_warning(kernel_what(k, inst) +
                  ": running its graph loops as a host loop (building the CUDA graph" + s.message +
                  ")");
      e.failed = true;
      return {};
    }
    e.built_with.assign(bytes, bytes + ctx_bytes);
    log_debug("%s: CUDA graph built (%zu top-level nodes)", kernel_what(k, inst).c_str(),
              e.plan.size());
  }
  if (CUresult r = d.cuGraphLaunch(e.exec, e.stream); r != CUDA_SUCCESS) {
    return call_error(d, kernel_what(k, inst), "cuGraphLaunch", r);
  }
  ran = true;
  return {};
}

}  // namespace qdrt::cuda
