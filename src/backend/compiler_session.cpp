#include "backend/compiler_session.hpp"

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
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <map>
#include <mutex>
#include <tuple>

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
void LLVMInitializeX86AsmParser();
}

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

using SessionKey = std::tuple<std::string, std::string, unsigned>;

}  // namespace

void initialize_llvm_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
  });
}

std::shared_ptr<const CompilerSession> CompilerSession::for_target(const CpuTarget& target) {
  static std::mutex mutex;
  static std::map<SessionKey, std::shared_ptr<const CompilerSession>> sessions;
  SessionKey key{target.cpu, target.features, target.opt_level};
  std::lock_guard<std::mutex> lock(mutex);
  auto it = sessions.find(key);
  if (it == sessions.end()) {
    it = sessions.emplace(key, std::make_shared<CompilerSession>(target)).first;
  }
  return it->second;
}

CompilerSession::CompilerSession(const CpuTarget& target) : m_target(target) {
  initialize_llvm_targets();
  if (target.opt_level > 3) {
    m_setup_diagnostics.push_back(
        make_diagnostic(Diagnostic::Severity::error, "",
                        "optimisation level " + std::to_string(target.opt_level) + " is not 0..3"));
    return;
  }
  std::vector<std::string> args = driver_arguments(target, k_prelude_dir);
  args.push_back("-c");
  args.push_back(std::string(k_task_path));
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& arg : args) {
    argv.push_back(arg.c_str());
  }

  // Driver messages (unknown flag, bad -march) are captured like any other diagnostic.
  DiagnosticCapture capture("", m_setup_diagnostics);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diags =
      clang::CompilerInstance::createDiagnostics(new clang::DiagnosticOptions(), &capture,
                                                 /*ShouldOwnClient=*/false);
  clang::CreateInvocationOptions opts;
  opts.Diags = diags;
  opts.VFS = make_task_fs("");  // the driver checks that the input exists
  opts.RecoverOnError = false;
  opts.CC1Args = &m_cc1_args;
  std::unique_ptr<clang::CompilerInvocation> inv = clang::createInvocation(argv, opts);
  if (inv == nullptr || has_error(m_setup_diagnostics)) {
    if (!has_error(m_setup_diagnostics)) {
      m_setup_diagnostics.push_back(
          make_diagnostic(Diagnostic::Severity::error, "",
                          "the compiler driver rejected the target configuration"));
    }
    return;
  }
  // Settings every TU shares (toolchain.md §2 and pitfalls 4 and 5):
  inv->getFrontendOpts().DisableFree = false;      // the driver sets it: 0.73 MB leaked per TU
  inv->getCodeGenOpts().DisableFree = false;       // ... and here: a buried TargetMachine per TU
  inv->getCodeGenOpts().DisableLLVMPasses = true;  // cpu_codegen runs the pass pipeline
  inv->getDiagnosticOpts().ShowCarets = false;     // else "N errors generated." on stderr
  inv->getPreprocessorOpts().SourceDateEpoch = 0;  // __DATE__/__TIME__ are fixed, not now
  inv->getTargetOpts().CPU = target.cpu;           // as -march gave; stated for clarity
  m_base = std::shared_ptr<clang::CompilerInvocation>(std::move(inv));
}

CompilerSession::~CompilerSession() = default;

std::unique_ptr<llvm::Module> CompilerSession::compile(std::string_view task,
                                                       std::string_view source,
                                                       llvm::LLVMContext& ctx,
                                                       std::vector<Diagnostic>& diags) const {
  if (m_base == nullptr) {
    for (Diagnostic d : m_setup_diagnostics) {
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
