// Where compiler and linker messages go instead of stderr: a clang DiagnosticConsumer and an
// llvm::LLVMContext diagnostic handler that append qd::backend::Diagnostic values to a list.
// Internal to qd_backend (includes clang headers).
#pragma once

#include "backend/backend.hpp"

#include <clang/Basic/Diagnostic.h>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
}

namespace qd::backend {

// Records every clang diagnostic (driver, front end, back end) as a Diagnostic of `task`, with the
// file name relative to the virtual directories (qd_task.cpp, qd_prelude.hpp).
class DiagnosticCapture : public clang::DiagnosticConsumer {
public:
  DiagnosticCapture(std::string task, std::vector<Diagnostic>& out);

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override;

private:
  std::string m_task;
  std::vector<Diagnostic>& m_out;
};

// Installs a handler on `ctx` that records LLVM's own diagnostics (optimizer and code generator
// errors, warnings and remarks are dropped) into `out`. Without a handler LLVM prints the error
// and calls exit(1). `out` must outlive the context's use.
void capture_llvm_diagnostics(llvm::LLVMContext& ctx, std::string task,
                              std::vector<Diagnostic>& out);

// True if `diags` holds an error.
bool has_error(const std::vector<Diagnostic>& diags);

// A Diagnostic with no source position.
Diagnostic make_diagnostic(Diagnostic::Severity severity, std::string task, std::string message);

// "/qd/include/qd_prelude.hpp" → "qd_prelude.hpp", "/qd/qd_task.cpp" → "qd_task.cpp".
std::string display_path(std::string_view path);

}  // namespace qd::backend
