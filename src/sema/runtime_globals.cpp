#include "sema/runtime_globals.hpp"

#include <regex>
#include <set>

#include "sema/resolve.hpp"
#include "syntax/ast_walk.hpp"
#include "syntax/parser.hpp"

namespace qd::sema {

namespace ast = syntax::ast;

namespace {

// Walks one module: function scopes with their `global` names, stores to names, to attributes
// of tree modules, to globals()[...], and setattr(module, "NAME", ...).
class AssignmentFinder : public ast::Walker {
public:
  AssignmentFinder(Program& p, int32_t module) : m_p(p), m_module(module) {}

  using ast::Walker::visit;

  void visit(const ast::Stmt* s) override {
    if (const auto* f = s->as<ast::FunctionDef>()) {
      enter(f->name);
      children(s);
      leave();
      return;
    }
    if (const auto* f = s->as<ast::AsyncFunctionDef>()) {
      enter(f->name);
      children(s);
      leave();
      return;
    }
    if (const auto* g = s->as<ast::Global>(); g != nullptr && !m_scopes.empty()) {
      for (ast::Identifier n : g->names) {
        m_scopes.back().globals.insert(std::string(n));
      }
    }
    children(s);
  }

  void visit(const ast::Expr* e) override {
    if (const auto* n = e->as<ast::Name>()) {
      if (n->ctx == ast::ExprContext::Store && !m_scopes.empty() &&
          m_scopes.back().globals.contains(std::string(n->id))) {
        note(m_module, std::string(n->id), e->pos,
             "global " + std::string(n->id) + " in " + m_scopes.back().name + "()");
      }
    } else if (const auto* a = e->as<ast::Attribute>()) {
      if (a->ctx == ast::ExprContext::Store) {
        int32_t target = module_of(a->value);
        if (target != k_none) {
          note(target, std::string(a->attr), e->pos,
               text_of(a->value) + "." + std::string(a->attr) + " = ...");
        }
      }
    } else if (const auto* s = e->as<ast::Subscript>()) {
      if (s->ctx == ast::ExprContext::Store && is_globals_call(s->value)) {
        const auto* c = s->slice->as<ast::Constant>();
        if (c != nullptr && c->value.kind == ast::ConstantValue::Kind::Str) {
          note(m_module, std::string(c->value.text), e->pos,
               "globals()['" + std::string(c->value.text) + "'] = ...");
        } else {
          dynamic(e->pos, "globals()[...] = ... with a computed name");
        }
      }
    } else if (const auto* c = e->as<ast::Call>()) {
      if (const auto* f = c->func->as<ast::Attribute>();
          f != nullptr && f->attr == "update" && is_globals_call(f->value)) {
        dynamic(e->pos, "globals().update(...)");
      }
      if (const auto* f = c->func->as<ast::Name>();
          f != nullptr && f->id == "setattr" && c->args.size >= 2) {
        int32_t target = module_of(c->args[0]);
        const auto* name = c->args[1]->as<ast::Constant>();
        if (target != k_none) {
          if (name != nullptr && name->value.kind == ast::ConstantValue::Kind::Str) {
            note(target, std::string(name->value.text), e->pos,
                 "setattr(" + text_of(c->args[0]) + ", '" + std::string(name->value.text) +
                     "', ...)");
          } else {
            m_p.dynamic_globals.emplace(
                target, RuntimeAssignment{where(e->pos), "setattr(" + text_of(c->args[0]) +
                                                             ", <computed name>, ...)"});
          }
        }
      }
    }
    children(e);
  }

private:
  struct Scope {
    std::string name;
    std::set<std::string> globals;
  };

  void enter(ast::Identifier name) { m_scopes.push_back({std::string(name), {}}); }
  void leave() { m_scopes.pop_back(); }

  std::string where(const ast::Pos& pos) const {
    return m_p.modules[m_module].path + ":" + std::to_string(pos.lineno);
  }

