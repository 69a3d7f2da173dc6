#include "sema/signature.hpp"

#include <algorithm>
#include <array>

namespace qd::sema {

namespace ast = syntax::ast;
using EK = Entity::Kind;
using PK = ParamType::Kind;

const char* name_of(ParamType::Kind k) {
  switch (k) {
    case PK::ndarray: return "ndarray";
    case PK::torch_tensor: return "torch_tensor";
    case PK::numpy_array: return "numpy_array";
    case PK::dataclass: return "dataclass";
    case PK::data_oriented: return "data_oriented";
    case PK::template_: return "template";
    case PK::primitive: return "primitive";
    case PK::enum_: return "enum";
    case PK::vector: return "vector";
    case PK::matrix: return "matrix";
    case PK::struct_: return "struct";
    case PK::tensor: return "tensor";
    case PK::field: return "field";
    case PK::any: return "any";
    case PK::invalid: return "invalid";
  }
  return "?";
}

bool ParamType::partial() const {
  switch (kind) {
    case PK::template_:
    case PK::tensor:
    case PK::torch_tensor:
    case PK::numpy_array: return true;
    case PK::ndarray: return dtype.empty() || ndim < 0;
    default: return false;
  }
}

std::string Signature::text() const {
  std::string out = "(";
  for (size_t k = 0; k < params.size(); ++k) {
    out += (k > 0 ? ", " : "") + params[k].name + ": " + params[k].type.text;
  }
  return out + ") -> " + returns;
}

namespace {

constexpr int k_max_signature_depth = 16;

std::string canonical_primitive(std::string_view n) {
  static constexpr std::array<std::string_view, 12> k_prims = {
      "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64", "f16", "f32", "f64"};
  for (std::string_view p : k_prims) {
    if (n == p) {
      return std::string(p);
    }
  }
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 11> k_alias = {
      {{"int8", "i8"},
       {"int16", "i16"},
       {"int32", "i32"},
       {"int64", "i64"},
       {"uint8", "u8"},
       {"uint16", "u16"},
       {"uint32", "u32"},
       {"uint64", "u64"},
       {"float16", "f16"},
       {"float32", "f32"},
       {"float64", "f64"}}};
  for (auto [a, c] : k_alias) {
    if (n == a) {
      return std::string(c);
    }
  }
  return {};
}

std::string last_component(std::string_view path) {
  size_t dot = path.rfind('.');
  return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1));
}

ParamType invalid(std::string msg) {
  ParamType t;
  t.kind = PK::invalid;
  t.text = "<invalid>";
  t.error = std::move(msg);
  return t;
}

class Classifier {
public:
  explicit Classifier(const Program& p) : m_p(p) {}

