// qd.func inlining with its by-value / by-reference parameter rules (§1.8), casts to a
// parameter's annotation, template parameters, and method calls.
#include <cmath>
#include <optional>

#include "ir/lower/lowerer.hpp"
#include "sema/resolve.hpp"

namespace qd::ir::lower {

Val Lowerer::cast_to_annotation(const Val& v, const ast::Expr* annotation, int32_t module,
                                const ast::Pos& pos) {
  Val t = eval_module_expr(module, annotation);
  if (t.kind == Val::Kind::dtype) {
    return cast_val(v, t.dtype, pos);
  }
  if (t.kind == Val::Kind::tensor_type) {
    // A func's vector / matrix return annotation casts nothing and checks nothing (Quadrants
    // casts only primitive return types of an inlined func).
    return v;
  }
  if ((t.kind == Val::Kind::builtin || t.kind == Val::Kind::api) && t.path.ends_with("[]") &&
      t.path.starts_with("tuple")) {
    std::vector<Val> items = static_items(v, pos);
    if (items.size() != t.items.size()) {
      type_error(pos, "the function returns " + std::to_string(items.size()) +
                          " values, its annotation says " + std::to_string(t.items.size()));
    }
    for (size_t k = 0; k < items.size(); ++k) {
      const Val& tk = t.items[k];
      if (tk.kind == Val::Kind::dtype) {
        items[k] = cast_val(items[k], tk.dtype, pos);
      }  // vector / matrix members: as they are (see above)
    }
    return Val::of_tuple(std::move(items));
  }
  return v;
}

std::vector<const ast::Arg*> Lowerer::func_params(sema::DefId def) const {
  const ast::Arguments* a = m_in.program->defs[def].args;
  std::vector<const ast::Arg*> params;
  for (const ast::Arg* x : a->posonlyargs) {
    params.push_back(x);
  }
  for (const ast::Arg* x : a->args) {
    params.push_back(x);
  }
  return params;
}

bool Lowerer::is_template_param(sema::DefId def, const ast::Arg* prm) {
  if (prm->annotation == nullptr) {
    return false;
  }
  Val ann = eval_module_expr(m_in.program->defs[def].module, prm->annotation);
  return ann.kind == Val::Kind::api &&
         (ann.path == "template" || ann.path == "Template" || ann.path == "types.template");
}

std::vector<bool> Lowerer::template_params(sema::DefId def) {
  const sema::DefInfo& d = m_in.program->defs[def];
  std::vector<bool> out;
  if (d.role == sema::DefRole::kernel || d.args == nullptr) {
    return out;
  }
  for (const ast::Arg* prm : func_params(def)) {
    out.push_back(is_template_param(def, prm));
  }
  return out;
}

BindingRef Lowerer::bind_by_reference(const ast::Expr* e, Val& value, const char* what) {
  if (const auto* n = e->as<ast::Name>()) {
    if (BindingRef b = find_local(n->id)) {
      value = eval(e);
      return b;  // the caller's variable itself
    }
  }
  auto b = std::make_shared<Binding>();
  if (is_lvalue_expr(e)) {
    b->kind = Binding::Kind::ref;  // an array element, a vector / matrix component
    b->ref = lvalue(e, false);
    value = read(b->ref);
    return b;
  }
  // Any other value: read again at every use (a runtime expression is not copied), and not
  // assignable (Quadrants: "non-writable target" / "cannot be assigned").
  value = eval(e);
  b->kind = Binding::Kind::value;
  b->value = value;
  b->fixed = true;
  b->what = what;
  return b;
}

Lowerer::Frame Lowerer::lower_inlined_body(const ast::Seq<ast::Stmt*>& body) {
  push_scope();
  lower_stmts(body);
  pop_scope();
  Frame done = std::move(m_frames.back());
  m_frames.pop_back();
  --m_inline_depth;
  m_jump = Jump::none;  // a return ends the inlined body, not the caller's
  return done;
}

Val Lowerer::call_func(sema::DefId def, const ast::Call* c, std::vector<Val>& args,
                       std::vector<BindingRef>& refs, size_t bound_first) {
  const sema::Program& p = *m_in.program;
  const sema::DefInfo& d = p.defs[def];
  if (d.role == sema::DefRole::kernel) {
    fail(c->pos, "QD205", "a kernel cannot call a kernel ('" + p.def_id(def) + "')");
  }
  if (d.decorator == "real_func") {
    unsupported(c->pos, "calling the @qd.real_func '" + p.def_id(def) +
                            "' (a real function call with its own stack frame; qdbuild inlines "
                            "@qd.func only)");
  }
  if (d.decorator == "pyfunc") {
    unsupported(c->pos, "calling the @qd.pyfunc '" + p.def_id(def) +
                            "' from a kernel (qdbuild inlines @qd.func; decorate it with "
                            "@qd.func)");
  }
  if (m_inline_depth > 48) {
    fail(c->pos, "QD205", "'" + p.def_id(def) + "' calls itself: recursion is not supported");
  }
  const ast::Arguments* a = d.args;
  std::vector<const ast::Arg*> params = func_params(def);
  if (a->vararg != nullptr || a->kwarg != nullptr || a->kwonlyargs.size > 0) {
    unsupported(c->pos, "calling a function with *args, **kwargs or keyword-only parameters");
  }
  if (args.size() > params.size()) {
    type_error(c->pos, "'" + p.def_id(def) + "' takes " + std::to_string(params.size()) +
                           " arguments, got " + std::to_string(args.size()));
  }
  std::vector<std::optional<Val>> bound(params.size());
  std::vector<BindingRef> bound_ref(params.size());
  std::vector<const ast::Expr*> arg_ast(params.size(), nullptr);
  for (size_t k = 0; k < args.size(); ++k) {
    bound[k] = args[k];
    bound_ref[k] = k < refs.size() ? refs[k] : nullptr;
    arg_ast[k] =
        k >= bound_first && k - bound_first < c->args.size ? c->args[k - bound_first] : nullptr;
  }
  for (const ast::Keyword* kw : c->keywords) {
    if (ast::is_absent(kw->arg)) {
      unsupported(kw->pos, "**kwargs in a call");
    }
    bool found = false;
    for (size_t k = 0; k < params.size(); ++k) {
      if (params[k]->arg == kw->arg) {
        if (bound[k]) {
          type_error(kw->pos, "argument '" + std::string(kw->arg) + "' given twice");
        }
        if (is_template_param(def, params[k])) {
          Val v;
          bound_ref[k] = bind_by_reference(kw->value, v, "qd.template() parameter");
          bound[k] = std::move(v);
        } else {
          bound[k] = eval(kw->value);
        }
        arg_ast[k] = kw->value;
        found = true;
      }
    }
    if (!found) {
      type_error(kw->pos,
                 "'" + p.def_id(def) + "' has no parameter '" + std::string(kw->arg) + "'");
    }
  }
  size_t first_default = params.size() - a->defaults.size;
  for (size_t k = 0; k < params.size(); ++k) {
    if (!bound[k]) {
      if (k < first_default) {
        type_error(c->pos, "'" + p.def_id(def) + "' is missing the argument '" +
                               std::string(params[k]->arg) + "'");
      }
      bound[k] = eval_module_expr(d.module, a->defaults[k - first_default]);
    }
  }
  // Bind the parameters in the callee's frame (§1.8).
  Frame f;
  f.module = d.module;
  f.def = def;
  f.returns = d.returns;
  if (d.role == sema::DefRole::plain) {
    // A plain Python function runs as Python at trace time: its parameters are the arguments
    // themselves (values, arrays, expressions), never copies.
    f.python = true;
    f.scopes.emplace_back();
    for (size_t k = 0; k < params.size(); ++k) {
      auto b = std::make_shared<Binding>();
      b->kind = Binding::Kind::value;
      b->value = *bound[k];
      f.scopes.back()[std::string(params[k]->arg)] = b;
    }
    m_frames.push_back(std::move(f));
    ++m_inline_depth;
    Frame done = lower_inlined_body(*d.body);
    return done.ret.value_or(Val::of_py(sema::Value::none()));
  }
  f.scopes.emplace_back();
  std::vector<std::pair<std::string, BindingRef>> bindings;
  for (size_t k = 0; k < params.size(); ++k) {
    const ast::Arg* prm = params[k];
    const Val& v = *bound[k];
    std::string name(prm->arg);
    Val ann;
    bool annotated = prm->annotation != nullptr;
    if (annotated) {
      ann = eval_module_expr(d.module, prm->annotation);
    }
    bool by_ref =
        annotated && ann.kind == Val::Kind::api &&
        (ann.path == "template" || ann.path == "Template" || ann.path == "types.template");
    bool is_array_ann =
        annotated && ann.kind == Val::Kind::api &&
        (ann.path.starts_with("types.ndarray") || ann.path.starts_with("types.NDArray") ||
         ann.path == "Tensor" || ann.path.starts_with("Tensor["));
    if (annotated && ann.kind == Val::Kind::class_ && !p.classes[ann.cls].is_enum) {
      // A dataclass parameter: the argument's members, passed as they are.
      if (v.kind != Val::Kind::object) {
        type_error(arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos,
                   "parameter '" + name + "' is a " + sema::class_path(p, ann.cls) + ", got " +
                       v.describe());
      }
      auto b = std::make_shared<Binding>();
      b->kind = Binding::Kind::value;
      b->value = v;
      b->fixed = true;
      b->what = "dataclass parameter";
      bindings.emplace_back(name, b);
      continue;
    }
    if (v.kind == Val::Kind::object && v.obj->local_struct && !by_ref) {
      unsupported(arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos,
                  "passing a qd.Struct to the parameter '" + name +
                      "', which is not qd.template() (take it as a qd.template() parameter)");
    }
    if (v.kind == Val::Kind::object && v.obj->parent != nullptr) {
      unsupported(arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos,
                  "passing an element of a struct field to a function (pass the struct field "
                  "and its index, or the members it reads)");
    }
    if (by_ref || is_array_ann || v.kind == Val::Kind::array || v.kind == Val::Kind::object) {
      if (is_array_ann && v.kind != Val::Kind::array) {
        type_error(arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos,
                   "parameter '" + name + "' is an ndarray, got " + v.describe());
      }
      BindingRef b = by_ref ? bound_ref[k] : nullptr;
      if (b == nullptr) {
        b = std::make_shared<Binding>();  // an ndarray, or a default value
        b->kind = Binding::Kind::value;
        b->value = v;
        b->fixed = by_ref;
        b->what = "qd.template() parameter";
      }
      bindings.emplace_back(name, b);
      continue;
    }
    // By value: primitive / vector / matrix annotations cast; unannotated values are copied.
    Val x = v;
    if (annotated) {
      if (ann.kind == Val::Kind::dtype) {
        x = cast_val(v, ann.dtype, c->pos);
      } else if (ann.kind == Val::Kind::tensor_type) {
        // A vector / matrix parameter is a copy of the argument with the argument's own dtype,
        // whatever dtype the annotation names (Quadrants: expr_init_func(data), no cast); the
        // argument must be a vector / matrix of the annotated shape.
        std::string shape =
            ann.cols == 0 ? "vector of " + std::to_string(ann.rows)
                          : std::to_string(ann.rows) + "x" + std::to_string(ann.cols) + " matrix";
        const ast::Pos& at = arg_ast[k] != nullptr ? arg_ast[k]->pos : c->pos;
        if (v.kind != Val::Kind::tensor) {
          type_error(at, "parameter '" + name + "' expects a " + shape + ", got " + v.describe() +
                             " (a vector/matrix parameter takes a vector or matrix value, "
                             "not a list or scalar)");
        }
        if (v.rows != ann.rows || v.cols != ann.cols) {
          type_error(at, "parameter '" + name + "' expects a " + shape + ", got " + v.describe());
        }
      }
    }
    bindings.emplace_back(name, nullptr);
    bound[k] = x;
  }
  m_frames.push_back(std::move(f));
  ++m_inline_depth;
  for (size_t k = 0; k < params.size(); ++k) {
    if (bindings[k].second != nullptr) {
      frame().scopes.back()[bindings[k].first] = bindings[k].second;
    } else {
      declare(bindings[k].first, *bound[k], d.node->pos);
    }
  }
  Frame done = lower_inlined_body(*d.body);
  Val result = done.ret.value_or(Val::of_py(sema::Value::none()));
  if (d.returns != nullptr) {
    Val t = eval_module_expr(d.module, d.returns);
    bool returns_none = t.kind == Val::Kind::py && t.py.kind == sema::Value::Kind::none;
    if (!returns_none && !done.ret) {
      fail(d.node->pos, "QD205",
           "'" + p.def_id(def) + "' has a return type but no return statement");
    }
    if (!returns_none) {
      result = cast_to_annotation(result, d.returns, d.module, c->pos);
    }
  }
  return result;
}

Val Lowerer::call_method(const Val& method, const ast::Call* c, std::vector<Val>& args) {
  const Val& receiver = method.items[0];
  if (receiver.kind == Val::Kind::py && receiver.py.kind == sema::Value::Kind::string &&
      method.path == "format") {
    return format_string(receiver.py.s, c, args);
  }
  if (receiver.kind == Val::Kind::py && receiver.py.kind == sema::Value::Kind::integer &&
      method.path == "bit_length") {
    if (!args.empty() || !c->keywords.empty()) {
      type_error(c->pos, "int.bit_length() takes no arguments");
    }
    uint64_t magnitude = receiver.py.iv < 0 ? 0 - static_cast<uint64_t>(receiver.py.iv)
                                            : static_cast<uint64_t>(receiver.py.iv);
    return Val::of_int(magnitude == 0 ? 0 : 64 - __builtin_clzll(magnitude));
  }
  if (receiver.kind == Val::Kind::tensor && method.path == "fill") {
    // fill() of a value that is not a place assigns into a temporary: nothing to do.
    if (args.size() != 1 || args[0].kind == Val::Kind::tensor || args[0].kind == Val::Kind::tuple) {
      type_error(c->pos, "fill(value) takes one scalar");
    }
    return Val::of_py(sema::Value::none());
  }
  if (receiver.kind == Val::Kind::tensor) {
    return tensor_method(receiver, method.path, args, c, c->pos);
  }
  if (receiver.kind == Val::Kind::array && method.path == "fill") {
    if (args.size() != 1 || !c->keywords.empty()) {
      type_error(c->pos, "fill(value) takes one scalar");
    }
    return fill_array(receiver.param, args[0], c->pos);  // a field's / ndarray's every element
  }
  unsupported(c->pos, "the method " + method.path + "() of " + receiver.describe());
}

}  // namespace qd::ir::lower