  void note(int32_t module, std::string name, const ast::Pos& pos, std::string how) {
    m_p.runtime_assigned.emplace(std::make_pair(module, std::move(name)),
                                 RuntimeAssignment{where(pos), std::move(how)});
  }

  void dynamic(const ast::Pos& pos, std::string how) {
    m_p.dynamic_globals.emplace(m_module, RuntimeAssignment{where(pos), std::move(how)});
  }

  static bool is_globals_call(const ast::Expr* e) {
    const auto* c = e->as<ast::Call>();
    if (c == nullptr || c->args.size != 0) {
      return false;
    }
    const auto* n = c->func->as<ast::Name>();
    return n != nullptr && n->id == "globals";
  }

  // The tree module a Name / Attribute chain denotes at module level, or k_none.
  int32_t module_of(const ast::Expr* e) const {
    if (e->as<ast::Name>() == nullptr && e->as<ast::Attribute>() == nullptr) {
      return k_none;
    }
    if (const auto* n = e->as<ast::Name>()) {
      // A function's own local or parameter named like an import is rare; the module-level
      // meaning is what a `mod.X = v` written in a function of this module means.
      if (n->id == "self" || n->id == "cls") {
        return k_none;
      }
    }
    Entity ent = resolve_expr(m_p, m_module, e);
    return ent.kind == Entity::Kind::module ? ent.module : k_none;
  }

  static std::string text_of(const ast::Expr* e) {
    if (const auto* n = e->as<ast::Name>()) {
      return std::string(n->id);
    }
    if (const auto* a = e->as<ast::Attribute>()) {
      return text_of(a->value) + "." + std::string(a->attr);
    }
    return "...";
  }

