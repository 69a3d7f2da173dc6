#include "remote_exec/digest.hpp"

#include <openssl/sha.h>

namespace qd::remote_exec {

Digest digest_of(std::string_view bytes) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), md);
  static const char* hex = "0123456789abcdef";
  Digest d;
  d.hash.resize(2 * SHA256_DIGEST_LENGTH);
  for (int i = 0; i < SHA256_DIGEST_LENGTH; ++i) {
    d.hash[2 * i] = hex[md[i] >> 4];
    d.hash[2 * i + 1] = hex[md[i] & 15];
  }
  d.size = static_cast<int64_t>(bytes.size());
  return d;
}

}  // namespace qd::remote_exec
