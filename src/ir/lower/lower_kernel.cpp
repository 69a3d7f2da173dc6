// Lowering entry: parameters (docs/language.md §1), instance values, the kernel body.
#include <algorithm>
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
  s->col = pos.col_offset;
  s->text = line_text(pos.lineno);
  m_block->push_back(s);
  return s;
}

bool Lowerer::parse_dtype_text(std::string_view text, DType& dt,
                               std::vector<int32_t>& shape) const {
  return lower::parse_dtype_text(text, m_default_ip, m_default_fp, dt, shape);
}

Val Lowerer::eval_type_text(const std::string& text, const ast::Pos& pos) {
  DType dt = DType::i32;
  std::vector<int32_t> shape;
  if (!parse_dtype_text(text, dt, shape)) {
    unsupported(pos, "the type '" + text + "'");
  }
  if (shape.empty()) {
    return Val::of_dtype(dt);
  }
  Val t;
  t.kind = Val::Kind::tensor_type;
  t.rows = shape[0];
  t.cols = shape.size() > 1 ? shape[1] : 0;
  t.dtype = dt;
  return t;
}

Val Lowerer::template_value(const sema::Param& p, int32_t index, const ast::Pos& pos) {
  const sema::ConfigValue* v = nullptr;
  if (m_in.instance != nullptr) {
    auto it = m_in.instance->find(p.name);
    if (it != m_in.instance->end()) {
      v = &it->second;
    }
  }
  if (v == nullptr) {
    fail(pos, "QD207",
         "template parameter '" + p.name + "' has no value: give one per instance in " +
             "[tool.qdbuild.instances.\"" + m_in.kernel_id + "\"]");
  }
  if (v->is_table) {
    auto item = [&](const char* key) -> const sema::Value* {
      auto it = v->table.find(key);
      return it == v->table.end() ? nullptr : &it->second.scalar;
    };
    if (const sema::Value* type = item("__type__")) {
      return eval_type_text(type->s, pos);  // a dtype or vector type given as the value
    }
    if (const sema::Value* bad = item("__unsupported__")) {
      fail(pos, "QD207",
           "template parameter '" + p.name + "': the recorded value cannot be " +
               "used: " + bad->s);
    }
    Val held;
    if (held_reference(*v, "template parameter '" + p.name + "'", pos, &held)) {
      return held;  // a module or a class given as the value
    }
    // An object (a config object, a data_oriented instance): its members are compile-time
    // values; its ndarray members are arguments after the kernel's own.
    const sema::Value* named = item("__class__");
    sema::ClassId cls = named != nullptr ? find_class(named->s) : p.type.cls;
    bool dataclass = cls != sema::k_none && m_in.program->classes[cls].dataclass;
    return make_object(dataclass, cls, named != nullptr ? named->s : "?", p.name, v,
                       {k_object_members, index});
  }
  return scalar_or_func(v->scalar);
}

