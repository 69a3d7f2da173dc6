#include "sema/purity.hpp"

namespace qd::sema {

using EK = Entity::Kind;

bool is_uppercase_name(std::string_view name) {
  for (char c : name) {
    if (c >= 'a' && c <= 'z') {
      return false;
    }
  }
  return true;
}

CaptureCheck check_capture(const Program& p, const CaptureRef& c) {
  CaptureCheck r;
  const Entity& e = c.entity;
  switch (e.kind) {
    case EK::value:
      if (e.value.kind == Value::Kind::enum_member) {
        r.verdict = CaptureVerdict::exempt;
        r.what = "enum value " + repr(e.value);
        return r;
      }
      r.what = e.value.known() ? type_name(e.value) + " " + repr(e.value)
                               : "a value qdbuild cannot evaluate (" + e.value.s + ")";
      break;
    case EK::external: {
      std::string_view path = e.path;
      if (path.starts_with("math.") || path.starts_with("numpy.")) {
        r.verdict = CaptureVerdict::exempt;
        r.what = "math/numpy constant " + e.path;
        return r;
      }
      r.what = "'" + e.path + "' from outside the source tree";
      break;
    }
    case EK::field:
      r.verdict = CaptureVerdict::error;
      r.what = "a qd.field (fields can never be fastcached: their memory offsets are baked in)";
      return r;
    case EK::ndarray:
      r.verdict = CaptureVerdict::error_ndarray;
      r.what = "a qd.ndarray";
      return r;
    case EK::instance: r.what = "an instance of " + class_path(p, e.cls); break;
    default: r.what = std::string("a ") + name_of(e.kind) + " object"; break;
  }
  if (is_uppercase_name(c.name)) {
    r.verdict = CaptureVerdict::warn_uppercase;
  } else if (c.in_static) {
    r.verdict = CaptureVerdict::warn_static;
  } else {
    r.verdict = CaptureVerdict::error;
  }
  return r;
}

}  // namespace qd::sema
