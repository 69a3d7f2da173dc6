// The module model of a scanned tree: per module, its module-level bindings (imports, defs,
// classes, constants) in source order; per class, what kind it is (enum, dataclass,
// @qd.data_oriented, @qd.dataclass struct) with its fields, members and methods; per def, whether
// it is a kernel, a func or a plain Python function and how it is marked for fastcache.
//
// Module-level statements are read in order. An assignment inside `if`/`try`/`for`/`while`/`with`
// at module level is *conditional*: an import or def stays usable, a constant's value becomes
// unknown (qdbuild does not guess which branch ran), except under `if True:` / `if False:` and
// `if TYPE_CHECKING:` (taken) and `if __name__ == "__main__":` (skipped).
//
// Name resolution and constant evaluation over the whole program live in resolve.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sema/source_tree.hpp"
#include "sema/value.hpp"
#include "syntax/ast_nodes.hpp"
#include "syntax/parser.hpp"

namespace qd::sema {

struct Entity;  // resolve.hpp

// Hash for unordered maps keyed by std::string that are looked up by string_view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

using DefId = int32_t;
using ClassId = int32_t;
inline constexpr int32_t k_none = -1;

enum class DefRole : uint8_t { kernel, func, plain };

struct DefInfo {
  DefRole role = DefRole::plain;
  std::string decorator;  // "kernel", "func", "real_func", "pyfunc"; "" for plain
  std::string qualname;
  int32_t module = k_none;
  ClassId owner = k_none;  // the class whose body holds the def
  bool nested = false;     // defined inside a function (qualname has <locals>)
  const syntax::ast::Stmt* node = nullptr;
  const syntax::ast::Arguments* args = nullptr;
  const syntax::ast::Seq<syntax::ast::Stmt*>* body = nullptr;
  const syntax::ast::Seq<syntax::ast::Expr*>* decorators = nullptr;
  const syntax::ast::Expr* returns = nullptr;
  // Kernels: marked fastcache=True / pure=True / @qd.pure (see `marked_by`).
  bool fastcache = false;
  std::string marked_by;        // "fastcache=True", "pure=True", "@qd.pure"
  bool pure_misplaced = false;  // @qd.pure written below @qd.kernel (still honoured)
  const syntax::ast::Expr* pure_decorator = nullptr;  // the @qd.pure decorator, if any
  // Kernels: @qd.kernel(graph=...) and checkpoints=... as written (unknown: not a True/False
  // literal). A graph kernel may hold qd.graph.do_while loops.
  enum class Flag : uint8_t { off, on, unknown };
  Flag graph = Flag::off;
  Flag checkpoints = Flag::off;
  int32_t first_line = 0;  // line of the first decorator (or of `def`)
  int32_t line = 0;        // line of `def`
  int32_t col = 0;
  int32_t end_line = 0;
  std::string name() const;  // the def's own name (last qualname component)
};

// A dataclass field.
struct FieldInfo {
  std::string name;
  const syntax::ast::Expr* annotation = nullptr;
  const syntax::ast::Expr* default_value = nullptr;  // `= x` or field(default=x)
  bool cache_value = false;                          // metadata={FIELD_METADATA_CACHE_VALUE: True}
  int32_t line = 0;
};

// A member assigned in __init__ (`self.name = value` / `self.name: T = value`).
struct MemberInfo {
  std::string name;
  const syntax::ast::Expr* value = nullptr;
  const syntax::ast::Expr* annotation = nullptr;
  int32_t line = 0;
};

struct ClassInfo {
  std::string name;
  std::string qualname;
  int32_t module = k_none;
  const syntax::ast::ClassDef* node = nullptr;
  bool enum_base = false;           // a direct base is enum.Enum/IntEnum/... (see resolve)
  bool dataclass = false;           // @dataclasses.dataclass / @dataclass
  bool data_oriented = false;       // @qd.data_oriented (directly)
  bool template_primitives = true;  // @qd.data_oriented(template_primitives=False) sets false
  bool qd_struct = false;           // @qd.dataclass (a by-value struct)
  // Class-level assignments in order (enum members, class constants): name -> value expression.
  std::vector<std::pair<std::string, const syntax::ast::Expr*>> attributes;
  std::vector<FieldInfo> fields;    // annotated class-level names (dataclass fields)
  std::vector<MemberInfo> members;  // __init__ assignments to self.<name>
  std::map<std::string, DefId, std::less<>> methods;
  int32_t line = 0;
  // Filled by evaluate_program(): the bases that are classes of the tree, whether the class is an
  // enum (directly or through a base), and data_oriented inherited from a base.
  std::vector<ClassId> base_ids;
  bool is_enum = false;
  bool int_enum = false;  // an enum whose members are ints (enum.IntEnum / IntFlag, or int)
};

// One module-level binding event: `name` bound by an import, def, class or assignment.
struct Binding {
  enum class Kind : uint8_t { module_import, from_import, def, class_, value, star_unknown };
  Kind kind = Kind::value;
  std::string target;  // module_import: dotted module; from_import: absolute module
  std::string attr;    // from_import: the imported name
  DefId def = k_none;
  ClassId cls = k_none;
  const syntax::ast::Expr* expr = nullptr;  // value: right-hand side
  const syntax::ast::Stmt* aug = nullptr;   // value from `name op= expr`
  int32_t tuple_index = -1;                 // value from `a, b = rhs`: item index
  bool conditional = false;
  int32_t order = 0;  // statement index in the module (earlier bindings see earlier values)
  int32_t line = 0;
  int32_t col = 0;
  // Filled by evaluate_program() (resolve.hpp): 0 not evaluated, 1 in progress, 2 done.
  mutable uint8_t eval_state = 0;
  mutable Value value;
  mutable std::shared_ptr<const Entity> entity;  // what the binding denotes, once evaluated
};

struct ModuleInfo {
  std::string name;  // dotted ("pkg.mod")
  std::string path;  // as given on the command line
  bool is_package = false;
  std::shared_ptr<syntax::ParseResult> parsed;  // shared with a ParseCache (watch mode)
  // name -> its bindings in source order (the last is the module's final binding).
  std::unordered_map<std::string, std::vector<Binding>, StringHash, std::equal_to<>> bindings;
  std::vector<std::string> star_imports;  // absolute modules imported with `*`
  std::vector<DefId> defs;
  std::vector<ClassId> classes;
  bool ok = false;  // parsed without errors
};

// Where a module global is rebound at run time (runtime_globals.hpp).
struct RuntimeAssignment {
  std::string where;  // "genesis/__init__.py:202"
  std::string how;    // "global EPS in init()", "gs.EPS = ...", "globals()[name] = ..."
};

struct Program {
  std::vector<ModuleInfo> modules;
  std::vector<DefInfo> defs;
  std::vector<ClassInfo> classes;
  std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> module_index;
  // Method name -> the @qd.func methods of @qd.dataclass / data_oriented classes with that name
  // (filled by evaluate_program; body_refs uses it for `x.m()` on values of unknown type).
  std::unordered_map<std::string, std::vector<DefId>, StringHash, std::equal_to<>> struct_methods;
  std::string root_name;  // basename of the first source root (a package prefix imports may use)
  std::vector<std::string> def_ids;  // "module:qualname" of every def (filled by build_program)
  // Run-time configuration (runtime_globals.hpp): globals rebound at run time, modules whose
  // globals are set through computed globals()[...] keys, and the defines given for names.
  std::map<std::pair<int32_t, std::string>, RuntimeAssignment> runtime_assigned;
  std::map<int32_t, RuntimeAssignment> dynamic_globals;
  std::map<std::pair<int32_t, std::string>, std::string> defined;  // -> "source" of the value
  std::map<std::pair<int32_t, std::string>, std::string> define_conflicts;  // -> the record
  int32_t defines_module = k_none;                  // the synthetic module (runtime_globals.hpp)
  std::map<std::string, std::string> define_names;  // its symbols -> "module.name" defined

  const std::string& def_id(DefId d) const { return def_ids[d]; }  // "module:qualname"
  const ModuleInfo& module_of(DefId d) const { return modules[defs[d].module]; }
  int32_t find_module(std::string_view dotted) const;  // k_none if not in the tree
};

class ParseCache;  // parse_cache.hpp

// Parses every file (in parallel) and builds the program's module model (`collect` false: parse
// only, for the benchmark baseline). With a `cache`, unchanged files reuse their earlier parse.
std::unique_ptr<Program> build_program(const SourceTree& tree, unsigned jobs, bool collect = true,
                                       ParseCache* cache = nullptr);

// Builds one module from its parse result (exposed for tests). Appends defs and classes to
// `program` and fills `module`.
void collect_module(Program& program, int32_t module_index);

// The absolute module of a relative import (`level` dots, `module` may be empty) from `current`.
std::string absolute_import(const std::string& current, bool is_package, int level,
                            std::string_view module);

}  // namespace qd::sema
