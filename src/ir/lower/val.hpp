// What an expression evaluates to during lowering: the two levels of docs/language.md
// Compile-time Python values (numbers, tuples, funcs, types, quadrants API objects) are folded
// with Python semantics; runtime values are typed IR expressions (scalars) or scalarized tensors.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.hpp"
#include "sema/build_config.hpp"
#include "sema/module_model.hpp"
#include "sema/value.hpp"

namespace qd::ir::lower {

struct Object;

struct Val {
  enum class Kind : uint8_t {
    py,           // a Python int / float / bool / None / str (`py`)
    tuple,        // a Python tuple or list (`items`; `is_list`)
    scalar,       // a runtime scalar (`expr`)
    tensor,       // a runtime vector (cols == 0) or matrix, row-major `elems`
    array,        // an ndarray parameter (`param`)
    shape,        // `arr.shape` (`param`)
    func,         // a def of the tree (`def`)
    api,          // a quadrants object by path ("math.sqrt", "types.vector", "f32", "static")
    builtin,      // a Python builtin (`path`: "range", "len", ...)
    dtype,        // a scalar type (`dtype`)
    tensor_type,  // qd.types.vector(n, dt) / matrix(n, m, dt) (`rows`, `cols`, `dtype`)
    module,       // a module of the tree (`module`)
    range,        // range(start, stop) of compile-time ints (qd.static iteration)
    ndrange,      // qd.ndrange(...): `items` = per-dim tuples (begin, end)
    grouped,      // qd.grouped(x): `items[0]`
    method,       // a bound method: `items[0]` = receiver, `path` = name
    enumerate_,   // enumerate(x) / zip(...) as static iterables: `items`
    zip_,
    formatted,   // an f-string or "...".format(...) (lower_print.cpp): `items` are the pieces,
                 // literal text (a py str) and values (any other Val, spec_value included)
    spec_value,  // a value with a format spec in a formatted string: `items[0]`, `path` = spec
    object,      // a dataclass argument or a qd.template() object (`obj`, lower_object.cpp)
    class_,      // a class of the tree (`cls`): an annotation, an enum, a dataclass type
    // arr[r0:r1, c0:c1] (`path` "tile") or arr[r0:r1, col] ("vec") of an array (`param`), with
    // `cols` leading batch indices (0 or 1) first in `items`, then the bounds (or the column):
    // only what a register tile loads, stores or takes an outer product of (lower_tile.cpp).
    slice_proxy,
    outer,  // qd.outer(a, b): `items` a and b, only as `tile -= qd.outer(a, b)`
  };
  Kind kind = Kind::py;
  sema::Value py;
  std::vector<Val> items;
  bool is_list = false;
  const Expr* expr = nullptr;
  std::vector<const Expr*> elems;
  int32_t rows = 0;
  int32_t cols = 0;  // 0: a vector of `rows` elements
  DType dtype = DType::i32;
  int32_t param = -1;
  sema::DefId def = sema::k_none;
  int32_t module = -1;
  std::string path;
  // ndrange: the iteration order, outermost first, as canonical axes (qd.ndrange(axes=...));
  // empty for the default order (the last axis fastest).
  std::vector<int32_t> order;
  // tensor_type: qd.types.vector(n) / matrix(n, m) without a dtype (a func parameter annotation
  // that keeps the argument's dtype); `dtype` is then meaningless.
  bool any_dtype = false;
  std::shared_ptr<Object> obj;       // object; func: the bound receiver of a method (or null)
  sema::ClassId cls = sema::k_none;  // class_
  // tensor: a register tile (qd.simt.Tile16x16 / Tile32x32): the `rows` registers of this
  // thread's row of the tile (lower_tile.cpp).
  bool tile = false;

  static Val of_py(sema::Value v);
  static Val of_int(int64_t v);
  static Val of_bool(bool v);
  static Val of_scalar(const Expr* e);
  static Val of_tensor(std::vector<const Expr*> elems, int32_t rows, int32_t cols, DType t);
  static Val of_tuple(std::vector<Val> items, bool is_list = false);
  static Val of_api(std::string path);
  static Val of_dtype(DType t);

  bool is_runtime() const { return kind == Kind::scalar || kind == Kind::tensor; }
  bool is_py_number() const;  // int, float or bool
  int32_t size() const { return cols == 0 ? rows : rows * cols; }
  std::string describe() const;  // for messages: "a runtime i32 value", "the tuple (1, 2)", ...
};

// A dataclass argument of the kernel (its members become kernel parameters when first read:
// Quadrants passes only the members an instance uses) or an object given as a qd.template()
// value (a config object: its members are compile-time values). Shared by every copy of the
// Val that holds it, so a member read twice is one parameter.
struct Object : std::enable_shared_from_this<Object> {
  bool dataclass = false;
  sema::ClassId cls = sema::k_none;           // its class in the tree (k_none: not found)
  std::string class_name;                     // as the instance names it ("pkg.mod.DofsState")
  std::string path;                           // from the kernel parameter: "dyn_state.dofs"
  const sema::ConfigValue* values = nullptr;  // the instance's table for it (null: none)
  std::vector<int32_t> order;  // where its members go in the argument list (lower_object.cpp)
  std::map<std::string, Val, std::less<>> members;  // read so far
  // A struct field (qd.types.struct(...).field(...), lower_field.cpp): each member is a field
  // of its own. `parent` set: one element of the struct field `parent`, at `index`.
  bool struct_field = false;
  std::shared_ptr<Object> parent;
  std::vector<Val> index;
  // A qd.Struct(...) value made in the kernel (lower_field.cpp): each member a variable of its
  // own, shared by every binding of the object (a qd.template() parameter takes it by reference).
  bool local_struct = false;
  std::map<std::string, std::shared_ptr<struct Binding>, std::less<>> locals;
};

// A place that can be assigned: a scalar variable, an array element, or a tensor of them.
struct LValue {
  // dynamic: one of `parts` (scalars) chosen by the runtime i32 `index`.
  enum class Kind : uint8_t { var, element, tensor, dynamic } kind = Kind::var;
  int32_t var = -1;
  int32_t array = -1;
  const Expr* index = nullptr;  // element: the flat element index (an expression tree that is
                                // evaluated where the place is used, as Quadrants re-evaluates
                                // an index expression at every use)
  DType type = DType::i32;
  std::vector<LValue> parts;  // tensor: row-major
  int32_t rows = 0, cols = 0;
};

// What a local name is bound to.
struct Binding {
  // ref: a qd.template() func parameter bound to an assignable place of the caller (an array
  // element, a vector component, ...): reads load it, assignments store into it (§1.8).
  enum class Kind : uint8_t { var, tensor_var, value, ref };
  Kind kind = Kind::value;
  int32_t var = -1;            // var: the scalar variable
  std::vector<int32_t> vars;   // tensor_var: one variable per element, row-major
  int32_t rows = 0, cols = 0;  // tensor_var shape
  DType dtype = DType::i32;    // tensor_var element type
  Val value;                   // value: a compile-time value (or array / func / ...)
  LValue ref;                  // ref: the caller's place
  bool tile = false;           // tensor_var: a register tile (Val::tile)
  bool immutable = false;      // kernel parameters, loop variables
  bool fixed = false;          // value: a qd.template() func parameter or qd.static loop
                               // variable bound to a value that is not assignable (`what`)
  std::string what;            // "kernel argument", "loop variable", "qd.template() parameter"
};

using BindingRef = std::shared_ptr<Binding>;

}  // namespace qd::ir::lower
