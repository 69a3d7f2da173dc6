// Scalar types of the kernel IR (docs/language.md §3) and the promotion table.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace qd::ir {

enum class DType : uint8_t { u1, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64 };

bool is_float(DType t);
bool is_integral(DType t);       // u1 included
bool is_signed(DType t);         // signed integers (floats are not "signed" here)
int bits(DType t);               // u1: 1
int byte_size(DType t);          // u1: 1
const char* name_of(DType t);    // "i32"
const char* c_type_of(DType t);  // "i32" (the prelude's alias), "bool" for u1
uint32_t qdrt_dtype(DType t);    // QDRT_DTYPE_*
// "i32" / "int32" / "float32" ... -> the type; f16 and unknown names give nullopt.
std::optional<DType> dtype_from_name(std::string_view name);

// docs/language.md §3: real beats integral; between reals more bits win; between integers
// more bits win, and at equal width unsigned wins (u1 is the narrowest unsigned).
DType promoted(DType a, DType b);

}  // namespace qd::ir
