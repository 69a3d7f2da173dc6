#include "store/remote_http.hpp"

#include <cstdlib>
#include <deque>
#include <mutex>

#include <curl/curl.h>

#include "store/remote_config.hpp"

namespace qd::store {

namespace {

constexpr size_t k_max_body = k_max_remote_object;  // a body over 1 GiB is not ours: corrupt

struct Request {
  const char* method = "GET";  // GET, PUT, HEAD
  std::string url;
  const std::string* upload = nullptr;
  RemoteResult* result = nullptr;
  CURL* easy = nullptr;
  bool too_large = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* req = static_cast<Request*>(user);
  size_t bytes = size * n;
  if (req->result->body.size() + bytes > k_max_body) {
    req->too_large = true;
    return 0;  // aborts the transfer
  }
  req->result->body.append(data, bytes);
  return bytes;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

class HttpRemote : public RemoteBackend {
public:
  explicit HttpRemote(const RemoteSpec& spec) : m_spec(spec) {
    global_init();
    m_multi = curl_multi_init();
    curl_multi_setopt(m_multi, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(spec.parallel));
    m_base = spec.scheme + "://" + spec.host + (spec.port ? ":" + std::to_string(spec.port) : "") +
             spec.path;
    m_headers = curl_slist_append(nullptr, "Expect:");  // no 100-continue round trip on PUT
  }
  ~HttpRemote() override {
    for (CURL* e : m_idle) {
      curl_easy_cleanup(e);
    }
    curl_multi_cleanup(m_multi);
    curl_slist_free_all(m_headers);
  }

  std::string describe() const override { return m_spec.display(); }
  bool raw_objects() const override { return m_spec.layout == RemoteLayout::bazel; }

  std::vector<RemoteResult> get_many(RemoteKind kind,
                                     const std::vector<std::string>& keys) override {
    return run("GET", kind, keys, nullptr);
  }
  std::vector<RemoteResult> has_many(RemoteKind kind,
                                     const std::vector<std::string>& keys) override {
    return run("HEAD", kind, keys, nullptr);
  }
  std::vector<RemoteResult> put_many(const std::vector<RemoteItem>& items) override {
    std::vector<RemoteResult> out(items.size());
    std::vector<Request> reqs(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      reqs[i].method = "PUT";
      reqs[i].url = url_of(items[i].kind, items[i].key);
      reqs[i].upload = &items[i].body;
      reqs[i].result = &out[i];
    }
    perform(reqs);
    return out;
  }

private:
  std::string url_of(RemoteKind kind, const std::string& key) const {
    bool bazel = m_spec.layout == RemoteLayout::bazel;
    const char* dir =
        kind == RemoteKind::object ? (bazel ? "/cas/" : "/objects/") : (bazel ? "/ac/" : "/tasks/");
    return m_base + dir + key;
  }

  std::vector<RemoteResult> run(const char* method, RemoteKind kind,
                                const std::vector<std::string>& keys, const std::string*) {
    std::vector<RemoteResult> out(keys.size());
    std::vector<Request> reqs(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      reqs[i].method = method;
      reqs[i].url = url_of(kind, keys[i]);
      reqs[i].result = &out[i];
    }
    perform(reqs);
    return out;
  }

  CURL* take_easy() {
    if (!m_idle.empty()) {
      CURL* e = m_idle.front();
      m_idle.pop_front();
      curl_easy_reset(e);
      return e;
    }
    return curl_easy_init();
  }

  void setup(Request& r) {
    CURL* e = take_easy();
    r.easy = e;
    curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
    curl_easy_setopt(e, CURLOPT_PRIVATE, &r);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(m_spec.connect_timeout_ms));
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(m_spec.timeout_ms));
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, m_headers);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    if (!m_spec.user.empty() || !m_spec.password.empty()) {
      curl_easy_setopt(e, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
      curl_easy_setopt(e, CURLOPT_USERNAME, m_spec.user.c_str());
      curl_easy_setopt(e, CURLOPT_PASSWORD, m_spec.password.c_str());
    } else {
      curl_easy_setopt(e, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
      if (const char* netrc = std::getenv("NETRC"); netrc != nullptr && *netrc != '\0') {
        curl_easy_setopt(e, CURLOPT_NETRC_FILE, netrc);
      }
    }
    if (std::string(r.method) == "HEAD") {
      curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (std::string(r.method) == "PUT") {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PUT");
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.upload->data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.upload->size()));
    }
    curl_multi_add_handle(m_multi, e);
    ++m_requests;
  }

  void finish(Request& r, CURLcode code) {
    RemoteResult& res = *r.result;
    long status = 0;
    curl_easy_getinfo(r.easy, CURLINFO_RESPONSE_CODE, &status);
    if (code == CURLE_OK) {
      if (status >= 200 && status < 300) {
        res.error = RemoteError::ok;
      } else if (status == 404) {
        res.error = RemoteError::not_found;
      } else if (status == 401 || status == 403) {
        res.error = RemoteError::auth;
        res.detail = "HTTP " + std::to_string(status);
      } else {
        res.error = RemoteError::http_status;
        res.detail = "HTTP " + std::to_string(status);
      }
    } else if (r.too_large) {
      res.error = RemoteError::corrupt;
      res.detail = "body too large";
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
      res.error = RemoteError::timeout;
      res.detail = curl_easy_strerror(code);
    } else if (code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST) {
      res.error = RemoteError::connect;
      res.detail = curl_easy_strerror(code);
    } else {
      // A body shorter than its Content-Length, a reset connection: never a value.
      res.error = RemoteError::protocol;
      res.detail = curl_easy_strerror(code);
    }
    if (res.error != RemoteError::ok) {
      res.body.clear();
    }
    breaker().note(res.error);
    curl_multi_remove_handle(m_multi, r.easy);
    m_idle.push_back(r.easy);
    r.easy = nullptr;
  }

  void perform(std::vector<Request>& reqs) {
    size_t next = 0;
    size_t running_count = 0;
    auto fill = [&] {
      while (next < reqs.size() && running_count < static_cast<size_t>(m_spec.parallel)) {
        if (breaker().is_open()) {
          reqs[next].result->error = RemoteError::skipped;
          ++next;
          continue;
        }
        setup(reqs[next++]);
        ++running_count;
      }
    };
    fill();
    while (running_count > 0) {
      int still = 0;
      curl_multi_perform(m_multi, &still);
      int queued = 0;
      while (CURLMsg* msg = curl_multi_info_read(m_multi, &queued)) {
        if (msg->msg != CURLMSG_DONE) {
          continue;
        }
        Request* r = nullptr;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &r);
        finish(*r, msg->data.result);
        --running_count;
      }
      fill();
      if (running_count > 0) {
        curl_multi_poll(m_multi, nullptr, 0, 100, nullptr);
      }
    }
  }

  RemoteSpec m_spec;
  std::string m_base;
  CURLM* m_multi = nullptr;
  curl_slist* m_headers = nullptr;
  std::deque<CURL*> m_idle;
};

}  // namespace

std::unique_ptr<RemoteBackend> make_http_remote(const RemoteSpec& spec) {
  return std::make_unique<HttpRemote>(spec);
}

}  // namespace qd::store
