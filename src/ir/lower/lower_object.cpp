// Dataclass arguments, qd.template() objects and classes of the tree (docs/language.md §1):
// what Quadrants' FunctionDefTransformer and _recursive_set_args do when a kernel takes a frozen
// dataclass or a config object.
//
// A dataclass parameter is not one argument. Each member the instance reads becomes a kernel
// parameter of its own, named by its member path ("dyn_state.dofs.pos"); members it does not read
// take no argument (Quadrants prunes them the same way). Members are materialized when first
// read, then finish_params() puts every parameter in the documented order: the kernel's
// parameters in signature order, each dataclass expanded in place in dataclasses.fields() order
// (base-class fields first, depth first into nested dataclasses), then the ndarray members of
// qd.template() objects. ClassVar fields are class attributes; Final fields are compile-time
// values of the instance; every other member (FIELD_METADATA_CACHE_VALUE ones too) an argument.
//
// A qd.template() parameter holding an object (a config object with fields and properties, as a
// recorded run writes it) is a compile-time value: reading a member gives its recorded value.
#include <algorithm>
#include <numeric>

#include "ir/lower/lowerer.hpp"
#include "sema/resolve.hpp"
#include "sema/signature.hpp"

namespace qd::ir::lower {

namespace {

using PK = sema::ParamType::Kind;

// The typing wrapper an annotation is: "ClassVar", "Final", "InitVar" or "".
std::string_view wrapper_of(const ast::Expr* annotation) {
  const ast::Expr* e = annotation;
  if (const auto* s = e->as<ast::Subscript>()) {
    e = s->value;
  }
  std::string_view name;
  if (const auto* n = e->as<ast::Name>()) {
    name = n->id;
  } else if (const auto* a = e->as<ast::Attribute>()) {
    name = a->attr;
  }
  if (name == "ClassVar" || name == "Final" || name == "InitVar") {
    return name;
  }
  return {};
}

const sema::ConfigValue* table_item(const sema::ConfigValue* v, std::string_view name) {
  if (v == nullptr || !v->is_table) {
    return nullptr;
  }
  auto it = v->table.find(std::string(name));
  return it == v->table.end() ? nullptr : &it->second;
}

bool is_array_table(const sema::ConfigValue& v) {
  return v.is_table && v.table.contains("dtype") && v.table.contains("ndim") &&
         !v.table.contains("__class__");
}

}  // namespace

const Expr* canonical_shape(Kernel& k, int32_t param, int32_t axis) {
  if (k.params[param].field && axis >= 0 &&
      axis < static_cast<int32_t>(k.params[param].field_shape.size())) {
    return k.constant_int(DType::i32, k.params[param].field_shape[axis]);  // fixed at record
  }
  const std::vector<int32_t>& layout = k.params[param].layout;
  for (size_t p = 0; p < layout.size(); ++p) {
    if (layout[p] == axis) {
      return k.shape(param, static_cast<int32_t>(p));
    }
  }
  return k.shape(param, axis);
}

std::vector<Lowerer::DataclassField> Lowerer::dataclass_fields(sema::ClassId cls, int depth) {
  std::vector<DataclassField> out;
  const sema::Program& p = *m_in.program;
  if (depth > 16) {
    return out;
  }
  for (sema::ClassId b : p.classes[cls].base_ids) {
    for (DataclassField& f : dataclass_fields(b, depth + 1)) {
      auto same = std::find_if(out.begin(), out.end(), [&](const DataclassField& g) {
        return g.field->name == f.field->name;
      });
      if (same == out.end()) {
        out.push_back(f);
      } else {
        *same = f;
      }
    }
  }
  for (const sema::FieldInfo& f : p.classes[cls].fields) {
    DataclassField df{cls, &f};
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const DataclassField& g) { return g.field->name == f.name; });
    if (same == out.end()) {
      out.push_back(df);
    } else {
      *same = df;  // redefined in a subclass: its place stays, its type is the new one
    }
  }
  return out;
}

