// qd::codegen: one kernel instance -> C++ translation units, one per offload task
// (docs/compiler.md). This is the interface the build layer (src/build) uses; it runs the whole
// compiler front half for one instance: lowering (src/ir/lower), the pass pipeline
// (src/ir/passes, offload split included) and C++ emission. No LLVM here: the backend compiles
// the units.
//
// Determinism and independence (docs/kernel-keys.md, docs/store.md): a unit's text depends only on
// its own construct (its IR, the argument layout of the parameters it uses, the temporaries it
// touches, the codegen config), never on its neighbours. Symbol names are derived from the unit's
// own content, so two equal tasks anywhere produce the same unit, the same task key and the same
// symbol (a module links each distinct unit once).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qdrt/task_abi.h"
#include "sema/analysis.hpp"

namespace qd::codegen {

// One kernel parameter as the store's index records it (store_format.h qdrt_index_argument).
struct ArgumentInfo {
  std::string name;
  uint32_t kind = 0;   // QDRT_ARG_SCALAR / NDARRAY / TEMPLATE / FIELD
  uint32_t dtype = 0;  // QDRT_DTYPE_* (element scalar dtype for arrays; template: NONE)
  uint32_t ndim = 0;   // ndarray dims (0 for scalars)
  std::vector<uint32_t> element_shape;  // vector [n] / matrix [n, m] elements; empty for scalars
  // QDRT_ARG_FIELD: the shape (outer extents, then element dims) and byte strides compiled in.
  std::vector<int64_t> field_shape;
  std::vector<int64_t> field_strides;
};

// One translation unit: the C++ text compiled into one object.
struct Unit {
  std::string source;
};

// One offload task, in launch order.
struct TaskCode {
  std::string symbol;  // the exported task function (task_abi.h); `symbol__extent` for range tasks
  bool range = true;   // QDRT_TASK_RANGE (true) or QDRT_TASK_SERIAL
  size_t unit = 0;     // index into KernelCode::units holding this task's code
  qdrt_task_launch launch{};  // launch metadata (task_abi.h), kernel-wide fields filled
  // The graph loops this task ends (launch metadata version 5), innermost first: written after
  // `launch` in the index's launch metadata.
  std::vector<qdrt_task_loop_end> loop_ends;
  std::string label;  // "for i in range(n)" / "serial (2 statements)" for status, explain
  int32_t line = 0;   // first source line of the construct
};

struct KernelCode {
  bool ok = false;
  std::vector<Unit> units;              // per task (split), or one (whole-kernel)
  std::vector<TaskCode> tasks;          // launch order
  std::vector<ArgumentInfo> arguments;  // parameter order, template parameters included
  std::string whole_reason;             // non-empty: compiled whole-kernel (one unit), why
  std::vector<sema::SemaDiagnostic> diagnostics;  // any error makes ok false
  std::string ir_dump;                            // Options::dump_ir: the IR after each pass
};

struct Options {
  bool dump_ir = false;   // fill KernelCode::ir_dump
  bool verify_ir = true;  // run the IR verifier after every pass
  bool cuda = false;      // CUDA kernels (task_abi.h "CUDA modules"), not CPU entry points
};

// Lowers and generates one instance: `analysis.kernels[kernel].instances[instance]` (the
// instance's values come from analysis.config, as the analysis matched them). Thread-safe:
// several instances may be generated concurrently over one Analysis.
KernelCode generate_kernel(const sema::Analysis& analysis, size_t kernel, size_t instance,
                           const Options& options);

}  // namespace qd::codegen
