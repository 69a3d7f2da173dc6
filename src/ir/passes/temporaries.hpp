// Values crossing tasks (docs/compiler.md ("The offload split and the temporaries")): every
// kernel-scope variable used by more than one task lives in the launch's temporaries buffer instead
// of a task-local variable.
//
// Offsets must not depend on neighbouring constructs (docs/kernel-keys.md, docs/store.md): a slot
// is chosen by hashing the variable's stable key (its source name, or the text of the statement
// that defines an unnamed one, plus an ordinal among equal keys) into a table of
// max(16, next_pow2(2 * count)) 8-byte slots, probing linearly in key order. Editing one loop
// therefore moves no other task's slots unless the number of crossing values passes a power of
// two.
#pragma once

#include "ir/ir.hpp"

namespace qd::ir::passes {

void assign_temporaries(Kernel& k);

// The variables each task references (by id, sorted), for the codegen and the tests.
std::vector<std::vector<int32_t>> vars_per_task(const Kernel& k);

}  // namespace qd::ir::passes
