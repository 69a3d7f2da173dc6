// Result<T>: a value or a Failure, the return type of every store backend operation (ccache's
// storage interface shape: expected<T, Failure>).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace qd::store {

enum class FailureKind {
  not_found,  // no such object / entry / store
  corrupt,    // a file exists but is damaged (checksum, truncation, bad magic or version)
  io,         // the environment failed (permissions, disk full, ...)
  invalid,    // the request itself is wrong (bad address, too large, read-only store)
};

const char* name_of(FailureKind kind);

struct Failure {
  std::string error;  // a whole sentence naming the file: "object 'objects/ab/...' is damaged: ..."
  FailureKind kind = FailureKind::io;
};

template <class T> class [[nodiscard]] Result {
public:
  Result(T value) : m_v(std::move(value)) {}  // NOLINT: implicit by design
  Result(Failure failure) : m_v(std::move(failure)) {}

  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(m_v); }
  const T& value() const { return std::get<0>(m_v); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Failure& failure() const { return std::get<1>(m_v); }
  const std::string& error() const { return failure().error; }

private:
  std::variant<T, Failure> m_v;
};

struct Unit {};  // Result<Unit>: success without a value

inline Failure fail(FailureKind kind, std::string error) { return Failure{std::move(error), kind}; }

}  // namespace qd::store
