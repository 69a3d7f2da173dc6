#include "backend/task_frontend.hpp"

#include "backend/diagnostic_capture.hpp"
#include "backend/prelude_files.hpp"

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace qd::backend {

namespace {

// An in-memory file system with the embedded prelude under k_prelude_dir, and `source` (if any)
// at k_task_path. Nothing else exists in it.
llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> make_task_fs(std::string_view source) {
  auto fs = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  fs->setCurrentWorkingDirectory("/qd");
  for (const EmbeddedFile& file : embedded_prelude_files()) {
    std::string path = std::string(k_prelude_dir) + "/" + std::string(file.name);
    // The embedded bytes are NUL-terminated in memory, so no copy is needed.
    fs->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer(file.bytes, path, true));
  }
  fs->addFile(k_task_path, 0, llvm::MemoryBuffer::getMemBufferCopy(source, k_task_path));
  return fs;
}

}  // namespace

TaskFrontend::TaskFrontend(Options options) {
  if (!options.invalid_target.empty()) {
    m_setup.push_back(make_diagnostic(Diagnostic::Severity::error, "", options.invalid_target));
    return;
  }
  std::vector<std::string> args = std::move(options.driver_args);
  args.push_back("-c");
  args.push_back(std::string(k_task_path));
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& arg : args) {
    argv.push_back(arg.c_str());
  }

  // Driver messages (unknown flag, bad -march) are captured like any other diagnostic.
  DiagnosticCapture capture("", m_setup);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diags =
      clang::CompilerInstance::createDiagnostics(new clang::DiagnosticOptions(), &capture,
                                                 /*ShouldOwnClient=*/false);
  clang::CreateInvocationOptions opts;
  opts.Diags = diags;
  opts.VFS = make_task_fs("");  // the driver checks that the input exists
  opts.RecoverOnError = false;
  opts.CC1Args = options.cc1_args;
  std::unique_ptr<clang::CompilerInvocation> inv = clang::createInvocation(argv, opts);
  if (options.errors_only) {
    std::erase_if(m_setup,
                  [](const Diagnostic& d) { return d.severity != Diagnostic::Severity::error; });
  }
  if (inv == nullptr || has_error(m_setup)) {
    if (!has_error(m_setup)) {
      m_setup.push_back(make_diagnostic(Diagnostic::Severity::error, "", options.rejected));
    }
    return;
  }
  // Settings every TU shares:
  inv->getFrontendOpts().DisableFree = false;      // the driver sets it: 0.73 MB leaked per TU
  inv->getCodeGenOpts().DisableFree = false;       // ... and here: a buried TargetMachine per TU
  inv->getCodeGenOpts().DisableLLVMPasses = true;  // the caller runs the pass pipeline
  inv->getDiagnosticOpts().ShowCarets = false;     // else "N errors generated." on stderr
  inv->getPreprocessorOpts().SourceDateEpoch = 0;  // __DATE__/__TIME__ are fixed, not now
  if (options.adjust) {
    options.adjust(*inv);
  }
  m_base = std::shared_ptr<clang::CompilerInvocation>(std::move(inv));
}

TaskFrontend::~TaskFrontend() = default;

std::unique_ptr<llvm::Module> TaskFrontend::compile(std::string_view task, std::string_view source,
                                                    llvm::LLVMContext& ctx,
                                                    std::vector<Diagnostic>& diags) const {
  if (m_base == nullptr) {
    for (Diagnostic d : m_setup) {
      d.task = std::string(task);
      diags.push_back(std::move(d));
    }
    return nullptr;
  }
  auto inv = std::make_shared<clang::CompilerInvocation>(*m_base);  // deep copy

  DiagnosticCapture capture(std::string(task), diags);
  clang::CompilerInstance ci;
  ci.setInvocation(std::move(inv));
  ci.createDiagnostics(&capture, /*ShouldOwnClient=*/false);
  ci.createFileManager(make_task_fs(source));

  clang::EmitLLVMOnlyAction action(&ctx);
  bool ok = ci.ExecuteAction(action);
  std::unique_ptr<llvm::Module> module = action.takeModule();
  if (!ok || module == nullptr || capture.getNumErrors() != 0) {
    if (!has_error(diags)) {
      diags.push_back(
          make_diagnostic(Diagnostic::Severity::error, std::string(task),
                          "the compiler front end failed without a diagnostic (internal error)"));
    }
    return nullptr;
  }
  return module;
}

}  // namespace qd::backend
