#include "sema/body_refs.hpp"

#include <unordered_map>
#include <unordered_set>

#include "sema/runtime_globals.hpp"
#include "syntax/ast_walk.hpp"

namespace qd::sema {

namespace ast = syntax::ast;
using EK = Entity::Kind;

namespace {

SourceSpan span_of(const ast::Pos& p) {
  return {p.lineno, p.col_offset, p.end_lineno, p.end_col_offset};
}

// Pass 1: the names local to the def (parameters and every name bound in the body).
class LocalCollector : public ast::Walker {
public:
  using ast::Walker::visit;
  // Identifiers are views into the parse result, which outlives the analysis.
  std::unordered_set<std::string_view> locals;
  std::unordered_set<std::string_view> globals;
  std::unordered_map<std::string_view, std::vector<const ast::Expr*>> assigned;  // name -> values

  void visit(const ast::Expr* e) override {
    if (const auto* n = e->as<ast::Name>()) {
      if (n->ctx != ast::ExprContext::Load) {
        locals.insert(n->id);
      }
    } else if (const auto* w = e->as<ast::NamedExpr>()) {
      if (const auto* n = w->target->as<ast::Name>()) {
        assigned[n->id].push_back(w->value);
      }
    }
    children(e);
  }
  void visit(const ast::Stmt* s) override {
    if (const auto* f = s->as<ast::FunctionDef>()) {
      locals.insert(f->name);
    } else if (const auto* f = s->as<ast::AsyncFunctionDef>()) {
      locals.insert(f->name);
    } else if (const auto* c = s->as<ast::ClassDef>()) {
      locals.insert(c->name);
    } else if (const auto* g = s->as<ast::Global>()) {
      for (ast::Identifier n : g->names) {
        globals.insert(n);
      }
    } else if (const auto* a = s->as<ast::Assign>()) {
      for (const ast::Expr* t : a->targets) {
        if (const auto* n = t->as<ast::Name>()) {
          assigned[n->id].push_back(a->value);
        }
      }
    } else if (const auto* a = s->as<ast::AnnAssign>()) {
      if (const auto* n = a->target->as<ast::Name>(); n != nullptr && a->value != nullptr) {
        assigned[n->id].push_back(a->value);
      }
    } else if (const auto* f = s->as<ast::For>()) {
      if (const auto* n = f->target->as<ast::Name>()) {
        assigned[n->id].push_back(f->iter);
      }
    }
    children(s);
  }
  void visit(const ast::Arg* a) override {
    locals.insert(a->arg);
    children(a);
  }
  void visit(const ast::ExceptHandler* h) override {
    if (!ast::is_absent(h->name)) {
      locals.insert(h->name);
    }
    children(h);
  }
  void visit(const ast::Alias* a) override {
    std::string_view n =
        ast::is_absent(a->asname) ? a->name.substr(0, a->name.find('.')) : a->asname;
    locals.insert(n);
  }
};

// A Name root followed by attribute names, or false when `e` is not such a chain.
bool chain_of(const ast::Expr* e, const ast::Name*& root, std::vector<std::string_view>& attrs) {
  std::vector<std::string_view> rev;
  while (const auto* a = e->as<ast::Attribute>()) {
    rev.push_back(a->attr);
    e = a->value;
  }
  root = e->as<ast::Name>();
  if (root == nullptr) {
    return false;
  }
  attrs.assign(rev.rbegin(), rev.rend());
  return true;
}

std::string chain_text(const ast::Name* root, const std::vector<std::string_view>& attrs,
                       size_t n) {
  std::string t(root->id);
  for (size_t k = 0; k < n && k < attrs.size(); ++k) {
    t += ".";
    t += attrs[k];
  }
  return t;
}

class RefCollector : public ast::Walker {
public:
  RefCollector(const Program& p, DefId def, const LocalCollector& locals, BodyRefs& out)
      : m_p(p), m_def(p.defs[def]), m_module(p.defs[def].module), m_locals(locals), m_out(out) {
    const ast::Arguments* args = m_def.args;
    std::vector<const ast::Arg*> params;
    for (const ast::Arg* a : args->posonlyargs) {
      params.push_back(a);
    }
    for (const ast::Arg* a : args->args) {
      params.push_back(a);
    }
    for (const ast::Arg* a : args->kwonlyargs) {
      params.push_back(a);
    }
    for (size_t k = 0; k < params.size(); ++k) {
      std::string_view name = params[k]->arg;
      m_params.insert(name);
      ClassId cls = k_none;
      if (k == 0 && m_def.owner != k_none) {
        cls = m_def.owner;  // self
      } else if (params[k]->annotation != nullptr) {
        cls = annotation_class(p, m_module, params[k]->annotation);
      }
      if (cls != k_none) {
        m_param_class[name] = cls;
      }
    }
  }

