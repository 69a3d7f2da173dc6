#include "sema/key_hasher.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace qd::sema {

namespace {

// The algorithm is fetched once: EVP_sha256()'s implicit fetch on every digest costs more than
// hashing a short component.
const EVP_MD* sha256_md() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (md == nullptr) {
    throw std::runtime_error("OpenSSL: SHA256 is not available");
  }
  return md;
}

std::string to_hex(const unsigned char* digest, unsigned int size) {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out(size * 2, '0');
  for (unsigned int i = 0; i < size; ++i) {
    out[2 * i] = k_hex[digest[i] >> 4];
    out[2 * i + 1] = k_hex[digest[i] & 15];
  }
  return out;
}

}  // namespace

Sha256::Sha256() : m_ctx(EVP_MD_CTX_new()) {
  if (m_ctx == nullptr ||
      EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(m_ctx), sha256_md(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(m_ctx)); }

void Sha256::update(std::string_view data) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(m_ctx), data.data(), data.size());
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  auto* ctx = static_cast<EVP_MD_CTX*>(m_ctx);
  if (EVP_DigestFinal_ex(ctx, digest, &size) != 1 ||
      EVP_DigestInit_ex(ctx, sha256_md(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: SHA-256 failed");
  }
  return to_hex(digest, size);
}

std::string sha256_hex(std::string_view data) {
  thread_local Sha256 hasher;
  hasher.update(data);
  return hasher.hex_digest();
}

void KeyHasher::add(std::string tag, std::string text) {
  thread_local Sha256 hasher;
  hasher.update(std::string_view("qdbuild-key-component\0", 22));
  hasher.update(tag);
  hasher.update(std::string_view("\0", 1));
  hasher.update(text);
  std::string hash = hasher.hex_digest();
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
