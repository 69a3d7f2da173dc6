// qdrt/qdrt.hpp: a header-only C++ wrapper over the C API (qdrt/qdrt.h). It adds RAII and
// std::string messages and throws nothing: every call returns qdrt::Result / qdrt_status.
//
//   qdrt::Store store;
//   if (qdrt::Error e = store.open("kernels.qdpack")) { std::cerr << e.message; }
//   qdrt::Kernel k;
//   store.kernel("physics:advance", k);
//   std::vector<float> x(n);
//   qdrt::Error e = k({qdrt::array(x), qdrt::Arg(0.01)});
#ifndef QDRT_QDRT_HPP
#define QDRT_QDRT_HPP

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "qdrt/qdrt.h"

namespace qdrt {

struct Error {
  qdrt_status status = QDRT_OK;
  std::string message;
  explicit operator bool() const { return status != QDRT_OK; }  // true: failed
  static Error last(qdrt_status s) { return s == QDRT_OK ? Error{} : Error{s, qdrt_last_error()}; }
};

template <class T> constexpr uint32_t dtype_of() {
  if constexpr (std::is_same_v<T, float>) {
    return QDRT_DTYPE_F32;
  } else if constexpr (std::is_same_v<T, double>) {
    return QDRT_DTYPE_F64;
  } else if constexpr (std::is_same_v<T, bool>) {
    return QDRT_DTYPE_U1;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return QDRT_DTYPE_I8;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return QDRT_DTYPE_I16;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return QDRT_DTYPE_I32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return QDRT_DTYPE_I64;
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return QDRT_DTYPE_U8;
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    return QDRT_DTYPE_U16;
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    return QDRT_DTYPE_U32;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return QDRT_DTYPE_U64;
  } else {
    static_assert(sizeof(T) == 0, "no qdrt dtype for this type");
    return QDRT_DTYPE_NONE;
  }
}

// One argument. Arrays keep their shape inside, so an Arg may be built from a temporary.
class Arg {
public:
  Arg(int v) : m_value(qdrt_int_value(v)) {}
  Arg(int64_t v) : m_value(qdrt_int_value(v)) {}
  Arg(double v) : m_value(qdrt_float_value(v)) {}
  Arg(bool v) : m_value(qdrt_bool_value(v ? 1 : 0)) {}
  Arg(const char* text) : m_value(qdrt_text_value(text)) {}
  // An array of `dtype` elements with the given shape (array dims, then element dims).
  Arg(uint32_t dtype, void* data, std::initializer_list<int64_t> shape) : m_shape(shape) {
    m_value = qdrt_array_value(dtype, data, static_cast<int32_t>(m_shape.size()), nullptr);
  }
  Arg(uint32_t dtype, void* data, std::vector<int64_t> shape) : m_shape(std::move(shape)) {
    m_value = qdrt_array_value(dtype, data, static_cast<int32_t>(m_shape.size()), nullptr);
  }
  qdrt_value value() const {
    qdrt_value v = m_value;
    if (v.kind == QDRT_VALUE_ARRAY) {
      v.shape = m_shape.data();
    }
    return v;
  }

private:
  qdrt_value m_value{};
  std::vector<int64_t> m_shape;
};

// A 1-D array over a contiguous container (std::vector, std::array, ...).
template <class C> Arg array(C& c) {
  using T = std::remove_cv_t<std::remove_reference_t<decltype(*c.data())>>;
  return Arg(dtype_of<T>(), const_cast<T*>(c.data()), {static_cast<int64_t>(c.size())});
}

class Kernel {
public:
  Kernel() = default;
  explicit Kernel(qdrt_kernel* k) : m_kernel(k) {}
  qdrt_kernel* get() const { return m_kernel; }
  std::string name() const { return m_kernel ? qdrt_kernel_name(m_kernel) : ""; }
  std::vector<std::string> instances() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < qdrt_kernel_instance_count(m_kernel); ++i) {
      out.emplace_back(qdrt_kernel_instance(m_kernel, i));
    }
    return out;
  }
  // Launches; `result` (optional) receives the return value.
  Error operator()(std::initializer_list<Arg> args, qdrt_value* result = nullptr) const {
    qdrt_value inline_values[16];
    std::vector<qdrt_value> heap;
    qdrt_value* values = inline_values;
    if (args.size() > 16) {
      heap.resize(args.size());
      values = heap.data();
    }
    size_t i = 0;
    for (const Arg& a : args) {
      values[i++] = a.value();
    }
    return Error::last(qdrt_launch(m_kernel, values, args.size(), result));
  }
  qdrt_observations observations() const {
    qdrt_observations o{};
    o.struct_size = sizeof o;
    qdrt_kernel_observations(m_kernel, &o);
    return o;
  }

private:
  qdrt_kernel* m_kernel = nullptr;
};

class Store {
public:
  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  Store(Store&& o) noexcept : m_store(o.m_store) { o.m_store = nullptr; }
  ~Store() { qdrt_close(m_store); }

  Error open(const std::string& path, bool lazy = false, int num_threads = 0) {
    qdrt_close(m_store);
    m_store = nullptr;
    qdrt_open_options o{sizeof(qdrt_open_options), lazy ? QDRT_OPEN_LAZY : 0u, num_threads, 0};
    return Error::last(qdrt_open(path.c_str(), &o, &m_store));
  }
  qdrt_store* get() const { return m_store; }
  std::vector<std::string> kernels() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < qdrt_kernel_count(m_store); ++i) {
      out.emplace_back(qdrt_kernel_id(m_store, i));
    }
    return out;
  }
  Error kernel(const std::string& id, Kernel& out) const {
    qdrt_kernel* k = nullptr;
    qdrt_status s = qdrt_get_kernel(m_store, id.c_str(), &k);
    out = Kernel(k);
    return Error::last(s);
  }

private:
  qdrt_store* m_store = nullptr;
};

}  // namespace qdrt

#endif  // QDRT_QDRT_HPP
