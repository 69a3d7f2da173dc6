#include "store/remote_redis.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <hiredis/hiredis.h>

#include "store/remote_config.hpp"

namespace qd::store {

namespace {

constexpr size_t k_redis_chunk = 256;

timeval to_timeval(int64_t ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  return tv;
}

class RedisRemote : public RemoteBackend {
public:
  explicit RedisRemote(const RemoteSpec& spec) : m_spec(spec) {
    if (spec.path.size() > 1) {
      m_db = std::atoi(spec.path.c_str() + 1);
    }
  }
  ~RedisRemote() override { drop(); }

  std::string describe() const override { return m_spec.display(); }

  std::vector<RemoteResult> get_many(RemoteKind kind,
                                     const std::vector<std::string>& keys) override {
    std::vector<RemoteResult> out(keys.size());
    for (size_t start = 0; start < keys.size(); start += k_redis_chunk) {
      size_t end = std::min(keys.size(), start + k_redis_chunk);
      if (breaker().is_open()) {
        mark(out, start, end, RemoteError::skipped, "");
        continue;
      }
      std::vector<std::string> args{"MGET"};
      for (size_t i = start; i < end; ++i) {
        args.push_back(key_of(kind, keys[i]));
      }
      redisReply* reply = nullptr;
      RemoteResult failure;
      if (!command({args}, [&](redisReply* r) { reply = r; }, failure)) {
        mark(out, start, end, failure.error, failure.detail);
        continue;
      }
      if (reply->type != REDIS_REPLY_ARRAY || reply->elements != end - start) {
        mark(out, start, end, RemoteError::protocol, "unexpected reply to MGET");
        breaker().note(RemoteError::protocol);
      } else {
        for (size_t i = start; i < end; ++i) {
          redisReply* e = reply->element[i - start];
          if (e->type == REDIS_REPLY_STRING) {
            out[i].error = RemoteError::ok;
            out[i].body.assign(e->str, e->len);
          } else {
            out[i].error = RemoteError::not_found;
          }
        }
        breaker().note(RemoteError::ok);
      }
      freeReplyObject(reply);
    }
    return out;
  }

  std::vector<RemoteResult> has_many(RemoteKind kind,
                                     const std::vector<std::string>& keys) override {
    std::vector<std::vector<std::string>> cmds;
    for (const std::string& k : keys) {
      cmds.push_back({"EXISTS", key_of(kind, k)});
    }
    return pipeline(cmds, [](redisReply* r, RemoteResult& res) {
      res.error = r->type == REDIS_REPLY_INTEGER && r->integer == 1 ? RemoteError::ok
                                                                    : RemoteError::not_found;
    });
  }

  std::vector<RemoteResult> put_many(const std::vector<RemoteItem>& items) override {
    std::vector<std::vector<std::string>> cmds;
    for (const RemoteItem& it : items) {
      cmds.push_back({"SET", key_of(it.kind, it.key), it.body});
    }
    return pipeline(cmds, [](redisReply* r, RemoteResult& res) {
      res.error = r->type == REDIS_REPLY_STATUS ? RemoteError::ok : RemoteError::protocol;
    });
  }

private:
  static std::string key_of(RemoteKind kind, const std::string& key) {
    return (kind == RemoteKind::object ? "qdbuild:obj:" : "qdbuild:task:") + key;
  }

  static void mark(std::vector<RemoteResult>& out, size_t start, size_t end, RemoteError e,
                   const std::string& detail) {
    for (size_t i = start; i < end; ++i) {
      out[i].error = e;
      out[i].detail = detail;
    }
  }

  void drop() {
    if (m_ctx != nullptr) {
      redisFree(m_ctx);
      m_ctx = nullptr;
    }
  }

  RemoteResult context_error() {
    RemoteResult r;
    int err = m_ctx != nullptr ? m_ctx->err : REDIS_ERR_IO;
    std::string what = m_ctx != nullptr ? m_ctx->errstr : "cannot allocate a connection";
    if (err == REDIS_ERR_IO && (errno == EAGAIN || errno == ETIMEDOUT || errno == EINPROGRESS)) {
      r.error = RemoteError::timeout;
    } else if (err == REDIS_ERR_IO && errno == ECONNREFUSED) {
      r.error = RemoteError::connect;
    } else {
      r.error = RemoteError::protocol;
    }
    r.detail = what;
    drop();
    return r;
  }

  // A reply that is an error: the connection is fine, the request is not.
  static RemoteResult reply_error(redisReply* reply) {
    RemoteResult r;
    std::string text(reply->str, reply->len);
    bool auth = text.rfind("NOAUTH", 0) == 0 || text.rfind("WRONGPASS", 0) == 0 ||
                text.find("invalid password") != std::string::npos ||
                text.find("NOPERM") != std::string::npos;
    r.error = auth ? RemoteError::auth : RemoteError::protocol;
    r.detail = auth ? "Redis " + text.substr(0, text.find(' ')) : "Redis error reply";
    return r;
  }

