// The in-process Clang front end both targets share (CPU: compiler_session.cpp, CUDA:
// nvptx_codegen.cpp): the driver's cc1 invocation built once per target configuration
// and deep-copied for every TU, each TU compiled against an
// in-memory file system that holds only the TU and the embedded prelude (no system header, no
// file at all is reachable). Internal to qd_backend.
#pragma once

#include "backend/backend.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace clang {
class CompilerInvocation;
}
namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace qd::backend {

class TaskFrontend {
public:
  struct Options {
    // Why the target cannot be served, when the caller's own check says so: no driver step,
    // compile() reports it.
    std::string invalid_target;
    // driver_arguments(target, k_prelude_dir) of the target; "-c <task>" is appended.
    std::vector<std::string> driver_args;
    // What the setup error says when the driver returns no invocation without a diagnostic.
    std::string rejected = "the compiler driver rejected the target configuration";
    // Keep only the driver's errors (its warnings are expected for some targets).
    bool errors_only = false;
    // Target-specific edits of the invocation, after the settings every TU shares.
    std::function<void(clang::CompilerInvocation&)> adjust;
    // Where to put the cc1 arguments the driver produced (optional).
    std::vector<std::string>* cc1_args = nullptr;
  };

  explicit TaskFrontend(Options options);
  ~TaskFrontend();
  TaskFrontend(const TaskFrontend&) = delete;
  TaskFrontend& operator=(const TaskFrontend&) = delete;

  // Front end + IR generation of one TU into `ctx` (unoptimised IR carrying the optimisation
  // level's attributes; the caller runs the pipeline). Appends the diagnostics of `task` to
  // `diags` (the setup's, if the driver step failed); returns null on error. Safe to call
  // concurrently with distinct contexts.
  std::unique_ptr<llvm::Module> compile(std::string_view task, std::string_view source,
                                        llvm::LLVMContext& ctx,
                                        std::vector<Diagnostic>& diags) const;

private:
  std::shared_ptr<clang::CompilerInvocation> m_base;  // null if the driver step failed
  std::vector<Diagnostic> m_setup;
};

}  // namespace qd::backend
