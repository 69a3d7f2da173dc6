// The remote cache: task records and objects shared between stores on servers teams already run
// (docs/remote.md). ccache's storage layering: a RemoteBackend is one server (remote_http.cpp,
// remote_redis.cpp), a RemoteSet layers several (first hit wins; writes go to those not marked
// read-only) and is the only thing the builder talks to.
//
// What a remote holds, by kind and key:
//
//   task   <64-hex task key>    the task record (store/task_cache.hpp) then, when the writer signs,
//                               one signature line (store/remote_signing.hpp):
//                                 body = "qdbuild task v1 " object-hex " " compile_ms "\n"
//                                        [ "sig " algorithm " " signature-hex "\n" ]
//   object <64-hex object id>   the object file (store/object_format.hpp: header + zstd payload),
//                               or, for raw layouts (bazel-remote's /cas/, which checks that a
//                               body hashes to its address), the uncompressed content
//
// Never the index: it stays per store. The remote is untrusted storage: every object fetched is
// decoded and its SHA-256 compared with its address before it is used (a wrong or truncated body
// is a miss, counted as corrupt, never stored); a task record must parse, and when the reader has
// a verification key, its signature must verify over the record *and its key* (a record copied to
// another key fails). Faults never fail a build: a request that fails is a miss; after
// k_breaker_threshold consecutive failures a remote's circuit breaker opens (one warning) and the
// rest of the build runs without it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/hashing.hpp"
#include "store/task_cache.hpp"

namespace qd::store {

enum class RemoteKind { object, task };

// What one request came back with. Every kind except ok and not_found is an error.
enum class RemoteError {
  ok,
  not_found,    // 404 / no such key
  connect,      // could not connect (refused, unreachable, DNS)
  timeout,      // connect or request timeout
  http_status,  // an HTTP status other than 2xx, 404, 401, 403
  auth,         // 401 / 403 / Redis NOAUTH or WRONGPASS
  protocol,     // a broken connection, a malformed reply
  corrupt,      // the body does not verify against its address, or the record does not parse
  signature,    // a record without a valid signature from the configured key
  skipped,      // not sent: the circuit breaker opened during the batch
};
const char* name_of(RemoteError e);
// Errors the circuit breaker counts: the server did not answer properly.
bool is_server_failure(RemoteError e);

struct RemoteResult {
  RemoteError error = RemoteError::ok;
  std::string body;    // ok (get): the value
  std::string detail;  // "HTTP 500", "Connection refused" (never credentials)
};

struct RemoteItem {
  RemoteKind kind = RemoteKind::object;
  std::string key;  // hex
  std::string body;
};

// After k_breaker_threshold consecutive server failures the breaker opens for good (this build).
constexpr int k_breaker_threshold = 3;

class CircuitBreaker {
public:
  void note(RemoteError e) {
    if (is_server_failure(e)) {
      if (++m_failures >= k_breaker_threshold) {
        m_open = true;
      }
    } else if (e == RemoteError::ok || e == RemoteError::not_found) {
      m_failures = 0;
    }
  }
  void open() { m_open = true; }
  bool is_open() const { return m_open; }

private:
  int m_failures = 0;
  bool m_open = false;
};

// One server. Batches are answered in order, one result per key / item; a backend stops sending
// once breaker() opens (the rest are `skipped`).
class RemoteBackend {
public:
  virtual ~RemoteBackend() = default;
  // The URL without credentials: "http://127.0.0.1:8080/cache", "redis://127.0.0.1:6379/0".
  virtual std::string describe() const = 0;
  // Objects travel as their uncompressed content (bazel /cas/) instead of object files.
  virtual bool raw_objects() const { return false; }
  virtual std::vector<RemoteResult> get_many(RemoteKind kind,
                                             const std::vector<std::string>& keys) = 0;
  // ok: present (body empty), not_found: absent.
  virtual std::vector<RemoteResult> has_many(RemoteKind kind,
                                             const std::vector<std::string>& keys) = 0;
  virtual std::vector<RemoteResult> put_many(const std::vector<RemoteItem>& items) = 0;

