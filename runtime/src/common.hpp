// Small shared pieces of libqdrt: a status with its message, dtype facts, logging.
// Compiled without exceptions or RTTI (runtime/CMakeLists.txt); nothing here throws.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "qdrt/qdrt.h"

namespace qdrt {

struct Status {
  qdrt_status code = QDRT_OK;
  std::string message;

  bool ok() const { return code == QDRT_OK; }
  static Status error(qdrt_status code, std::string message) { return {code, std::move(message)}; }
};

// "f32", "i64", "u1", ... ("?" for unknown codes).
const char* dtype_name(uint32_t dtype);
// Bytes of one scalar of the dtype (0 for unknown codes and QDRT_DTYPE_NONE).
uint32_t dtype_size(uint32_t dtype);
bool dtype_is_float(uint32_t dtype);
bool dtype_is_signed(uint32_t dtype);
// An IEEE binary16 value (its bits) as a double: exact, NaN and infinities kept.
double half_to_double(uint16_t h);

// Logging on stderr: warnings always ("qdrt: warning: ..."), debug lines when QDRT_LOG=debug.
bool debug_enabled();
void log_debug(const char* format, ...) __attribute__((format(printf, 1, 2)));
void log_warning(const std::string& message);

// Edit distance (for did-you-mean suggestions).
size_t edit_distance(std::string_view a, std::string_view b);

// 64 lowercase hex digits of a SHA-256 address.
std::string hex(const uint8_t* bytes, size_t n);

}  // namespace qdrt
