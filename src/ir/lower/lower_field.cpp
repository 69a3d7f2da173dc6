// Fields of data_oriented objects (docs/language.md §1.11): what a Genesis particle solver's
// kernel reads through `self` (qd.field, qd.Vector.field, qd.types.struct(...).field(...)).
//
// A field is global memory in Quadrants; in a compiled kernel it is an argument: each field the
// instance reads becomes an ndarray parameter named by its member path ("self.sh.slot_size",
// "self.particles.pos"), in the order first read, after the kernel's own parameters (as the
// ndarray members of template objects). The caller passes an array of exactly the recorded
// shape; the shape is a compile-time value in the kernel (`f.shape`, loops over the field), as in
// Quadrants, where fields are allocated before any kernel is traced.
//
// Where the elements are is the field's layout, recorded as byte strides (`strides = (16, 4)`:
// per outer axis, then per element dim) when it is not C-contiguous: an AOS struct field's
// members interleave in their shared cells, a vector field with Layout.SOA keeps each component
// apart. Indexing multiplies by those strides as compile-time constants, so the bridge passes
// the field's own memory, never a copy.
//
// A struct field is not one array: each of its members is a field of its own (Quadrants places
// each member under its own SNode; with Layout.AOS they share one, which changes where the
// values live in Quadrants' memory, not what the kernel computes). `sf[i, j]` is an element:
// `sf[i, j].pos` the element of the member field `sf.pos`, `sf[i, j] = sf2[k, l]` a copy of every
// member.
#include "ir/lower/lowerer.hpp"

