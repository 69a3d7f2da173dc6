// compile_cuda_task: one task TU → PTX, in-process:
//
//   driver (once per CudaTarget) → cc1 invocation, +ptx pinned  ──▶  front end (unoptimised IR)
//   ──▶ libdevice linked lazily (LinkOnlyNeeded) and internalised ──▶ __nvvm_reflect resolved
//   ──▶ O-level pipeline with the NVPTX target machine ──▶ PTX (the same +ptx in the TM)
#include "backend/backend.hpp"
#include "backend/diagnostic_capture.hpp"
#include "backend/pass_pipeline.hpp"
#include "backend/prelude_files.hpp"
#include "backend/task_frontend.hpp"
#include "backend/toolchain_id.hpp"

#include <clang/Basic/TargetOptions.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace qd::backend {

namespace {

void initialize_nvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

// The front end for one CudaTarget (a TaskFrontend), the +ptx feature pinned.
class NvptxSession {
public:
  explicit NvptxSession(const CudaTarget& target) : m_frontend(options(target)) {}

  std::unique_ptr<llvm::Module> compile(const std::string& task, std::string_view source,
                                        llvm::LLVMContext& ctx,
                                        std::vector<Diagnostic>& diags) const {
    return m_frontend.compile(task, source, ctx, diags);
  }

private:
  static TaskFrontend::Options options(const CudaTarget& target) {
    initialize_nvptx();
    TaskFrontend::Options o;
    o.invalid_target = check_cuda_target(target);
    if (!o.invalid_target.empty()) {
      return o;
    }
    o.driver_args = driver_arguments(target, k_prelude_dir);
    o.rejected = "the compiler driver rejected the CUDA target";
    o.errors_only = true;  // it warns that it found a CUDA newer than it knows: expected
    std::string ptx = target.ptx;
    o.adjust = [ptx](clang::CompilerInvocation& inv) {
      // Pin the PTX ISA: drop whatever +ptx the driver derived from the installed CUDA.
      std::vector<std::string>& features = inv.getTargetOpts().FeaturesAsWritten;
      std::erase_if(features, [](const std::string& f) {
        return f.starts_with("+ptx") || f.starts_with("-ptx");
      });
      features.push_back(ptx);
    };
    return o;
  }

