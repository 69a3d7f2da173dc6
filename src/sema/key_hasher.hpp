// SHA-256 (OpenSSL libcrypto) and the tagged-component hasher behind kernel keys.
//
// Like ccache's hash_delimiter, every input enters the key as a tagged component: the component's
// own hash is SHA-256("qdbuild-key-component\0" tag "\0" text), and the key is SHA-256 over the
// lines "tag\0hash\n" in the order added. `qdbuild explain` prints each component with its hash,
// so two keys can be diffed component by component to see why they differ.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace qd::sema {

// Lowercase hex SHA-256 of `data`.
std::string sha256_hex(std::string_view data);

// Incremental SHA-256 (one reusable OpenSSL context; not thread-safe, use one per thread).
class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data);
  std::string hex_digest();  // finishes, returns lowercase hex, and resets for reuse

private:
  void* m_ctx;
};

class KeyHasher {
public:
  struct Component {
    std::string tag;
    std::string text;  // what was hashed (shown by explain; may be long)
    std::string hash;
  };

  void add(std::string tag, std::string text);
  const std::vector<Component>& components() const { return m_components; }
  std::vector<Component> take_components() && { return std::move(m_components); }
  std::string key() const;

private:
  std::vector<Component> m_components;
};

}  // namespace qd::sema
