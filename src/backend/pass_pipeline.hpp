// The optimisation both targets run after the front end (CPU: cpu_codegen.cpp, CUDA:
// nvptx_codegen.cpp): the new pass manager's default pipeline at clang's -O level, with the
// target machine's cost model, and the matching code generation level. Internal to qd_backend.
#pragma once

#include <llvm/Support/CodeGen.h>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace qd::backend {

// Runs the default pipeline for `opt_level` (0..3; higher is 3) with the pipeline options clang
// sets at that level (unrolling and interleaving from -O1, vectorizers from -O2).
void run_pass_pipeline(llvm::Module& module, llvm::TargetMachine& tm, unsigned opt_level);

// The code generation level clang uses at `opt_level`.
llvm::CodeGenOptLevel codegen_level(unsigned opt_level);

}  // namespace qd::backend
