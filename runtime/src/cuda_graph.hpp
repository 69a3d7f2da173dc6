// A graph kernel's launch as one CUDA graph (docs/runtime.md "Graph kernels on CUDA"): each
// qd.graph.do_while loop a conditional WHILE node whose body ends with a one-thread kernel that
// sets the node's condition from the loop's flag, as Quadrants runs graph kernels on sm_90 and
// newer. The runtime's host loop (cuda_launch.cpp) runs them everywhere else, and wherever a
// graph cannot be built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_driver.hpp"
#include "store.hpp"

namespace qdrt::cuda {

// A task's function in one context and the geometry it is launched with.
struct LoadedTask {
  CUfunction fn = nullptr;
  unsigned grid = 1;
  unsigned block = 1;
};

// The nesting of an entry's tasks and graph loops (launch metadata version 5): a node is a task,
// or a loop over the nodes of its body, repeated while its flag (an argument index) is non-zero.
struct GraphPlanNode {
  bool loop = false;
  uint32_t task = 0;       // !loop: the task's index
  uint32_t condition = 0;  // loop: the flag's argument index
  std::vector<GraphPlanNode> body;
};

// The plan of `tasks` (in order, every task once). An error when the loops do not nest (two
// loops that overlap without one holding the other, a loop whose first task comes after its
// last): the host loop runs any metadata the reader accepted, a graph only a proper nesting.
Status plan_graph(const std::vector<TaskInfo>& tasks, std::vector<GraphPlanNode>& out);

// The graphs of one store: an executable graph per context, instance and stream, built on the
// first launch and again when the packed arguments change; each owns the launch's temporaries
// and result buffer (one stream orders its launches).
class GraphCache {
public:
  GraphCache();
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;
  ~GraphCache();

  struct Entry;
  // The entry of (context, instance, stream), nullptr when this launch takes the host loop:
  // QDRT_CUDA_GRAPHS=0, a device below sm_90, a driver without conditional nodes (before CUDA
  // 12.3), loops that do not nest, or a graph that failed to build here before (warned once).
  Entry* entry(const Driver& d, const ContextScope& scope, const Kernel& k, const Instance& inst,
               CUstream stream);
  // What the launch that uses an entry holds while it fills the buffer and launches the graph.
  static std::mutex& mutex_of(Entry& e);
  // The entry's temporaries and result buffer of `bytes` bytes (allocated once).
  static Status buffer(const Driver& d, Entry& e, uint64_t bytes, const Kernel& k,
                       const Instance& inst, CUdeviceptr& out);
  // Launches the entry's graph on its stream with the packed context (`ctx_bytes` of it used),
  // building it first when there is none yet or the context differs from the one it was built
  // with. `ran` false: the graph could not be built (warned once; the caller runs the host loop
  // and this entry will not try again).
  Status launch(const Driver& d, Entry& e, const std::vector<LoadedTask>& tasks,
                const qdrt_cuda_context& ctx, size_t ctx_bytes, const Kernel& k,
                const Instance& inst, bool& ran);

private:
  struct Conditions;  // the condition kernels' module in one context
  Status conditions(const Driver& d, CUcontext cctx, const Conditions*& out);

  std::mutex m_mutex;
  std::map<std::tuple<CUcontext, const Instance*, CUstream>, std::unique_ptr<Entry>> m_entries;
  std::map<CUcontext, std::unique_ptr<Conditions>> m_conditions;
};

// The condition kernels (PTX, loaded with cuModuleLoadData): qdrt_graph_while_next(handle,
// flag) sets a WHILE node's condition to flag != 0, qdrt_graph_while_arm(handle) to 1.
extern const char* const k_graph_condition_ptx;

}  // namespace qdrt::cuda
