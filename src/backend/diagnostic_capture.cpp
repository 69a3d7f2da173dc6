#include "backend/diagnostic_capture.hpp"

#include "backend/prelude_files.hpp"

#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/raw_ostream.h>
#include <memory>
#include <utility>

namespace qd::backend {

namespace {

Diagnostic::Severity severity_of(clang::DiagnosticsEngine::Level level) {
  switch (level) {
    case clang::DiagnosticsEngine::Ignored:
    case clang::DiagnosticsEngine::Note:
    case clang::DiagnosticsEngine::Remark: return Diagnostic::Severity::note;
    case clang::DiagnosticsEngine::Warning: return Diagnostic::Severity::warning;
    case clang::DiagnosticsEngine::Error:
    case clang::DiagnosticsEngine::Fatal: return Diagnostic::Severity::error;
  }
  return Diagnostic::Severity::error;
}

class LlvmDiagnosticHandler : public llvm::DiagnosticHandler {
public:
  LlvmDiagnosticHandler(std::string task, std::vector<Diagnostic>& out)
      : m_task(std::move(task)), m_out(out) {}

  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    Diagnostic::Severity severity;
    switch (info.getSeverity()) {
      case llvm::DS_Error: severity = Diagnostic::Severity::error; break;
      case llvm::DS_Warning: severity = Diagnostic::Severity::warning; break;
      case llvm::DS_Remark:
      case llvm::DS_Note: return true;  // optimisation remarks: not for users of generated code
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    os.flush();
    m_out.push_back(make_diagnostic(severity, m_task, std::move(text)));
    return true;  // handled: LLVM must neither print nor exit
  }

private:
  std::string m_task;
  std::vector<Diagnostic>& m_out;
};

}  // namespace

DiagnosticCapture::DiagnosticCapture(std::string task, std::vector<Diagnostic>& out)
    : m_task(std::move(task)), m_out(out) {}

void DiagnosticCapture::HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                                         const clang::Diagnostic& info) {
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);  // keeps the error/warning counts
  Diagnostic d;
  d.severity = severity_of(level);
  d.task = m_task;
  llvm::SmallString<128> text;
  info.FormatDiagnostic(text);
  d.message = std::string(text.str());
  if (info.getLocation().isValid() && info.hasSourceManager()) {
    clang::PresumedLoc loc = info.getSourceManager().getPresumedLoc(info.getLocation());
    if (loc.isValid()) {
      d.file = display_path(loc.getFilename());
      d.line = loc.getLine();
      d.column = loc.getColumn();
    }
  }
  m_out.push_back(std::move(d));
}

void capture_llvm_diagnostics(llvm::LLVMContext& ctx, std::string task,
                              std::vector<Diagnostic>& out) {
  ctx.setDiagnosticHandler(std::make_unique<LlvmDiagnosticHandler>(std::move(task), out));
}

bool has_error(const std::vector<Diagnostic>& diags) {
  for (const Diagnostic& d : diags) {
    if (d.severity == Diagnostic::Severity::error) {
      return true;
    }
  }
  return false;
}

Diagnostic make_diagnostic(Diagnostic::Severity severity, std::string task, std::string message) {
  Diagnostic d;
  d.severity = severity;
  d.task = std::move(task);
  d.message = std::move(message);
  return d;
}

std::string display_path(std::string_view path) {
  std::string include_prefix = std::string(k_prelude_dir) + "/";
  if (path.starts_with(include_prefix)) {
    return std::string(path.substr(include_prefix.size()));
  }
  if (path == k_task_path) {
    return "qd_task.cpp";
  }
  return std::string(path);
}

}  // namespace qd::backend
