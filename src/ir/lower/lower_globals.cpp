// Module-level values (docs/language.md §0: globals are read at compile time and baked in)
// and attribute access on compile-time objects.
#include <cmath>
#include <limits>

#include "ir/lower/lowerer.hpp"
#include "sema/resolve.hpp"

namespace qd::ir::lower {

std::string Lowerer::api_path(std::string_view path) {
  size_t dot = path.find('.');
  std::string p = dot == std::string_view::npos ? std::string() : std::string(path.substr(dot + 1));
  // Quadrants' own modules import the public names from where they are defined
  // (quadrants/_kernels.py: `from quadrants.lang.impl import grouped, static`): the same objects.
  static const std::pair<std::string_view, std::string_view> k_internal[] = {
      {"lang.impl.", ""},
      {"lang.misc.", ""},
      {"lang._ndrange.", ""},
      {"lang.kernel_impl.", ""},
      {"lang.ops.", ""},
      {"types.annotations.", ""},
      {"types.primitive_types.", ""},
      {"types.ndarray_type.", "types."},
  };
  for (auto [prefix, public_prefix] : k_internal) {
    if (p.starts_with(prefix) && p != "lang.impl.get_runtime" &&
        p.find('.', prefix.size()) == std::string::npos) {
      return std::string(public_prefix) + p.substr(prefix.size());
    }
  }
  return p;
}

std::optional<DType> Lowerer::dtype_of_api(const std::string& path) const {
  std::string_view p = path;
  if (p.starts_with("types.")) {
    p.remove_prefix(6);
  }
  if (p == "int") {
    return m_default_ip;
  }
  if (p == "float") {
    return m_default_fp;
  }
  if (p.find('.') != std::string_view::npos) {
    return std::nullopt;
  }
  return dtype_from_name(p);
}

Val Lowerer::api_constant(const std::string& path, const ast::Pos& pos, bool* ok) {
  *ok = true;
  std::string_view p = path;
  if (p.starts_with("math.")) {
    p.remove_prefix(5);
  }
  if (p == "pi") {
    return Val::of_py(sema::Value::floating(M_PI));
  }
  if (p == "e") {
    return Val::of_py(sema::Value::floating(M_E));
  }
  if (p == "tau") {
    return Val::of_py(sema::Value::floating(2.0 * M_PI));
  }
  if (p == "inf") {
    return Val::of_py(sema::Value::floating(std::numeric_limits<double>::infinity()));
  }
  if (p == "nan") {
    return Val::of_py(sema::Value::floating(std::numeric_limits<double>::quiet_NaN()));
  }
  if (auto t = dtype_of_api(path)) {
    return Val::of_dtype(*t);
  }
  if (path == "lang.impl.get_runtime().default_fp") {
    return Val::of_dtype(m_default_fp);
  }
  if (path == "lang.impl.get_runtime().default_ip") {
    return Val::of_dtype(m_default_ip);
  }
  if (path == "f16" || path == "float16" || path == "types.f16") {
    unsupported(pos, "f16");
  }
  // Fixed vector / matrix types of qd.math.
  if (path.starts_with("math.") && path.size() >= 9) {
    std::string_view last = std::string_view(path).substr(5);
    char n = last.back();
    if (n >= '2' && n <= '4') {
      std::string_view head = last.substr(0, last.size() - 1);
      Val t;
      t.kind = Val::Kind::tensor_type;
      t.rows = n - '0';
      if (head == "vec" || head == "ivec" || head == "uvec") {
        t.dtype = head == "vec" ? DType::f32 : head == "ivec" ? DType::i32 : DType::u32;
        return t;
      }
      if (head == "mat") {
        t.cols = t.rows;
        t.dtype = DType::f32;
        return t;
      }
    }
  }
  *ok = false;
  return {};
}

Val Lowerer::eval_module_expr(int32_t module, const ast::Expr* e) {
  Frame f;
  f.module = module;
  f.scopes.emplace_back();
  m_frames.push_back(std::move(f));
  std::vector<Loop> saved_loops;
  saved_loops.swap(m_loops);
  Val v = eval(e);
  m_loops.swap(saved_loops);
  m_frames.pop_back();
  if (v.is_runtime()) {
    fail(e->pos, "QD206", "a module-level value must be a compile-time constant");
  }
  return v;
}

Val Lowerer::global(int32_t module, std::string_view name, const ast::Pos& pos) {
  sema::Entity e = sema::lookup_global(*m_in.program, module, name);
  return from_entity(e, pos, name);
}

Val Lowerer::from_entity(const sema::Entity& e, const ast::Pos& pos, std::string_view what,
                         int32_t via_module) {
  using EK = sema::Entity::Kind;
  // The expression a module-level binding was made from (to evaluate what sema's constant
  // evaluator leaves open: `vec3 = qd.types.vector(3, qd.f32)`).
  auto binding_expr = [&]() -> Val {
    int32_t where = -1;
    const sema::Binding* bp = nullptr;
    if (e.module >= 0) {
      std::string name = e.path.substr(e.path.rfind('.') + 1);
      bp = sema::final_binding(*m_in.program, e.module,
                               name.ends_with("()") ? std::string(what) : name, where);
    }
    if (bp == nullptr && via_module >= 0) {
      // `pkg.NAME` read through the module that binds NAME (a define, an import chain).
      bp = sema::final_binding(*m_in.program, via_module, what, where);
    }
    if (bp == nullptr) {
      bp = sema::final_binding(*m_in.program, frame().module, what, where);
    }
    if (bp == nullptr) {
      return Val::of_py(sema::Value::unknown("no binding"));
    }
    const sema::Binding& b = *bp;
    if (b.kind != sema::Binding::Kind::value || b.expr == nullptr || b.aug != nullptr ||
        b.conditional) {
      return Val::of_py(sema::Value::unknown("not a plain assignment"));
    }
    Val v = eval_module_expr(where, b.expr);
    if (b.tuple_index >= 0) {
      std::vector<Val> items = static_items(v, pos);
      if (b.tuple_index >= static_cast<int32_t>(items.size())) {
        fail(pos, "QD206", "cannot unpack the module-level value of '" + std::string(what) + "'");
      }
      return items[b.tuple_index];
    }
    return v;
  };
  switch (e.kind) {
    case EK::undefined: fail(pos, "QD203", "name '" + std::string(what) + "' is not defined");
    case EK::unknown:
      fail(pos, "QD206",
           "'" + std::string(what) + "' cannot be resolved statically" +
               (e.path.empty() ? "" : " (" + e.path + ")"));
    case EK::module: {
      Val v;
      v.kind = Val::Kind::module;
      v.module = e.module;
      return v;
    }
    case EK::external: {
      // Python's math module: constants fold; functions behave like qd.math's.
      if (e.path == "math" || e.path.starts_with("math.")) {
        bool ok = false;
        Val v = api_constant(e.path, pos, &ok);
        if (ok && v.kind == Val::Kind::py) {
          return v;
        }
        return Val::of_api(e.path);
      }
      if (e.path == "numpy" || e.path.starts_with("numpy.")) {
        // numpy at trace time: constants, scalar constructors, nextafter (call_numpy).
        if (e.path == "numpy.pi" || e.path == "numpy.e") {
          return Val::of_py(sema::Value::floating(e.path == "numpy.pi" ? M_PI : M_E));
        }
        Val v;
        v.kind = Val::Kind::builtin;
        v.path = e.path;
        return v;
      }
      unsupported(pos, "'" + e.path + "' (from a module outside the source tree)");
    }
    case EK::quadrants: {
      if (e.path.ends_with("()")) {
        Val v = binding_expr();
        if (v.kind != Val::Kind::py || v.py.known()) {
          return v;
        }
        fail(pos, "QD206",
             "the module-level value '" + std::string(what) + "' cannot be evaluated");
      }
      std::string path = api_path(e.path);
      bool ok = false;
      Val c = api_constant(path, pos, &ok);
      if (ok) {
        return c;
      }
      if (path.empty()) {
        return Val::of_api("");
      }
      return Val::of_api(path);
    }
    case EK::def: {
      Val v;
      v.kind = Val::Kind::func;
      v.def = e.def;
      return v;
    }
    case EK::class_: {
      // An enum's members, a dataclass as an annotation, class constants: used where they are.
      Val v;
      v.kind = Val::Kind::class_;
      v.cls = e.cls;
      return v;
    }
    case EK::value: {
      if (e.value.known()) {
        return py_value(e.value);
      }
      Val v = binding_expr();
      if (v.kind == Val::Kind::py && !v.py.known()) {
        fail(pos, "QD206",
             "the value of '" + std::string(what) + "' is not known at compile time: " + e.value.s);
      }
      return v;
    }
    case EK::instance:
      unsupported(pos, "the module-level object '" + std::string(what) +
                           "' in a kernel (an instance of a class, e.g. @qd.data_oriented; "
                           "pass what the kernel needs as parameters)");
    case EK::field:
      fail(pos, "QD201",
           "the field '" + std::string(what) +
               "': a module-level field is not supported in compiled kernels (a kernel takes "
               "the fields of its @qd.data_oriented object, docs/language.md 1.11); hold it in "
               "such an object or pass a qd.ndarray parameter");
    case EK::ndarray:
      fail(pos, "QD206",
           "the ndarray '" + std::string(what) +
               "' is captured from module scope: pass it as a kernel parameter");
    case EK::builtin: {
      Val v;
      v.kind = Val::Kind::builtin;
      v.path = e.path.empty() ? std::string(what) : e.path;
      return v;
    }
  }
  fail(pos, "QD206", "'" + std::string(what) + "' cannot be resolved");
}

Val Lowerer::member(const Val& base, std::string_view attr, const ast::Pos& pos) {
  switch (base.kind) {
    case Val::Kind::object: return object_member(base, attr, pos);
    case Val::Kind::class_: return class_attribute(base.cls, attr, pos);
    case Val::Kind::builtin:
      if (base.path == "numpy") {
        if (attr == "pi" || attr == "e" || attr == "inf") {
          return Val::of_py(sema::Value::floating(attr == "pi" ? M_PI
                                                  : attr == "e"
                                                      ? M_E
                                                      : std::numeric_limits<double>::infinity()));
        }
        Val v = base;
        v.path = "numpy." + std::string(attr);
        return v;
      }
      break;
    case Val::Kind::module: {
      sema::Entity m;
      m.kind = sema::Entity::Kind::module;
      m.module = base.module;
      m.path = m_in.program->modules[base.module].name;
      return from_entity(sema::member_of(*m_in.program, m, attr), pos, attr, base.module);
    }
    case Val::Kind::api: {
      if (base.path.starts_with(k_field_snode)) {
        // A field's SNode (f.snode): recorded fields have no offset (record.py refuses one).
        if (base.path == k_field_snode && attr == "ptr") {
          return Val::of_api(std::string(k_field_snode) + ".ptr");
        }
        if (base.path == std::string(k_field_snode) + ".ptr" && attr == "offset") {
          return Val::of_py(sema::Value::tuple({}));
        }
        unsupported(pos, "'" + std::string(attr) +
                             "' of a field's SNode (kernels read only f.snode.ptr.offset)");
      }
      // (`from quadrants.lang import ops` then ops.cast: the public qd.cast)
      std::string path =
          api_path("quadrants." +
                   (base.path.empty() ? std::string(attr) : base.path + "." + std::string(attr)));
      bool ok = false;
      Val c = api_constant(path, pos, &ok);
      if (ok) {
        return c;
      }
      return Val::of_api(path);
    }
    case Val::Kind::array: {
      if (attr == "shape" && m_kernel->params[base.param].field) {
        std::vector<sema::Value> dims;  // a field's shape: compile-time, as in Quadrants
        for (int64_t d : m_kernel->params[base.param].field_shape) {
          dims.push_back(sema::Value::integer(d));
        }
        return Val::of_py(sema::Value::tuple(std::move(dims)));
      }
      if (m_kernel->params[base.param].field) {
        bool ok = false;
        Val v = field_attribute(base, attr, pos, &ok);
        if (ok) {
          return v;
        }
      }
      if (attr == "fill") {
        Val f;
        f.kind = Val::Kind::method;
        f.items.push_back(base);
        f.path = "fill";
        return f;
      }
      if (attr == "shape") {
        Val v;
        v.kind = Val::Kind::shape;
        v.param = base.param;
        return v;
      }
      if (attr == "ndim") {
        return Val::of_int(m_kernel->params[base.param].ndim);
      }
      if (attr == "dtype") {
        return Val::of_dtype(m_kernel->params[base.param].dtype);
      }
      if (attr == "grad" || attr == "dual") {
        fail(pos, "QD201",
             "'" + m_kernel->params[base.param].name + "." + std::string(attr) +
                 "': autodiff is not supported in compiled kernels (qdbuild builds forward "
                 "kernels only: no gradient ndarrays, needs_grad=True, kernel.grad or qd.ad); "
                 "run gradient kernels under Quadrants");
      }
      unsupported(pos, "the ndarray attribute '" + std::string(attr) + "'");
    }
    case Val::Kind::tensor: {
      bool ok = false;
      Val v = swizzle(base, attr, pos, &ok);
      if (ok) {
        return v;
      }
      if (attr == "n") {
        return Val::of_int(base.rows);
      }
      if (attr == "m") {
        if (base.cols == 0) {
          type_error(pos, "'.m' of a vector: a vector has one dimension (Quadrants: Getting m of "
                          "tensor type < 2D); use .n");
        }
        return Val::of_int(base.cols);
      }
      Val m;
      m.kind = Val::Kind::method;
      m.items.push_back(base);
      m.path = std::string(attr);
      return m;
    }
    case Val::Kind::py:
      if (base.py.kind == sema::Value::Kind::integer && attr == "bit_length") {
        Val m;  // int.bit_length() of a compile-time int (lower_func_call.cpp)
        m.kind = Val::Kind::method;
        m.items.push_back(base);
        m.path = "bit_length";
        return m;
      }
      if (base.py.kind == sema::Value::Kind::string && attr == "format") {
        Val m;  // "...".format(...) (lower_print.cpp)
        m.kind = Val::Kind::method;
        m.items.push_back(base);
        m.path = "format";
        return m;
      }
      break;
    case Val::Kind::func:
      if (attr == "grad") {
        fail(pos, "QD201",
             "'" + m_in.program->def_id(base.def) +
                 ".grad': autodiff is not supported in compiled kernels (qdbuild builds forward "
                 "kernels only); run gradient kernels under Quadrants");
      }
      break;
    case Val::Kind::tensor_type: {
      if (attr == "n") {
        return Val::of_int(base.rows);
      }
      if (attr == "m") {
        return Val::of_int(base.cols == 0 ? 1 : base.cols);
      }
      break;
    }
    default: break;
  }
  unsupported(pos, "the attribute '" + std::string(attr) + "' of " + base.describe());
}

}  // namespace qd::ir::lower
