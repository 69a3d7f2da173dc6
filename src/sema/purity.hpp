// Purity of fastcache kernels, exactly per docs/kernel-keys.md (and fixing Quadrants' gaps listed
// in Quadrants' fastcache):
//
//   captured value (body_refs.hpp CaptureRef)          verdict
//   enum member (`Color.RED`, or a name bound to one)  exempt   (Quadrants flags the bare name)
//   math.* / numpy.* constant (`math.pi`, `np.pi`,     exempt   (Quadrants flags `from math
//   `from math import pi`)                                       import pi`)
//   quadrants module attribute (`qd.math.pi`)          never a capture (resolve.hpp: quadrants)
//   a qd.field (any name)                              error    (Quadrants only warns for
//                                                               UPPERCASE ones: stale offsets)
//   a qd.ndarray                                       error    (for every kernel: Quadrants
//                                                               rejects it at compile time)
//   UPPERCASE name (`name.upper() == name`)            warning
//   anything inside qd.static(...)                     warning
//   any other value, instance or unknown object        error    (subscripts, tuples and numpy
//                                                               scalars included)
// Whatever the verdict, a captured value with a known value enters the kernel key; one whose
// value is not known statically makes the kernel ineligible (the key could go stale).
#pragma once

#include <string>

#include "sema/body_refs.hpp"

namespace qd::sema {

enum class CaptureVerdict : uint8_t { exempt, warn_uppercase, warn_static, error, error_ndarray };

struct CaptureCheck {
  CaptureVerdict verdict = CaptureVerdict::error;
  std::string what;  // "int 5", "the field 'x'", "enum value", ...
};

CaptureCheck check_capture(const Program& p, const CaptureRef& c);

// Python's `name.upper() == name` for identifiers (non-ASCII letters are treated as uncased).
bool is_uppercase_name(std::string_view name);

}  // namespace qd::sema
