#include "store/remote_signing.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include "support/file_io.hpp"

namespace qd::store {

namespace {

constexpr std::string_view k_sig = "sig ";

std::string message(std::string_view key, std::string_view record_line) {
  std::string m = "qdbuild remote task v1\n";
  m += key;
  m += "\n";
  m += record_line;
  return m;
}

std::string to_hex(const unsigned char* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) {
    return std::nullopt;
  }
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]);
    int lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      return std::nullopt;
    }
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

struct PkeyDeleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};

}  // namespace

struct RecordSigner::Impl {
  bool is_hmac = false;
  std::string secret;
  std::unique_ptr<EVP_PKEY, PkeyDeleter> pkey;
  bool is_private = false;
};

RecordSigner::RecordSigner(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
RecordSigner::~RecordSigner() = default;

std::unique_ptr<RecordSigner> RecordSigner::hmac(std::string secret) {
  auto impl = std::make_unique<Impl>();
  impl->is_hmac = true;
  impl->secret = std::move(secret);
  return std::unique_ptr<RecordSigner>(new RecordSigner(std::move(impl)));
}

std::unique_ptr<RecordSigner> RecordSigner::ed25519(const std::string& pem_or_path, bool is_private,
                                                    std::string& error) {
  std::string pem = pem_or_path;
  if (pem.find("-----BEGIN") == std::string::npos) {
    if (!support::read_file(pem_or_path, pem, error)) {
      return nullptr;
    }
  }
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = is_private ? PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr)
                             : PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  const char* what = is_private ? "private" : "public";
  if (key == nullptr) {
    error = std::string("not a PEM ") + what + " key";
    return nullptr;
  }
  if (EVP_PKEY_get_id(key) != EVP_PKEY_ED25519) {
    EVP_PKEY_free(key);
    error = std::string("the ") + what + " key is not an Ed25519 key";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  impl->pkey.reset(key);
  impl->is_private = is_private;
  return std::unique_ptr<RecordSigner>(new RecordSigner(std::move(impl)));
}

const char* RecordSigner::algorithm() const { return m_impl->is_hmac ? "hmac-sha256" : "ed25519"; }

bool RecordSigner::can_sign() const { return m_impl->is_hmac || m_impl->is_private; }

std::string RecordSigner::sign(std::string_view key, const TaskRecord& record) const {
  std::string line = format_task_record(record);
  if (!can_sign()) {
    return line;
  }
  std::string m = message(key, line);
  unsigned char sig[64];
  size_t sig_len = 0;
  if (m_impl->is_hmac) {
    unsigned int len = 0;
    if (HMAC(EVP_sha256(), m_impl->secret.data(), static_cast<int>(m_impl->secret.size()),
             reinterpret_cast<const unsigned char*>(m.data()), m.size(), sig, &len) == nullptr) {
      return line;
    }
    sig_len = len;
  } else {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    sig_len = sizeof sig;
    bool ok = EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, m_impl->pkey.get()) == 1 &&
              EVP_DigestSign(ctx, sig, &sig_len, reinterpret_cast<const unsigned char*>(m.data()),
                             m.size()) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok) {
      return line;
    }
  }
  return line + std::string(k_sig) + algorithm() + " " + to_hex(sig, sig_len) + "\n";
}

std::optional<TaskRecord> parse_remote_record(std::string_view body) {
  size_t nl = body.find('\n');
  if (nl == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view rest = body.substr(nl + 1);
  if (!rest.empty() && (!rest.starts_with(k_sig) || rest.find('\n') != rest.size() - 1)) {
    return std::nullopt;  // anything after the record must be exactly one signature line
  }
  return parse_task_record(body.substr(0, nl + 1));
}

std::optional<TaskRecord> RecordSigner::verify(std::string_view key, std::string_view body) const {
  std::optional<TaskRecord> record = parse_remote_record(body);
  if (!record) {
    return std::nullopt;
  }
  size_t nl = body.find('\n');
  std::string_view line = body.substr(0, nl + 1);
  std::string_view sig_line = body.substr(nl + 1);
  std::string prefix = std::string(k_sig) + algorithm() + " ";
  if (!sig_line.starts_with(prefix)) {
    return std::nullopt;
  }
  std::optional<std::string> sig =
      from_hex(sig_line.substr(prefix.size(), sig_line.size() - prefix.size() - 1));
  if (!sig) {
    return std::nullopt;
  }
  std::string m = message(key, line);
  if (m_impl->is_hmac) {
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (HMAC(EVP_sha256(), m_impl->secret.data(), static_cast<int>(m_impl->secret.size()),
             reinterpret_cast<const unsigned char*>(m.data()), m.size(), mac, &len) == nullptr ||
        len != sig->size() || CRYPTO_memcmp(mac, sig->data(), len) != 0) {
      return std::nullopt;
    }
    return record;
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, m_impl->pkey.get()) == 1 &&
            EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(sig->data()), sig->size(),
                             reinterpret_cast<const unsigned char*>(m.data()), m.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok ? record : std::nullopt;
}

}  // namespace qd::store
