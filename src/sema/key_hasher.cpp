#include "sema/key_hasher.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace qd::sema {

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL EVP_Digest(SHA-256) failed");
  }
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(k_hex[digest[i] >> 4]);
    out.push_back(k_hex[digest[i] & 15]);
  }
  return out;
}

void KeyHasher::add(std::string tag, std::string text) {
  std::string input = "qdbuild-key-component";
  input.push_back('\0');
  input += tag;
  input.push_back('\0');
  input += text;
  std::string hash = sha256_hex(input);
  m_components.push_back({std::move(tag), std::move(text), std::move(hash)});
}

std::string KeyHasher::key() const {
  std::string all;
  for (const Component& c : m_components) {
    all += c.tag;
    all.push_back('\0');
    all += c.hash;
    all.push_back('\n');
  }
  return sha256_hex(all);
}

}  // namespace qd::sema
