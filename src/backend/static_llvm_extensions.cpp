// Only in a backend with Clang and LLVM linked in statically (QD_LLVM_STATIC, the qdbuild wheel).
//
// Debian's LLVM 19 is configured with Polly linked into its tools, so its llvm/Support/
// Extension.def names Polly, and clang's BackendUtil.cpp and LLVM's LTO call
// getPollyPluginInfo() to let it register its passes. Debian ships Polly inside libLLVM.so and as
// a loadable plugin, but not as a static archive. This backend never asks for Polly (no -polly
// option is ever given), so Polly registers nothing here: the pipeline is that of an LLVM built
// without Polly, the same passes the shared-library build runs.
#include <llvm/Passes/PassPlugin.h>

llvm::PassPluginLibraryInfo getPollyPluginInfo();

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly (not linked)", LLVM_VERSION_STRING,
          [](llvm::PassBuilder&) {}};
}