sema::ClassId Lowerer::find_class(const std::string& qualified) const {
  const sema::Program& p = *m_in.program;
  // The longest prefix that is a module of the tree, then class names inside it.
  for (size_t dot = qualified.rfind('.'); dot != std::string::npos && dot > 0;
       dot = qualified.rfind('.', dot - 1)) {
    int32_t m = p.find_module(qualified.substr(0, dot));
    if (m == sema::k_none) {
      continue;
    }
    std::string rest = qualified.substr(dot + 1);
    size_t next = rest.find('.');
    sema::Entity e = sema::lookup_global(p, m, rest.substr(0, next));
    while (next != std::string::npos && e.kind == sema::Entity::Kind::class_) {
      size_t after = rest.find('.', next + 1);
      e = sema::member_of(p, e, rest.substr(next + 1, after - next - 1));
      next = after;
    }
    if (e.kind == sema::Entity::Kind::class_) {
      return e.cls;
    }
    break;
  }
  // A class defined in a class body (PBDSolver.MATERIAL): by its path.
  for (sema::ClassId c = 0; c < static_cast<sema::ClassId>(p.classes.size()); ++c) {
    if (sema::class_path(p, c) == qualified) {
      return c;
    }
  }
  return sema::k_none;
}

int32_t Lowerer::add_param(Param p, std::vector<int32_t> order) {
  m_kernel->params.push_back(std::move(p));
  m_param_order.push_back(std::move(order));
  return static_cast<int32_t>(m_kernel->params.size() - 1);
}

void Lowerer::finish_params() {
  size_t n = m_kernel->params.size();
  std::vector<int32_t> by_order(n);
  std::iota(by_order.begin(), by_order.end(), 0);
  std::sort(by_order.begin(), by_order.end(), [&](int32_t a, int32_t b) {
    return m_param_order[a] != m_param_order[b] ? m_param_order[a] < m_param_order[b] : a < b;
  });
  std::vector<int32_t> new_of_old(n);
  bool identity = true;
  for (size_t k = 0; k < n; ++k) {
    new_of_old[by_order[k]] = static_cast<int32_t>(k);
    identity = identity && by_order[k] == static_cast<int32_t>(k);
  }
  if (!identity) {
    m_kernel->renumber_params(new_of_old);
  }
  int32_t slot = 0;
  for (Param& p : m_kernel->params) {
    p.slot = p.kind == Param::Kind::template_ || p.kind == Param::Kind::shared ? -1 : slot++;
  }
}

Val Lowerer::make_object(bool dataclass, sema::ClassId cls, std::string class_name,
                         std::string path, const sema::ConfigValue* values,
                         std::vector<int32_t> order) {
  auto o = std::make_shared<Object>();
  o->dataclass = dataclass;
  const sema::ConfigValue* named = table_item(values, "__class__");
  if (named != nullptr && named->scalar.kind == sema::Value::Kind::string) {
    // The instance's own class: a subclass of the annotation, or the object's class.
    class_name = named->scalar.s;
    sema::ClassId c = find_class(class_name);
    if (c != sema::k_none) {
      cls = c;
    }
  }
  if (class_name.empty() && cls != sema::k_none) {
    class_name = sema::class_path(*m_in.program, cls);
  }
  o->cls = cls;
  o->class_name = std::move(class_name);
  o->path = std::move(path);
  o->values = values;
  o->order = std::move(order);
  Val v;
  v.kind = Val::Kind::object;
  v.obj = std::move(o);
  return v;
}

Val Lowerer::object_member(const Val& base, std::string_view attr, const ast::Pos& pos) {
  Object& o = *base.obj;
  if (o.parent != nullptr) {
    return struct_element_member(o, attr, pos);  // sf[i, j].member
  }
  if (o.local_struct) {
    auto it = o.locals.find(attr);
    if (it == o.locals.end()) {
      fail(pos, "QD206", "the qd.Struct has no member '" + std::string(attr) + "'");
    }
    const Binding& b = *it->second;
    if (b.kind == Binding::Kind::tensor_var) {
      std::vector<const Expr*> elems;
      for (int32_t var : b.vars) {
        elems.push_back(m_kernel->var_ref(var));
      }
      return Val::of_tensor(std::move(elems), b.rows, b.cols, b.dtype);
    }
    return Val::of_scalar(m_kernel->var_ref(b.var));
  }
  auto hit = o.members.find(attr);
  if (hit != o.members.end()) {
    return hit->second;
  }
  Val v = o.dataclass ? dataclass_member(o, attr, pos) : template_member(o, attr, pos);
  o.members.emplace(std::string(attr), v);
  return v;
}

