#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace qdrt {

double half_to_double(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  double v = exp == 0    ? std::ldexp(mant, -24)
             : exp == 31 ? (mant != 0 ? std::numeric_limits<double>::quiet_NaN()
                                      : std::numeric_limits<double>::infinity())
                         : std::ldexp(mant + 1024, exp - 25);
  return (h & 0x8000) != 0 ? -v : v;
}

const char* dtype_name(uint32_t dtype) {
  switch (dtype) {
    case QDRT_DTYPE_NONE: return "none";
    case QDRT_DTYPE_I8: return "i8";
    case QDRT_DTYPE_I16: return "i16";
    case QDRT_DTYPE_I32: return "i32";
    case QDRT_DTYPE_I64: return "i64";
    case QDRT_DTYPE_U8: return "u8";
    case QDRT_DTYPE_U16: return "u16";
    case QDRT_DTYPE_U32: return "u32";
    case QDRT_DTYPE_U64: return "u64";
    case QDRT_DTYPE_F16: return "f16";
    case QDRT_DTYPE_F32: return "f32";
    case QDRT_DTYPE_F64: return "f64";
    case QDRT_DTYPE_U1: return "u1";
    default: return "?";
  }
}

uint32_t dtype_size(uint32_t dtype) {
  switch (dtype) {
    case QDRT_DTYPE_I8:
    case QDRT_DTYPE_U8:
    case QDRT_DTYPE_U1: return 1;
    case QDRT_DTYPE_I16:
    case QDRT_DTYPE_U16:
    case QDRT_DTYPE_F16: return 2;
    case QDRT_DTYPE_I32:
    case QDRT_DTYPE_U32:
    case QDRT_DTYPE_F32: return 4;
    case QDRT_DTYPE_I64:
    case QDRT_DTYPE_U64:
    case QDRT_DTYPE_F64: return 8;
    default: return 0;
  }
}

bool dtype_is_float(uint32_t dtype) {
  return dtype == QDRT_DTYPE_F16 || dtype == QDRT_DTYPE_F32 || dtype == QDRT_DTYPE_F64;
}

bool dtype_is_signed(uint32_t dtype) {
  return dtype == QDRT_DTYPE_I8 || dtype == QDRT_DTYPE_I16 || dtype == QDRT_DTYPE_I32 ||
         dtype == QDRT_DTYPE_I64;
}

bool debug_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("QDRT_LOG");
    return v != nullptr && std::strcmp(v, "debug") == 0;
  }();
  return enabled;
}

void log_debug(const char* format, ...) {
  if (!debug_enabled()) {
    return;
  }
  char line[1024];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  std::fprintf(stderr, "qdrt: debug: %s\n", line);
}

void log_warning(const std::string& message) {
  std::fprintf(stderr, "qdrt: warning: %s\n", message.c_str());
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string hex(const uint8_t* bytes, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  return out;
}

}  // namespace qdrt
