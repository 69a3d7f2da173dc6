#include "sema/kernel_scan.hpp"

#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

#include "support/utf8.hpp"
#include "syntax/ast_blocks.hpp"
#include "syntax/py_repr.hpp"

namespace qd::sema {

namespace ast = syntax::ast;

const char* name_of(DefKind kind) {
  switch (kind) {
    case DefKind::kernel: return "kernel";
    case DefKind::func: return "func";
  }
  return "?";
}

namespace {

constexpr std::string_view k_packages[] = {"quadrants", "gstaichi", "taichi"};
constexpr std::string_view k_decorators[] = {"kernel", "func", "real_func", "pyfunc"};

bool is_package_module(std::string_view dotted) {
  for (std::string_view p : k_packages) {
    if (dotted == p ||
        (dotted.starts_with(p) && dotted.size() > p.size() && dotted[p.size()] == '.')) {
      return true;
    }
  }
  return false;
}

bool is_decorator_name(std::string_view name) {
  for (std::string_view d : k_decorators) {
    if (name == d) {
      return true;
    }
  }
  return false;
}

// What names mean in one scope: namespaces bound to the package, and bare decorator names.
struct Bindings {
  std::set<std::string, std::less<>> namespaces;
  std::map<std::string, std::string, std::less<>> decorators;  // local name -> "kernel"...
};

// Adds the package imports among `body` (descending into compound statements, not into defs or
// classes, which get their own scope).
void collect_imports(const ast::Seq<ast::Stmt*>& body, Bindings& b);

void collect_imports(const ast::Stmt* s, Bindings& b) {
  if (const auto* imp = s->as<ast::Import>()) {
    for (const ast::Alias* a : imp->names) {
      if (!is_package_module(a->name)) {
        continue;
      }
      if (!ast::is_absent(a->asname)) {
        b.namespaces.insert(std::string(a->asname));
      } else {
        std::string_view top = a->name.substr(0, a->name.find('.'));
        b.namespaces.insert(std::string(top));
      }
    }
  } else if (const auto* from = s->as<ast::ImportFrom>()) {
    if (from->level != 0 || ast::is_absent(from->module) || !is_package_module(from->module)) {
      return;
    }
    for (const ast::Alias* a : from->names) {
      if (a->name == "*") {
        for (std::string_view d : k_decorators) {
          b.decorators[std::string(d)] = std::string(d);
        }
      } else if (is_decorator_name(a->name)) {
        std::string_view local = ast::is_absent(a->asname) ? a->name : a->asname;
        b.decorators[std::string(local)] = std::string(a->name);
      }
    }
  } else {
    ast::for_each_nested_block(
        s, [&](const ast::Seq<ast::Stmt*>& block) { collect_imports(block, b); });
  }
}

void collect_imports(const ast::Seq<ast::Stmt*>& body, Bindings& b) {
  for (const ast::Stmt* s : body) {
    collect_imports(s, b);
  }
}

// Names declared `global` directly in a scope (compound statements included, nested scopes not).
void collect_globals(const ast::Seq<ast::Stmt*>& body, std::set<std::string, std::less<>>& out) {
  for (const ast::Stmt* s : body) {
    if (const auto* g = s->as<ast::Global>()) {
      for (ast::Identifier name : g->names) {
        out.insert(std::string(name));
      }
    } else {
      ast::for_each_nested_block(
          s, [&](const ast::Seq<ast::Stmt*>& block) { collect_globals(block, out); });
    }
  }
}

// --- decorator arguments as JSON --------------------------------------------------------------

void append_json_string(std::string& out, std::string_view utf8) {
  out.push_back('"');
  size_t i = 0;
  while (i < utf8.size()) {
    size_t start = i;
    uint32_t cp = support::decode_utf8_lenient(utf8, i);
    char buf[16];
    if (cp == support::k_invalid_code_point) {
      out += "\\ufffd";
    } else if (cp == '"' || cp == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(cp));
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7f || (cp >= 0xD800 && cp <= 0xDFFF)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      out += buf;
    } else {
      out.append(utf8.substr(start, i - start));
    }
  }
  out.push_back('"');
}

// JSON text of a literal expression, or false when the expression is not one.
bool literal_json(const ast::Expr* e, std::string& out) {
  using K = ast::ConstantValue::Kind;
  if (const auto* c = e->as<ast::Constant>()) {
    const ast::ConstantValue& v = c->value;
    switch (v.kind) {
      case K::None: out += "null"; return true;
      case K::True: out += "true"; return true;
      case K::False: out += "false"; return true;
      case K::Str: append_json_string(out, v.text); return true;
      case K::Int: {
        int64_t n = 0;
        auto r = std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
        if (r.ec != std::errc() || r.ptr != v.text.data() + v.text.size()) {
          return false;  // beyond int64: keep the source text
        }
        out.append(v.text);
        return true;
      }
      case K::Float: {
        std::string repr;
        syntax::repr_float(repr, v.number);
        if (repr == "inf" || repr == "nan") {
          return false;
        }
        out += repr;
        return true;
      }
      case K::Ellipsis:
      case K::Complex:
      case K::Bytes: return false;
    }
    return false;
  }
  if (const auto* u = e->as<ast::UnaryOp>()) {
    const auto* c = u->operand->as<ast::Constant>();
    if (u->op == ast::UnaryOperator::USub && c != nullptr &&
        (c->value.kind == K::Int || c->value.kind == K::Float)) {
      std::string inner;
      if (!literal_json(c, inner)) {
        return false;
      }
      out += inner == "0" ? inner : "-" + inner;  // -0 is the int 0; -0.0 stays negative
      return true;
    }
    return false;
  }
  const ast::Seq<ast::Expr*>* elts = nullptr;
  if (const auto* l = e->as<ast::List>()) {
    elts = &l->elts;
  } else if (const auto* t = e->as<ast::Tuple>()) {
    elts = &t->elts;
  }
  if (elts != nullptr) {
    std::string items = "[";
    for (uint32_t i = 0; i < elts->size; ++i) {
      if (i > 0) {
        items += ",";
      }
      if (!literal_json((*elts)[i], items)) {
        return false;
      }
    }
    out += items + "]";
    return true;
  }
  if (const auto* d = e->as<ast::Dict>()) {
    std::string items = "{";
    for (uint32_t i = 0; i < d->keys.size; ++i) {
      const ast::Expr* key = d->keys[i];
      const ast::Constant* kc = key != nullptr ? key->as<ast::Constant>() : nullptr;
      if (kc == nullptr || kc->value.kind != K::Str) {
        return false;  // `**x` entries and non-string keys
      }
      if (i > 0) {
        items += ",";
      }
      append_json_string(items, kc->value.text);
      items += ":";
      if (!literal_json(d->values[i], items)) {
        return false;
      }
    }
    out += items + "}";
    return true;
  }
  return false;
}

// The source text of a node: from (line, col) to (end_line, end_col), byte columns.
std::string source_text(const syntax::SourceFile& src, const ast::Pos& pos) {
  std::string_view first = src.line_text(pos.lineno);
  std::string_view last = src.line_text(pos.end_lineno);
  const std::string& text = src.text();
  if (first.data() == nullptr || last.data() == nullptr || text.empty()) {
    return {};
  }
  size_t begin =
      static_cast<size_t>(first.data() - text.data()) + static_cast<size_t>(pos.col_offset);
  size_t end =
      static_cast<size_t>(last.data() - text.data()) + static_cast<size_t>(pos.end_col_offset);
  if (begin > end || end > text.size()) {
    return {};
  }
  return text.substr(begin, end - begin);
}

// --- the walk ---------------------------------------------------------------------------------

class Scanner {
public:
  explicit Scanner(const syntax::SourceFile& source) : m_source(source) {}