Val Lowerer::class_attribute(sema::ClassId cls, std::string_view attr, const ast::Pos& pos,
                             Object* receiver) {
  const sema::Program& p = *m_in.program;
  sema::Entity c;
  c.kind = sema::Entity::Kind::class_;
  c.cls = cls;
  c.module = p.classes[cls].module;
  c.path = sema::class_path(p, cls);
  sema::Entity m = sema::member_of(p, c, attr);
  if (m.kind == sema::Entity::Kind::undefined) {
    fail(pos, "QD206", "the class '" + c.path + "' has no attribute '" + std::string(attr) + "'");
  }
  if (m.kind == sema::Entity::Kind::def && receiver != nullptr &&
      p.defs[m.def].role == sema::DefRole::func) {
    // A @qd.func method of an object's class (a data_oriented solver's self.weight(x)): bound
    // to the object, which the call passes as its first parameter.
    Val f;
    f.kind = Val::Kind::func;
    f.def = m.def;
    f.obj = receiver->shared_from_this();
    return f;
  }
  if (m.kind == sema::Entity::Kind::def) {
    unsupported(pos, "the method '" + c.path + "." + std::string(attr) +
                         "' (methods of classes are not called in compiled kernels; make it a "
                         "@qd.func taking the object)");
  }
  return from_entity(m, pos, attr);
}

Val Lowerer::dataclass_member(Object& o, std::string_view attr, const ast::Pos& pos) {
  const sema::Program& p = *m_in.program;
  std::string where = o.path + "." + std::string(attr);
  if (o.cls == sema::k_none) {
    fail(pos, "QD207",
         "the dataclass '" + o.class_name + "' of '" + o.path +
             "' is not a class of the files checked, so its member '" + std::string(attr) +
             "' cannot be typed");
  }
  std::vector<DataclassField> fields = dataclass_fields(o.cls);
  int32_t index = -1;
  for (size_t k = 0; k < fields.size(); ++k) {
    if (fields[k].field->name == attr) {
      index = static_cast<int32_t>(k);
    }
  }
  if (index < 0) {
    return class_attribute(o.cls, attr, pos);  // a method, a class constant
  }
  const DataclassField& f = fields[index];
  int32_t module = p.classes[f.owner].module;
  const sema::ConfigValue* given = table_item(o.values, attr);
  if (given != nullptr) {
    const sema::ConfigValue* bad = table_item(given, "__unsupported__");
    if (bad != nullptr) {
      fail(pos, "QD207", "member '" + where + "' of the instance cannot be used: " + bad->scalar.s);
    }
  }
  std::string_view wrapper = wrapper_of(f.field->annotation);
  // A FIELD_METADATA_CACHE_VALUE member is a runtime argument like any other (Quadrants only
  // adds its value to the fastcache key; qd.static of it is an error there too).
  if (wrapper == "ClassVar") {
    return class_attribute(o.cls, attr, pos);
  }
  if (wrapper == "InitVar") {
    fail(pos, "QD206", "'" + where + "' is an InitVar, not a member of the dataclass");
  }
  if (wrapper == "Final") {
    // Baked into the instance (Quadrants: final_scalar_key): the instance's value, else the
    // field's default.
    if (given != nullptr && !given->is_table) {
      return py_value(given->scalar);
    }
    if (f.field->default_value != nullptr) {
      return eval_module_expr(module, f.field->default_value);
    }
    fail(pos, "QD207", "the Final member '" + where + "' has no value in the instance");
  }
  std::vector<int32_t> order = o.order;
  order.push_back(index);
  sema::ParamType t = sema::classify_annotation(p, module, f.field->annotation);
  switch (t.kind) {
    case PK::dataclass: return make_object(true, t.cls, "", where, given, std::move(order));
    case PK::primitive: {
      Param prm;
      prm.name = where;
      prm.text = t.text;
      prm.kind = Param::Kind::scalar;
      std::vector<int32_t> shape;
      if (!parse_dtype_text(t.dtype, prm.dtype, shape) || !shape.empty()) {
        unsupported(pos, "the member type '" + t.text + "' of '" + where + "'");
      }
      int32_t k = add_param(std::move(prm), std::move(order));
      return Val::of_scalar(m_kernel->arg(k));
    }
    case PK::ndarray:
    case PK::tensor:
    case PK::any:
    case PK::torch_tensor:
    case PK::numpy_array: {
      if (given != nullptr && given->is_table && given->table.contains("__class__")) {
        // qd.Tensor over a dataclass?  Not a form Quadrants has; say what it is.
        type_error(pos, "member '" + where +
                            "' is annotated as an array, but the instance gives "
                            "an object of class " +
                            table_item(given, "__class__")->scalar.s);
      }
      Param prm = ndarray_param(where, t, given, pos);
      int32_t k = add_param(std::move(prm), std::move(order));
      Val a;
      a.kind = Val::Kind::array;
      a.param = k;
      return a;
    }
    case PK::field:
      fail(pos, "QD201",
           "the member '" + where +
               "' is a field: fields (qd.field and SNodes) are not supported in compiled kernels "
               "(they live in Quadrants' own memory); Genesis passes ndarrays when "
               "gs.use_ndarray is on");
    case PK::invalid:
      fail(pos, "QD107", "the annotation of member '" + where + "' cannot be read: " + t.error);
    default: unsupported(pos, "a dataclass member of type '" + t.text + "' ('" + where + "')");
  }
}

