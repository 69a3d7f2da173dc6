// Module globals an app sets at run time, and the values given for them (docs/record.md).
//
// A module-level name is *assigned at run time* when code other than its module's own top level
// rebinds it: `global NAME` then an assignment in a function of the module, `mod.NAME = ...` or
// `setattr(mod, "NAME", ...)` from anywhere, `globals()["NAME"] = ...`. A module whose code
// assigns `globals()[key]` with a computed key has *dynamic* globals: a name it does not bind
// statically may still exist at run time. The static value of such a name (a module-level
// placeholder like `EPS = None`) is not what the kernels see, so it must never be folded: a
// kernel that reads one needs a define (a recorded run or `[tool.qdbuild.defines]`), else it is
// an error (QD116).
//
// Defines become bindings: the program gets a synthetic module holding one assignment per
// define (`_qd_define_genesis__qd_float = quadrants.f32`) and the defined name's module gets a
// final binding `from <synthetic> import _qd_define_genesis__qd_float as qd_float`, so every later
// lookup (kernels read final bindings) resolves the defined value with the ordinary machinery.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sema/build_config.hpp"
#include "sema/module_model.hpp"

namespace qd::sema {

inline constexpr const char* k_defines_module = "__qdbuild_defines__";

// Fills p.runtime_assigned and p.dynamic_globals (before evaluate_program; needs only the
// module model).
void find_runtime_assignments(Program& p);

// Adds the synthetic defines module and the bindings to it (before evaluate_program). A define
// that names no module of the tree, or whose expression does not parse, is a problem.
void add_defines(Program& p, const std::map<std::string, Define>& defines,
                 std::vector<std::string>& problems);

// Why reading module global `name` of `module` needs a define ("" when it does not): it is
// assigned at run time and the program has no define for it, or a module with dynamic globals
// does not bind it. For QD116 messages.
std::string runtime_global_problem(const Program& p, int32_t module, std::string_view name);

}  // namespace qd::sema
