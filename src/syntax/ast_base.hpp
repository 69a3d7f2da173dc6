// Building blocks of the AST: positions, arena-backed sequences, identifiers, constants.
// The node types themselves are generated into ast_nodes.hpp from python.asdl.
#pragma once

#include <cstdint>
#include <string_view>

namespace qd::syntax::ast {

// CPython positions: 1-based lines, 0-based UTF-8 byte columns, end exclusive.
struct Pos {
  int32_t lineno = 0;
  int32_t col_offset = 0;
  int32_t end_lineno = 0;
  int32_t end_col_offset = 0;
};

// A read-only view of an arena-allocated array.
template <class T> struct Seq {
  T* items = nullptr;
  uint32_t size = 0;
  T* begin() const { return items; }
  T* end() const { return items + size; }
  T& operator[](size_t i) const { return items[i]; }
  bool empty() const { return size == 0; }
};

// An identifier (NFKC-normalized, UTF-8). An absent optional identifier has data() == nullptr.
using Identifier = std::string_view;

// `string?` fields of the ASDL (Constant.kind, type comments, TypeIgnore.tag).
struct OptString {
  std::string_view text{};
  bool present = false;
};

inline bool is_absent(Identifier id) { return id.data() == nullptr; }
inline bool is_absent(const OptString& s) { return !s.present; }

// The value of a Constant / MatchSingleton.
struct ConstantValue {
  enum class Kind : uint8_t { None, True, False, Ellipsis, Int, Float, Complex, Str, Bytes };
  Kind kind = Kind::None;
  // Int: decimal digits of the value (no sign, no leading zeros). Str: the code points encoded
  // as UTF-8, lone surrogates included (generalized UTF-8). Bytes: the raw bytes.
  std::string_view text{};
  // Float: the value. Complex: the imaginary part (literals are always pure imaginary).
  double number = 0.0;
};

}  // namespace qd::syntax::ast