Val Lowerer::template_member(Object& o, std::string_view attr, const ast::Pos& pos) {
  std::string where = o.path + "." + std::string(attr);
  const sema::ConfigValue* given = table_item(o.values, attr);
  if (given == nullptr && o.struct_field && (attr == "grad" || attr == "dual")) {
    fail(pos, "QD201",
         "'" + where +
             "': autodiff is not supported in compiled kernels (qdbuild builds forward kernels "
             "only: no gradient fields); run gradient kernels under Quadrants");
  }
  if (given == nullptr) {
    if (o.cls != sema::k_none) {
      const sema::Program& p = *m_in.program;
      sema::Entity c;
      c.kind = sema::Entity::Kind::class_;
      c.cls = o.cls;
      c.module = p.classes[o.cls].module;
      c.path = sema::class_path(p, o.cls);
      sema::Entity::Kind k = sema::member_of(p, c, attr).kind;
      if (k == sema::Entity::Kind::unknown || k == sema::Entity::Kind::undefined) {
        // An attribute set in __init__ to something the source alone gives (self.a = 3,
        // self.child = Child()): that value.
        bool ok = false;
        Val v = static_member(o, attr, &ok);
        if (ok) {
          return v;
        }
      }
      if (o.values != nullptr &&
          (k == sema::Entity::Kind::unknown || k == sema::Entity::Kind::undefined)) {
        // An attribute of the object (set in __init__), not of its class: only the instance
        // can give it, and this one does not (a record holds what the kernel's trace read).
        fail(pos, "QD207",
             "the object '" + o.path + "' (" + o.class_name + ") has no member '" +
                 std::string(attr) +
                 "' in the instance (a recorded run describes what the kernel read: record a "
                 "run that calls this kernel)");
      }
      return class_attribute(o.cls, attr, pos, &o);  // a class constant, a method
    }
    fail(pos, "QD207",
         "the object '" + o.path + "' (" + o.class_name + ") has no recorded member '" +
             std::string(attr) + "'");
  }
  std::vector<int32_t> order = o.order;
  order.push_back(static_cast<int32_t>(o.members.size()));
  return recorded_value(where, *given, std::move(order), pos, &o);
}

bool Lowerer::held_reference(const sema::ConfigValue& v, const std::string& what,
                             const ast::Pos& pos, Val* out) {
  if (const sema::ConfigValue* c = table_item(&v, "__classref__")) {
    sema::ClassId cls = find_class(c->scalar.s);
    if (cls == sema::k_none) {
      fail(pos, "QD207",
           what + " holds the class '" + c->scalar.s + "', which is not in the files checked");
    }
    out->kind = Val::Kind::class_;
    out->cls = cls;
    return true;
  }
  if (const sema::ConfigValue* m = table_item(&v, "__module__")) {
    int32_t mod = m_in.program->find_module(m->scalar.s);
    if (mod == sema::k_none) {
      fail(pos, "QD207",
           what + " holds the module '" + m->scalar.s + "', which is not in the files checked");
    }
    out->kind = Val::Kind::module;
    out->module = mod;
    return true;
  }
  return false;
}