  using ast::Walker::visit;
  void visit(const ast::Expr* e) override {
    if (const auto* n = e->as<ast::Name>()) {
      name_ref(n);
      return;
    }
    if (e->as<ast::Attribute>() != nullptr) {
      const ast::Name* root = nullptr;
      std::vector<std::string_view> attrs;
      if (chain_of(e, root, attrs)) {
        chain_ref(e, root, attrs);
        return;
      }
      children(e);
      return;
    }
    if (const auto* c = e->as<ast::Call>()) {
      call(c);
      return;
    }
    children(e);
  }

private:
  bool is_local(std::string_view name) const {
    return m_locals.locals.contains(name) && !m_locals.globals.contains(name);
  }

  // A value read through a non-local name / chain.
  void capture(const ast::Expr* e, const ast::Name* root,
               const std::vector<std::string_view>& attrs) {
    Entity ent = lookup_global(m_p, m_module, root->id);
    size_t used = 0;
    if (ent.kind == EK::undefined && m_def.nested) {
      ent = enclosing_def(root->id);
    }
    if (ent.kind == EK::undefined && m_def.nested) {
      // A def nested in a function: the name is (most likely) a closure variable of the
      // enclosing function, a capture whose value qdbuild does not know.
      ent = Entity{};
      ent.kind = EK::value;
      ent.path = std::string(root->id);
      ent.value = Value::unknown("a variable of the enclosing function");
    } else if (ent.kind == EK::undefined) {
      m_out.unresolved.push_back({std::string(root->id),
                                  "name '" + std::string(root->id) + "' is not defined",
                                  span_of(root->pos),
                                  true,
                                  {},
                                  runtime_global_problem(m_p, m_module, root->id)});
      return;
    }
    // `qd.f32` / `quadrants.types.vector`: a chain that stays inside Quadrants from an import of
    // it. Any other way to a Quadrants entity (`cfg.dtype`, `from quadrants import f32 as T`,
    // `gs.qd_float`) goes through a binding of the tree, whose edits must change the key.
    const bool quadrants_import = ent.kind == EK::quadrants && is_module_import(root->id);
    std::string runtime = used == 0 ? runtime_global_problem(m_p, m_module, root->id) : "";
    while (used < attrs.size() &&
           (ent.kind == EK::module || ent.kind == EK::class_ || ent.kind == EK::external ||
            ent.kind == EK::quadrants || ent.kind == EK::instance)) {
      bool of_module = ent.kind == EK::module;
      int32_t holder = ent.module;
      ent = member_of(m_p, ent, attrs[used]);
      if (runtime.empty() && of_module && holder != k_none) {
        // Anything read through a global set at run time is unknown too (`gs.qd_float`,
        // `cfg.SOLVER.kind`): the first such step decides.
        runtime = runtime_global_problem(m_p, holder, attrs[used]);
      }
      ++used;
    }
    if (!runtime.empty()) {
      // Whatever it resolves to statically (a Quadrants type, a def, a value) is the
      // module-level placeholder, not what the kernels see: QD116.
      m_out.unresolved.push_back({chain_text(root, attrs, used),
                                  "'" + chain_text(root, attrs, used) + "' is set at run time",
                                  span_of(e->pos),
                                  true,
                                  {},
                                  runtime});
      return;
    }
    switch (ent.kind) {
      case EK::quadrants:
        if (quadrants_import) {
          return;
        }
        break;  // a capture: enters the key as "cfg.dtype = quadrants.f64"
      case EK::module:
      case EK::class_:
      case EK::builtin: return;
      case EK::def: m_out.callees.push_back({ent.def, span_of(e->pos), false}); return;
      case EK::external:
        if (used == 0 && is_module_import(root->id)) {
          return;
        }
        break;
      case EK::undefined:
        m_out.unresolved.push_back({chain_text(root, attrs, used),
                                    "'" + chain_text(root, attrs, used) + "' is not defined",
                                    span_of(e->pos),
                                    true,
                                    {},
                                    runtime});
        return;
      default: break;
    }
    CaptureRef c;
    c.text = chain_text(root, attrs, used);
    c.name = used == 0 ? std::string(root->id) : std::string(attrs[used - 1]);
    c.entity = std::move(ent);
    c.span = span_of(e->pos);
    c.in_static = m_static > 0;
    m_out.captures.push_back(std::move(c));
  }

