// REAPI digests: a blob's SHA-256 (lower-case hex) and its size in bytes, the address of every
// blob in a Content Addressable Storage (build.bazel.remote.execution.v2.Digest).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace qd::remote_exec {

struct Digest {
  std::string hash;  // 64 lower-case hex digits
  int64_t size = 0;
  bool operator==(const Digest&) const = default;
  bool operator<(const Digest& o) const { return hash != o.hash ? hash < o.hash : size < o.size; }
  std::string text() const { return hash + "/" + std::to_string(size); }  // as Bazel prints it
};

Digest digest_of(std::string_view bytes);

}  // namespace qd::remote_exec