Val Lowerer::static_member(Object& o, std::string_view attr, bool* ok) {
  const sema::Program& p = *m_in.program;
  *ok = false;
  for (auto [owner, m] : sema::all_members(p, o.cls)) {
    if (m->name != attr || m->value == nullptr) {
      continue;
    }
    int32_t module = p.classes[owner].module;
    sema::Entity e = sema::resolve_expr(p, module, m->value);
    if (e.kind == sema::Entity::Kind::instance && e.cls != sema::k_none) {
      // A member object the constructor makes (self.child = Child()): its own members from its
      // class, in turn.
      std::vector<int32_t> order = o.order;
      order.push_back(static_cast<int32_t>(o.members.size()));
      *ok = true;
      return make_object(p.classes[e.cls].dataclass, e.cls, "", o.path + "." + std::string(attr),
                         nullptr, std::move(order));
    }
    if (e.kind == sema::Entity::Kind::value && e.value.known()) {
      *ok = true;
      return py_value(e.value);
    }
    return Val();  // set from an argument, an array: only an instance gives it
  }
  return Val();
}

Val Lowerer::recorded_value(const std::string& where, const sema::ConfigValue& value,
                            std::vector<int32_t> order, const ast::Pos& pos, Object* owner) {
  const sema::ConfigValue* given = &value;
  if (const sema::ConfigValue* bad = table_item(given, "__unsupported__")) {
    fail(pos, "QD207",
         "member '" + where + "' of the recorded object cannot be used: " + bad->scalar.s);
  }
  if (!given->is_table) {
    return scalar_or_func(given->scalar);  // a func the object holds: its def
  }
  if (const sema::ConfigValue* entries = table_item(given, "__matrix__")) {
    return constant_matrix(where, *entries, *given, pos);
  }
  if (table_item(given, "__field__") != nullptr || table_item(given, "__struct_field__")) {
    return field_member(where, *given, std::move(order), pos);
  }
  if (is_array_table(*given)) {
    // An ndarray member of a data_oriented object: an argument after the kernel's own.
    sema::ParamType t;
    t.kind = PK::ndarray;
    Param prm = ndarray_param(where, t, given, pos);
    int32_t k = add_param(std::move(prm), std::move(order));
    Val a;
    a.kind = Val::Kind::array;
    a.param = k;
    return a;
  }
  if (const sema::ConfigValue* type = table_item(given, "__type__")) {
    // A Quadrants type held by the object (a dtype, a vector type).
    return eval_type_text(type->scalar.s, pos);
  }
  Val held;
  if (held_reference(*given, "member '" + where + "'", pos, &held)) {
    return held;  // a class (Genesis's self.MATERIAL, an IntEnum) or a module
  }
  if (const sema::ConfigValue* n = table_item(given, "__tuple__")) {
    // A tuple / list holding objects: its items, each as a member would be.
    Val t;
    t.kind = Val::Kind::tuple;
    for (int64_t k = 0; k < static_cast<int64_t>(n->scalar.iv); ++k) {
      const sema::ConfigValue* item = table_item(given, std::to_string(k));
      if (item == nullptr) {
        fail(pos, "QD207", "the recorded tuple '" + where + "' has no item " + std::to_string(k));
      }
      std::vector<int32_t> at = order;
      at.push_back(static_cast<int32_t>(k));
      t.items.push_back(
          recorded_value(where + "[" + std::to_string(k) + "]", *item, std::move(at), pos));
    }
    return t;
  }
  if (const sema::ConfigValue* m = table_item(given, "__method__")) {
    // A @qd.func bound to an object, held as data: the def, called on that object (the one
    // that holds it, for __self_owner__).
    const sema::Program& prog = *m_in.program;
    for (size_t d = 0; d < prog.def_ids.size(); ++d) {
      if (prog.def_ids[d] == m->scalar.s) {
        const sema::ConfigValue* self = table_item(given, "__self__");
        Val obj;
        if (table_item(given, "__self_owner__") != nullptr && owner != nullptr) {
          obj.kind = Val::Kind::object;
          obj.obj = owner->shared_from_this();
        } else if (self != nullptr) {
          obj = recorded_value(where + ".__self__", *self, order, pos);
        }
        if (obj.kind != Val::Kind::object) {
          fail(pos, "QD207", "the object of the bound method '" + where + "' is not an object");
        }
        Val f;
        f.kind = Val::Kind::func;
        f.def = static_cast<sema::DefId>(d);
        f.obj = obj.obj;
        return f;
      }
    }
    fail(pos, "QD207",
         "member '" + where + "' is the method '" + m->scalar.s + "', not in the files checked");
  }
  bool dataclass = false;
  if (const sema::ConfigValue* c = table_item(given, "__class__")) {
    sema::ClassId cls = find_class(c->scalar.s);
    dataclass = cls != sema::k_none && m_in.program->classes[cls].dataclass;
  }
  return make_object(dataclass, sema::k_none, "", where, given, std::move(order));
}