  std::vector<KernelDef> run(const ast::Module& module) {
    Bindings top;
    collect_imports(module.body, top);
    std::set<std::string, std::less<>> no_globals;
    walk(module.body, "", top, no_globals);
    return std::move(m_defs);
  }

private:
  // `prefix` is what a def's name is appended to: "" at module level, "C." in a class, and
  // "f.<locals>." in a function. `globals` are the names declared global in that scope.
  void walk(const ast::Seq<ast::Stmt*>& body, const std::string& prefix, const Bindings& b,
            const std::set<std::string, std::less<>>& globals) {
    for (const ast::Stmt* s : body) {
      walk(s, prefix, b, globals);
    }
  }

  void walk(const ast::Stmt* s, const std::string& prefix, const Bindings& b,
            const std::set<std::string, std::less<>>& globals) {
    if (const auto* f = s->as<ast::FunctionDef>()) {
      function(s, f->name, f->decorator_list, f->body, prefix, b, globals);
    } else if (const auto* f = s->as<ast::AsyncFunctionDef>()) {
      function(s, f->name, f->decorator_list, f->body, prefix, b, globals);
    } else if (const auto* c = s->as<ast::ClassDef>()) {
      std::string qualname = qualify(c->name, prefix, globals);
      Bindings inner = b;
      collect_imports(c->body, inner);
      std::set<std::string, std::less<>> inner_globals;
      collect_globals(c->body, inner_globals);
      walk(c->body, qualname + ".", inner, inner_globals);
    } else {
      ast::for_each_nested_block(
          s, [&](const ast::Seq<ast::Stmt*>& block) { walk(block, prefix, b, globals); });
    }
  }