  TaskFrontend m_frontend;
};

std::shared_ptr<const NvptxSession> session_for(const CudaTarget& target) {
  using Key = std::tuple<unsigned, std::string, bool, unsigned>;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const NvptxSession>> sessions;
  Key key{target.arch, target.ptx, target.fast_math, target.opt_level};
  std::lock_guard<std::mutex> lock(mutex);
  auto it = sessions.find(key);
  if (it == sessions.end()) {
    it = sessions.emplace(key, std::make_shared<NvptxSession>(target)).first;
  }
  return it->second;
}

// libdevice's bytes, read once; every compile parses it lazily from this buffer.
const llvm::MemoryBuffer* libdevice_buffer(std::string& error) {
  static std::once_flag once;
  static std::unique_ptr<llvm::MemoryBuffer> buffer;
  static std::string load_error;
  std::call_once(once, [] {
    auto b = llvm::MemoryBuffer::getFile(libdevice_path(), /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
    if (!b) {
      load_error = "cannot read libdevice '" + libdevice_path() + "': " + b.getError().message() +
                   " (set QDBUILD_CUDA_PATH to the CUDA toolkit)";
      return;
    }
    buffer = std::move(*b);
  });
  error = load_error;
  return buffer.get();
}

// Links the libdevice functions `module` calls (and what they call), internalised, so the PTX has
// no .extern and exports only the unit's own entry points.
bool link_libdevice(llvm::Module& module, const std::string& task, std::vector<Diagnostic>& diags) {
  bool needed = false;
  for (const llvm::Function& f : module) {
    needed = needed || (f.isDeclaration() && f.getName().starts_with("__nv_"));
  }
  if (!needed) {
    return true;
  }
  std::string error;
  const llvm::MemoryBuffer* buffer = libdevice_buffer(error);
  if (buffer == nullptr) {
    diags.push_back(make_diagnostic(Diagnostic::Severity::error, task, error));
    return false;
  }
  llvm::Expected<std::unique_ptr<llvm::Module>> lib =
      llvm::getLazyBitcodeModule(buffer->getMemBufferRef(), module.getContext());
  if (!lib) {
    diags.push_back(make_diagnostic(Diagnostic::Severity::error, task,
                                    "cannot parse libdevice: " + llvm::toString(lib.takeError())));
    return false;
  }
  (*lib)->setTargetTriple(module.getTargetTriple());
  (*lib)->setDataLayout(module.getDataLayout());
  bool failed = llvm::Linker::linkModules(
      module, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded,
      [](llvm::Module& m, const llvm::StringSet<>& linked) {
        llvm::internalizeModule(m, [&linked](const llvm::GlobalValue& gv) {
          return !gv.hasName() || !linked.count(gv.getName());
        });
      });
  if (failed) {
    if (!has_error(diags)) {
      diags.push_back(
          make_diagnostic(Diagnostic::Severity::error, task, "linking libdevice failed"));
    }
    return false;
  }
  return true;
}

// The string a __nvvm_reflect argument points at ("__CUDA_FTZ"), or "" if it is not a constant.
std::string reflect_name(llvm::Value* arg) {
  arg = arg->stripPointerCasts();
  if (auto* ce = llvm::dyn_cast<llvm::ConstantExpr>(arg)) {
    arg = ce->getOperand(0)->stripPointerCasts();
  }
  auto* gv = llvm::dyn_cast<llvm::GlobalVariable>(arg);
  if (gv == nullptr || !gv->hasInitializer()) {
    return "";
  }
  auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(gv->getInitializer());
  if (data == nullptr || !data->isString()) {
    return "";
  }
  std::string s = data->getAsString().str();
  while (!s.empty() && s.back() == '\0') {
    s.pop_back();
  }
  return s;
}

// Resolves libdevice's __nvvm_reflect queries ourselves, before LLVM's NVVMReflect pass (which in
// LLVM 19 knows only __CUDA_FTZ and __CUDA_ARCH, so __CUDA_PREC_SQRT would be 0 and __nv_sqrtf
// approximate even for IEEE builds): FTZ 0, ARCH arch*10, PREC_SQRT !fast_math.
void resolve_reflect(llvm::Module& module, const CudaTarget& target) {
  for (const char* name : {"__nvvm_reflect", "llvm.nvvm.reflect"}) {
    llvm::Function* f = module.getFunction(name);
    if (f == nullptr) {
      continue;
    }
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* u : f->users()) {
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(u); call && call->getCalledFunction() == f) {
        calls.push_back(call);
      }
    }
    for (llvm::CallInst* call : calls) {
      std::string what = call->arg_size() == 1 ? reflect_name(call->getArgOperand(0)) : "";
      int value = 0;
      if (what == "__CUDA_ARCH") {
        value = static_cast<int>(target.arch) * 10;
      } else if (what == "__CUDA_PREC_SQRT" || what == "__CUDA_PREC_DIV") {
        value = target.fast_math ? 0 : 1;
      }  // __CUDA_FTZ and anything unknown: 0
      call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), value));
      call->eraseFromParent();
    }
  }
  // Also for LLVM's own pass, should anything be left: the FTZ flag as nvcc sets it.
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});
}

// fast_math: f32 square roots become sqrt.approx.f32, as under nvcc --use_fast_math. LLVM 19's
// NVPTX back end keeps llvm.sqrt.f32 correctly rounded whatever the fast-math flags (only the
// process-wide -nvptx-prec-sqrtf32 option changes it), so this is done on the IR. f64 stays IEEE.
void approximate_sqrt(llvm::Module& module) {
  llvm::Function* sqrt_f32 = module.getFunction("llvm.sqrt.f32");
  if (sqrt_f32 == nullptr) {
    return;
  }
  llvm::Function* approx =
      llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::nvvm_sqrt_approx_f);
  std::vector<llvm::CallInst*> calls;
  for (llvm::User* u : sqrt_f32->users()) {
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(u);
        call && call->getCalledFunction() == sqrt_f32) {
      calls.push_back(call);
    }
  }
  for (llvm::CallInst* call : calls) {
    llvm::CallInst* repl =
        llvm::CallInst::Create(approx, {call->getArgOperand(0)}, "", call->getIterator());
    repl->setDebugLoc(call->getDebugLoc());
    call->replaceAllUsesWith(repl);
    call->eraseFromParent();
  }
}

