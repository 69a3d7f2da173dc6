// Which remote caches a build uses (docs/remote.md "Configuration"):
//
//   [tool.qdbuild.remote]                        (pyproject.toml; qdbuild.toml: [remote])
//   url = ["http://cache:8080/qdbuild", "redis://cache:6379/0|read-only"]   # or one string
//   read-only = false          # every remote read-only (untrusted clients: fork pull requests)
//   connect-timeout = 1000     # milliseconds (default 1000)
//   timeout = 10000            # milliseconds per request (default 10000)
//   verify-key = "ci/qdbuild.pub"   # Ed25519 public key (PEM): accept only records it verifies
//
//   url     = scheme "://" [user [":" password] "@"] host [":" port] [path] { "|" attribute }
//   scheme  = "http" | "https" | "bazel+http" | "bazel+https" | "redis"
//   attribute = "read-only" | "layout=" ("plain" | "bazel") | "connect-timeout=" ms
//             | "timeout=" ms | "parallel=" n
//
// Environment (wins over the file): QDBUILD_REMOTE (URLs separated by whitespace; set and empty:
// no remote), QDBUILD_REMOTE_READ_ONLY=1, QDBUILD_REMOTE_USER / QDBUILD_REMOTE_PASSWORD
// (HTTP basic auth, Redis AUTH), QDBUILD_REMOTE_HMAC_KEY (a shared secret that signs and
// verifies records), QDBUILD_REMOTE_SIGNING_KEY (an Ed25519 private key, PEM text or a file),
// QDBUILD_REMOTE_VERIFY_KEY (an Ed25519 public key, PEM text or a file). HTTP also reads netrc
// ($NETRC, else ~/.netrc). Credentials in a URL are accepted from QDBUILD_REMOTE only, never from
// the config file; they never appear in messages (describe() drops them).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/remote.hpp"

namespace qd::store {

enum class RemoteLayout { plain, bazel };

struct RemoteSpec {
  std::string scheme;  // "http", "https", "redis"
  std::string host;
  int port = 0;
  std::string path;  // HTTP: "" or "/prefix" (no trailing slash); Redis: "" or "/<db>"
  std::string user;
  std::string password;
  RemoteLayout layout = RemoteLayout::plain;
  bool read_only = false;
  int64_t connect_timeout_ms = 1000;
  int64_t timeout_ms = 10000;
  int parallel = 16;

  // scheme://host:port/path, never the credentials.
  std::string display() const;
};

// The [tool.qdbuild.remote] table as written (sema/build_config.hpp reads it).
struct RemoteSettings {
  std::vector<std::string> urls;
  std::optional<bool> read_only;
  std::optional<int64_t> connect_timeout_ms;
  std::optional<int64_t> timeout_ms;
  std::string verify_key;  // a path, absolute
};

// Parses one URL with its attributes. `from_file`: credentials in it are an error.
bool parse_remote_url(const std::string& text, bool from_file, RemoteSpec& out, std::string& error);

using GetEnv = std::function<const char*(const char*)>;

// The remotes a build uses: the file's settings, then the environment. Problems go to `errors`
// (a bad URL, an unreadable key); an empty set when none is configured.
std::unique_ptr<RemoteSet> make_remote_set(const RemoteSettings& file, const GetEnv& env,
                                           RemoteSet::Warn warn, std::vector<std::string>& errors);

}  // namespace qd::store
