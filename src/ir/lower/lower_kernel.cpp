// Lowering entry: parameters (kernel-language.md §2), instance values, the kernel body.
#include <charconv>

#include "ir/lower/lowerer.hpp"
#include "qdrt/store_format.h"
#include "qdrt/task_abi.h"
#include "sema/resolve.hpp"

namespace qd::ir::lower {

namespace {

using PK = sema::ParamType::Kind;

// "f32" / "vector(3, f32)" / "matrix(3, 3, f32)" -> dtype and element shape.
bool parse_dtype_text(std::string_view text, DType dflt_ip, DType dflt_fp, DType& dt,
                      std::vector<int32_t>& shape) {
  shape.clear();
  auto prim = [&](std::string_view s) -> bool {
    if (s == "int") {
      dt = dflt_ip;
      return true;
    }
    if (s == "float") {
      dt = dflt_fp;
      return true;
    }
    std::optional<DType> t = dtype_from_name(s);
    if (!t) {
      return false;
    }
    dt = *t;
    return true;
  };
  for (std::string_view head : {"vector(", "matrix("}) {
    if (text.starts_with(head) && text.ends_with(")")) {
      std::string_view inner = text.substr(head.size(), text.size() - head.size() - 1);
      size_t dims = head == "vector(" ? 1 : 2;
      for (size_t k = 0; k < dims; ++k) {
        size_t comma = inner.find(',');
        if (comma == std::string_view::npos) {
          return false;
        }
        int32_t n = 0;
        std::string_view num = inner.substr(0, comma);
        while (!num.empty() && num.front() == ' ') {
          num.remove_prefix(1);
        }
        if (std::from_chars(num.data(), num.data() + num.size(), n).ec != std::errc{} || n <= 0) {
          return false;
        }
        shape.push_back(n);
        inner = inner.substr(comma + 1);
      }
      while (!inner.empty() && inner.front() == ' ') {
        inner.remove_prefix(1);
      }
      return prim(inner);
    }
  }
  return prim(text);
}

}  // namespace

Lowerer::Lowerer(const LowerInput& in) : m_in(in), m_kernel(std::make_unique<Kernel>()) {
  if (auto t = dtype_from_name(in.config->default_ip)) {
    m_default_ip = *t;
  }
  if (auto t = dtype_from_name(in.config->default_fp)) {
    m_default_fp = *t;
  }
}

LowerResult lower_kernel(const LowerInput& in) { return Lowerer(in).run(); }

void Lowerer::fail(const ast::Pos& pos, const char* code, std::string message) {
  throw LowerError{pos, code, std::move(message), m_frames.empty() ? -1 : frame().module};
}

void Lowerer::unsupported(const ast::Pos& pos, const std::string& construct) {
  fail(pos, "QD201", construct + " is not supported in kernels");
}

void Lowerer::type_error(const ast::Pos& pos, std::string message) {
  fail(pos, "QD202", std::move(message));
}

std::string Lowerer::line_text(int32_t line) const {
  const sema::ModuleInfo& m = m_in.program->modules[m_frames.back().module];
  if (line <= 0) {
    return {};
  }
  std::string_view text = m.parsed->source.line_text(line);
  // Strip indentation and a trailing comment (outside string literals).
  size_t b = text.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    return {};
  }
  text.remove_prefix(b);
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (quote != 0) {
      if (ch == '\\') {
        ++i;
      } else if (ch == quote) {
        quote = 0;
      }
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '#') {
      text = text.substr(0, i);
      break;
    }
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return std::string(text);
}

Stmt* Lowerer::emit(StmtKind kind, const ast::Pos& pos) {
  Stmt* s = m_kernel->stmt(kind, pos.lineno);
  s->text = line_text(pos.lineno);
  m_block->push_back(s);
  return s;
}

Val Lowerer::template_value(const sema::Param& p, const ast::Pos& pos) {
  const sema::ConfigValue* v = nullptr;
  if (m_in.instance != nullptr) {
    auto it = m_in.instance->find(p.name);
    if (it != m_in.instance->end()) {
      v = &it->second;
    }
  }
  if (v == nullptr || v->is_table) {
    fail(pos, "QD207",
         "template parameter '" + p.name + "' has no value: give one per instance in " +
             "[tool.qdbuild.instances.\"" + m_in.kernel_id + "\"]");
  }
  const sema::Value& s = v->scalar;
  if (s.kind == sema::Value::Kind::string) {
    // A func given by id ("module:qualname"): the template holds the def.
    const sema::Program& prog = *m_in.program;
    for (size_t d = 0; d < prog.def_ids.size(); ++d) {
      if (prog.def_ids[d] == s.s) {
        Val f;
        f.kind = Val::Kind::func;
        f.def = static_cast<sema::DefId>(d);
        return f;
      }
    }
  }
  return Val::of_py(s);
}