  CircuitBreaker& breaker() { return m_breaker; }
  uint64_t requests() const { return m_requests; }  // round trips made

protected:
  uint64_t m_requests = 0;

private:
  CircuitBreaker m_breaker;
};

class RecordSigner;  // store/remote_signing.hpp

struct RemoteStats {
  uint64_t hits = 0;        // tasks served from a remote
  uint64_t misses = 0;      // tasks no remote had (or only with a bad body)
  uint64_t errors = 0;      // requests that failed, bodies that did not verify
  uint64_t corrupt = 0;     // of which: bodies that did not verify (objects and records)
  uint64_t bytes_down = 0;  // bodies fetched
  uint64_t bytes_up = 0;    // bodies uploaded
  uint64_t saved_ms = 0;    // compile time of the tasks served (their records' compile_ms)
  uint64_t requests = 0;    // round trips to the servers
  uint64_t uploaded = 0;    // items written
  std::map<std::string, uint64_t> errors_by_kind;  // "timeout", "corrupt", "HTTP 500", ...
};

struct RemoteEndpoint {
  std::unique_ptr<RemoteBackend> backend;
  bool read_only = false;
  bool writes_refused = false;  // a write was refused (credentials): no more writes
  bool reads_refused = false;   // a read was refused (credentials): no more reads
  bool warned = false;          // the breaker warning (or the credentials one) was given
  bool auth_warned = false;
};

class RemoteSet {
public:
  using Warn = std::function<void(const std::string&)>;
  // `signer`: signs uploaded records and, when it can verify, is required of every record read
  // (nullptr: records unsigned, any parsing record accepted).
  RemoteSet(std::vector<RemoteEndpoint> remotes, std::shared_ptr<const RecordSigner> signer,
            Warn warn);
  ~RemoteSet();

  bool empty() const { return m_remotes.empty(); }
  bool writable() const;

  // One fetched task: its record and the object's verified content.
  struct Fetched {
    TaskRecord record;
    bool has_content = false;  // false: the local store already has the object
    std::string content;
  };
  // The records of `keys` and their objects, in two batched rounds per remote (records, then
  // the objects those name that `have_object` says the local store lacks). First hit wins; a
  // record whose object no remote has intact is a miss. Counts hits, misses, errors.
  std::map<std::string, Fetched> fetch(const std::vector<std::string>& keys,
                                       const std::function<bool(const ObjectId&)>& have_object);

  struct Upload {
    std::string key;  // task (or link) key
    TaskRecord record;
    std::string content;  // the object's uncompressed bytes
  };
  // Objects first, then their (signed) records, to every writable remote; batched.
  void upload(const std::vector<Upload>& uploads);

  const RemoteStats& stats() const { return m_stats; }
  // The counters since the last take_stats() (one build's), reset.
  RemoteStats take_stats() { return std::exchange(m_stats, RemoteStats{}); }
  // One line per problem kind seen, for the end of the build ("remote ... returned 2 corrupt
  // bodies (discarded)"); each is reported once.
  void report_problems();

private:
  void account(RemoteEndpoint& r, const RemoteResult& res, bool write);
  void check_breaker(RemoteEndpoint& r);

  std::vector<RemoteEndpoint> m_remotes;
  std::shared_ptr<const RecordSigner> m_signer;
  Warn m_warn;
  RemoteStats m_stats;
  std::map<std::string, uint64_t> m_corrupt_by_remote;
};

// The largest body or object content a remote may hand over (1 GiB): a task object is a few
// KiB to MiB; anything larger is not ours, and a compressed one would be a decompression bomb.
constexpr uint64_t k_max_remote_object = uint64_t{1} << 30;

// Verifies a fetched object body against `id`: decodes an object file (or takes raw content
// as it is) and compares the content's SHA-256 with the address. nullopt: corrupt, or content
// over k_max_remote_object (refused before anything is allocated for it).
std::optional<std::string> verify_object_body(const ObjectId& id, const std::string& body,
                                              bool raw);

}  // namespace qd::store
