// What one def's body refers to, resolved statically: the defs it calls or passes around, the
// module-level values it reads (captures), and the names or callees it cannot resolve.
//
// Scopes follow the kernel language: parameters, names assigned anywhere in the body (for
// targets, with/except names, walrus, comprehension targets, nested defs and imports) are local;
// every other name is looked up at module level (resolve.hpp). Attribute chains are resolved as a
// whole (`qd.math.pi`, `mod.CONST`, `Color.RED`, `cfg.SIZE`), so each capture is reported once.
//
// Calls are resolved as the Quadrants tracer would reach them, over-approximating where a
// static tool must (a superset of callees never gives a stale key):
//   f(...), mod.f(...), Class.f(...)            the def
//   self.m(...), self.member.m(...)              the method through the data_oriented class
//   p.m(...) for a parameter annotated with a tree class   the method of that class
//   W = qd.static(f); W(...)                     every def assigned to the local
//   for g in qd.static((f1, f2)): g(...)         f1 and f2
//   fn(...) where fn is a func parameter         resolved at the call sites: every def passed
//                                                as an argument anywhere is itself reachable
//   x.m(...) on any other local                  every @qd.func method named `m` of a
//                                                @qd.dataclass / data_oriented class
// Both branches of `if qd.static(c):` are walked. References inside qd.static(...) /
// qd.static_assert(...) / qd.static_print(...) are marked `in_static`.
#pragma once

#include <string>
#include <vector>

#include "sema/resolve.hpp"

namespace qd::sema {

struct SourceSpan {
  int32_t line = 0;
  int32_t col = 0;
  int32_t end_line = 0;
  int32_t end_col = 0;
};

struct CalleeRef {
  DefId def = k_none;
  SourceSpan span;
  bool called = true;  // false: referenced (passed as an argument, aliased), not called here
};

// A module-level value read by the body (whether or not purity allows it).
struct CaptureRef {
  std::string text;  // as written: "N", "cfg.SIZE", "qd.math.pi"
  std::string name;  // the name Quadrants judges UPPERCASE by (last component)
  Entity entity;
  SourceSpan span;
  bool in_static = false;
};

struct UnresolvedRef {
  std::string text;    // the callee as written
  std::string reason;  // why it cannot be resolved
  SourceSpan span;
  bool undefined = false;       // a name bound nowhere (NameError)
  std::string template_param;   // a call through this kernel parameter (instances may resolve)
  std::string runtime_problem;  // undefined, but maybe set at run time (QD116 instead of QD105)
};

struct BodyRefs {
  std::vector<CalleeRef> callees;
  std::vector<CaptureRef> captures;
  std::vector<UnresolvedRef> unresolved;
};

BodyRefs analyze_body(const Program& p, DefId def);

// The class a parameter annotation names, if it is a class of the tree (for `p.method()` and
// compound parameters); k_none otherwise.
ClassId annotation_class(const Program& p, int32_t module, const syntax::ast::Expr* annotation);

}  // namespace qd::sema
