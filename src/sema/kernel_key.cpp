#include "sema/kernel_key.hpp"

#include <cstdio>

#include "syntax/lexer.hpp"

namespace qd::sema {

namespace ast = syntax::ast;
using EK = Entity::Kind;
using PK = ParamType::Kind;
using syntax::TokenKind;

namespace {

// Feeds the normalized token stream of a def to `sink` piece by piece; false if the def's text
// cannot be tokenized (then the caller uses the raw text).
template <class Sink> bool token_stream(const ModuleInfo& m, const DefInfo& d, Sink&& sink) {
  const syntax::SourceFile& src = m.parsed->source;
  const std::string& text = src.text();
  std::string_view first = src.line_text(d.first_line);
  std::string_view last = src.line_text(d.end_line);
  if (first.data() == nullptr || last.data() == nullptr) {
    return true;
  }
  size_t begin = static_cast<size_t>(first.data() - text.data());
  size_t end = static_cast<size_t>(last.data() - text.data()) + last.size();
  std::string_view slice(text.data() + begin, end - begin);
  syntax::TokenStream ts = syntax::tokenize(slice);
  for (const syntax::Token& t : ts.tokens) {
    if (t.kind == TokenKind::Error) {
      // Cannot happen for a def of a file that parsed; fall back to the raw text.
      sink(std::string_view("RAW\n"));
      sink(slice);
      return false;
    }
  }
  char number[16];
  for (const syntax::Token& t : ts.tokens) {
    switch (t.kind) {
      case TokenKind::EndMarker: break;
      case TokenKind::Newline: sink(std::string_view("NEWLINE\n")); break;
      case TokenKind::Indent: sink(std::string_view("INDENT\n")); break;
      case TokenKind::Dedent: sink(std::string_view("DEDENT\n")); break;
      default: {
        std::string_view tok = slice.substr(t.begin, t.end - t.begin);
        sink(std::string_view(syntax::token_kind_name(t.kind)));
        int n = std::snprintf(number, sizeof number, " %zu:", tok.size());
        sink(std::string_view(number, static_cast<size_t>(n)));
        sink(tok);
        sink(std::string_view("\n"));
      }
    }
  }
  return true;
}

}  // namespace

std::string normalized_tokens(const ModuleInfo& m, const DefInfo& d) {
  std::string out;
  token_stream(m, d, [&](std::string_view piece) { out += piece; });
  return out;
}

std::string source_hash(const ModuleInfo& m, const DefInfo& d) {
  // One buffer per thread, hashed in one update: many small EVP updates cost more.
  thread_local std::string buffer;
  buffer.clear();
  token_stream(m, d, [&](std::string_view piece) { buffer += piece; });
  return sha256_hex(buffer);
}

namespace {

std::string expr_source(const ModuleInfo& m, const ast::Expr* e) {
  const syntax::SourceFile& src = m.parsed->source;
  std::string_view a = src.line_text(e->pos.lineno);
  std::string_view b = src.line_text(e->pos.end_lineno);
  if (a.data() == nullptr || b.data() == nullptr) {
    return "<expression>";
  }
  const char* from = a.data() + e->pos.col_offset;
  const char* to = b.data() + e->pos.end_col_offset;
  return to > from ? std::string(from, to) : "<expression>";
}

const ConfigValue* table_item(const ConfigValue* values, const std::string& name) {
  if (values == nullptr || !values->is_table) {
    return nullptr;
  }
  auto it = values->table.find(name);
  return it == values->table.end() ? nullptr : &it->second;
}

// dtype / ndim of `qd.ndarray(dtype, shape)`, `qd.Vector.ndarray(n, dtype, shape)`,
// `qd.Matrix.ndarray(n, m, dtype, shape)`.
std::string ndarray_member(const Program& p, int32_t module, const ast::Call* call,
                           const std::string& callee) {
  size_t dims = callee.ends_with("Vector.ndarray") ? 1 : callee.ends_with("Matrix.ndarray") ? 2 : 0;
  std::vector<const ast::Expr*> args(call->args.begin(), call->args.end());
  args.resize(std::max<size_t>(args.size(), dims + 2), nullptr);
  for (const ast::Keyword* k : call->keywords) {
    if (ast::is_absent(k->arg)) {
      continue;
    }
    if (k->arg == "dtype" || k->arg == "dt") {
      args[dims] = k->value;
    } else if (k->arg == "shape") {
      args[dims + 1] = k->value;
    } else if (k->arg == "n") {
      args[0] = k->value;
    } else if (k->arg == "m" && dims == 2) {
      args[1] = k->value;
    }
  }
  std::string dtype = "?";
  if (args[dims] != nullptr) {
    ParamType t = classify_annotation(p, module, args[dims]);
    dtype = t.kind == PK::primitive ? t.dtype : t.kind == PK::invalid ? "?" : t.text;
  }
  if (dims > 0) {
    std::string shape;
    for (size_t k = 0; k < dims; ++k) {
      Value v = args[k] != nullptr ? evaluate(p, module, args[k]) : Value::unknown("missing");
      shape += (k > 0 ? ", " : "") + (v.known() ? repr(v) : std::string("?"));
    }
    dtype = std::string(dims == 1 ? "vector(" : "matrix(") + shape + ", " + dtype + ")";
  }
  std::string ndim = "?";
  if (const ast::Expr* shape = args[dims + 1]) {
    if (const auto* t = shape->as<ast::Tuple>()) {
      ndim = std::to_string(t->elts.size);
    } else {
      Value v = evaluate(p, module, shape);
      if (v.kind == Value::Kind::tuple) {
        ndim = std::to_string(v.items.size());
      } else if (v.kind == Value::Kind::integer) {
        ndim = "1";
      } else if (shape->as<ast::List>() != nullptr) {
        ndim = std::to_string(shape->as<ast::List>()->elts.size);
      }
    }
  }
  return "ndarray(" + dtype + ", " + ndim + ")";
}

void dataclass_layout(const Program& p, ClassId cls, const ConfigValue* values,
                      const std::string& where, CompoundLayout& out, int depth);

bool is_init_param(const Program& p, ClassId cls, std::string_view name) {
  auto it = p.classes[cls].methods.find("__init__");
  if (it == p.classes[cls].methods.end()) {
    return false;
  }
  const ast::Arguments* args = p.defs[it->second].args;
  for (const auto* seq : {&args->posonlyargs, &args->args, &args->kwonlyargs}) {
    for (const ast::Arg* a : *seq) {
      if (a->arg == name) {
        return true;
      }
    }
  }
  return false;
}

void data_oriented_layout(const Program& p, ClassId cls, const ConfigValue* values,
                          const std::string& where, CompoundLayout& out, int depth, bool partial) {
  bool baked = template_primitives(p, cls);
  out.text += "data_oriented " + class_path(p, cls) +
              "(template_primitives=" + (baked ? "True" : "False") + "){";
  if (depth > 8) {
    out.text += "...}";
    return;
  }
  bool first = true;
  for (auto [owner, m] : all_members(p, cls)) {
    out.text += first ? "" : "; ";
    first = false;
    out.text += m->name + ": ";
    std::string member_where = where + "." + m->name;
    int32_t module = p.classes[owner].module;
    if (m->value == nullptr) {
      out.text += "?";
      continue;
    }
    const ConfigValue* given = table_item(values, m->name);
    // The instance describes the object (a recorded run: the members the kernel's trace read)
    // without this member, which only an instance could give: the kernel does not read it
    // (lowering says so if it does, QD207).
    bool not_read = partial && given == nullptr;
    if (const auto* n = m->value->as<ast::Name>(); n != nullptr && is_init_param(p, owner, n->id)) {
      // Set from an __init__ argument: its value comes from an instance.
      if (given != nullptr && !given->is_table) {
        out.text += type_name(given->scalar) + (baked ? " = " + repr(given->scalar) : "");
      } else if (given != nullptr) {
        out.text += "<an object, in the instance>";  // (self._sim = sim: described there)
      } else if (not_read) {
        out.text += "<not in the instance>";
      } else {
        out.text += "<from __init__ argument '" + std::string(n->id) + "'>";
        if (baked) {
          out.unbound.push_back(member_where);
        }
      }
      continue;
    }
    Entity e = resolve_expr(p, module, m->value);
    switch (e.kind) {
      case EK::ndarray: {
        Entity callee = resolve_expr(p, module, m->value->as<ast::Call>()->func);
        out.text += ndarray_member(p, module, m->value->as<ast::Call>(), callee.path);
        break;
      }
      case EK::field:
        out.text += "field";
        out.field_members.push_back(member_where);
        break;
      case EK::instance:
        if (is_data_oriented(p, e.cls)) {
          data_oriented_layout(p, e.cls, given, member_where, out, depth + 1,
                               partial || given != nullptr);
        } else if (p.classes[e.cls].dataclass) {
          dataclass_layout(p, e.cls, given, member_where, out, depth + 1);
        } else {
          out.text += "instance " + class_path(p, e.cls);
        }
        break;
      case EK::value:
        if (given != nullptr && !given->is_table) {
          out.text += type_name(given->scalar) + (baked ? " = " + repr(given->scalar) : "");
        } else if (e.value.known()) {
          out.text += type_name(e.value) + (baked ? " = " + repr(e.value) : "");
        } else {
          out.text += "<" + expr_source(p.modules[module], m->value) + ">";
        }
        break;
      default: out.text += "<" + expr_source(p.modules[module], m->value) + ">"; break;
    }
  }
  out.text += "}";
}

void dataclass_layout(const Program& p, ClassId cls, const ConfigValue* values,
                      const std::string& where, CompoundLayout& out, int depth) {
  out.text += "dataclass " + class_path(p, cls) + "{";
  if (depth > 8) {
    out.text += "...}";
    return;
  }
  std::vector<std::pair<ClassId, const FieldInfo*>> fields;
  for (ClassId b : p.classes[cls].base_ids) {
    for (const FieldInfo& f : p.classes[b].fields) {
      fields.emplace_back(b, &f);
    }
  }
  for (const FieldInfo& f : p.classes[cls].fields) {
    fields.emplace_back(cls, &f);
  }
  bool first = true;
  for (auto [owner, f] : fields) {
    out.text += first ? "" : "; ";
    first = false;
    int32_t module = p.classes[owner].module;
    ParamType t = classify_annotation(p, module, f->annotation);
    std::string field_where = where + "." + f->name;
    out.text += f->name + ": ";
    const ConfigValue* given = table_item(values, f->name);
    if (t.kind == PK::dataclass) {
      dataclass_layout(p, t.cls, given, field_where, out, depth + 1);
    } else if (t.kind == PK::field) {
      out.text += t.text;
      out.field_members.push_back(field_where);
    } else {
      out.text += t.kind == PK::invalid ? "<" + expr_source(p.modules[module], f->annotation) + ">"
                                        : t.text;
    }
    if (f->cache_value) {
      Value v = given != nullptr && !given->is_table ? given->scalar
                : f->default_value != nullptr        ? evaluate(p, module, f->default_value)
                                                     : Value::unknown("no default");
      if (v.known()) {
        out.text += " = " + repr(v) + " (cache value)";
      } else {
        out.text += " = ? (cache value)";
        out.unbound.push_back(field_where);
      }
    }
  }
  out.text += "}";
}

// Whether a dataclass has a member whose type comes only from an instance (a qd.Tensor, an
// ndarray without dtype or ndim), nested dataclasses included.
bool has_partial_member(const Program& p, ClassId cls, int depth) {
  if (depth > 8) {
    return false;
  }
  std::vector<ClassId> classes = p.classes[cls].base_ids;
  classes.push_back(cls);
  for (ClassId c : classes) {
    for (const FieldInfo& f : p.classes[c].fields) {
      ParamType t = classify_annotation(p, p.classes[c].module, f.annotation);
      if ((t.kind == PK::dataclass && has_partial_member(p, t.cls, depth + 1)) ||
          (t.kind != PK::dataclass && t.partial())) {
        return true;
      }
    }
  }
  return false;
}

std::string instance_text(const Signature& sig, const Instance* inst,
                          std::vector<std::string>& unbound) {
  std::string out;
  for (const Param& prm : sig.params) {
    const ConfigValue* v = nullptr;
    if (inst != nullptr) {
      auto it = inst->find(prm.name);
      v = it == inst->end() ? nullptr : &it->second;
    }
    out += out.empty() ? "" : ", ";
    out += prm.name + "=";
    const ParamType& t = prm.type;
    // A layout given by the instance is part of what it compiles to (the lowering permutes the
    // indices), whether or not the annotation is complete.
    const ConfigValue* layout = t.kind == PK::ndarray ? table_item(v, "layout") : nullptr;
    std::string layout_text = layout != nullptr && layout->scalar.kind == Value::Kind::string
                                  ? ", layout=" + layout->scalar.s
                                  : "";
    if (t.kind == PK::ndarray && (t.partial() || !layout_text.empty())) {
      const ConfigValue* dt = table_item(v, "dtype");
      const ConfigValue* nd = table_item(v, "ndim");
      std::string dts = !t.dtype.empty()                                          ? t.dtype
                        : dt != nullptr && dt->scalar.kind == Value::Kind::string ? dt->scalar.s
                                                                                  : "?";
      std::string nds = t.ndim >= 0 ? std::to_string(t.ndim)
                        : nd != nullptr && nd->scalar.kind == Value::Kind::integer
                            ? int_text(nd->scalar.iv)
                            : "?";
      if (dts == "?" || nds == "?") {
        unbound.push_back(prm.name);
      }
      out += "ndarray(" + dts + ", " + nds + t.options + layout_text + ")";
    } else if (t.kind == PK::template_ || t.kind == PK::enum_ || t.kind == PK::tensor ||
               t.kind == PK::torch_tensor || t.kind == PK::numpy_array) {
      if (v != nullptr) {
        out += (t.kind == PK::template_ ? "" : t.text + " ") + v->text();
      } else {
        out += t.text + " ?";
        if (t.kind != PK::enum_) {
          unbound.push_back(prm.name);
        }
      }
    } else if (v != nullptr && (t.kind == PK::data_oriented || t.kind == PK::dataclass)) {
      out += t.text + " " + v->text();
    } else {
      out += t.text;
    }
  }
  return out;
}

}  // namespace

CompoundLayout compound_layout(const Program& p, const Param& param, const ConfigValue* values) {
  CompoundLayout out;
  if (param.type.kind == PK::data_oriented) {
    data_oriented_layout(p, param.type.cls, values, param.name, out, 0,
                         values != nullptr && values->is_table);
  } else if (param.type.kind == PK::dataclass) {
    dataclass_layout(p, param.type.cls, values, param.name, out, 0);
  }
  return out;
}

InstanceKey compute_key(const KeyInputs& in) {
  const Program& p = *in.program;
  InstanceKey k;
  KeyHasher h;
  h.add("tool", std::string(k_tool_version) + " kernel-key-abi " + std::to_string(k_key_abi));
  h.add("kernel", p.def_id(in.kernel));
  for (const auto& [id, hash] : in.sources) {
    h.add("source " + id, "sha256:" + hash);
  }
  h.add("signature", in.signature->text());
  k.instance = instance_text(*in.signature, in.instance, k.unbound);
  h.add("instance", k.instance);
  std::string constants;
  for (const std::string& c : in.constants) {
    constants += c + "\n";
  }
  h.add("constants", constants);
  for (const Param& prm : in.signature->params) {
    if (prm.type.kind != PK::data_oriented && prm.type.kind != PK::dataclass) {
      continue;
    }
    const ConfigValue* values = nullptr;
    if (in.instance != nullptr) {
      auto it = in.instance->find(prm.name);
      values = it == in.instance->end() ? nullptr : &it->second;
    }
    if (values == nullptr && prm.type.kind == PK::dataclass &&
        has_partial_member(p, prm.type.cls, 0)) {
      k.unbound.push_back(prm.name);  // its qd.Tensor members' dtypes come from an instance
    }
    CompoundLayout layout = compound_layout(p, prm, values);
    k.unbound.insert(k.unbound.end(), layout.unbound.begin(), layout.unbound.end());
    k.field_members.insert(k.field_members.end(), layout.field_members.begin(),
                           layout.field_members.end());
    h.add("compound " + prm.name, layout.text);
  }
  h.add("config", in.config->codegen_text());
  h.add("device", in.device_caps);
  k.key = h.key();
  k.components = std::move(h).take_components();
  return k;
}

}  // namespace qd::sema
