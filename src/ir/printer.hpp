// A readable, deterministic text form of the kernel IR (--dump-ir, golden fixtures).
#pragma once

#include <string>

#include "ir/ir.hpp"

namespace qd::ir {

std::string print_expr(const Kernel& k, const Expr* e);
// The whole kernel: signature, body; after the offload pass also the tasks and temporaries.
std::string print_kernel(const Kernel& k);

}  // namespace qd::ir