std::optional<std::string> emit_ptx(llvm::Module& module, const CudaTarget& target,
                                    const std::string& task, const std::string& unit_prefix,
                                    std::vector<Diagnostic>& diags) {
  auto fail = [&](std::string message) -> std::optional<std::string> {
    diags.push_back(make_diagnostic(Diagnostic::Severity::error, task,
                                    "code generation: " + std::move(message)));
    return std::nullopt;
  };
  std::string triple(k_cuda_triple);
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (llvm_target == nullptr) {
    return fail(error);
  }
  llvm::TargetOptions options;
  options.AllowFPOpFusion = target.fast_math ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  options.UnsafeFPMath = target.fast_math;
  // The PTX ISA again: `.version` comes from the TM's features, not the front end's (pitfall 11).
  std::unique_ptr<llvm::TargetMachine> tm(llvm_target->createTargetMachine(
      triple, cuda_arch_name(target.arch), target.ptx, options, std::nullopt, std::nullopt,
      codegen_level(target.opt_level)));
  if (tm == nullptr) {
    return fail("cannot create a target machine for " + triple + " " + cuda_arch_name(target.arch));
  }
  module.setTargetTriple(triple);
  module.setDataLayout(tm->createDataLayout());

  if (!link_libdevice(module, task, diags)) {
    return std::nullopt;
  }
  resolve_reflect(module, target);
  if (target.fast_math) {
    approximate_sqrt(module);
    // libdevice's functions say "unsafe-fp-math"="false", and inlining one into a kernel would
    // turn the kernel's off (the attributes merge with AND), making its divisions exact again;
    // so they get the unit's fast-math attributes (as clang's -mlink-builtin-bitcode does).
    for (llvm::Function& f : module) {
      if (!f.isDeclaration()) {
        for (const char* attr :
             {"unsafe-fp-math", "approx-func-fp-math", "no-signed-zeros-fp-math"}) {
          f.addFnAttr(attr, "true");
        }
      }
    }
  }

  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  if (llvm::verifyModule(module, &verify_os)) {
    verify_os.flush();
    return fail("invalid IR (internal error): " + verify_errors);
  }
  run_pass_pipeline(module, *tm, target.opt_level);

  for (const llvm::Function& f : module) {
    // vprintf (print() in kernels, qd_prelude.hpp) is a PTX system call ptxas resolves.
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty() && f.getName() != "vprintf") {
      return fail("undefined function '" + f.getName().str() + "' (not in libdevice)");
    }
  }

  // Units of a module are merged into one PTX text (merge_ptx_units), where file-scope names must
  // not clash: every internal symbol (libdevice functions and tables, the prelude's helpers,
  // string constants) gets the unit's own prefix.
  for (llvm::GlobalValue& gv : module.global_values()) {
    if (gv.hasLocalLinkage() && gv.hasName()) {
      gv.setName(unit_prefix + gv.getName());
    }
  }

  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    return fail("the NVPTX target cannot emit PTX");
  }
  codegen.run(module);
  if (has_error(diags)) {
    return std::nullopt;
  }
  return std::string(buffer.data(), buffer.size());
}

}  // namespace

TaskPtx compile_cuda_task(const TaskUnit& task, const CudaTarget& target) {
  TaskPtx result;
  result.name = task.name;
  result.key = task_key(task.source, target);
  std::shared_ptr<const NvptxSession> session = session_for(target);
  llvm::LLVMContext ctx;
  capture_llvm_diagnostics(ctx, task.name, result.diagnostics);
  std::unique_ptr<llvm::Module> module =
      session->compile(task.name, task.source, ctx, result.diagnostics);
  if (module == nullptr) {
    return result;
  }
  // "qdu<16 hex of the task key>_": from the unit's text and target, so the bytes stay a function
  // of the input alone.
  std::string prefix = "qdu" + result.key.substr(0, 16) + "_";
  std::optional<std::string> ptx = emit_ptx(*module, target, task.name, prefix, result.diagnostics);
  module.reset();
  if (!ptx || has_error(result.diagnostics)) {
    return result;
  }
  result.ptx = std::move(*ptx);
  result.ok = true;
  return result;
}

}  // namespace qd::backend
