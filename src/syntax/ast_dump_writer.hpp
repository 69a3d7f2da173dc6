// The printer behind ast::dump. Node methods are generated (ast_dump_gen.cpp); scalar values use
// Python's repr rules (py_repr.hpp).
#pragma once

#include <string>

#include "syntax/ast_nodes.hpp"

namespace qd::syntax::ast {

class DumpWriter {
public:
  std::string out;

  void raw(std::string_view s) { out.append(s); }

  void node(const Mod* n);
  void node(const Stmt* n);
  void node(const Expr* n);
  void node(const Comprehension* n);
  void node(const ExceptHandler* n);
  void node(const Arguments* n);
  void node(const Arg* n);
  void node(const Keyword* n);
  void node(const Alias* n);
  void node(const WithItem* n);
  void node(const MatchCase* n);
  void node(const Pattern* n);
  void node(const TypeIgnore* n);
  void node(const TypeParam* n);

  void value(Identifier id);
  void value(const OptString& s);
  void value(int32_t v);
  void value(const ConstantValue& v);
  template <class E> requires std::is_enum_v<E> void value(E v) {
    raw(name_of(v));
    raw("()");
  }

  template <class T> void list(const Seq<T>& s) {
    raw("[");
    for (uint32_t i = 0; i < s.size; ++i) {
      if (i != 0) {
        raw(", ");
      }
      if constexpr (std::is_pointer_v<T>) {
        node(s[i]);
      } else {
        value(s[i]);
      }
    }
    raw("]");
  }

  // Writes `name=` with ", " between fields.
  struct FieldList {
    DumpWriter& w;
    bool first = true;
    explicit FieldList(DumpWriter& writer) : w(writer) {}
    void key(const char* name) {
      if (!first) {
        w.raw(", ");
      }
      first = false;
      w.raw(name);
      w.raw("=");
    }
  };
};

}  // namespace qd::syntax::ast
