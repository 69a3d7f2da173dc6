// The IR verifier: type agreement of every expression, variables and parameters in range,
// loop-only break/continue, parallel loops only at the root. Runs after every pass in debug
// builds and tests (codegen::Options::verify_ir); a failure is a compiler bug.
#pragma once

#include <string>

#include "ir/ir.hpp"

namespace qd::ir {

// Empty when the kernel is well formed; otherwise the first problem found.
std::string verify(const Kernel& k);

}  // namespace qd::ir