  bool connect(RemoteResult& failure) {
    if (m_ctx != nullptr) {
      return true;
    }
    ++m_requests;
    m_ctx = redisConnectWithTimeout(m_spec.host.c_str(), m_spec.port ? m_spec.port : 6379,
                                    to_timeval(m_spec.connect_timeout_ms));
    if (m_ctx == nullptr || m_ctx->err != 0) {
      failure = context_error();
      breaker().note(failure.error);
      return false;
    }
    redisSetTimeout(m_ctx, to_timeval(m_spec.timeout_ms));
    std::vector<std::vector<std::string>> setup;
    if (!m_spec.password.empty()) {
      if (m_spec.user.empty()) {
        setup.push_back({"AUTH", m_spec.password});
      } else {
        setup.push_back({"AUTH", m_spec.user, m_spec.password});
      }
    }
    if (m_db != 0) {
      setup.push_back({"SELECT", std::to_string(m_db)});
    }
    for (const auto& cmd : setup) {
      if (!send(cmd, failure)) {
        return false;
      }
      redisReply* reply = ok_reply(failure);
      if (reply == nullptr) {
        drop();  // (AUTH or SELECT refused: not a connection to use)
        return false;
      }
      freeReplyObject(reply);
    }
    return true;
  }

  // The next reply; nullptr with `failure` when the connection failed (it is dropped).
  redisReply* next_reply(RemoteResult& failure) {
    redisReply* reply = nullptr;
    if (redisGetReply(m_ctx, reinterpret_cast<void**>(&reply)) != REDIS_OK) {
      failure = context_error();
      breaker().note(failure.error);
      return nullptr;
    }
    return reply;
  }

  // The next reply of a command that must succeed: nullptr with `failure` for an error reply too.
  redisReply* ok_reply(RemoteResult& failure) {
    redisReply* reply = next_reply(failure);
    if (reply != nullptr && reply->type == REDIS_REPLY_ERROR) {
      failure = reply_error(reply);
      freeReplyObject(reply);
      breaker().note(failure.error);
      return nullptr;
    }
    return reply;
  }

  bool send(const std::vector<std::string>& cmd, RemoteResult& failure) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const std::string& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(m_ctx, static_cast<int>(argv.size()), argv.data(), lens.data()) !=
        REDIS_OK) {
      failure = context_error();
      breaker().note(failure.error);
      return false;
    }
    return true;
  }

  // One command: its reply to `take` (which owns it), or the failure.
  template <class F>
  bool command(const std::vector<std::vector<std::string>>& one, F take, RemoteResult& failure) {
    if (!connect(failure) || !send(one[0], failure)) {
      return false;
    }
    ++m_requests;
    redisReply* reply = ok_reply(failure);
    if (reply == nullptr) {
      return false;
    }
    take(reply);
    return true;
  }

  // Commands sent k_redis_chunk at a time, then their replies read (one round trip per chunk).
  template <class F>
  std::vector<RemoteResult> pipeline(const std::vector<std::vector<std::string>>& cmds, F read) {
    std::vector<RemoteResult> out(cmds.size());
    for (size_t start = 0; start < cmds.size(); start += k_redis_chunk) {
      size_t end = std::min(cmds.size(), start + k_redis_chunk);
      RemoteResult failure;
      if (breaker().is_open()) {
        mark(out, start, end, RemoteError::skipped, "");
        continue;
      }
      if (!connect(failure)) {
        mark(out, start, end, failure.error, failure.detail);
        continue;
      }
      size_t sent = start;
      for (; sent < end; ++sent) {
        if (!send(cmds[sent], failure)) {
          break;
        }
      }
      if (sent < end) {
        mark(out, start, end, failure.error, failure.detail);
        continue;
      }
      ++m_requests;
      for (size_t i = start; i < end; ++i) {
        redisReply* reply = next_reply(failure);
        if (reply == nullptr) {
          mark(out, i, end, failure.error, failure.detail);
          break;
        }
        if (reply->type == REDIS_REPLY_ERROR) {
          out[i] = reply_error(reply);
        } else {
          read(reply, out[i]);
        }
        breaker().note(out[i].error);
        freeReplyObject(reply);
      }
    }
    return out;
  }

  RemoteSpec m_spec;
  int m_db = 0;
  redisContext* m_ctx = nullptr;
};

}  // namespace

std::unique_ptr<RemoteBackend> make_redis_remote(const RemoteSpec& spec) {
  return std::make_unique<RedisRemote>(spec);
}

}  // namespace qd::store