Val Lowerer::scalar_or_func(const sema::Value& s) {
  if (s.kind == sema::Value::Kind::string) {
    // A func given by id ("module:qualname", the recorder's {"func": ...}): the def.
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
  return py_value(s);
}

Param Lowerer::ndarray_param(const std::string& name, const sema::ParamType& t,
                             const sema::ConfigValue* v, const ast::Pos& pos) {
  Param p;
  p.name = name;
  std::string dts = t.dtype;
  int32_t ndim = t.ndim;
  std::string layout;
  bool needs_grad = t.options.find("needs_grad=True") != std::string::npos;
  if (v != nullptr && v->is_table) {
    auto dt = v->table.find("dtype");
    if (dts.empty() && dt != v->table.end() &&
        dt->second.scalar.kind == sema::Value::Kind::string) {
      dts = dt->second.scalar.s;
    }
    auto nd = v->table.find("ndim");
    if (ndim < 0 && nd != v->table.end() && nd->second.scalar.kind == sema::Value::Kind::integer) {
      ndim = nd->second.scalar.iv >= 0 && nd->second.scalar.iv <= 64
                 ? static_cast<int32_t>(nd->second.scalar.iv)
                 : 65;  // out of range: refused below
    }
    auto lo = v->table.find("layout");
    if (lo != v->table.end() && lo->second.scalar.kind == sema::Value::Kind::string) {
      layout = lo->second.scalar.s;
    }
    // A recorded ndarray with a gradient (needs_grad in the table) passes the primal: forward
    // kernels read and write only it, and reading x.grad is refused where it is written.
  }
  if (dts.empty() || ndim < 0) {
    fail(pos, "QD207",
         "ndarray parameter '" + name + "' needs its dtype and ndim from an instance (a recorded " +
             "run gives them: python -m qdrt.record -o FILE -- app.py, then --instances FILE)");
  }
  if (t.options.find("clamp") != std::string::npos) {
    unsupported(pos, "boundary='clamp'");
  }
  if (needs_grad) {
    unsupported(pos, "needs_grad=True (autodiff)");
  }
  if (!parse_dtype_text(dts, p.dtype, p.element_shape)) {
    unsupported(pos, "the ndarray dtype '" + dts + "'");
  }
  if (ndim < 0 || ndim > static_cast<int32_t>(QDRT_MAX_NDIM)) {  // 0: x[None]
    unsupported(pos, "an ndarray with ndim " + std::to_string(ndim));
  }
  p.kind = Param::Kind::ndarray;
  p.ndim = ndim;
  p.text = "ndarray(" + dts + ", " + std::to_string(ndim);
  if (!layout.empty()) {
    // "(1, 0)": the canonical axis at each physical axis; the identity is no layout.
    std::vector<int32_t> axes;
    std::string_view rest = layout;
    while (!rest.empty()) {
      size_t b = rest.find_first_of("0123456789");
      if (b == std::string_view::npos) {
        break;
      }
      rest.remove_prefix(b);
      int32_t a = 0;
      auto r = std::from_chars(rest.data(), rest.data() + rest.size(), a);
      rest.remove_prefix(static_cast<size_t>(r.ptr - rest.data()));
      axes.push_back(a);
    }
    std::vector<int32_t> sorted = axes;
    std::sort(sorted.begin(), sorted.end());
    bool perm = static_cast<int32_t>(axes.size()) == ndim;
    for (int32_t k = 0; perm && k < ndim; ++k) {
      perm = sorted[k] == k;
    }
    if (!perm) {
      fail(pos, "QD207",
           "ndarray parameter '" + name + "': the layout " + layout +
               " is not a permutation of its " + std::to_string(ndim) + " axes");
    }
    bool identity = true;
    for (int32_t k = 0; k < ndim; ++k) {
      identity = identity && axes[k] == k;
    }
    if (!identity) {
      p.layout = axes;
      p.text += ", layout=" + layout;
    }
  }
  p.text += ")";
  if (v != nullptr && v->is_table && v->table.contains("__field__")) {
    // A qd.field where an array is taken (Genesis's performance mode passes its state fields
    // to ndarray parameters and holds them in dataclass members): an array of its recorded
    // shape and layout, as a field member of self is.
    if (!p.layout.empty()) {
      fail(pos, "QD207", "the field '" + name + "' given for a parameter with a layout");
    }
    make_field(p, *v, name, pos);
  }
  return p;
}

void Lowerer::declare_params() {
  const sema::Signature& sig = *m_in.signature;
  const sema::DefInfo& d = m_in.program->defs[m_in.kernel];
  for (size_t k = 0; k < sig.params.size(); ++k) {
    const sema::Param& sp = sig.params[k];
    ast::Pos pos{sp.span.line, sp.span.col, sp.span.end_line, sp.span.end_col};
    int32_t index = static_cast<int32_t>(k);
    auto b = std::make_shared<Binding>();
    b->immutable = true;
    b->what = "kernel argument";
    b->kind = Binding::Kind::value;
    const sema::ConfigValue* v = nullptr;
    if (m_in.instance != nullptr) {
      auto it = m_in.instance->find(sp.name);
      v = it == m_in.instance->end() ? nullptr : &it->second;
    }
    switch (sp.type.kind) {
      case PK::primitive: {
        Param p;
        p.name = sp.name;
        p.text = sp.type.text;
        std::vector<int32_t> shape;
        if (!parse_dtype_text(sp.type.dtype, p.dtype, shape)) {
          unsupported(pos, "the parameter type '" + sp.type.text + "'");
        }
        p.kind = Param::Kind::scalar;
        int32_t at = add_param(std::move(p), {index});
        b->value = Val::of_scalar(m_kernel->arg(at));
        break;
      }
      case PK::ndarray:
      case PK::tensor:
      case PK::torch_tensor:
      case PK::numpy_array: {
        if (v != nullptr && v->is_table && v->table.contains("__class__")) {
          unsupported(pos, "a qd.Tensor parameter holding a field");
        }
        Param p = ndarray_param(sp.name, sp.type, v, pos);
        if (p.layout.empty()) {
          p.text = sp.type.text;
        }
        int32_t at = add_param(std::move(p), {index});
        b->value.kind = Val::Kind::array;
        b->value.param = at;
        break;
      }
      case PK::dataclass: {
        if (v != nullptr && !v->is_table) {
          fail(pos, "QD207",
               "dataclass parameter '" + sp.name + "': the instance gives " + v->text() +
                   ", not the dataclass's members");
        }
        b->value = make_object(true, sp.type.cls, "", sp.name, v, {index});
        break;
      }
      case PK::data_oriented:  // a method kernel's self: a template value (Quadrants)
      case PK::template_: {
        if (v != nullptr && v->is_table &&
            (v->table.contains("__field__") || v->table.contains("__struct_field__"))) {
          // A field given as the template value (Quadrants' own tensor_to_ext_arr(tensor,
          // arr)): the field is the argument, in the parameter's place.
          b->value = field_member(sp.name, *v, {index}, pos);
          break;
        }
        Param p;
        p.name = sp.name;
        p.text = sp.type.text;
        p.kind = Param::Kind::template_;
        add_param(std::move(p), {index});
        b->value = template_value(sp, index, pos);
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
    if (d.checkpoints != sema::DefInfo::Flag::off) {
      fail(d.node->pos, "QD201",
           "graph checkpoints (@qd.kernel(graph=True, checkpoints=True), qd.checkpoint, "
           "resume) are not supported in compiled kernels; graph=True with qd.graph.do_while "
           "is");
    }
    declare_params();
    frame().returns = d.returns;
    lower_body(*d.body);
    finish_params();
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
