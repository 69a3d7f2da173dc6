#include "store/hashing.hpp"

#include <cstring>
#include <stdexcept>

#include <openssl/evp.h>

#define XXH_INLINE_ALL
#include "support/hex.hpp"
#include <xxhash.h>

namespace qd::store {

namespace {

constexpr char k_hex[] = "0123456789abcdef";

void put_le64(uint8_t* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(v >> (8 * i));
  }
}

}  // namespace

std::string ObjectId::hex() const {
  std::string out(64, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = k_hex[bytes[i] >> 4];
    out[2 * i + 1] = k_hex[bytes[i] & 15];
  }
  return out;
}

std::optional<ObjectId> ObjectId::from_hex(std::string_view text) {
  if (text.size() != 64) {
    return std::nullopt;
  }
  ObjectId id;
  for (size_t i = 0; i < 32; ++i) {
    int hi = support::hex_digit_value(text[2 * i]);
    int lo = support::hex_digit_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return std::nullopt;
    }
    id.bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return id;
}

std::string ObjectId::relative_path() const {
  std::string h = hex();
  return h.substr(0, 2) + "/" + h.substr(2) + ".qdo";
}

ObjectId sha256(std::string_view data) {
  ObjectId id;
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), id.bytes.data(), &size, EVP_sha256(), nullptr) != 1 ||
      size != id.bytes.size()) {
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  }
  return id;
}

std::array<uint8_t, 16> xxh3_128(std::string_view data) {
  XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
  std::array<uint8_t, 16> out{};
  put_le64(out.data(), h.low64);
  put_le64(out.data() + 8, h.high64);
  return out;
}

uint64_t xxh3_64(std::string_view data) { return XXH3_64bits(data.data(), data.size()); }

uint64_t xxh3_64(std::string_view a, std::string_view b) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, a.data(), a.size());
  XXH3_64bits_update(&state, b.data(), b.size());
  return XXH3_64bits_digest(&state);
}

}  // namespace qd::store