  ParamType classify(int32_t module, const ast::Expr* e, int depth) {
    if (depth > k_max_signature_depth) {
      return invalid("the annotation's aliases nest too deeply");
    }
    if (const auto* c = e->as<ast::Constant>()) {
      if (c->value.kind == ast::ConstantValue::Kind::Str) {
        Entity ent = lookup_global(m_p, module, c->value.text);
        if (ent.kind == EK::class_) {
          return from_class(ent.cls);
        }
        return invalid("the string annotation '" + std::string(c->value.text) +
                       "' does not name a class of the source tree");
      }
      if (c->value.kind == ast::ConstantValue::Kind::None) {
        ParamType t;
        t.kind = PK::any;
        t.text = "None";
        return t;
      }
      return invalid("a constant is not a type");
    }
    if (const auto* s = e->as<ast::Subscript>()) {
      Entity base = resolve_expr(m_p, module, s->value);
      if (base.kind == EK::quadrants && last_component(base.path) == "NDArray") {
        std::vector<const ast::Expr*> items;
        if (const auto* t = s->slice->as<ast::Tuple>()) {
          items.assign(t->elts.begin(), t->elts.end());
        } else {
          items.push_back(s->slice);
        }
        return ndarray(module, items.size() > 0 ? items[0] : nullptr,
                       items.size() > 1 ? items[1] : nullptr, {}, depth);
      }
      if (base.kind == EK::builtin && base.path == "tuple") {
        ParamType t;
        t.kind = PK::any;
        t.text = "tuple[";
        std::vector<const ast::Expr*> items;
        if (const auto* tu = s->slice->as<ast::Tuple>()) {
          items.assign(tu->elts.begin(), tu->elts.end());
        } else {
          items.push_back(s->slice);
        }
        for (size_t k = 0; k < items.size(); ++k) {
          ParamType it = classify(module, items[k], depth + 1);
          if (it.kind == PK::invalid) {
            return it;
          }
          t.text += (k > 0 ? ", " : "") + it.text;
        }
        t.text += "]";
        return t;
      }
      return invalid("a subscripted '" +
                     display_path(base.path.empty() ? name_of(base.kind) : base.path) +
                     "' is not a parameter type (expected qd.types.NDArray[dtype, ndim])");
    }
    if (const auto* c = e->as<ast::Call>()) {
      Entity f = resolve_expr(m_p, module, c->func);
      if (f.kind != EK::quadrants) {
        return invalid("a call to something other than a quadrants type constructor is not an "
                       "annotation qdbuild can read");
      }
      std::string_view path = f.path;
      std::string last = last_component(path);
      if (path.ends_with("types.ndarray") || last == "ndarray") {
        const ast::Expr* dt = c->args.size > 0 ? c->args[0] : nullptr;
        const ast::Expr* nd = c->args.size > 1 ? c->args[1] : nullptr;
        std::string options;
        for (const ast::Keyword* k : c->keywords) {
          if (ast::is_absent(k->arg)) {
            return invalid("**kwargs in qd.types.ndarray(...) cannot be read statically");
          }
          if (k->arg == "dtype") {
            dt = k->value;
          } else if (k->arg == "ndim") {
            nd = k->value;
          } else if (k->arg == "needs_grad" || k->arg == "boundary" || k->arg == "layout" ||
                     k->arg == "element_dim" || k->arg == "element_shape") {
            Value v = evaluate(m_p, module, k->value);
            if (!v.known() && k->arg != "layout") {
              return invalid("qd.types.ndarray(" + std::string(k->arg) +
                             "=...) is not a constant: " + v.s);
            }
            options += ", " + std::string(k->arg) + "=" + (v.known() ? repr(v) : "<layout>");
          } else {
            return invalid("qd.types.ndarray() has no parameter '" + std::string(k->arg) + "'");
          }
        }
        return ndarray(module, dt, nd, options, depth);
      }
      if (last == "template") {
        ParamType t;
        t.kind = PK::template_;
        t.text = "template";
        return t;
      }
      if (last == "vector" || last == "matrix") {
        return vector_type(module, c, last == "matrix", depth);
      }
      if (last == "struct") {
        ParamType t;
        t.kind = PK::struct_;
        t.text = "struct(" + std::to_string(c->keywords.size) + " fields)";
        return t;
      }
      return invalid("'" + display_path(path) + "(...)' is not a parameter type");
    }
    if (e->as<ast::Name>() == nullptr && e->as<ast::Attribute>() == nullptr) {
      return invalid("this expression is not a type qdbuild can read");
    }
    // A module-level alias (`vec3 = qd.types.vector(3, qd.f32)`): classify what was assigned.
    int32_t alias_module = k_none;
    if (const ast::Expr* alias = alias_expr(module, e, alias_module)) {
      return classify(alias_module, alias, depth + 1);
    }
    Entity ent = resolve_expr(m_p, module, e);
    switch (ent.kind) {
      case EK::quadrants: return from_quadrants(ent.path);
      case EK::builtin:
        if (ent.path == "int" || ent.path == "float" || ent.path == "bool") {
          ParamType t;
          t.kind = PK::primitive;
          t.dtype = ent.path;
          t.text = ent.path;
          return t;
        }
        return invalid("the builtin '" + ent.path + "' is not a parameter type");
      case EK::class_: return from_class(ent.cls);
      case EK::external:
        if (ent.path == "torch.Tensor") {
          ParamType t;
          t.kind = PK::torch_tensor;
          t.text = "torch.Tensor";
          return t;
        }
        if (ent.path == "numpy.ndarray") {
          ParamType t;
          t.kind = PK::numpy_array;
          t.text = "numpy.ndarray";
          return t;
        }
        return invalid("'" + ent.path +
                       "' is outside the source tree and not a parameter type "
                       "qdbuild knows (torch.Tensor, numpy.ndarray)");
      case EK::undefined: return invalid("name '" + text_of(e) + "' is not defined");
      default: break;
    }
    return invalid("'" + text_of(e) + "' is a " + name_of(ent.kind) + ", not a type");
  }

private:
  static std::string text_of(const ast::Expr* e) {
    if (const auto* n = e->as<ast::Name>()) {
      return std::string(n->id);
    }
    if (const auto* a = e->as<ast::Attribute>()) {
      return text_of(a->value) + "." + std::string(a->attr);
    }
    return "<expression>";
  }