  // A kernel/func defined next to this nested def in the same enclosing function
  // (`make.<locals>.helper` for `make.<locals>.k`).
  Entity enclosing_def(std::string_view name) const {
    std::string prefix = m_def.qualname.substr(0, m_def.qualname.rfind('.') + 1);
    for (DefId d : m_p.modules[m_module].defs) {
      const DefInfo& other = m_p.defs[d];
      if (other.nested && other.qualname.size() == prefix.size() + name.size() &&
          other.qualname.starts_with(prefix) && other.qualname.ends_with(name)) {
        Entity e;
        e.kind = EK::def;
        e.def = d;
        return e;
      }
    }
    Entity none;
    none.kind = EK::undefined;
    return none;
  }

  bool is_module_import(std::string_view name) const {
    const ModuleInfo& m = m_p.modules[m_module];
    auto it = m.bindings.find(name);
    return it != m.bindings.end() && it->second.back().kind == Binding::Kind::module_import;
  }

  void name_ref(const ast::Name* n) {
    if (is_local(n->id) || n->id.starts_with("_qd_")) {
      return;
    }
    capture(n, n, {});
  }

  void chain_ref(const ast::Expr* e, const ast::Name* root,
                 const std::vector<std::string_view>& attrs) {
    if (is_local(root->id)) {
      return;  // parameter members (self.x, params.dt) and locals' attributes are not captures
    }
    if (root->id.starts_with("_qd_")) {
      return;
    }
    capture(e, root, attrs);
  }

  void call(const ast::Call* c) {
    bool is_static = false;
    const ast::Name* root = nullptr;
    std::vector<std::string_view> attrs;
    if (chain_of(c->func, root, attrs)) {
      is_static = resolve_call(c, root, attrs);
    } else if (const auto* a = c->func->as<ast::Attribute>()) {
      // A method of a computed value: `(a - b).norm()`, `x[i].dot(n)`, `f(x).sum()`.
      visit(a->value);
      method_by_name(a->attr, c->func);
    } else {
      visit(c->func);
      m_out.unresolved.push_back({"<expression>",
                                  "the callee is computed (not a name, attribute or method)",
                                  span_of(c->func->pos),
                                  false,
                                  {},
                                  {}});
    }
    if (is_static) {
      ++m_static;
    }
    for (const ast::Expr* a : c->args) {
      visit(a);
    }
    for (const ast::Keyword* k : c->keywords) {
      visit(k->value);
    }
    if (is_static) {
      --m_static;
    }
  }

  void add_callee(DefId d, const ast::Expr* at) {
    m_out.callees.push_back({d, span_of(at->pos), true});
  }

