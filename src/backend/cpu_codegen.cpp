#include "backend/cpu_codegen.hpp"

#include "backend/compiler_session.hpp"
#include "backend/diagnostic_capture.hpp"
#include "backend/pass_pipeline.hpp"
#include "backend/toolchain_id.hpp"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <memory>

namespace qd::backend {

namespace {

// The TargetOptions clang derives from the driver flags of driver_arguments() (BackendUtil.cpp
// initTargetOptions), so the result matches `clang++-19 <same flags> -c`.
llvm::TargetOptions target_options() {
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Strict;  // -ffp-contract=off
  options.UseInitArray = true;
  options.EmitAddrsig = true;
  return options;
}

}  // namespace

std::optional<std::string> emit_cpu_object(llvm::Module& module, const CpuTarget& target,
                                           std::string_view task, std::vector<Diagnostic>& diags) {
  initialize_llvm_targets();
  auto fail = [&](std::string message) -> std::optional<std::string> {
    diags.push_back(make_diagnostic(Diagnostic::Severity::error, std::string(task),
                                    "code generation: " + std::move(message)));
    return std::nullopt;
  };

  std::string triple(k_cpu_triple);
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (llvm_target == nullptr) {
    return fail(error);
  }
  std::unique_ptr<llvm::TargetMachine> tm(llvm_target->createTargetMachine(
      triple, target.cpu, target.features, target_options(), llvm::Reloc::PIC_, std::nullopt,
      codegen_level(target.opt_level)));
  if (tm == nullptr) {
    return fail("cannot create a target machine for " + triple + " cpu " + target.cpu);
  }
  module.setTargetTriple(triple);
  module.setDataLayout(tm->createDataLayout());

  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  if (llvm::verifyModule(module, &verify_os)) {
    verify_os.flush();
    return fail("the front end produced invalid IR (internal error): " + verify_errors);
  }

  run_pass_pipeline(module, *tm, target.opt_level);

  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    return fail("the x86-64 target cannot emit object files");
  }
  codegen.run(module);
  if (has_error(diags)) {
    return std::nullopt;  // the context's handler recorded a back-end error
  }
  return std::string(buffer.data(), buffer.size());
}

}  // namespace qd::backend
