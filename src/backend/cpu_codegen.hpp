// llvm::Module → optimisation pipeline (new pass manager, O0..O3) → x86-64 ELF object bytes in
// memory, through a TargetMachine configured only from CpuTarget (never from the host CPU), so the
// same module gives the same bytes on every machine. Internal to qd_backend.
#pragma once

#include "backend/backend.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Module;
}

namespace qd::backend {

// Optimises `module` in place and returns its object code, or nullopt with an error appended to
// `diags`. The module's context must have a diagnostic handler (capture_llvm_diagnostics).
std::optional<std::string> emit_cpu_object(llvm::Module& module, const CpuTarget& target,
                                           std::string_view task, std::vector<Diagnostic>& diags);

}  // namespace qd::backend
