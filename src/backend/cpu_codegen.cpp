#include "backend/cpu_codegen.hpp"

#include "backend/compiler_session.hpp"
#include "backend/diagnostic_capture.hpp"
#include "backend/toolchain_id.hpp"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <memory>

namespace qd::backend {

namespace {

llvm::OptimizationLevel pass_level(unsigned opt_level) {
  switch (opt_level) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 2: return llvm::OptimizationLevel::O2;
    default: return llvm::OptimizationLevel::O3;
  }
}

llvm::CodeGenOptLevel codegen_level(unsigned opt_level) {
  switch (opt_level) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 2: return llvm::CodeGenOptLevel::Default;
    default: return llvm::CodeGenOptLevel::Aggressive;
  }
}

// The TargetOptions clang derives from the driver flags of driver_arguments() (BackendUtil.cpp
// initTargetOptions), so the result matches `clang++-19 <same flags> -c`.
llvm::TargetOptions target_options() {
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Standard;  // -ffp-contract=on
  options.UseInitArray = true;
  options.EmitAddrsig = true;
  return options;
}

// Runs the new pass manager's default pipeline for `opt_level`, with the target's cost model and
// the pipeline options clang sets at that level.
void optimise(llvm::Module& module, llvm::TargetMachine& tm, unsigned opt_level) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = opt_level > 0;
  tuning.LoopInterleaving = opt_level > 0;
  tuning.LoopVectorization = opt_level > 1;
  tuning.SLPVectorization = opt_level > 1;

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&tm, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);

  llvm::ModulePassManager passes =
      opt_level == 0 ? builder.buildO0DefaultPipeline(pass_level(0))
                     : builder.buildPerModuleDefaultPipeline(pass_level(opt_level));
  passes.run(module, mam);
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

  optimise(module, *tm, target.opt_level);

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
