// The call graph of one kernel: every def it can reach through the callees of body_refs.hpp,
// across files, in breadth-first order (so each def's recorded path from the kernel is a
// shortest one). Funcs reached through template arguments, aliases and both branches of
// qd.static conditions are included (body_refs over-approximates; a superset never gives a
// stale key). Plain Python functions reached (compile-time helpers) are included as well: their
// source shapes the compiled kernel too, which Quadrants' own keys miss.
#pragma once

#include <string>
#include <vector>

#include "sema/body_refs.hpp"

namespace qd::sema {

struct ReachedDef {
  DefId def = k_none;
  int32_t parent = -1;  // index into the reached list (-1 for a root)
  SourceSpan span;      // where the parent calls or names it
};

// `roots[0]` is the kernel; further roots are defs named by instances (template funcs).
// `refs[d]` are the body refs of def d.
std::vector<ReachedDef> reachable(const Program& p, const std::vector<BodyRefs>& refs,
                                  const std::vector<DefId>& roots);

// "mod:kernel -> mod:f -> other:g" for reached[index].
std::string call_path(const Program& p, const std::vector<ReachedDef>& reached, size_t index);

}  // namespace qd::sema
