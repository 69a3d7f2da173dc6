#include "backend/compiler_session.hpp"

#include "backend/prelude_files.hpp"

#include <clang/Basic/TargetOptions.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <llvm/IR/Module.h>
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

namespace {

TaskFrontend::Options cpu_frontend(const CpuTarget& target, std::vector<std::string>* cc1_args) {
  initialize_llvm_targets();
  TaskFrontend::Options options;
  if (target.opt_level > 3) {
    options.invalid_target =
        "optimisation level " + std::to_string(target.opt_level) + " is not 0..3";
    return options;
  }
  options.driver_args = driver_arguments(target, k_prelude_dir);
  options.cc1_args = cc1_args;
  std::string cpu = target.cpu;
  options.adjust = [cpu](clang::CompilerInvocation& inv) {
    inv.getTargetOpts().CPU = cpu;  // as -march gave; stated for clarity
  };
  return options;
}

}  // namespace

CompilerSession::CompilerSession(const CpuTarget& target)
    : m_target(target), m_frontend(cpu_frontend(target, &m_cc1_args)) {}

CompilerSession::~CompilerSession() = default;

std::unique_ptr<llvm::Module> CompilerSession::compile(std::string_view task,
                                                       std::string_view source,
                                                       llvm::LLVMContext& ctx,
                                                       std::vector<Diagnostic>& diags) const {
  return m_frontend.compile(task, source, ctx, diags);
}

}  // namespace qd::backend
