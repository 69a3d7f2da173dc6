// The target of a build: how its units are keyed, compiled and linked, and the name its index
// entries carry. "cpu" (x86-64 objects linked into a shared object) or "cuda:sm_XX" (PTX units
// linked into a cubin + PTX bundle, task_abi.h "CUDA modules"). Everything goes through the
// backend plugin (backend/plugin.hpp), so qdbuild itself links no LLVM.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"

namespace qd::build {

struct BuildTarget {
  std::string name = "cpu";  // the index entries' target: "cpu", "cuda:sm_90"
  bool cuda = false;
  backend::CpuTarget cpu;
  backend::CudaTarget gpu;

  // "cpu", "cuda" (sm_90) or "cuda:sm_XX"; false with `error` otherwise.
  static bool parse(std::string_view text, BuildTarget& out, std::string& error);

  std::string toolchain() const;
  std::string task_key(std::string_view source) const;

  struct Output {
    bool ok = false;
    std::string bytes;  // an object / PTX text (compile), a shared object / bundle (link)
    std::vector<backend::Diagnostic> diagnostics;
  };
  Output compile(const backend::TaskUnit& unit) const;
  Output link(const std::vector<std::string>& units) const;
};

}  // namespace qd::build