  // The expression a module-level name (or mod.name) was last assigned, if unconditional.
  const ast::Expr* alias_expr(int32_t module, const ast::Expr* e, int32_t& out_module) {
    std::string_view name;
    if (const auto* n = e->as<ast::Name>()) {
      name = n->id;
    } else if (const auto* a = e->as<ast::Attribute>()) {
      Entity base = resolve_expr(m_p, module, a->value);
      if (base.kind != EK::module) {
        return nullptr;
      }
      module = base.module;
      name = a->attr;
    } else {
      return nullptr;
    }
    int32_t where = k_none;
    const Binding* b = final_binding(m_p, module, name, where);
    if (b != nullptr && b->kind == Binding::Kind::value && !b->conditional && b->aug == nullptr &&
        b->tuple_index < 0) {
      out_module = where;
      return b->expr;
    }
    return nullptr;
  }

  std::string dtype_of(int32_t module, const ast::Expr* e, int depth, std::string& error) {
    ParamType t = classify(module, e, depth + 1);
    if (t.kind == PK::primitive || t.kind == PK::vector || t.kind == PK::matrix) {
      return t.kind == PK::primitive ? t.dtype : t.text;
    }
    error = t.kind == PK::invalid ? t.error : "'" + t.text + "' is not a dtype";
    return {};
  }

  ParamType ndarray(int32_t module, const ast::Expr* dt, const ast::Expr* nd,
                    const std::string& options, int depth) {
    ParamType t;
    t.kind = PK::ndarray;
    t.options = options;
    if (dt != nullptr && !(dt->as<ast::Constant>() != nullptr &&
                           dt->as<ast::Constant>()->value.kind == ast::ConstantValue::Kind::None)) {
      std::string error;
      t.dtype = dtype_of(module, dt, depth, error);
      if (t.dtype.empty()) {
        return invalid("the ndarray dtype is not understood: " + error);
      }
    }
    if (nd != nullptr) {
      Value v = evaluate(m_p, module, nd);
      if (v.kind != Value::Kind::integer && !(v.kind == Value::Kind::none)) {
        return invalid("the ndarray ndim is not a constant int" + (v.known() ? "" : ": " + v.s));
      }
      if (v.kind == Value::Kind::integer) {
        if (v.iv < 0 || v.iv > 64) {
          return invalid("the ndarray ndim " + int_text(v.iv) + " is out of range");
        }
        t.ndim = static_cast<int32_t>(v.iv);
      }
    }
    t.text = "ndarray(" + (t.dtype.empty() ? std::string("?") : t.dtype) + ", " +
             (t.ndim < 0 ? std::string("?") : std::to_string(t.ndim)) + options + ")";
    return t;
  }

