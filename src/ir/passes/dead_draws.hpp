// Unused qd.random draws (docs/language.md §5 "Random numbers"): Quadrants eliminates a draw whose
// value nothing reads (its RandStmt has no global side effect, so dead-code elimination drops it
// and the generator does not advance). To draw the numbers Quadrants draws, this pass removes the
// draws into variables that no expression of the kernel reads, and the assignments that only
// carried a value to such variables (`unused = qd.random()`), to a fixpoint. A value overwritten
// before it is read is still drawn here (the pass does not follow the flow).
#pragma once

#include "ir/ir.hpp"

namespace qd::ir::passes {

// The number of statements removed.
size_t remove_dead_draws(Kernel& k);

}  // namespace qd::ir::passes