  // Returns whether the call is qd.static / static_assert / static_print.
  bool resolve_call(const ast::Call* c, const ast::Name* root,
                    const std::vector<std::string_view>& attrs) {
    std::string text = chain_text(root, attrs, attrs.size());
    if (is_local(root->id)) {
      local_call(c, root, attrs, text);
      return false;
    }
    Entity ent = lookup_global(m_p, m_module, root->id);
    if (ent.kind == EK::undefined && m_def.nested) {
      ent = enclosing_def(root->id);
      if (ent.kind == EK::undefined) {
        m_out.unresolved.push_back({text,
                                    "'" + std::string(root->id) +
                                        "' belongs to the enclosing function, whose values "
                                        "qdbuild does not know",
                                    span_of(c->func->pos),
                                    false,
                                    {},
                                    {}});
        return false;
      }
    }
    for (size_t k = 0; k < attrs.size() && ent.kind != EK::undefined; ++k) {
      ent = member_of(m_p, ent, attrs[k]);
    }
    switch (ent.kind) {
      case EK::def: add_callee(ent.def, c->func); return false;
      case EK::quadrants: {
        std::string_view path = ent.path;
        return path.ends_with(".static") || path.ends_with(".static_assert") ||
               path.ends_with(".static_print");
      }
      case EK::builtin:
      case EK::class_: return false;
      case EK::external: {
        std::string_view path = ent.path;
        if (path.starts_with("math.") || path.starts_with("numpy.")) {
          return false;
        }
        m_out.unresolved.push_back({text,
                                    "'" + display_path(ent.path) +
                                        "' is outside the source tree, so qdbuild cannot "
                                        "read what it does",
                                    span_of(c->func->pos),
                                    false,
                                    {},
                                    {}});
        return false;
      }
      case EK::undefined:
        m_out.unresolved.push_back(
            {text, "name '" + text + "' is not defined", span_of(c->func->pos), true, {}, {}});
        return false;
      case EK::value:
        m_out.unresolved.push_back({text,
                                    "'" + text + "' is a value" +
                                        (ent.value.known() ? "" : " (" + ent.value.s + ")") +
                                        ", not a function qdbuild can resolve",
                                    span_of(c->func->pos),
                                    false,
                                    {},
                                    {}});
        return false;
      default:
        if (ent.kind == EK::instance || ent.kind == EK::field || ent.kind == EK::ndarray) {
          return false;  // methods of objects (fill, to_numpy, ...) run in Python
        }
        m_out.unresolved.push_back({text,
                                    "'" + text + "' cannot be resolved statically",
                                    span_of(c->func->pos),
                                    false,
                                    {},
                                    {}});
        return false;
    }
  }

  // Calls whose callee starts at a local name: self.m(), p.m(), W(), fn(), v.norm().
  void local_call(const ast::Call* c, const ast::Name* root,
                  const std::vector<std::string_view>& attrs, const std::string& text) {
    auto pc = m_param_class.find(root->id);
    if (pc != m_param_class.end() && !attrs.empty()) {
      ClassId cls = pc->second;
      // Walk members: self.a.b.m() -> class of a -> class of b -> method m.
      for (size_t k = 0; k + 1 < attrs.size() && cls != k_none; ++k) {
        ClassId owner = k_none;
        const MemberInfo* m = find_member(m_p, cls, attrs[k], &owner);
        cls = k_none;
        if (m != nullptr && m->value != nullptr) {
          Entity e = resolve_expr(m_p, m_p.classes[owner].module, m->value);
          if (e.kind == EK::instance) {
            cls = e.cls;
          }
        }
      }
      if (cls != k_none) {
        DefId d = find_method(m_p, cls, attrs.back());
        if (d != k_none) {
          add_callee(d, c->func);
          return;
        }
        if (attrs.size() == 1 && is_data_oriented(m_p, cls)) {
          m_out.unresolved.push_back({text,
                                      "class '" + m_p.classes[cls].qualname + "' has no method '" +
                                          std::string(attrs.back()) + "'",
                                      span_of(c->func->pos),
                                      false,
                                      {},
                                      {}});
          return;
        }
      }
      method_by_name(attrs.back(), c->func);
      return;
    }
    if (!attrs.empty()) {
      method_by_name(attrs.back(), c->func);
      return;
    }
    // A call through a local name: W = qd.static(f); W(), or a parameter fn().
    if (m_params.contains(root->id)) {
      if (m_def.role == DefRole::kernel) {
        m_out.unresolved.push_back({text,
                                    "'" + text +
                                        "' is a kernel parameter; its value is not known "
                                        "statically",
                                    span_of(c->func->pos),
                                    false,
                                    std::string(root->id),
                                    {}});
      }
      return;  // a func parameter: the defs passed at call sites are reachable themselves
    }
    auto it = m_locals.assigned.find(root->id);
    bool resolved = false;
    if (it != m_locals.assigned.end()) {
      for (const ast::Expr* v : it->second) {
        resolved = defs_in(v, c->func, 0) || resolved;
      }
    }
    if (!resolved) {
      m_out.unresolved.push_back({text,
                                  "the local '" + text +
                                      "' is called but no function assigned to it is "
                                      "known statically",
                                  span_of(c->func->pos),
                                  false,
                                  {},
                                  {}});
    }
  }

