// The offload split (docs/compiler.md ("The offload split and the temporaries"), docs/compiler.md):
// every top-level parallel loop becomes a range task, every maximal run of other top-level
// statements one serial task; tasks run in source order. A kernel with no statements gets one empty
// serial task. `whole_reason` non-empty marks the kernel whole-kernel (one unit). A graph loop
// (qd.graph.do_while) at the root splits the same way inside its body, and its last task carries
// the loop's end (Task::loop_ends: repeat from its first task while the condition holds).
#pragma once

#include "ir/ir.hpp"

namespace qd::ir::passes {

void offload(Kernel& k);

}  // namespace qd::ir::passes