void Lowerer::declare_params() {
  const sema::Signature& sig = *m_in.signature;
  const sema::DefInfo& d = m_in.program->defs[m_in.kernel];
  int32_t slot = 0;
  for (size_t k = 0; k < sig.params.size(); ++k) {
    const sema::Param& sp = sig.params[k];
    ast::Pos pos{sp.span.line, sp.span.col, sp.span.end_line, sp.span.end_col};
    Param p;
    p.name = sp.name;
    p.text = sp.type.text;
    auto b = std::make_shared<Binding>();
    b->immutable = true;
    b->what = "kernel argument";
    switch (sp.type.kind) {
      case PK::primitive: {
        std::vector<int32_t> shape;
        if (!parse_dtype_text(sp.type.dtype, m_default_ip, m_default_fp, p.dtype, shape)) {
          unsupported(pos, "the parameter type '" + sp.type.text + "'");
        }
        p.kind = Param::Kind::scalar;
        p.slot = slot++;
        m_kernel->params.push_back(p);
        b->kind = Binding::Kind::value;
        b->value = Val::of_scalar(m_kernel->arg(static_cast<int32_t>(k)));
        break;
      }
      case PK::ndarray: {
        std::string dts = sp.type.dtype;
        int32_t ndim = sp.type.ndim;
        const sema::ConfigValue* v = nullptr;
        if (m_in.instance != nullptr) {
          auto it = m_in.instance->find(sp.name);
          v = it == m_in.instance->end() ? nullptr : &it->second;
        }
        if (v != nullptr && v->is_table) {
          auto dt = v->table.find("dtype");
          if (dts.empty() && dt != v->table.end() &&
              dt->second.scalar.kind == sema::Value::Kind::string) {
            dts = dt->second.scalar.s;
          }
          auto nd = v->table.find("ndim");
          if (ndim < 0 && nd != v->table.end() &&
              nd->second.scalar.kind == sema::Value::Kind::integer) {
            ndim = nd->second.scalar.iv >= 0 && nd->second.scalar.iv <= 64
                       ? static_cast<int32_t>(nd->second.scalar.iv)
                       : 65;  // out of range: refused below
          }
        }
        if (dts.empty() || ndim < 0) {
          fail(pos, "QD207",
               "ndarray parameter '" + sp.name + "' needs its dtype and ndim from an instance");
        }
        if (sp.type.options.find("clamp") != std::string::npos) {
          unsupported(pos, "boundary='clamp'");
        }
        if (sp.type.options.find("needs_grad=True") != std::string::npos) {
          unsupported(pos, "needs_grad=True (autodiff)");
        }
        if (!parse_dtype_text(dts, m_default_ip, m_default_fp, p.dtype, p.element_shape)) {
          unsupported(pos, "the ndarray dtype '" + dts + "'");
        }
        if (ndim < 0 || ndim > static_cast<int32_t>(QDRT_MAX_NDIM)) {  // 0: x[None]
          unsupported(pos, "an ndarray with ndim " + std::to_string(ndim));
        }
        p.kind = Param::Kind::ndarray;
        p.ndim = ndim;
        p.slot = slot++;
        m_kernel->params.push_back(p);
        b->kind = Binding::Kind::value;
        b->value.kind = Val::Kind::array;
        b->value.param = static_cast<int32_t>(k);
        break;
      }
      case PK::template_: {
        p.kind = Param::Kind::template_;
        m_kernel->params.push_back(p);
        b->kind = Binding::Kind::value;
        b->value = template_value(sp, pos);
        break;
      }
      default: unsupported(pos, "a kernel parameter of type '" + sp.type.text + "'");
    }
    frame().scopes.front().emplace(sp.name, b);
  }
  // The return type.
  if (d.returns != nullptr) {
    Val t = eval(d.returns);
    if (t.kind == Val::Kind::dtype) {
      m_kernel->ret = t.dtype;
    } else if (!(t.kind == Val::Kind::py && t.py.kind == sema::Value::Kind::none)) {
      unsupported(d.returns->pos, "a kernel return type other than a scalar");
    }
  }
}

LowerResult Lowerer::run() {
  LowerResult out;
  const sema::DefInfo& d = m_in.program->defs[m_in.kernel];
  m_kernel->id = m_in.kernel_id;
  m_kernel->path = m_in.program->modules[d.module].path;
  Frame f;
  f.module = d.module;
  f.def = m_in.kernel;
  f.is_kernel = true;
  f.scopes.emplace_back();  // parameters
  m_frames.push_back(std::move(f));
  m_block = &m_kernel->body;
  try {
    declare_params();
    frame().returns = d.returns;
    lower_body(*d.body);
  } catch (const LowerError& e) {
    sema::SemaDiagnostic sd;
    sd.d.severity = syntax::Severity::Error;
    sd.d.line = e.pos.lineno;
    sd.d.col = e.pos.col_offset;
    sd.d.end_line = e.pos.end_lineno;
    sd.d.end_col = e.pos.end_col_offset;
    sd.d.code = e.code;
    sd.d.message = e.message;
    sd.module = e.module >= 0 ? e.module : d.module;
    sd.kernel = m_in.kernel_id;
    out.diagnostics.push_back(std::move(sd));
    return out;
  }
  out.kernel = std::move(m_kernel);
  return out;
}

}  // namespace qd::ir::lower
