// Lowering: one kernel instance, from the analyzed Program to the typed kernel IR
// (docs/language.md §0: compile-time Python values are folded, runtime values become IR).
//
// Diagnostic codes (docs/diagnostics.md, "Lowering"):
//   QD201 error  a construct outside the supported kernel language ("... is not supported in
//                kernels")
//   QD202 error  a type error (float condition, sin() of an integer, bit operation on a float,
//                vector shapes that do not match, ...)
//   QD203 error  a name that is not defined where it is used (block scoping, §1.7)
//   QD204 error  an assignment the language forbids (a kernel argument, a loop variable,
//                re-annotation with another type)
//   QD205 error  control flow the language forbids (break in the outermost loop, return inside
//                non-static if/for/while, range() with a step, for/while ... else)
//   QD206 error  a compile-time evaluation that fails (qd.static of a runtime value, a failed
//                qd.static_assert, an index out of range, a literal beyond default_ip)
//   QD207 error  an instance value that is missing or has the wrong type
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/ir.hpp"
#include "sema/analysis.hpp"

namespace qd::ir::lower {

struct LowerInput {
  const sema::Program* program = nullptr;
  const sema::BuildConfig* config = nullptr;
  sema::DefId kernel = sema::k_none;
  std::string kernel_id;
  const sema::Signature* signature = nullptr;
  const sema::Instance* instance = nullptr;  // null: none configured
};

struct LowerResult {
  std::unique_ptr<Kernel> kernel;  // null on error
  std::vector<sema::SemaDiagnostic> diagnostics;
};

LowerResult lower_kernel(const LowerInput& in);

}  // namespace qd::ir::lower