namespace qd::ir::lower {

namespace {

const sema::ConfigValue* item(const sema::ConfigValue& v, std::string_view name) {
  if (!v.is_table) {
    return nullptr;
  }
  auto it = v.table.find(std::string(name));
  return it == v.table.end() ? nullptr : &it->second;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t k = 0; k < shape.size(); ++k) {
    s += (k > 0 ? ", " : "") + std::to_string(shape[k]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

void Lowerer::make_field(Param& prm, const sema::ConfigValue& given, const std::string& where,
                         const ast::Pos& pos) {
  prm.field = true;
  const sema::ConfigValue* shape = item(given, "shape");
  if (shape == nullptr || shape->is_table || shape->scalar.kind != sema::Value::Kind::tuple ||
      static_cast<int32_t>(shape->scalar.items.size()) != prm.ndim) {
    fail(pos, "QD207",
         "the field '" + where + "' has no recorded shape of " + std::to_string(prm.ndim) +
             " dimensions");
  }
  for (const sema::Value& d : shape->scalar.items) {
    if (d.kind != sema::Value::Kind::integer || d.iv < 0 || d.iv > (int64_t{1} << 40)) {
      fail(pos, "QD207", "the field '" + where + "' has a recorded size that is not a size");
    }
    prm.field_shape.push_back(static_cast<int64_t>(d.iv));
  }
  std::vector<int64_t> dims = prm.field_shape;
  dims.insert(dims.end(), prm.element_shape.begin(), prm.element_shape.end());
  if (const sema::ConfigValue* strides = item(given, "strides"); strides != nullptr) {
    int64_t size = byte_size(prm.dtype);
    if (strides->is_table || strides->scalar.kind != sema::Value::Kind::tuple ||
        strides->scalar.items.size() != dims.size()) {
      fail(pos, "QD207",
           "the field '" + where + "' has recorded strides that are not " +
               std::to_string(dims.size()) + " byte strides (one per axis and element dim)");
    }
    for (const sema::Value& d : strides->scalar.items) {
      if (d.kind != sema::Value::Kind::integer || d.iv < 0 || d.iv > (int64_t{1} << 40) ||
          static_cast<int64_t>(d.iv) % size != 0) {
        fail(pos, "QD207",
             "the field '" + where + "' has a recorded stride that is not a multiple of its " +
                 std::to_string(size) + "-byte dtype");
      }
      prm.field_strides.push_back(static_cast<int64_t>(d.iv) / size);
    }
  } else {
    prm.field_strides.assign(dims.size(), 1);
    for (size_t d = dims.size(); d-- > 1;) {
      prm.field_strides[d - 1] = prm.field_strides[d] * dims[d];
    }
  }
  std::string dtype = prm.text.substr(8, prm.text.rfind(',') - 8);  // "ndarray(DT, N)"
  prm.text = "field(" + dtype + ", shape=" + shape_text(prm.field_shape);
  if (!prm.field_contiguous()) {
    prm.text += ", strides=" + shape_text(prm.field_strides);  // (in elements)
  }
  prm.text += ")";
}

Val Lowerer::field_member(const std::string& where, const sema::ConfigValue& given,
                          std::vector<int32_t> order, const ast::Pos& pos) {
  if (item(given, "__struct_field__") != nullptr) {
    Val v = make_object(false, sema::k_none, "struct field", where, &given, std::move(order));
    v.obj->struct_field = true;
    return v;
  }
  sema::ParamType t;
  t.kind = sema::ParamType::Kind::ndarray;
  const sema::ConfigValue* shape = item(given, "shape");
  sema::ConfigValue table = given;  // ndim: the shape's length where the table leaves it out
  if (item(given, "ndim") == nullptr && shape != nullptr && !shape->is_table &&
      shape->scalar.kind == sema::Value::Kind::tuple) {
    table.table["ndim"].scalar =
        sema::Value::integer(static_cast<sema::Int>(shape->scalar.items.size()));
  }
  table.table["__field__"].scalar = sema::Value::boolean(true);
  Param prm = ndarray_param(where, t, &table, pos);  // (a field: make_field)
  int32_t k = add_param(std::move(prm), std::move(order));
  Val a;
  a.kind = Val::Kind::array;
  a.param = k;
  return a;
}

Val Lowerer::struct_element(const Val& struct_field, std::vector<Val> index) {
  auto e = std::make_shared<Object>();
  e->parent = struct_field.obj;
  e->index = std::move(index);
  e->path = struct_field.obj->path + "[...]";
  e->class_name = "struct field element";
  Val v;
  v.kind = Val::Kind::object;
  v.obj = std::move(e);
  return v;
}

Val Lowerer::struct_element_member(const Object& elem, std::string_view attr, const ast::Pos& pos) {
  Val parent;
  parent.kind = Val::Kind::object;
  parent.obj = elem.parent;
  Val m = object_member(parent, attr, pos);
  if (m.kind == Val::Kind::array) {
    return array_element(m.param, array_index(m.param, elem.index, pos));
  }
  if (m.kind == Val::Kind::object && m.obj->struct_field) {
    return struct_element(m, elem.index);  // a member that is a struct itself
  }
  type_error(pos, "'" + std::string(attr) + "' of an element of the struct field '" +
                      elem.parent->path + "' is " + m.describe() + ", not a member field");
}

const Object* Lowerer::struct_element_of(const ast::Expr* e) {
  const auto* s = e->as<ast::Subscript>();
  if (s == nullptr || s->slice->as<ast::Slice>() != nullptr) {
    return nullptr;
  }
  const ast::Expr* root = s->value;
  while (const auto* a = root->as<ast::Attribute>()) {
    root = a->value;
  }
  const auto* n = root->as<ast::Name>();
  if (n == nullptr) {
    return nullptr;  // a member chain (self.particles) or a name (a func's parameter) only
  }
  BindingRef b = find_local(n->id);
  if (b == nullptr || b->kind != Binding::Kind::value || b->value.kind != Val::Kind::object) {
    return nullptr;
  }
  Val base = eval(s->value);  // a name or a member chain: no code, no side effect
  return base.kind == Val::Kind::object && base.obj->struct_field ? base.obj.get() : nullptr;
}

Lowerer::LValue Lowerer::struct_member_lvalue(const ast::Attribute* a, bool snapshot) {
  Val el = eval(a->value);  // sf[i, j]: its index evaluated once, here
  Val parent;
  parent.kind = Val::Kind::object;
  parent.obj = el.obj->parent;
  Val m = object_member(parent, a->attr, a->pos);
  if (m.kind != Val::Kind::array) {
    unsupported(a->pos, "assigning to '" + std::string(a->attr) + "' of an element of '" +
                            parent.obj->path + "' (" + m.describe() +
                            "; assign to its members one by one)");
  }
  return array_lvalue(m.param, array_index(m.param, el.obj->index, a->pos), snapshot, a->pos);
}

void Lowerer::assign_struct_element(const ast::Subscript* target, const Val& value,
                                    const ast::Pos& pos) {
  Val dst = eval(target);
  if (value.kind != Val::Kind::object || value.obj->parent == nullptr) {
    type_error(pos, "an element of the struct field '" + dst.obj->parent->path + "' is assigned " +
                        value.describe() +
                        " (assign an element of a struct field of the same members, or assign "
                        "the members one by one)");
  }
  const Object& from = *value.obj->parent;
  const Object& to = *dst.obj->parent;
  std::vector<std::string> names;
  if (to.values != nullptr) {
    for (const auto& [k, v] : to.values->table) {
      if (!k.starts_with("__")) {
        names.push_back(k);
      }
    }
  }
  std::vector<std::string> theirs;
  if (from.values != nullptr) {
    for (const auto& [k, v] : from.values->table) {
      if (!k.starts_with("__")) {
        theirs.push_back(k);
      }
    }
  }
  if (names != theirs) {
    type_error(pos, "'" + to.path + "' and '" + from.path +
                        "' are struct fields of different members: an element of one cannot be "
                        "assigned to an element of the other");
  }
  // Every member is read first, then written: `sf[i] = sf[j]` copies the old values.
  std::vector<Val> values;
  for (const std::string& k : names) {
    Val v = struct_element_member(*value.obj, k, pos);
    if (v.kind == Val::Kind::object) {
      unsupported(pos,
                  "assigning a struct field element whose member '" + k + "' is a struct itself");
    }
    values.push_back(materialize(v, pos));
  }
  for (size_t k = 0; k < names.size(); ++k) {
    Val parent;
    parent.kind = Val::Kind::object;
    parent.obj = dst.obj->parent;
    Val m = object_member(parent, names[k], pos);
    write(array_lvalue(m.param, array_index(m.param, dst.obj->index, pos), true, pos), values[k],
          pos);
  }
}

Val Lowerer::local_struct(const ast::Call* c, std::vector<Val>& args) {
  if (!args.empty()) {
    unsupported(c->pos, "qd.Struct with positional arguments (give its members by keyword)");
  }
  auto o = std::make_shared<Object>();
  o->local_struct = true;
  o->class_name = "qd.Struct";
  o->path = "qd.Struct(...)";
  for (const ast::Keyword* kw : c->keywords) {
    if (ast::is_absent(kw->arg)) {
      unsupported(kw->pos, "**kwargs in qd.Struct(...)");
    }
    Val v = eval(kw->value);
    if (!v.is_runtime() && !v.is_py_number()) {
      type_error(kw->pos, "a qd.Struct member is a number, a vector or a matrix; '" +
                              std::string(kw->arg) + "' is " + v.describe());
    }
    // A variable per member, declared under a name no Python code can spell.
    std::string hidden =
        "\x01qd.Struct#" + std::to_string(m_kernel->vars.size()) + "." + std::string(kw->arg);
    o->locals[std::string(kw->arg)] = declare(hidden, v, kw->pos);
  }
  Val out;
  out.kind = Val::Kind::object;
  out.obj = std::move(o);
  return out;
}

Object* Lowerer::local_struct_of(const ast::Expr* e) {
  const auto* n = e->as<ast::Name>();
  if (n == nullptr) {
    return nullptr;
  }
  BindingRef b = find_local(n->id);
  if (b == nullptr || b->kind != Binding::Kind::value || b->value.kind != Val::Kind::object ||
      !b->value.obj->local_struct) {
    return nullptr;
  }
  return b->value.obj.get();
}

Val Lowerer::field_attribute(const Val& field, std::string_view attr, const ast::Pos& pos,
                             bool* ok) {
  const Param& p = m_kernel->params[field.param];
  *ok = true;
  if (attr == "snode") {
    // Its SNode: only snode.ptr.offset has a meaning here (member(), "field SNode").
    return Val::of_api(k_field_snode);
  }
  // Quadrants' MatrixField: n rows, m columns (1 for a vector), ndim the element's rank; a
  // ScalarField has none of them.
  if (!p.element_shape.empty() && (attr == "n" || attr == "m" || attr == "ndim")) {
    if (attr == "n") {
      return Val::of_int(p.element_shape[0]);
    }
    if (attr == "m") {
      return Val::of_int(p.element_shape.size() > 1 ? p.element_shape[1] : 1);
    }
    return Val::of_int(static_cast<int64_t>(p.element_shape.size()));
  }
  if (attr == "n" || attr == "m" || attr == "ndim") {
    fail(pos, "QD206",
         "the scalar field '" + p.name + "' has no attribute '" + std::string(attr) +
             "' (vector and matrix fields have n, m and ndim)");
  }
  *ok = false;
  return field;
}

Val Lowerer::fill_array(int32_t param, const Val& value, const ast::Pos& pos) {
  // Quadrants: `for I in qd.grouped(F): F[I] = value` (quadrants/_funcs.py
  // field_fill_quadrants_scope); every element gets the same value, so one flat loop over the
  // elements, parallel at the kernel's root as that struct-for is.
  Kernel& k = *m_kernel;
  const Param& p = k.params[param];
  if (value.kind == Val::Kind::tensor || value.kind == Val::Kind::tuple) {
    type_error(pos, "fill(value) takes one scalar");
  }
  Val v = materialize(Val::of_scalar(to_typed(value, p.dtype, pos)), pos);
  const Expr* total = k.constant_int(DType::i64, 1);
  for (int32_t a = 0; a < p.ndim; ++a) {
    total = k.binary(BinOp::mul, DType::i64, total, k.cast(DType::i64, k.shape(param, a)));
  }
  bool parallel = at_root() && !m_pending_serialize;
  m_pending_serialize = false;
  int64_t block_dim = m_pending_block_dim;
  m_pending_block_dim = 0;
  Stmt* st = emit(StmtKind::range_for, pos);
  st->parallel = parallel;
  st->block_dim = static_cast<int32_t>(block_dim);
  st->begin = k.constant_int(DType::i64, 0);
  st->end = total;
  st->label = p.name + ".fill";
  st->var = k.new_var("", DType::i64);
  Block* saved = enter_loop(st, parallel ? Loop::Kind::parallel : Loop::Kind::serial);
  const Expr* at = k.var_ref(st->var);
  if (p.field && !p.field_contiguous()) {
    // The flat loop counts elements in row-major order; their places follow the layout.
    std::vector<Val> index(static_cast<size_t>(p.ndim));
    const Expr* rest = at;
    for (int32_t a = p.ndim - 1; a >= 0; --a) {
      const Expr* extent = k.constant_int(DType::i64, std::max<int64_t>(p.field_shape[a], 1));
      index[a] =
          Val::of_scalar(k.cast(DType::i32, k.binary(BinOp::raw_mod, DType::i64, rest, extent)));
      rest = k.binary(BinOp::raw_div, DType::i64, rest, extent);
    }
    at = array_index(param, index, pos);
  }
  LValue lv = array_lvalue(param, at, false, pos);
  if (lv.kind == LValue::Kind::tensor) {
    for (const LValue& part : lv.parts) {
      write(part, v, pos);
    }
  } else {
    write(lv, v, pos);
  }
  leave_loop(saved);
  return Val::of_py(sema::Value::none());
}

}  // namespace qd::ir::lower
