// Finding the kernels and funcs of one module, from its syntax alone (`qdbuild scan`).
//
// A def is a kernel when decorated `@qd.kernel` or `@qd.kernel(...)`, and a func when decorated
// `@qd.func`, `@qd.real_func` or `@qd.pyfunc` (each with or without arguments). `qd` is any name
// bound to the package `quadrants` (or the older `gstaichi` / `taichi`) or one of its submodules:
// `import quadrants as qd`, `import quadrants` (binds `quadrants`), `import quadrants.lang as ql`.
// A bare name works when imported from the package: `from quadrants import kernel, func as f`,
// `from quadrants import *`. Imports count wherever they sit at module level (inside if/try/with
// too) and, inside a function or class body, for that body and what it contains.
//
// Every def is visited: methods of any class (`@qd.data_oriented` ones, their subclasses, and
// classes nested in classes or functions), nested defs, and defs inside if/for/while/try/with/
// match blocks. `qualname` is Python's `__qualname__`: `Outer.Inner.method`, `factory.<locals>.f`,
// and a name declared `global` in its enclosing scope is just the name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "syntax/ast_nodes.hpp"
#include "syntax/source_file.hpp"

namespace qd::sema {

enum class DefKind : uint8_t { kernel, func };

const char* name_of(DefKind kind);  // "kernel" / "func"

// One keyword argument of the decorator call, as written.
struct DecoratorArgument {
  // The keyword; "**" for a `**mapping` argument.
  std::string name;
  // is_literal: the value as JSON text (numbers, strings, true/false/null, and lists/tuples/dicts
  // of those; a dict needs string keys). Otherwise the expression's source text, verbatim.
  std::string value;
  bool is_literal = false;
};

struct KernelDef {
  DefKind kind = DefKind::kernel;
  // Which decorator: "kernel", "func", "real_func" or "pyfunc".
  std::string decorator;
  std::string qualname;
  int32_t line = 0;      // line of `def` (not of the decorator)
  int32_t end_line = 0;  // last line of the body
  std::vector<DecoratorArgument> arguments;
};

// The kernels and funcs of `module`, in source order (pre-order: a def before the defs nested in
// it). `source` is the file the module was parsed from (for the source text of arguments).
std::vector<KernelDef> scan_kernels(const syntax::ast::Module& module,
                                    const syntax::SourceFile& source);

}  // namespace qd::sema
