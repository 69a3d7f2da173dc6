// Kernel keys (docs/kernel-keys.md): cheap, from sources, computed without
// running Python. Components, in order (each tagged and hashed on its own, key_hasher.hpp):
//
//   tool                 qdbuild version and key ABI version
//   kernel               the kernel id (module:qualname)
//   source <id>          for the kernel and every def it reaches (sorted by id): the SHA-256 of
//                        the def's normalized token stream (decorators to the end of the body)
//   signature            every parameter's classified type, and the return type
//   instance             the canonical instance string (template values, partial types)
//   constants            "path = repr(value)" of every module constant the kernel or its funcs
//                        read, UPPERCASE and qd.static ones included, enum values too
//   compound <param>     class names and member layouts of dataclass / data_oriented parameters
//                        (values of data_oriented primitive members unless
//                        template_primitives=False; of dataclass fields only when marked
//                        FIELD_METADATA_CACHE_VALUE)
//   config               arch, opt level, fast_math, debug, default int/float types
//   device               the target's device capabilities
//
// The normalized token stream is the lexer's tokens, kind and text, with INDENT/DEDENT/NEWLINE
// as bare markers: no positions, no comments, no blank lines, no indentation width. Reformatting
// within a line, blank lines, comments and moving a def do not change it; any token does.
#pragma once

#include <string>
#include <vector>

#include "sema/build_config.hpp"
#include "sema/call_graph.hpp"
#include "sema/key_hasher.hpp"
#include "sema/signature.hpp"

namespace qd::sema {

inline constexpr const char* k_tool_version = "qdbuild 0.1.0";
inline constexpr int k_key_abi = 1;

// The normalized token stream of a def (see above), one token per line.
std::string normalized_tokens(const ModuleInfo& m, const DefInfo& d);
// SHA-256 (hex) of normalized_tokens(m, d), computed without building the text.
std::string source_hash(const ModuleInfo& m, const DefInfo& d);

struct CompoundLayout {
  std::string text;                  // "data_oriented mod.Solver(template_primitives=True){...}"
  std::vector<std::string> unbound;  // values an instance must supply ("self.n")
  std::vector<std::string> field_members;  // "self.grid" (fields make the kernel ineligible)
};

// The layout of a dataclass / data_oriented parameter; `values` is the instance's table for it.
CompoundLayout compound_layout(const Program& p, const Param& param, const ConfigValue* values);

struct KeyInputs {
  const Program* program = nullptr;
  DefId kernel = k_none;
  const Signature* signature = nullptr;
  std::vector<std::pair<std::string, std::string>> sources;  // (def id, source hash), sorted
  std::vector<std::string> constants;                        // sorted, unique
  const BuildConfig* config = nullptr;
  std::string device_caps;
  const Instance* instance = nullptr;  // null: no instance configured
};

struct InstanceKey {
  std::string instance;              // canonical instance string
  std::vector<std::string> unbound;  // parameters / members without a value
  std::vector<std::string> field_members;
  std::vector<KeyHasher::Component> components;
  std::string key;
};

InstanceKey compute_key(const KeyInputs& in);

}  // namespace qd::sema