Val Lowerer::constant_matrix(const std::string& where, const sema::ConfigValue& entries,
                             const sema::ConfigValue& given, const ast::Pos& pos) {
  const sema::ConfigValue* dt = table_item(&given, "dtype");
  const sema::ConfigValue* shape = table_item(&given, "shape");
  DType t = DType::f32;
  std::vector<int32_t> none;
  if (dt == nullptr || dt->is_table || !parse_dtype_text(dt->scalar.s, t, none) || !none.empty() ||
      shape == nullptr || shape->is_table || shape->scalar.kind != sema::Value::Kind::tuple) {
    fail(pos, "QD207", "the recorded qd.Vector / qd.Matrix '" + where + "' has no dtype or shape");
  }
  std::vector<const Expr*> elems;
  for (const sema::Value& x : entries.scalar.items) {
    if (x.kind == sema::Value::Kind::floating) {
      elems.push_back(is_float(t) ? m_kernel->constant_float(t, x.f)
                                  : m_kernel->constant_int(t, static_cast<int64_t>(x.f)));
    } else if (x.kind == sema::Value::Kind::integer || x.kind == sema::Value::Kind::boolean) {
      int64_t i = x.kind == sema::Value::Kind::boolean ? (x.b ? 1 : 0) : static_cast<int64_t>(x.iv);
      elems.push_back(is_float(t) ? m_kernel->constant_float(t, static_cast<double>(i))
                                  : m_kernel->constant_int(t, i));
    } else {
      fail(pos, "QD207",
           "the recorded qd.Vector / qd.Matrix '" + where + "' has an entry " +
               "that is not a number");
    }
  }
  const std::vector<sema::Value>& dims = shape->scalar.items;
  int32_t rows = static_cast<int32_t>(dims[0].iv);
  int32_t cols = dims.size() > 1 ? static_cast<int32_t>(dims[1].iv) : 0;
  return Val::of_tensor(std::move(elems), rows, cols, t);
}

Val Lowerer::py_value(const sema::Value& v) {
  // An enum member is its value in a kernel (IntEnum members are ints; comparisons between
  // members of one enum compare their values).
  // Members of other enums stay enum members: Quadrants refuses them as kernel values too.
  auto int_member = [&](const sema::Value& x) {
    if (x.kind != sema::Value::Kind::enum_member || x.items.empty() ||
        x.items[0].kind != sema::Value::Kind::integer) {
      return false;
    }
    size_t dot = x.s.rfind('.');
    sema::ClassId cls = dot == std::string::npos ? sema::k_none : find_class(x.s.substr(0, dot));
    return cls != sema::k_none && m_in.program->classes[cls].int_enum &&
           m_in.program->classes[cls].is_enum;
  };
  if (int_member(v)) {
    return Val::of_py(v.items[0]);
  }
  if (v.kind == sema::Value::Kind::tuple) {
    sema::Value t = v;
    for (sema::Value& x : t.items) {
      if (int_member(x)) {
        x = x.items[0];
      }
    }
    return Val::of_py(t);
  }
  return Val::of_py(v);
}

}  // namespace qd::ir::lower
