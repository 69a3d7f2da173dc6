#include "ir/lower/val.hpp"

namespace qd::ir::lower {

Val Val::of_py(sema::Value v) {
  Val x;
  x.kind = Kind::py;
  x.py = std::move(v);
  return x;
}
Val Val::of_int(int64_t v) { return of_py(sema::Value::integer(v)); }
Val Val::of_bool(bool v) { return of_py(sema::Value::boolean(v)); }
Val Val::of_scalar(const Expr* e) {
  Val x;
  x.kind = Kind::scalar;
  x.expr = e;
  return x;
}
Val Val::of_tensor(std::vector<const Expr*> elems, int32_t rows, int32_t cols, DType t) {
  Val x;
  x.kind = Kind::tensor;
  x.elems = std::move(elems);
  x.rows = rows;
  x.cols = cols;
  x.dtype = t;
  return x;
}
Val Val::of_tuple(std::vector<Val> items, bool is_list) {
  Val x;
  x.kind = Kind::tuple;
  x.items = std::move(items);
  x.is_list = is_list;
  return x;
}
Val Val::of_api(std::string path) {
  Val x;
  x.kind = Kind::api;
  x.path = std::move(path);
  return x;
}
Val Val::of_dtype(DType t) {
  Val x;
  x.kind = Kind::dtype;
  x.dtype = t;
  return x;
}

bool Val::is_py_number() const {
  return kind == Kind::py &&
         (py.kind == sema::Value::Kind::integer || py.kind == sema::Value::Kind::floating ||
          py.kind == sema::Value::Kind::boolean);
}

std::string Val::describe() const {
  switch (kind) {
    case Kind::py: return "the " + sema::type_name(py) + " " + sema::repr(py);
    case Kind::tuple: return is_list ? "a list" : "a tuple";
    case Kind::scalar: return std::string("a runtime ") + name_of(expr->type) + " value";
    case Kind::tensor:
      if (tile) {
        return "a register tile of " + std::to_string(rows) + " " + name_of(dtype) + " rows";
      }
      return cols == 0 ? "a vector of " + std::to_string(rows) + " " + name_of(dtype)
                       : "a " + std::to_string(rows) + "x" + std::to_string(cols) + " " +
                             name_of(dtype) + " matrix";
    case Kind::array: return "an ndarray";
    case Kind::shape: return "an ndarray shape";
    case Kind::func: return "a function";
    case Kind::api: return "qd." + path;
    case Kind::builtin: return "the builtin " + path;
    case Kind::dtype: return std::string("the type ") + name_of(dtype);
    case Kind::tensor_type: return "a vector/matrix type";
    case Kind::module: return "a module";
    case Kind::range: return "a range";
    case Kind::ndrange: return "qd.ndrange(...)";
    case Kind::grouped: return "qd.grouped(...)";
    case Kind::method: return "the method " + path;
    case Kind::enumerate_: return "enumerate(...)";
    case Kind::zip_: return "zip(...)";
    case Kind::formatted: return "a formatted string";
    case Kind::spec_value: return "a formatted value";
    case Kind::object:
      return (obj && obj->dataclass ? "the dataclass argument '" : "the object '") +
             (obj ? obj->path : std::string("?")) + "'";
    case Kind::class_: return "a class";
    case Kind::slice_proxy:
      return path == "tile" ? "an array slice arr[r0:r1, c0:c1] (a tile's rows)"
                            : "an array column arr[r0:r1, col]";
    case Kind::outer: return "qd.outer(a, b)";
  }
  return "a value";
}

}  // namespace qd::ir::lower