  ParamType vector_type(int32_t module, const ast::Call* c, bool matrix, int depth) {
    size_t dims = matrix ? 2 : 1;
    std::vector<const ast::Expr*> args(c->args.begin(), c->args.end());
    for (const ast::Keyword* k : c->keywords) {
      if (!ast::is_absent(k->arg) && (k->arg == "dtype" || k->arg == "dt")) {
        args.resize(std::max(args.size(), dims + 1), nullptr);
        args[dims] = k->value;
      } else if (!ast::is_absent(k->arg) && (k->arg == "n" || k->arg == "m")) {
        size_t at = k->arg == "n" ? 0 : 1;
        args.resize(std::max(args.size(), at + 1), nullptr);
        args[at] = k->value;
      }
    }
    if (args.size() < dims + 1) {
      return invalid(std::string("qd.types.") +
                     (matrix ? "matrix(n, m, dtype)" : "vector(n, dtype)") +
                     " needs its size and dtype");
    }
    std::string shape;
    for (size_t k = 0; k < dims; ++k) {
      Value v = args[k] != nullptr ? evaluate(m_p, module, args[k]) : Value::unknown("missing");
      if (v.kind != Value::Kind::integer) {
        return invalid("the vector/matrix size is not a constant int" +
                       (v.known() ? "" : ": " + v.s));
      }
      if (v.iv < 1 || v.iv > 1024) {
        return invalid("the vector/matrix size " + int_text(v.iv) + " is out of range");
      }
      shape += (k > 0 ? ", " : "") + int_text(v.iv);
    }
    std::string error;
    std::string dt = args[dims] != nullptr ? dtype_of(module, args[dims], depth, error) : "";
    if (dt.empty()) {
      return invalid("the vector/matrix dtype is not understood: " + error);
    }
    ParamType t;
    t.kind = matrix ? PK::matrix : PK::vector;
    t.dtype = dt;
    t.text = std::string(matrix ? "matrix(" : "vector(") + shape + ", " + dt + ")";
    return t;
  }

  ParamType from_quadrants(const std::string& path) {
    std::string last = last_component(path);
    ParamType t;
    std::string prim = canonical_primitive(last);
    if (!prim.empty()) {
      t.kind = PK::primitive;
      t.dtype = prim;
      t.text = prim;
      return t;
    }
    if (last == "Template" || last == "template") {
      t.kind = PK::template_;
      t.text = "template";
      return t;
    }
    if (last == "NDArray" || last == "ndarray") {
      t.kind = PK::ndarray;
      t.text = "ndarray(?, ?)";
      return t;
    }
    if (last == "Tensor") {
      t.kind = PK::tensor;
      t.text = "tensor";
      return t;
    }
    if (last == "ScalarField" || last == "MatrixField" || last == "Field" ||
        last == "StructField" || last == "field") {
      t.kind = PK::field;
      t.text = "field (" + display_path(path) + ")";
      return t;
    }
    // qd.math.vec2..4 / ivecN / uvecN / mat2..4 (fixed element types).
    if (path.find(".math.") != std::string::npos && last.size() == 4) {
      char n = last[3];
      if (n >= '2' && n <= '4') {
        std::string head = last.substr(0, 3);
        if (head == "vec" || head == "mat") {
          t.kind = head == "vec" ? PK::vector : PK::matrix;
          t.dtype = "f32";
          t.text = head == "vec" ? std::string("vector(") + n + ", f32)"
                                 : std::string("matrix(") + n + ", " + n + ", f32)";
          return t;
        }
      }
    }
    if (path.find(".math.") != std::string::npos && last.size() == 5 &&
        (last.starts_with("ivec") || last.starts_with("uvec")) && last[4] >= '2' &&
        last[4] <= '4') {
      t.kind = PK::vector;
      t.dtype = last[0] == 'i' ? "i32" : "u32";
      t.text = std::string("vector(") + last[4] + ", " + t.dtype + ")";
      return t;
    }
    return invalid("'" + display_path(path) + "' is not a parameter type qdbuild knows");
  }

