// Signed task records (docs/remote.md "Trust"). A content address proves that an object's bytes
// are intact, not that they are what the task compiles to: whoever can write a task record can
// make every reader load their native code. So writers sign records, and a reader given a key
// accepts only records that key verifies.
//
//   signed body = record-line sig-line
//   record-line = "qdbuild task v1 " object-hex " " compile_ms "\n"      (store/task_cache.hpp)
//   sig-line    = "sig " algorithm " " signature-hex "\n"
//   algorithm   = "hmac-sha256" | "ed25519"
//   message     = "qdbuild remote task v1\n" task-key "\n" record-line
//
// The message binds the task key, so a signed record copied to another key does not verify.
// HMAC-SHA256 (one shared secret signs and verifies) and Ed25519 (a private key signs, its public
// key verifies: readers hold no secret) come from OpenSSL's libcrypto.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/task_cache.hpp"

namespace qd::store {

class RecordSigner {
public:
  // An HMAC-SHA256 key (the secret's bytes as given).
  static std::unique_ptr<RecordSigner> hmac(std::string secret);
  // Ed25519 from PEM text (or a file holding it): a private key signs and verifies, a public key
  // only verifies. nullptr with `error` set when it cannot be read.
  static std::unique_ptr<RecordSigner> ed25519(const std::string& pem_or_path, bool is_private,
                                               std::string& error);
  ~RecordSigner();

  const char* algorithm() const;
  bool can_sign() const;
  bool can_verify() const { return true; }

  // The record's body for `key`: the record line plus a signature line when this can sign.
  std::string sign(std::string_view key, const TaskRecord& record) const;
  // The record in `body` for `key` when its signature verifies; nullopt otherwise (no signature,
  // another algorithm, a bad one, a malformed record).
  std::optional<TaskRecord> verify(std::string_view key, std::string_view body) const;

  struct Impl;

private:
  explicit RecordSigner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

// The record line of a remote body (a signature line after it is ignored); nullopt when
// malformed.
std::optional<TaskRecord> parse_remote_record(std::string_view body);

}  // namespace qd::store
