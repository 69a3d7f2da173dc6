// The part of the backend interface that needs no LLVM: diagnostics text, the module ABI unit,
// and (toolchain_id.cpp) keys and driver flags. Linked into qdbuild itself; the compiler proper
// is loaded on demand (plugin.hpp).
#include "backend/backend.hpp"

namespace qd::backend {

std::string format_diagnostic(const Diagnostic& d) {
  std::string out;
  if (!d.file.empty()) {
    out += d.file;
    if (d.line != 0) {
      out += ":" + std::to_string(d.line) + ":" + std::to_string(d.column);
    }
    out += ": ";
  }
  switch (d.severity) {
    case Diagnostic::Severity::note: out += "note: "; break;
    case Diagnostic::Severity::warning: out += "warning: "; break;
    case Diagnostic::Severity::error: out += "error: "; break;
  }
  out += d.message;
  return out;
}

TaskUnit module_abi_unit() {
  return TaskUnit{"qdrt_module_abi_version",
                  "// The module's ABI version (qdrt/task_abi.h); one per module.\n"
                  "#include \"qd_prelude.hpp\"\n"
                  "\n"
                  "QD_MODULE_ABI_VERSION();\n"};
}

}  // namespace qd::backend