  ParamType from_class(ClassId cls) {
    const ClassInfo& c = m_p.classes[cls];
    ParamType t;
    t.cls = cls;
    std::string path = class_path(m_p, cls);
    if (c.is_enum) {
      t.kind = PK::enum_;
      t.text = "enum " + path;
    } else if (c.dataclass) {
      t.kind = PK::dataclass;
      t.text = "dataclass " + path;
    } else if (c.qd_struct) {
      t.kind = PK::struct_;
      t.text = "struct " + path;
    } else if (is_data_oriented(m_p, cls)) {
      t.kind = PK::data_oriented;
      t.text = "data_oriented " + path;
    } else {
      return invalid("class '" + path +
                     "' is not a dataclass, an enum, a @qd.dataclass or a @qd.data_oriented class");
    }
    return t;
  }

  const Program& m_p;
};

}  // namespace

ParamType classify_annotation(const Program& p, int32_t module, const ast::Expr* annotation) {
  return Classifier(p).classify(module, annotation, 0);
}

Signature signature_of(const Program& p, DefId def) {
  const DefInfo& d = p.defs[def];
  Signature sig;
  std::vector<const ast::Arg*> params;
  for (const ast::Arg* a : d.args->posonlyargs) {
    params.push_back(a);
  }
  for (const ast::Arg* a : d.args->args) {
    params.push_back(a);
  }
  for (const ast::Arg* a : d.args->kwonlyargs) {
    params.push_back(a);
  }
  for (size_t k = 0; k < params.size(); ++k) {
    const ast::Arg* a = params[k];
    Param param;
    param.name = std::string(a->arg);
    param.span = {a->pos.lineno, a->pos.col_offset, a->pos.end_lineno, a->pos.end_col_offset};
    if (k == 0 && d.owner != k_none && a->annotation == nullptr) {
      param.is_self = true;
      ClassId cls = d.owner;
      param.type.cls = cls;
      std::string subclasses;
      if (!is_data_oriented(p, cls)) {
        // A kernel of a plain base class is called on instances of its @qd.data_oriented
        // subclasses (Genesis's PathPlanner / RRT): Quadrants checks the instance's class.
        for (ClassId c = 0; c < static_cast<ClassId>(p.classes.size()); ++c) {
          const std::vector<ClassId>& bases = p.classes[c].base_ids;
          if (c != cls && is_data_oriented(p, c) &&
              std::find(bases.begin(), bases.end(), cls) != bases.end()) {
            subclasses += (subclasses.empty() ? "" : ", ") + class_path(p, c);
          }
        }
      }
      if (is_data_oriented(p, cls) || !subclasses.empty()) {
        param.type.kind = PK::data_oriented;
        param.type.text = "data_oriented " + class_path(p, cls) +
                          (subclasses.empty() ? "" : " (through a subclass: " + subclasses + ")");
      } else {
        param.type = invalid("'" + param.name + "' of a method of '" + class_path(p, cls) +
                             "', which is not @qd.data_oriented");
      }
    } else if (a->annotation == nullptr) {
      if (d.role == DefRole::kernel) {
        param.type = invalid("parameter '" + param.name +
                             "' has no annotation (every kernel parameter needs one)");
      } else {
        param.type.kind = PK::any;
        param.type.text = "any";
      }
    } else {
      param.type = classify_annotation(p, d.module, a->annotation);
    }
    sig.params.push_back(std::move(param));
  }
  if (d.returns == nullptr) {
    sig.returns = "None";
  } else {
    ParamType r = classify_annotation(p, d.module, d.returns);
    sig.returns = r.kind == PK::invalid ? "<" + r.error + ">" : r.text;
  }
  return sig;
}

}  // namespace qd::sema