  static std::string qualify(ast::Identifier name, const std::string& prefix,
                             const std::set<std::string, std::less<>>& globals) {
    if (globals.contains(name)) {
      return std::string(name);
    }
    return prefix + std::string(name);
  }

  void function(const ast::Stmt* s, ast::Identifier name, const ast::Seq<ast::Expr*>& decorators,
                const ast::Seq<ast::Stmt*>& body, const std::string& prefix, const Bindings& b,
                const std::set<std::string, std::less<>>& globals) {
    std::string qualname = qualify(name, prefix, globals);
    for (const ast::Expr* d : decorators) {
      if (match_decorator(d, qualname, s->pos, b)) {
        break;
      }
    }
    Bindings inner = b;
    collect_imports(body, inner);
    std::set<std::string, std::less<>> inner_globals;
    collect_globals(body, inner_globals);
    walk(body, qualname + ".<locals>.", inner, inner_globals);
  }

  // Records the def when `d` is one of the decorators; returns whether it was.
  bool match_decorator(const ast::Expr* d, const std::string& qualname, const ast::Pos& pos,
                       const Bindings& b) {
    const ast::Call* call = d->as<ast::Call>();
    const ast::Expr* target = call != nullptr ? call->func : d;
    std::string which;
    if (const auto* attr = target->as<ast::Attribute>()) {
      const auto* base = attr->value->as<ast::Name>();
      if (base != nullptr && b.namespaces.contains(base->id) && is_decorator_name(attr->attr)) {
        which = attr->attr;
      }
    } else if (const auto* name = target->as<ast::Name>()) {
      if (auto it = b.decorators.find(name->id); it != b.decorators.end()) {
        which = it->second;
      }
    }
    if (which.empty()) {
      return false;
    }
    KernelDef def;
    def.kind = which == "kernel" ? DefKind::kernel : DefKind::func;
    def.decorator = which;
    def.qualname = qualname;
    def.line = pos.lineno;
    def.end_line = pos.end_lineno;
    if (call != nullptr) {
      for (const ast::Keyword* k : call->keywords) {
        DecoratorArgument arg;
        arg.name = ast::is_absent(k->arg) ? "**" : std::string(k->arg);
        arg.is_literal = literal_json(k->value, arg.value);
        if (!arg.is_literal) {
          arg.value = source_text(m_source, k->value->pos);
        }
        def.arguments.push_back(std::move(arg));
      }
    }
    m_defs.push_back(std::move(def));
    return true;
  }

  const syntax::SourceFile& m_source;
  std::vector<KernelDef> m_defs;
};

}  // namespace

std::vector<KernelDef> scan_kernels(const ast::Module& module, const syntax::SourceFile& source) {
  return Scanner(source).run(module);
}

}  // namespace qd::sema
