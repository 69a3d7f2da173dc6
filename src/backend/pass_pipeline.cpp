#include "backend/pass_pipeline.hpp"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>

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

}  // namespace

llvm::CodeGenOptLevel codegen_level(unsigned opt_level) {
  switch (opt_level) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 2: return llvm::CodeGenOptLevel::Default;
    default: return llvm::CodeGenOptLevel::Aggressive;
  }
}

void run_pass_pipeline(llvm::Module& module, llvm::TargetMachine& tm, unsigned opt_level) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = opt_level > 0;
  tuning.LoopInterleaving = opt_level > 0;
  tuning.LoopVectorization = opt_level > 1;
  tuning.SLPVectorization = opt_level > 1;

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&tm, tuning);  // registers the target's own passes (NVVMReflect, ...)
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

}  // namespace qd::backend
