// Static name resolution and constant evaluation over a Program (module_model.hpp).
//
// An Entity is what a name or attribute chain denotes at module level: a module of the tree, an
// external module path (`numpy.pi`), a quadrants API path (`quadrants.math.pi`), a def, a class,
// a constant value, an instance of a tree class, a qd.field / qd.ndarray object, a builtin, or
// nothing (undefined). Module constants are evaluated with Python semantics (value.hpp) in
// source order: `N = 4; M = N * 2; N = 5` gives M == 8.
//
// evaluate_program() must run once, single-threaded, before the rest: it evaluates every
// module-level binding and resolves class bases. After it every function here only reads the
// Program, so kernels can be analyzed in parallel.
#pragma once

#include <string>
#include <string_view>

#include "sema/module_model.hpp"

namespace qd::sema {

struct Entity {
  enum class Kind : uint8_t {
    undefined,  // no binding anywhere (NameError in Python)
    unknown,    // exists but qdbuild cannot tell what it is (e.g. from an external `import *`)
    module,     // a module of the tree (`module`)
    external,   // a path into a module outside the tree (`path`, e.g. "numpy.pi")
    quadrants,  // a path into quadrants (`path`, e.g. "quadrants.math.pi", "quadrants.f32")
    def,        // `def`
    class_,     // `cls`
    value,      // a constant (`value`, maybe unknown with the reason in value.s)
    instance,   // an instance of tree class `cls` created at module level
    field,      // a qd.field / Vector.field / Matrix.field object
    ndarray,    // a qd.ndarray / Vector.ndarray / Matrix.ndarray object
    builtin,    // a Python builtin (`path` = its name)
  };
  Kind kind = Kind::unknown;
  int32_t module = k_none;  // module: the module; otherwise the module that defines it
  DefId def = k_none;
  ClassId cls = k_none;
  // Qualified name: "mod.NAME" for module-level bindings, "mod.Class.ATTR" for class attributes,
  // the dotted path for external/quadrants entities.
  std::string path;
  Value value;
  bool conditional = false;  // bound inside a module-level branch
  int32_t line = 0;          // where it is bound (0 when not known)
};

const char* name_of(Entity::Kind k);

inline constexpr int32_t k_order_end = 0x7fffffff;

// A name at module level of `module`, as seen by statement `before` (k_order_end: the final
// binding). Star imports and builtins are consulted when the module does not bind it.
Entity lookup_global(const Program& p, int32_t module, std::string_view name,
                     int32_t before = k_order_end);
// The attribute `attr` of an entity.
Entity member_of(const Program& p, const Entity& base, std::string_view attr);
// A Name / Attribute chain / Call / Subscript written at module level of `module` (functions use
// their own scopes first; see scope.hpp). Other expressions evaluate to values.
Entity resolve_expr(const Program& p, int32_t module, const syntax::ast::Expr* e,
                    int32_t before = k_order_end);
// A constant expression's value.
Value evaluate(const Program& p, int32_t module, const syntax::ast::Expr* e,
               int32_t before = k_order_end);

// The final module-level binding of `name` in `module`, following `from m import name` into
// modules of the tree; null if there is none. `where` is the module that holds it.
const Binding* final_binding(const Program& p, int32_t module, std::string_view name,
                             int32_t& where);

// Evaluates every module-level binding and class base (see above). Single-threaded.
void evaluate_program(Program& p);

// Whether a dotted module path is quadrants (or gstaichi / taichi, its older names).
bool is_quadrants_path(std::string_view dotted);
// The path with the package name replaced by "qd" for messages ("qd.math.pi").
std::string display_path(std::string_view dotted);
bool is_builtin_name(std::string_view name);

// Searches `cls` and its tree bases (depth-first, Python-like order) for a method / member.
DefId find_method(const Program& p, ClassId cls, std::string_view name);
const MemberInfo* find_member(const Program& p, ClassId cls, std::string_view name,
                              ClassId* owner = nullptr);
// Every __init__ member of the class and its bases (a base's members first).
std::vector<std::pair<ClassId, const MemberInfo*>> all_members(const Program& p, ClassId cls);
bool is_data_oriented(const Program& p, ClassId cls);
// template_primitives of the nearest @qd.data_oriented class in the chain.
bool template_primitives(const Program& p, ClassId cls);
std::string class_path(const Program& p, ClassId cls);  // "mod.Qualname"

}  // namespace qd::sema
