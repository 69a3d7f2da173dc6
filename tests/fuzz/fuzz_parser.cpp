// libFuzzer target for the syntax layer: bytes -> SourceFile -> tokens -> AST -> ast.dump.
// Built only with -DQD_FUZZ=ON (scripts/fuzz.sh). Any crash, sanitizer report, leak or timeout
// is a finding; syntax errors are expected results.
#include <cstddef>
#include <cstdint>
#include <string>

#include "syntax/ast_dump.hpp"
#include "syntax/parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto result = qd::syntax::parse_bytes("fuzz.py", std::move(bytes));
  if (result->ok() && result->module != nullptr) {
    std::string out = qd::syntax::ast::dump(result->module);
    // A valid module always dumps as `Module(...)`.
    if (out.rfind("Module(", 0) != 0) {
      __builtin_trap();
    }
  }
  // Diagnostics must point inside the file (1-based lines; columns are not negative).
  for (const auto& d : result->diagnostics) {
    if (d.line < 0 || d.col < 0) {
      __builtin_trap();
    }
  }
  return 0;
}
