// The in-process Clang front end for one CPU target configuration (a TaskFrontend: the driver's
// invocation built once and deep-copied per TU, against an in-memory file system with only the TU
// and the embedded prelude), cached per configuration. Internal to qd_backend.
#pragma once

#include "backend/backend.hpp"
#include "backend/task_frontend.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace qd::backend {

// Registers the x86 target with LLVM (once per process; thread-safe).
void initialize_llvm_targets();

class CompilerSession {
public:
  // The cached session for `target`, created on first use (thread-safe). A session whose driver
  // step failed still exists: compile() then returns its setup diagnostics.
  static std::shared_ptr<const CompilerSession> for_target(const CpuTarget& target);

  explicit CompilerSession(const CpuTarget& target);
  ~CompilerSession();
  CompilerSession(const CompilerSession&) = delete;
  CompilerSession& operator=(const CompilerSession&) = delete;

  // Front end + IR generation of one TU into `ctx` (unoptimised IR with the optimisation level's
  // attributes; cpu_codegen runs the pipeline). Appends diagnostics of `task` to `diags`; returns
  // null on error. Safe to call concurrently with distinct contexts.
  std::unique_ptr<llvm::Module> compile(std::string_view task, std::string_view source,
                                        llvm::LLVMContext& ctx,
                                        std::vector<Diagnostic>& diags) const;

  const CpuTarget& target() const { return m_target; }
  // The cc1 arguments the driver produced (for docs/backend.md and debugging).
  const std::vector<std::string>& cc1_arguments() const { return m_cc1_args; }

private:
  CpuTarget m_target;
  std::vector<std::string> m_cc1_args;  // before m_frontend, which fills it
  TaskFrontend m_frontend;
};

}  // namespace qd::backend