  Program& m_p;
  int32_t m_module;
  std::vector<Scope> m_scopes;
};

// Dotted names in a Python expression ("genesis.constants.backend.cpu").
std::vector<std::string> dotted_names(const std::string& text) {
  static const std::regex k_dotted(R"(([A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z_][A-Za-z0-9_]*)+)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), k_dotted);
       it != std::sregex_iterator(); ++it) {
    out.push_back(it->str());
  }
  return out;
}

// The longest dotted prefix of `name` that is a module of the tree ("" if none).
std::string module_prefix(const Program& p, const std::string& name) {
  std::string best;
  size_t at = 0;
  while ((at = name.find('.', at + 1)) != std::string::npos) {
    std::string prefix = name.substr(0, at);
    if (p.find_module(prefix) != k_none) {
      best = prefix;
    }
  }
  if (p.find_module(name) != k_none) {
    best = name;
  }
  return best;
}

}  // namespace

void find_runtime_assignments(Program& p) {
  for (int32_t m = 0; m < static_cast<int32_t>(p.modules.size()); ++m) {
    const ModuleInfo& mod = p.modules[m];
    if (!mod.ok || mod.name == k_defines_module || mod.parsed == nullptr ||
        mod.parsed->module == nullptr) {
      continue;
    }
    AssignmentFinder f(p, m);
    f.visit(mod.parsed->module);
  }
}

void add_defines(Program& p, const std::map<std::string, Define>& defines,
                 std::vector<std::string>& problems) {
  if (defines.empty()) {
    return;
  }
  std::set<std::string> imports;
  std::string body;
  struct Target {
    int32_t module;
    std::string name;
    std::string symbol;
    const Define* define;
  };
  std::vector<Target> targets;
  for (const auto& [full, d] : defines) {
    // "pkg.mod.NAME": the longest prefix that is a module of the tree holds NAME.
    size_t dot = full.rfind('.');
    std::string module = dot == std::string::npos ? "" : full.substr(0, dot);
    std::string name = dot == std::string::npos ? full : full.substr(dot + 1);
    int32_t m = module.empty() ? k_none : p.find_module(module);
    if (m == k_none) {
      continue;  // a module outside the files checked: nothing here reads it
    }
    if (d.conflict) {
      p.define_conflicts[{m, name}] = d.source;
      continue;
    }
    // Named after the define, so adding or removing another one leaves this kernel's key alone.
    std::string symbol = "_qd_define_";
    for (char ch : full) {
      symbol += ch == '.' ? std::string("__") : std::string(1, ch);
    }
    for (const std::string& dotted : dotted_names(d.python)) {
      std::string prefix = module_prefix(p, dotted);
      if (!prefix.empty()) {
        imports.insert(prefix);
      }
    }
    body += symbol + " = " + d.python + "\n";
    p.define_names[symbol] = full;
    targets.push_back({m, name, symbol, &d});
  }
  std::string text = "import quadrants\nimport quadrants as qd\n";
  for (const std::string& i : imports) {
    text += "import " + i + "\n";
  }
  text += body;
  ModuleInfo mod;
  mod.name = k_defines_module;
  mod.path = "<defines>";
  mod.parsed = syntax::parse_bytes(mod.path, text);
  mod.ok = mod.parsed->ok();
  if (!mod.ok) {
    const syntax::Diagnostic& d = mod.parsed->diagnostics.front();
    problems.push_back("a define is not a Python expression (" + d.message +
                       "): " + text.substr(0, 200));
    return;
  }
  auto index = static_cast<int32_t>(p.modules.size());
  p.modules.push_back(std::move(mod));
  p.module_index.emplace(k_defines_module, index);
  p.defines_module = index;
  collect_module(p, index);
  for (const Target& t : targets) {
    Binding b;
    b.kind = Binding::Kind::from_import;
    b.target = k_defines_module;
    b.attr = t.symbol;
    b.order = k_order_end - 1;  // after every statement of the module: what kernels see
    p.modules[t.module].bindings[t.name].push_back(std::move(b));
    p.defined[{t.module, t.name}] = t.define->source;
  }
}

std::string runtime_global_problem(const Program& p, int32_t module, std::string_view name) {
  std::pair<int32_t, std::string> key{module, std::string(name)};
  if (p.defined.contains(key)) {
    return "";
  }
  // `from pkg import NAME`: the name's own module decides.
  for (int hops = 0; hops < 16; ++hops) {
    const ModuleInfo& m = p.modules[key.first];
    auto it = m.bindings.find(key.second);
    if (it == m.bindings.end() || it->second.empty() ||
        it->second.back().kind != Binding::Kind::from_import) {
      break;
    }
    int32_t next = p.find_module(it->second.back().target);
    if (next == k_none || next == key.first) {
      break;
    }
    key = {next, it->second.back().attr};
    if (p.defined.contains(key)) {
      return "";
    }
  }
  module = key.first;
  name = key.second;
  const std::string qualified = p.modules[module].name + "." + std::string(name);
  const std::string how =
      "its value comes from a recorded run (python -m qdrt.record -o FILE -- app.py, then "
      "--instances FILE) or from [tool.qdbuild.defines] \"" +
      qualified + "\" = ...";
  if (auto c = p.define_conflicts.find(key); c != p.define_conflicts.end()) {
    return "'" + qualified + "' had different values in the recorded runs (" + c->second +
           "); give its value in [tool.qdbuild.defines] \"" + qualified + "\" = ...";
  }
  if (auto r = p.runtime_assigned.find(key); r != p.runtime_assigned.end()) {
    return "'" + qualified + "' is assigned at run time (" + r->second.how + " at " +
           r->second.where + "), so its module-level value is not what the kernels see; " + how;
  }
  if (auto d = p.dynamic_globals.find(module); d != p.dynamic_globals.end()) {
    const ModuleInfo& m = p.modules[module];
    if (!m.bindings.contains(name) && p.find_module(m.name + "." + std::string(name)) == k_none) {
      return "'" + qualified + "' is not bound in " + m.path + ", whose globals are set at run " +
             "time (" + d->second.how + " at " + d->second.where + "); " + how;
    }
  }
  return "";
}

}  // namespace qd::sema
