#include "sema/resolve.hpp"

#include <algorithm>
#include <array>

namespace qd::sema {

namespace ast = syntax::ast;
using EK = Entity::Kind;

const char* name_of(Entity::Kind k) {
  switch (k) {
    case EK::undefined: return "undefined";
    case EK::unknown: return "unknown";
    case EK::module: return "module";
    case EK::external: return "external";
    case EK::quadrants: return "quadrants";
    case EK::def: return "def";
    case EK::class_: return "class";
    case EK::value: return "value";
    case EK::instance: return "instance";
    case EK::field: return "field";
    case EK::ndarray: return "ndarray";
    case EK::builtin: return "builtin";
  }
  return "?";
}

bool is_quadrants_path(std::string_view d) {
  for (std::string_view p : {"quadrants", "gstaichi", "taichi"}) {
    if (d == p || (d.starts_with(p) && d.size() > p.size() && d[p.size()] == '.')) {
      return true;
    }
  }
  return false;
}

std::string display_path(std::string_view d) {
  if (!is_quadrants_path(d)) {
    return std::string(d);
  }
  size_t dot = d.find('.');
  return dot == std::string_view::npos ? "qd" : "qd" + std::string(d.substr(dot));
}

bool is_builtin_name(std::string_view name) {
  static constexpr std::array<std::string_view, 72> k_builtins = {"abs",
                                                                  "all",
                                                                  "any",
                                                                  "ascii",
                                                                  "bin",
                                                                  "bool",
                                                                  "breakpoint",
                                                                  "bytearray",
                                                                  "bytes",
                                                                  "callable",
                                                                  "chr",
                                                                  "classmethod",
                                                                  "compile",
                                                                  "complex",
                                                                  "delattr",
                                                                  "dict",
                                                                  "dir",
                                                                  "divmod",
                                                                  "enumerate",
                                                                  "eval",
                                                                  "exec",
                                                                  "filter",
                                                                  "float",
                                                                  "format",
                                                                  "frozenset",
                                                                  "getattr",
                                                                  "globals",
                                                                  "hasattr",
                                                                  "hash",
                                                                  "help",
                                                                  "hex",
                                                                  "id",
                                                                  "input",
                                                                  "int",
                                                                  "isinstance",
                                                                  "issubclass",
                                                                  "iter",
                                                                  "len",
                                                                  "list",
                                                                  "locals",
                                                                  "map",
                                                                  "max",
                                                                  "memoryview",
                                                                  "min",
                                                                  "next",
                                                                  "object",
                                                                  "oct",
                                                                  "open",
                                                                  "ord",
                                                                  "pow",
                                                                  "print",
                                                                  "property",
                                                                  "range",
                                                                  "repr",
                                                                  "reversed",
                                                                  "round",
                                                                  "set",
                                                                  "setattr",
                                                                  "slice",
                                                                  "sorted",
                                                                  "staticmethod",
                                                                  "str",
                                                                  "sum",
                                                                  "super",
                                                                  "tuple",
                                                                  "type",
                                                                  "vars",
                                                                  "zip",
                                                                  "__name__",
                                                                  "__file__",
                                                                  "NotImplemented",
                                                                  "Ellipsis"};
  static constexpr std::array<std::string_view, 12> k_more = {
      "None",       "True",         "False",          "Exception",           "ValueError",
      "TypeError",  "RuntimeError", "AssertionError", "NotImplementedError", "KeyError",
      "IndexError", "__debug__"};
  return std::find(k_builtins.begin(), k_builtins.end(), name) != k_builtins.end() ||
         std::find(k_more.begin(), k_more.end(), name) != k_more.end();
}

std::string class_path(const Program& p, ClassId cls) {
  return p.modules[p.classes[cls].module].name + "." + p.classes[cls].qualname;
}

namespace {

constexpr int k_max_resolve_depth = 48;

// The class whose body is being evaluated: its earlier attributes are visible by bare name there
// (`GREEN = RED + 1` in an enum sees the raw value of RED, as Python's class scope does).
thread_local const ClassInfo* t_class_scope = nullptr;

Entity make(EK kind) {
  Entity e;
  e.kind = kind;
  return e;
}

Entity path_entity(const Program& p, const std::string& dotted) {
  int32_t m = p.find_module(dotted);
  if (m != k_none) {
    Entity e = make(EK::module);
    e.module = m;
    e.path = p.modules[m].name;
    return e;
  }
  Entity e = make(is_quadrants_path(dotted) ? EK::quadrants : EK::external);
  e.path = dotted;
  return e;
}

Entity lookup(const Program& p, int32_t module, std::string_view name, int32_t before, int depth);
Entity member(const Program& p, const Entity& base, std::string_view attr, int depth);
Entity resolve(const Program& p, int32_t module, const ast::Expr* e, int32_t before, int depth);
Value eval(const Program& p, int32_t module, const ast::Expr* e, int32_t before, int depth);

// The entity a module-level binding denotes.
Entity from_binding(const Program& p, int32_t module, const std::string& name, const Binding& b,
                    int depth) {
  if (b.entity) {
    return *b.entity;  // evaluated by evaluate_program
  }
  bool first_evaluation = false;
  Entity e;
  switch (b.kind) {
    case Binding::Kind::module_import: e = path_entity(p, b.target); break;
    case Binding::Kind::from_import: {
      // `from . import m` in a top-level module of the root: the target is the root itself.
      std::string full = b.target.empty() ? b.attr : b.target + "." + b.attr;
      int32_t m = b.target.empty() ? k_none : p.find_module(b.target);
      if (m != k_none) {
        e = lookup(p, m, b.attr, k_order_end, depth + 1);
        if (e.kind == EK::undefined || e.kind == EK::unknown) {
          // Python imports the submodule when the package has no such attribute yet. A package
          // whose __init__ star-imports a module that did `from . import sub` re-exports `sub`
          // to itself (Genesis's collider package): the chase goes round in a circle, and the
          // name is still the submodule.
          Entity sub = path_entity(p, full);
          if (sub.kind == EK::module) {
            e = sub;
          } else if (e.kind == EK::undefined) {
            e = make(EK::undefined);
          }
        }
      } else {
        e = path_entity(p, full);
      }
      break;
    }
    case Binding::Kind::def:
      e = make(EK::def);
      e.def = b.def;
      break;
    case Binding::Kind::class_:
      e = make(EK::class_);
      e.cls = b.cls;
      break;
    case Binding::Kind::star_unknown: e = make(EK::unknown); break;
    case Binding::Kind::value: {
      if (b.eval_state == 1) {
        e = make(EK::value);
        e.value = Value::unknown("circular definition");
        break;
      }
      uint8_t saved = b.eval_state;
      if (saved == 0) {
        b.eval_state = 1;
      }
      if (b.aug != nullptr) {
        const auto* aug = b.aug->as<ast::AugAssign>();
        Value before = eval(p, module, aug->target, b.order, depth + 1);
        e = make(EK::value);
        e.value = binary_op(aug->op, before, eval(p, module, b.expr, b.order, depth + 1));
      } else if (b.tuple_index >= 0) {
        e = make(EK::value);
        if (saved == 2) {
          e.value = b.value;
        } else {
          Value whole = eval(p, module, b.expr, b.order, depth + 1);
          if (whole.kind == Value::Kind::tuple) {
            e.value = static_cast<size_t>(b.tuple_index) < whole.items.size()
                          ? whole.items[b.tuple_index]
                          : Value::unknown("not enough values to unpack");
          } else {
            e.value = whole.known() ? Value::unknown("cannot unpack a non-tuple") : whole;
          }
        }
      } else {
        e = resolve(p, module, b.expr, b.order, depth + 1);
        if (e.kind == EK::undefined) {
          e = make(EK::value);
          e.value = Value::unknown("refers to an undefined name");
        }
      }
      if (e.kind == EK::value && b.conditional) {
        e.value = Value::unknown("assigned inside a module-level branch or loop");
      }
      if (saved == 0) {
        b.value = e.value;
        b.eval_state = 2;
        first_evaluation = true;
      }
      break;
    }
  }
  e.conditional = b.conditional;
  // A value is named where it is assigned (an imported one keeps its home module's name, so
  // `from .options import EPS` and `options.EPS` are one key entry).
  if (b.kind == Binding::Kind::value && (e.kind == EK::value || e.kind == EK::instance ||
                                         e.kind == EK::field || e.kind == EK::ndarray)) {
    e.path = p.modules[module].name + "." + name;
    if (module == p.defines_module) {
      // A define's value: named after the global it defines ("genesis.EPS (define)").
      auto it = p.define_names.find(name);
      e.path = (it == p.define_names.end() ? name : it->second) + " (define)";
    }
    e.module = module;
    e.line = b.line;
  }
  if (first_evaluation) {
    b.entity = std::make_shared<const Entity>(e);  // only evaluate_program gets here
  }
  return e;
}

Entity lookup(const Program& p, int32_t module, std::string_view name, int32_t before, int depth) {
  if (depth > k_max_resolve_depth) {
    return make(EK::unknown);
  }
  const ModuleInfo& m = p.modules[module];
  auto it = m.bindings.find(name);
  if (it != m.bindings.end()) {
    const Binding* last = nullptr;
    for (const Binding& b : it->second) {
      if (b.order < before) {
        last = &b;
      }
    }
    if (last != nullptr) {
      return from_binding(p, module, it->first, *last, depth);
    }
  }
  for (const std::string& star : m.star_imports) {
    int32_t sm = p.find_module(star);
    if (sm != k_none) {
      Entity e = lookup(p, sm, name, k_order_end, depth + 1);
      if (e.kind != EK::undefined && e.kind != EK::builtin) {
        return e;
      }
    } else if (is_quadrants_path(star)) {
      return path_entity(p, star + "." + std::string(name));
    } else {
      Entity e = make(EK::unknown);
      e.path = star + "." + std::string(name);
      return e;
    }
  }
  if (is_builtin_name(name)) {
    Entity e = make(EK::builtin);
    e.path = std::string(name);
    return e;
  }
  return make(EK::undefined);
}

bool is_enum_class(const Program& p, ClassId cls) { return p.classes[cls].is_enum; }

Entity class_attribute(const Program& p, ClassId cls, std::string_view attr, int depth) {
  const ClassInfo& c = p.classes[cls];
  for (auto it = c.attributes.rbegin(); it != c.attributes.rend(); ++it) {
    if (it->first != attr) {
      continue;
    }
    Entity e = make(EK::value);
    e.module = c.module;
    e.path = class_path(p, cls) + "." + std::string(attr);
    const ClassInfo* saved = t_class_scope;
    t_class_scope = &c;
    Value v = it->second != nullptr ? eval(p, c.module, it->second, k_order_end, depth + 1)
                                    : Value::unknown("no value");
    t_class_scope = saved;
    if (is_enum_class(p, cls) && !attr.starts_with("_")) {
      e.value = Value::enum_member(e.path, v);
    } else {
      e.value = v;
    }
    return e;
  }
  auto m = c.methods.find(attr);
  if (m != c.methods.end()) {
    Entity e = make(EK::def);
    e.def = m->second;
    return e;
  }
  for (ClassId base : c.base_ids) {
    Entity e = class_attribute(p, base, attr, depth + 1);
    if (e.kind != EK::undefined) {
      return e;
    }
  }
  return make(EK::undefined);
}

Entity member(const Program& p, const Entity& base, std::string_view attr, int depth) {
  if (depth > k_max_resolve_depth) {
    return make(EK::unknown);
  }
  switch (base.kind) {
    case EK::module: {
      Entity e = lookup(p, base.module, attr, k_order_end, depth + 1);
      if (e.kind == EK::undefined || e.kind == EK::builtin) {
        Entity sub = path_entity(p, base.path + "." + std::string(attr));
        if (sub.kind == EK::module) {
          return sub;
        }
        return make(EK::undefined);
      }
      return e;
    }
    case EK::external:
    case EK::quadrants: {
      Entity e = make(base.kind);
      e.path.reserve(base.path.size() + 1 + attr.size());
      e.path = base.path;
      e.path += '.';
      e.path += attr;
      return e;
    }
    case EK::class_: {
      Entity e = class_attribute(p, base.cls, attr, depth);
      return e.kind == EK::undefined ? make(EK::unknown) : e;
    }
    case EK::instance: {
      ClassId owner = k_none;
      if (const MemberInfo* mi = find_member(p, base.cls, attr, &owner)) {
        Entity e = make(EK::value);
        e.module = p.classes[owner].module;
        e.path = base.path + "." + std::string(attr);
        e.value = mi->value != nullptr ? eval(p, e.module, mi->value, k_order_end, depth + 1)
                                       : Value::unknown("no value");
        return e;
      }
      Entity e = class_attribute(p, base.cls, attr, depth);
      if (e.kind == EK::value) {
        e.path = base.path + "." + std::string(attr);
      }
      return e.kind == EK::undefined ? make(EK::unknown) : e;
    }
    case EK::value:
      if (base.value.kind == Value::Kind::enum_member) {
        Entity e = make(EK::value);
        e.path = base.path + "." + std::string(attr);
        if (attr == "value") {
          e.value = base.value.items[0];
        } else if (attr == "name") {
          std::string_view q = base.value.s;
          e.value = Value::string(std::string(q.substr(q.rfind('.') + 1)));
        } else {
          e.value = Value::unknown("unknown enum attribute");
        }
        return e;
      }
      {
        Entity e = make(EK::value);
        e.path = base.path + "." + std::string(attr);
        e.value = Value::unknown("attribute of a value");
        return e;
      }
    default: return make(EK::unknown);
  }
}

// Module-level value bindings denote objects by how they are made: `qd.field(...)`,
// `qd.ndarray(...)`, `Class(...)`, `qd.types.vector(...)`, or a plain constant expression.
Entity call_result(const Program& p, int32_t module, const ast::Call* call, int32_t before,
                   int depth) {
  Entity callee = resolve(p, module, call->func, before, depth + 1);
  Entity e;
  if (callee.kind == EK::quadrants) {
    std::string_view path = callee.path;
    std::string_view last = path.substr(path.rfind('.') + 1);
    if (last == "field") {
      e = make(EK::field);
    } else if (last == "ndarray" && !path.ends_with("types.ndarray")) {
      e = make(EK::ndarray);
    } else {
      e = make(EK::quadrants);
      e.path = std::string(path) + "()";
    }
    return e;
  }
  if (callee.kind == EK::class_) {
    e = make(EK::instance);
    e.cls = callee.cls;
    return e;
  }
  if (callee.kind == EK::builtin) {
    e = make(EK::value);
    e.value = eval(p, module, call, before, depth + 1);
    return e;
  }
  e = make(EK::value);
  e.value = Value::unknown("the result of a call");
  return e;
}

Entity resolve(const Program& p, int32_t module, const ast::Expr* x, int32_t before, int depth) {
  if (depth > k_max_resolve_depth) {
    return make(EK::unknown);
  }
  if (const auto* n = x->as<ast::Name>()) {
    if (const ClassInfo* c = t_class_scope) {
      for (const auto& [name, value] : c->attributes) {
        if (name == n->id && value != nullptr && value != x) {
          Entity e = make(EK::value);
          t_class_scope = nullptr;  // the attribute's own expression sees the module scope
          e.value = eval(p, module, value, before, depth + 1);
          t_class_scope = c;
          return e;
        }
      }
    }
    return lookup(p, module, n->id, before, depth + 1);
  }
  if (const auto* a = x->as<ast::Attribute>()) {
    Entity base = resolve(p, module, a->value, before, depth + 1);
    if (base.kind == EK::undefined) {
      return base;
    }
    return member(p, base, a->attr, depth + 1);
  }
  if (const auto* c = x->as<ast::Call>()) {
    return call_result(p, module, c, before, depth);
  }
  if (const auto* s = x->as<ast::Subscript>()) {
    Entity base = resolve(p, module, s->value, before, depth + 1);
    if (base.kind == EK::quadrants || base.kind == EK::external) {
      Entity e = make(base.kind);
      e.path = base.path + "[]";
      return e;
    }
  }
  Entity e = make(EK::value);
  e.value = eval(p, module, x, before, depth + 1);
  return e;
}

Value builtin_call(const Program& p, int32_t module, const ast::Call* c, std::string_view name,
                   int32_t before, int depth) {
  if (!c->keywords.empty()) {
    return Value::unknown("keyword arguments to builtins are not evaluated");
  }
  std::vector<Value> args;
  for (const ast::Expr* a : c->args) {
    args.push_back(eval(p, module, a, before, depth + 1));
    if (!args.back().known()) {
      return args.back();
    }
  }
  if (name == "len" && args.size() == 1) {
    if (args[0].kind == Value::Kind::tuple) {
      return Value::integer(static_cast<int64_t>(args[0].items.size()));
    }
  } else if ((name == "min" || name == "max") && !args.empty()) {
    std::vector<Value> items =
        args.size() == 1 && args[0].kind == Value::Kind::tuple ? args[0].items : args;
    if (items.empty()) {
      return Value::unknown("empty sequence");
    }
    Value best = items[0];
    for (size_t k = 1; k < items.size(); ++k) {
      Value lt = compare_op(ast::CmpOperator::Lt, items[k], best);
      if (!lt.known()) {
        return lt;
      }
      if ((name == "min") == lt.b && !equal(items[k], best)) {
        best = items[k];
      }
    }
    return best;
  } else if (name == "abs" && args.size() == 1) {
    Value neg = compare_op(ast::CmpOperator::Lt, args[0], Value::integer(0));
    return neg.known() && neg.b ? unary_op(ast::UnaryOperator::USub, args[0]) : args[0];
  } else if (name == "int" && args.size() == 1) {
    if (args[0].kind == Value::Kind::floating && std::abs(args[0].f) < 9.2e18) {
      return Value::integer(static_cast<int64_t>(args[0].f));
    }
    if (args[0].kind == Value::Kind::integer || args[0].kind == Value::Kind::boolean) {
      return binary_op(ast::Operator::Add, args[0], Value::integer(0));
    }
  } else if (name == "float" && args.size() == 1) {
    if (args[0].is_number()) {
      return binary_op(ast::Operator::Add, args[0], Value::floating(0.0));
    }
  } else if (name == "bool" && args.size() == 1) {
    bool known = false;
    bool t = truthy(args[0], known);
    return known ? Value::boolean(t) : Value::unknown("truth value not known");
  } else if (name == "tuple" && args.size() == 1 && args[0].kind == Value::Kind::tuple) {
    return args[0];
  }
  return Value::unknown("call to " + std::string(name) + "() is not evaluated");
}

Value eval(const Program& p, int32_t module, const ast::Expr* x, int32_t before, int depth) {
  if (depth > k_max_resolve_depth) {
    return Value::unknown("expression too deep");
  }
  if (const auto* c = x->as<ast::Constant>()) {
    return constant_value(c->value);
  }
  if (x->as<ast::Name>() != nullptr || x->as<ast::Attribute>() != nullptr) {
    Entity e = resolve(p, module, x, before, depth + 1);
    if (e.kind == EK::value) {
      return e.value;
    }
    if (e.kind == EK::quadrants) {
      // The constants of qd.math (the only quadrants values that fold in module constants).
      if (e.path.ends_with("math.pi")) {
        return Value::floating(3.141592653589793);
      }
      if (e.path.ends_with("math.e")) {
        return Value::floating(2.718281828459045);
      }
    }
    if (e.kind == EK::external && (e.path == "math.pi" || e.path == "numpy.pi")) {
      return Value::floating(3.141592653589793);
    }
    if (e.kind == EK::external && (e.path == "math.e" || e.path == "numpy.e")) {
      return Value::floating(2.718281828459045);
    }
    return Value::unknown(std::string("not a constant (") + name_of(e.kind) + ")");
  }
  if (const auto* b = x->as<ast::BinOp>()) {
    return binary_op(b->op, eval(p, module, b->left, before, depth + 1),
                     eval(p, module, b->right, before, depth + 1));
  }
  if (const auto* u = x->as<ast::UnaryOp>()) {
    return unary_op(u->op, eval(p, module, u->operand, before, depth + 1));
  }
  if (const auto* b = x->as<ast::BoolOp>()) {
    Value last;
    for (const ast::Expr* v : b->values) {
      last = eval(p, module, v, before, depth + 1);
      bool known = false;
      bool t = truthy(last, known);
      if (!known) {
        return last.known() ? Value::unknown("truth value not known") : last;
      }
      if ((b->op == ast::BoolOperator::And) != t) {
        return last;
      }
    }
    return last;
  }
  if (const auto* c = x->as<ast::Compare>()) {
    Value left = eval(p, module, c->left, before, depth + 1);
    Value result = Value::boolean(true);
    for (uint32_t k = 0; k < c->ops.size; ++k) {
      Value right = eval(p, module, c->comparators[k], before, depth + 1);
      result = compare_op(c->ops[k], left, right);
      if (!result.known() || !result.b) {
        return result;
      }
      left = right;
    }
    return result;
  }
  if (const auto* i = x->as<ast::IfExp>()) {
    Value t = eval(p, module, i->test, before, depth + 1);
    bool known = false;
    bool taken = truthy(t, known);
    if (!known) {
      return t.known() ? Value::unknown("condition not known") : t;
    }
    return eval(p, module, taken ? i->body : i->orelse, before, depth + 1);
  }
  const ast::Seq<ast::Expr*>* elts = nullptr;
  if (const auto* t = x->as<ast::Tuple>()) {
    elts = &t->elts;
  } else if (const auto* l = x->as<ast::List>()) {
    elts = &l->elts;
  }
  if (elts != nullptr) {
    std::vector<Value> items;
    for (const ast::Expr* e : *elts) {
      items.push_back(eval(p, module, e, before, depth + 1));
    }
    return Value::tuple(std::move(items));
  }
  if (const auto* s = x->as<ast::Subscript>()) {
    Value base = eval(p, module, s->value, before, depth + 1);
    Value index = eval(p, module, s->slice, before, depth + 1);
    if (!base.known()) {
      return base;
    }
    if ((base.kind == Value::Kind::tuple || base.kind == Value::Kind::string) &&
        index.kind == Value::Kind::integer) {
      int64_t n = base.kind == Value::Kind::tuple ? static_cast<int64_t>(base.items.size())
                                                  : static_cast<int64_t>(base.s.size());
      Int k = index.iv < 0 ? index.iv + n : index.iv;
      if (k < 0 || k >= n) {
        return Value::unknown("index out of range");
      }
      if (base.kind == Value::Kind::tuple) {
        return base.items[k];
      }
    }
    return Value::unknown("subscript not evaluated");
  }
  if (const auto* c = x->as<ast::Call>()) {
    Entity callee = resolve(p, module, c->func, before, depth + 1);
    if (callee.kind == EK::builtin) {
      return builtin_call(p, module, c, callee.path, before, depth);
    }
    return Value::unknown("the result of a call");
  }
  return Value::unknown("not a constant expression");
}

void resolve_bases(Program& p, ClassId id, std::vector<uint8_t>& state) {
  if (state[id] != 0) {
    return;
  }
  state[id] = 1;
  ClassInfo& c = p.classes[id];
  for (const ast::Expr* b : c.node->bases) {
    Entity e = resolve(p, c.module, b, k_order_end, 0);
    if (e.kind == EK::class_) {
      resolve_bases(p, e.cls, state);
      c.base_ids.push_back(e.cls);
      if (p.classes[e.cls].is_enum) {
        c.is_enum = true;
      }
      c.int_enum = c.int_enum || p.classes[e.cls].int_enum;
    } else if (e.kind == EK::external) {
      std::string_view path = e.path;
      if (path.starts_with("enum.")) {
        c.is_enum = true;
      }
      c.int_enum = c.int_enum || path == "enum.IntEnum" || path == "enum.IntFlag";
    } else if (e.kind == EK::builtin && e.path == "int") {
      c.int_enum = true;  // class E(int, Enum): its members are ints (is_enum says whether enum)
    }
  }
  state[id] = 2;
}

}  // namespace

Entity lookup_global(const Program& p, int32_t module, std::string_view name, int32_t before) {
  return lookup(p, module, name, before, 0);
}
Entity member_of(const Program& p, const Entity& base, std::string_view attr) {
  return member(p, base, attr, 0);
}
Entity resolve_expr(const Program& p, int32_t module, const ast::Expr* e, int32_t before) {
  return resolve(p, module, e, before, 0);
}
Value evaluate(const Program& p, int32_t module, const ast::Expr* e, int32_t before) {
  return eval(p, module, e, before, 0);
}

const Binding* final_binding(const Program& p, int32_t module, std::string_view name,
                             int32_t& where) {
  for (int depth = 0; depth <= k_max_resolve_depth && module != k_none; ++depth) {
    const ModuleInfo& m = p.modules[module];
    auto it = m.bindings.find(name);
    if (it == m.bindings.end() || it->second.empty()) {
      return nullptr;
    }
    const Binding& b = it->second.back();
    if (b.kind != Binding::Kind::from_import) {
      where = module;
      return &b;
    }
    module = p.find_module(b.target);
    name = b.attr;
  }
  return nullptr;
}

void evaluate_program(Program& p) {
  std::vector<uint8_t> state(p.classes.size(), 0);
  for (ClassId c = 0; c < static_cast<ClassId>(p.classes.size()); ++c) {
    resolve_bases(p, c, state);
  }
  for (int32_t m = 0; m < static_cast<int32_t>(p.modules.size()); ++m) {
    for (const auto& [name, list] : p.modules[m].bindings) {
      for (const Binding& b : list) {
        if (b.kind == Binding::Kind::value && b.eval_state == 0) {
          from_binding(p, m, name, b, 0);
        }
      }
    }
  }
  // Cache what every binding denotes (all values are evaluated now, so this reads only).
  std::vector<std::shared_ptr<const Entity>> cached;
  for (int32_t m = 0; m < static_cast<int32_t>(p.modules.size()); ++m) {
    for (const auto& [name, list] : p.modules[m].bindings) {
      for (const Binding& b : list) {
        // Imports of modules, defs and classes are cheap to rebuild; values and from-imports
        // (which chase other modules) are worth keeping.
        // Values cached themselves when evaluated; imports of modules, defs and classes are
        // cheap to rebuild; from-imports chase other modules, so they are worth keeping.
        bool keep = b.kind == Binding::Kind::from_import && !b.entity;
        cached.push_back(keep ? std::make_shared<const Entity>(from_binding(p, m, name, b, 0))
                              : b.entity);
      }
    }
  }
  size_t k = 0;
  for (int32_t m = 0; m < static_cast<int32_t>(p.modules.size()); ++m) {
    for (const auto& [name, list] : p.modules[m].bindings) {
      for (const Binding& b : list) {
        b.entity = cached[k++];
      }
    }
  }
  for (const ClassInfo& c : p.classes) {
    if (!c.qd_struct && !c.data_oriented) {
      continue;
    }
    for (const auto& [name, d] : c.methods) {
      if (p.defs[d].role == DefRole::func) {
        p.struct_methods[name].push_back(d);
      }
    }
  }
}

DefId find_method(const Program& p, ClassId cls, std::string_view name) {
  const ClassInfo& c = p.classes[cls];
  auto it = c.methods.find(name);
  if (it != c.methods.end()) {
    return it->second;
  }
  for (ClassId b : c.base_ids) {
    DefId d = find_method(p, b, name);
    if (d != k_none) {
      return d;
    }
  }
  return k_none;
}

const MemberInfo* find_member(const Program& p, ClassId cls, std::string_view name,
                              ClassId* owner) {
  const ClassInfo& c = p.classes[cls];
  for (const MemberInfo& m : c.members) {
    if (m.name == name) {
      if (owner != nullptr) {
        *owner = cls;
      }
      return &m;
    }
  }
  for (ClassId b : c.base_ids) {
    if (const MemberInfo* m = find_member(p, b, name, owner)) {
      return m;
    }
  }
  return nullptr;
}

std::vector<std::pair<ClassId, const MemberInfo*>> all_members(const Program& p, ClassId cls) {
  std::vector<std::pair<ClassId, const MemberInfo*>> out;
  for (ClassId b : p.classes[cls].base_ids) {
    for (auto& m : all_members(p, b)) {
      bool seen = false;
      for (auto& o : out) {
        seen = seen || o.second->name == m.second->name;
      }
      if (!seen) {
        out.push_back(m);
      }
    }
  }
  for (const MemberInfo& m : p.classes[cls].members) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const auto& o) { return o.second->name == m.name; });
    if (it != out.end()) {
      *it = {cls, &m};
    } else {
      out.emplace_back(cls, &m);
    }
  }
  return out;
}

bool is_data_oriented(const Program& p, ClassId cls) {
  if (p.classes[cls].data_oriented) {
    return true;
  }
  for (ClassId b : p.classes[cls].base_ids) {
    if (is_data_oriented(p, b)) {
      return true;
    }
  }
  return false;
}

bool template_primitives(const Program& p, ClassId cls) {
  if (p.classes[cls].data_oriented) {
    return p.classes[cls].template_primitives;
  }
  for (ClassId b : p.classes[cls].base_ids) {
    if (is_data_oriented(p, b)) {
      return template_primitives(p, b);
    }
  }
  return true;
}

}  // namespace qd::sema
