#include "store/remote.hpp"

#include <set>

#include "store/object_format.hpp"
#include "store/remote_signing.hpp"

namespace qd::store {

const char* name_of(RemoteError e) {
  switch (e) {
    case RemoteError::ok: return "ok";
    case RemoteError::not_found: return "not found";
    case RemoteError::connect: return "connect";
    case RemoteError::timeout: return "timeout";
    case RemoteError::http_status: return "http status";
    case RemoteError::auth: return "auth";
    case RemoteError::protocol: return "protocol";
    case RemoteError::corrupt: return "corrupt";
    case RemoteError::signature: return "signature";
    case RemoteError::skipped: return "skipped";
  }
  return "?";
}

bool is_server_failure(RemoteError e) {
  return e == RemoteError::connect || e == RemoteError::timeout || e == RemoteError::http_status ||
         e == RemoteError::protocol || e == RemoteError::auth;
}

std::optional<std::string> verify_object_body(const ObjectId& id, const std::string& body,
                                              bool raw) {
  std::string content;
  if (raw) {
    content = body;
  } else {
    // The header's content size first: a hostile remote's small frame could declare terabytes.
    Result<ObjectHeaderInfo> header = parse_object_header(body, "remote object " + id.hex());
    if (!header || header->raw_size > k_max_remote_object) {
      return std::nullopt;
    }
    Result<std::string> decoded = decode_object(body, "remote object " + id.hex());
    if (!decoded) {
      return std::nullopt;
    }
    content = std::move(*decoded);
  }
  if (sha256(content) != id) {
    return std::nullopt;
  }
  return content;
}

RemoteSet::RemoteSet(std::vector<RemoteEndpoint> remotes,
                     std::shared_ptr<const RecordSigner> signer, Warn warn)
    : m_remotes(std::move(remotes)), m_signer(std::move(signer)), m_warn(std::move(warn)) {}

RemoteSet::~RemoteSet() = default;

bool RemoteSet::writable() const {
  for (const RemoteEndpoint& r : m_remotes) {
    if (!r.read_only && !r.writes_refused && !r.backend->breaker().is_open()) {
      return true;
    }
  }
  return false;
}

void RemoteSet::account(RemoteEndpoint& r, const RemoteResult& res, bool write) {
  if (res.error == RemoteError::auth && !r.auth_warned) {
    // Credentials are wrong: one clear warning, and no more of what they were refused for.
    r.auth_warned = true;
    r.warned = true;
    m_warn("remote cache '" + r.backend->describe() + "' refused the credentials (" + res.detail +
           ") " + (write ? "for an upload" : "for reading") +
           ": set QDBUILD_REMOTE_USER and QDBUILD_REMOTE_PASSWORD, or a netrc entry; " +
           (write ? "not uploading to it" : "not using it") + " in this build");
  }
  if (res.error == RemoteError::auth) {
    (write ? r.writes_refused : r.reads_refused) = true;
    if (!write) {
      r.backend->breaker().open();
    }
  }
  if (res.error == RemoteError::ok || res.error == RemoteError::not_found ||
      res.error == RemoteError::skipped) {
    return;
  }
  ++m_stats.errors;
  std::string kind = res.error == RemoteError::http_status ? res.detail : name_of(res.error);
  ++m_stats.errors_by_kind[kind];
  if (res.error == RemoteError::corrupt || res.error == RemoteError::signature) {
    ++m_stats.corrupt;
    ++m_corrupt_by_remote[r.backend->describe()];
  }
}

void RemoteSet::check_breaker(RemoteEndpoint& r) {
  if (r.backend->breaker().is_open() && !r.warned) {
    r.warned = true;
    m_warn("remote cache '" + r.backend->describe() + "' failed " +
           std::to_string(k_breaker_threshold) +
           " times in a row; building without it from now on (the build's result is the same)");
  }
}

std::map<std::string, RemoteSet::Fetched>
RemoteSet::fetch(const std::vector<std::string>& keys,
                 const std::function<bool(const ObjectId&)>& have_object) {
  std::map<std::string, Fetched> out;
  std::set<std::string> wanted(keys.begin(), keys.end());
  for (RemoteEndpoint& r : m_remotes) {
    if (wanted.empty()) {
      break;
    }
    RemoteBackend& b = *r.backend;
    if (b.breaker().is_open()) {
      continue;
    }
    std::vector<std::string> ask(wanted.begin(), wanted.end());
    uint64_t before = b.requests();
    std::vector<RemoteResult> records = b.get_many(RemoteKind::task, ask);
    // Records that parse (and verify), then their objects in one more round.
    std::map<std::string, TaskRecord> found;
    for (size_t i = 0; i < ask.size() && i < records.size(); ++i) {
      RemoteResult& res = records[i];
      if (res.error == RemoteError::ok) {
        m_stats.bytes_down += res.body.size();
        std::optional<TaskRecord> rec;
        bool verifying = m_signer && m_signer->can_verify();
        rec = verifying ? m_signer->verify(ask[i], res.body) : parse_remote_record(res.body);
        if (!rec) {
          res.error = (verifying && parse_remote_record(res.body)) ? RemoteError::signature
                                                                   : RemoteError::corrupt;
        } else {
          found[ask[i]] = *rec;
        }
      }
      account(r, res, false);
    }
    check_breaker(r);
    std::vector<std::string> object_keys;
    std::map<std::string, std::vector<std::string>> tasks_of;  // object hex -> task keys
    for (const auto& [key, rec] : found) {
      if (have_object(rec.object)) {
        out[key] = {rec, false, {}};
        wanted.erase(key);
        continue;
      }
      std::string hex = rec.object.hex();
      if (tasks_of[hex].empty()) {
        object_keys.push_back(hex);
      }
      tasks_of[hex].push_back(key);
    }
    if (!object_keys.empty() && !b.breaker().is_open()) {
      std::vector<RemoteResult> objects = b.get_many(RemoteKind::object, object_keys);
      for (size_t i = 0; i < object_keys.size() && i < objects.size(); ++i) {
        RemoteResult& res = objects[i];
        if (res.error == RemoteError::ok) {
          m_stats.bytes_down += res.body.size();
          std::optional<ObjectId> id = ObjectId::from_hex(object_keys[i]);
          std::optional<std::string> content = verify_object_body(*id, res.body, b.raw_objects());
          if (!content) {
            res.error = RemoteError::corrupt;
          } else {
            for (const std::string& key : tasks_of[object_keys[i]]) {
              out[key] = {found[key], true, *content};
              wanted.erase(key);
            }
          }
        }
        account(r, res, false);
      }
      check_breaker(r);
    }
    m_stats.requests += b.requests() - before;
  }
  for (const auto& [key, f] : out) {
    ++m_stats.hits;
    m_stats.saved_ms += f.record.compile_ms;
  }
  m_stats.misses += wanted.size();
  return out;
}

void RemoteSet::upload(const std::vector<Upload>& uploads) {
  if (uploads.empty()) {
    return;
  }
  // Each object once, in the encoding each remote wants.
  std::string file_cache;
  for (RemoteEndpoint& r : m_remotes) {
    RemoteBackend& b = *r.backend;
    if (r.read_only || r.writes_refused || b.breaker().is_open()) {
      continue;
    }
    uint64_t before = b.requests();
    std::vector<RemoteItem> objects;
    std::set<ObjectId> seen;
    for (const Upload& u : uploads) {
      if (!seen.insert(u.record.object).second) {
        continue;
      }
      objects.push_back({RemoteKind::object, u.record.object.hex(),
                         b.raw_objects() ? u.content : encode_object(u.content)});
    }
    // Objects before the records that name them: a reader never finds a record first.
    std::set<std::string> failed;
    auto send = [&](const std::vector<RemoteItem>& items) {
      std::vector<RemoteResult> res = b.put_many(items);
      for (size_t i = 0; i < items.size() && i < res.size(); ++i) {
        account(r, res[i], true);
        if (res[i].error == RemoteError::ok) {
          m_stats.bytes_up += items[i].body.size();
          ++m_stats.uploaded;
        } else {
          failed.insert(items[i].key);
        }
      }
    };
    send(objects);
    if (!b.breaker().is_open() && !r.writes_refused) {
      std::vector<RemoteItem> records;
      for (const Upload& u : uploads) {
        if (failed.count(u.record.object.hex()) != 0) {
          continue;
        }
        std::string body =
            m_signer ? m_signer->sign(u.key, u.record) : format_task_record(u.record);
        records.push_back({RemoteKind::task, u.key, std::move(body)});
      }
      send(records);
    }
    check_breaker(r);
    m_stats.requests += b.requests() - before;
  }
}

void RemoteSet::report_problems() {
  for (const auto& [remote, n] : m_corrupt_by_remote) {
    m_warn("remote cache '" + remote + "' returned " + std::to_string(n) +
           (n == 1 ? " body" : " bodies") +
           " that did not verify (wrong content, truncated, or an unsigned or badly signed "
           "record); discarded, those tasks were built locally");
  }
  m_corrupt_by_remote.clear();
}

}  // namespace qd::store
