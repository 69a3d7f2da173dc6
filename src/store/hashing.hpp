// Object addresses (SHA-256, from OpenSSL's libcrypto) and content checksums (XXH3).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qd::store {

// The address of an object: the SHA-256 of its uncompressed bytes.
struct ObjectId {
  std::array<uint8_t, 32> bytes{};

  // 64 lowercase hex digits.
  std::string hex() const;
  // Parses exactly 64 hex digits (either case); anything else is nullopt.
  static std::optional<ObjectId> from_hex(std::string_view text);
  // "ab/cdef....qdo": the only way a file name is made from store data.
  std::string relative_path() const;

  auto operator<=>(const ObjectId&) const = default;
};

ObjectId sha256(std::string_view data);

// XXH3-128 of `data`, as stored in object headers: low 64 bits then high 64 bits, little-endian.
std::array<uint8_t, 16> xxh3_128(std::string_view data);
// XXH3-64 (seed 0), the index and pack checksums.
uint64_t xxh3_64(std::string_view data);
// Hashes `a` then `b` as one input.
uint64_t xxh3_64(std::string_view a, std::string_view b);

}  // namespace qd::store
