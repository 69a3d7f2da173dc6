#include "ir/dtype.hpp"

#include "qdrt/store_format.h"

namespace qd::ir {

bool is_float(DType t) { return t == DType::f32 || t == DType::f64; }
bool is_integral(DType t) { return !is_float(t); }
bool is_signed(DType t) {
  return t == DType::i8 || t == DType::i16 || t == DType::i32 || t == DType::i64;
}

int bits(DType t) {
  switch (t) {
    case DType::u1: return 1;
    case DType::i8:
    case DType::u8: return 8;
    case DType::i16:
    case DType::u16: return 16;
    case DType::i32:
    case DType::u32:
    case DType::f32: return 32;
    case DType::i64:
    case DType::u64:
    case DType::f64: return 64;
  }
  return 0;
}

int byte_size(DType t) { return t == DType::u1 ? 1 : bits(t) / 8; }

const char* name_of(DType t) {
  switch (t) {
    case DType::u1: return "u1";
    case DType::i8: return "i8";
    case DType::i16: return "i16";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::u8: return "u8";
    case DType::u16: return "u16";
    case DType::u32: return "u32";
    case DType::u64: return "u64";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
  }
  return "?";
}

const char* c_type_of(DType t) { return t == DType::u1 ? "bool" : name_of(t); }

uint32_t qdrt_dtype(DType t) {
  switch (t) {
    case DType::u1: return QDRT_DTYPE_U1;
    case DType::i8: return QDRT_DTYPE_I8;
    case DType::i16: return QDRT_DTYPE_I16;
    case DType::i32: return QDRT_DTYPE_I32;
    case DType::i64: return QDRT_DTYPE_I64;
    case DType::u8: return QDRT_DTYPE_U8;
    case DType::u16: return QDRT_DTYPE_U16;
    case DType::u32: return QDRT_DTYPE_U32;
    case DType::u64: return QDRT_DTYPE_U64;
    case DType::f32: return QDRT_DTYPE_F32;
    case DType::f64: return QDRT_DTYPE_F64;
  }
  return QDRT_DTYPE_NONE;
}

std::optional<DType> dtype_from_name(std::string_view n) {
  struct Name {
    std::string_view a, b;
    DType t;
  };
  static constexpr Name k_names[] = {
      {"u1", "bool", DType::u1},      {"i8", "int8", DType::i8},      {"i16", "int16", DType::i16},
      {"i32", "int32", DType::i32},   {"i64", "int64", DType::i64},   {"u8", "uint8", DType::u8},
      {"u16", "uint16", DType::u16},  {"u32", "uint32", DType::u32},  {"u64", "uint64", DType::u64},
      {"f32", "float32", DType::f32}, {"f64", "float64", DType::f64},
  };
  for (const Name& x : k_names) {
    if (n == x.a || n == x.b) {
      return x.t;
    }
  }
  return std::nullopt;
}

DType promoted(DType a, DType b) {
  if (a == b) {
    return a;
  }
  if (is_float(a) != is_float(b)) {
    return is_float(a) ? a : b;
  }
  if (is_float(a)) {
    return bits(a) >= bits(b) ? a : b;
  }
  // Quadrants' compare_types (type_factory.cpp): u1 is stored in a byte and counts as 8 bits,
  // so it beats i8 (unsigned wins at equal width) and ties with u8; at a tie of width and
  // signedness the second operand's type wins (u1 + u8 is u8, u8 + u1 is u1).
  auto width = [](DType t) { return t == DType::u1 ? 8 : bits(t); };
  if (width(a) != width(b)) {
    return width(a) > width(b) ? a : b;
  }
  return is_signed(b) && !is_signed(a) ? a : b;
}

}  // namespace qd::ir
