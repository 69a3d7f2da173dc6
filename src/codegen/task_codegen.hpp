// One offload task (or a whole kernel) -> one self-contained C++ translation unit.
//
// The unit includes only "qd_prelude.hpp"; its text depends on the task's own IR, the argument
// slots and types of the parameters it uses, the temporaries it touches and nothing else. Each
// Python source line appears as a comment above the code it produced (without its line number,
// so moving a construct does not change its unit). Exported symbols are derived from a hash of
// the unit's own text (`qd_<16 hex>`), so equal units have equal symbols.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace qd::codegen {

struct EmittedTask {
  std::string symbol;  // filled by finish_unit()
  bool range = false;
};

// Which entry points a unit gets (the statements and expressions are the same for both).
enum class Flavor : uint8_t {
  cpu,   // T(ctx, first, last) + T__extent(ctx): the runtime's thread pool splits the range
  cuda,  // T(qdrt_cuda_context) kernels: range tasks evaluate their bounds and grid-stride
};

// Emits the listed tasks of `k` into one unit (one task for the split, all for whole-kernel).
// Returns the unit's text with its final symbol names; `symbols` gets one name per task.
std::string emit_unit(const ir::Kernel& k, const std::vector<size_t>& tasks,
                      std::vector<std::string>& symbols, Flavor flavor = Flavor::cpu);

}  // namespace qd::codegen