  // Adds the defs an expression assigned to a called local can denote; true if any value of it
  // is known to be callable (a def, a class, a quadrants or builtin callable).
  bool defs_in(const ast::Expr* v, const ast::Expr* at, int depth) {
    if (depth > 8) {
      return false;
    }
    if (const auto* c = v->as<ast::Call>()) {
      const ast::Name* root = nullptr;
      std::vector<std::string_view> attrs;
      if (chain_of(c->func, root, attrs) && !is_local(root->id)) {
        Entity callee = resolve_expr(m_p, m_module, c->func);
        if (callee.kind == EK::quadrants && callee.path.ends_with(".static") && c->args.size == 1) {
          return defs_in(c->args[0], at, depth + 1);
        }
        return callee.kind == EK::quadrants || callee.kind == EK::class_;
      }
      return false;
    }
    if (const auto* i = v->as<ast::IfExp>()) {
      bool a = defs_in(i->body, at, depth + 1);
      bool b = defs_in(i->orelse, at, depth + 1);
      return a || b;
    }
    const ast::Seq<ast::Expr*>* elts = nullptr;
    if (const auto* t = v->as<ast::Tuple>()) {
      elts = &t->elts;
    } else if (const auto* l = v->as<ast::List>()) {
      elts = &l->elts;
    }
    if (elts != nullptr) {
      bool any = false;
      for (const ast::Expr* e : *elts) {
        any = defs_in(e, at, depth + 1) || any;
      }
      return any;
    }
    const ast::Name* root = nullptr;
    std::vector<std::string_view> attrs;
    if (!chain_of(v, root, attrs)) {
      return false;
    }
    if (is_local(root->id)) {
      auto it = m_locals.assigned.find(root->id);
      if (attrs.empty() && it != m_locals.assigned.end()) {
        bool any = false;
        for (const ast::Expr* w : it->second) {
          if (w != v) {
            any = defs_in(w, at, depth + 1) || any;
          }
        }
        return any;
      }
      return m_params.contains(root->id);
    }
    Entity e = resolve_expr(m_p, m_module, v);
    if (e.kind == EK::def) {
      add_callee(e.def, at);
      return true;
    }
    if (e.kind == EK::value && e.value.kind == Value::Kind::tuple) {
      return false;
    }
    return e.kind == EK::quadrants || e.kind == EK::class_ || e.kind == EK::builtin;
  }

  // x.m() on a local of unknown type: every func method named m of a struct / data_oriented class.
  void method_by_name(std::string_view name, const ast::Expr* at) {
    auto it = m_p.struct_methods.find(name);
    if (it != m_p.struct_methods.end()) {
      for (DefId d : it->second) {
        add_callee(d, at);
      }
    }
  }

  const Program& m_p;
  const DefInfo& m_def;
  int32_t m_module;
  const LocalCollector& m_locals;
  BodyRefs& m_out;
  int m_static = 0;
  std::unordered_set<std::string_view> m_params;
  std::unordered_map<std::string_view, ClassId> m_param_class;
};

}  // namespace

ClassId annotation_class(const Program& p, int32_t module, const ast::Expr* annotation) {
  if (annotation == nullptr) {
    return k_none;
  }
  if (const auto* c = annotation->as<ast::Constant>();
      c != nullptr && c->value.kind == ast::ConstantValue::Kind::Str) {
    Entity e = lookup_global(p, module, c->value.text);
    return e.kind == EK::class_ ? e.cls : k_none;
  }
  if (annotation->as<ast::Name>() == nullptr && annotation->as<ast::Attribute>() == nullptr) {
    return k_none;
  }
  Entity e = resolve_expr(p, module, annotation);
  return e.kind == EK::class_ ? e.cls : k_none;
}

BodyRefs analyze_body(const Program& p, DefId def) {
  const DefInfo& d = p.defs[def];
  LocalCollector locals;
  locals.visit(d.args);
  for (const ast::Stmt* s : *d.body) {
    locals.visit(s);
  }
  BodyRefs out;
  RefCollector refs(p, def, locals, out);
  for (const ast::Stmt* s : *d.body) {
    refs.visit(s);
  }
  return out;
}

}  // namespace qd::sema
