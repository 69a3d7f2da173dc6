#include "syntax/ast_dump.hpp"

#include <charconv>

#include "syntax/ast_dump_writer.hpp"
#include "syntax/py_repr.hpp"

namespace qd::syntax::ast {

std::string dump(const Mod* module) {
  DumpWriter w;
  w.out.reserve(4096);
  w.node(module);
  return std::move(w.out);
}

void DumpWriter::value(Identifier id) {
  if (is_absent(id)) {
    raw("None");
    return;
  }
  repr_str(out, id);
}

void DumpWriter::value(const OptString& s) {
  if (!s.present) {
    raw("None");
    return;
  }
  repr_str(out, s.text);
}

void DumpWriter::value(int32_t v) {
  char buf[16];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void DumpWriter::value(const ConstantValue& v) {
  using K = ConstantValue::Kind;
  switch (v.kind) {
    case K::None: raw("None"); return;
    case K::True: raw("True"); return;
    case K::False: raw("False"); return;
    case K::Ellipsis: raw("Ellipsis"); return;
    case K::Int: raw(v.text); return;
    case K::Float: repr_float(out, v.number); return;
    case K::Complex: repr_imaginary(out, v.number); return;
    case K::Str: repr_str(out, v.text); return;
    case K::Bytes: repr_bytes(out, v.text); return;
  }
}

}  // namespace qd::syntax::ast
