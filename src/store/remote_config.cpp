#include "store/remote_config.hpp"

#include <charconv>
#include <sstream>

#include "store/remote_http.hpp"
#include "store/remote_redis.hpp"
#include "store/remote_signing.hpp"

namespace qd::store {

namespace {

bool parse_int(std::string_view text, int64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) {
      return out;
    }
    start = at + 1;
  }
}

// %XX decoding for user and password (a password may hold '@' or ':').
std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int v = 0;
      auto [end, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
      if (ec == std::errc() && end == s.data() + i + 3) {
        out += static_cast<char>(v);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

}  // namespace

std::string RemoteSpec::display() const {
  std::string s =
      (layout == RemoteLayout::bazel && scheme != "redis" ? "bazel+" : "") + scheme + "://" + host;
  if (port != 0) {
    s += ":" + std::to_string(port);
  }
  return s + path;
}

bool parse_remote_url(const std::string& text, bool from_file, RemoteSpec& out,
                      std::string& error) {
  std::vector<std::string> parts = split(text, '|');
  std::string url = parts[0];
  RemoteSpec spec;
  size_t colon = url.find("://");
  if (colon == std::string::npos) {
    error = "remote '" + url.substr(0, url.find('@') == std::string::npos ? url.size() : 0) +
            "' is not a URL (http://host:port/prefix, bazel+http://..., redis://host:port/db)";
    return false;
  }
  spec.scheme = url.substr(0, colon);
  if (spec.scheme.starts_with("bazel+")) {
    spec.scheme = spec.scheme.substr(6);
    spec.layout = RemoteLayout::bazel;
  }
  if (spec.scheme != "http" && spec.scheme != "https" && spec.scheme != "redis") {
    error = "remote URL scheme '" + spec.scheme +
            "' is not supported (http, https, bazel+http, bazel+https, redis)";
    return false;
  }
  std::string rest = url.substr(colon + 3);
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  spec.path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!spec.path.empty() && spec.path.back() == '/') {
    spec.path.pop_back();
  }
  size_t at = authority.rfind('@');
  if (at != std::string::npos) {
    if (from_file) {
      error = "credentials do not belong in a config file (remote '" + spec.scheme + "://" +
              authority.substr(at + 1) +
              "'): give them as QDBUILD_REMOTE_USER / QDBUILD_REMOTE_PASSWORD or in netrc";
      return false;
    }
    std::string info = authority.substr(0, at);
    authority = authority.substr(at + 1);
    size_t c = info.find(':');
    spec.user = percent_decode(info.substr(0, c));
    spec.password = c == std::string::npos ? "" : percent_decode(info.substr(c + 1));
  }
  size_t port_at = authority.rfind(':');
  if (port_at != std::string::npos && authority.find(']') == std::string::npos) {
    int64_t port = 0;
    if (!parse_int(authority.substr(port_at + 1), port) || port == 0 || port > 65535) {
      error = "remote '" + spec.scheme + "://" + authority + "' has a bad port";
      return false;
    }
    spec.port = static_cast<int>(port);
    authority = authority.substr(0, port_at);
  }
  spec.host = authority;
  if (spec.host.empty()) {
    error = "remote URL '" + spec.scheme + "://' names no host";
    return false;
  }
  if (spec.scheme == "redis") {
    int64_t db = 0;
    if (!spec.path.empty() && !parse_int(spec.path.substr(1), db)) {
      error = "redis remote '" + spec.display() + "': the path must be a database number";
      return false;
    }
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& a = parts[i];
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : a.substr(eq + 1);
    int64_t n = 0;
    if (name == "read-only" && eq == std::string::npos) {
      spec.read_only = true;
    } else if (name == "layout" && (value == "plain" || value == "bazel")) {
      spec.layout = value == "bazel" ? RemoteLayout::bazel : RemoteLayout::plain;
    } else if (name == "connect-timeout" && parse_int(value, n)) {
      spec.connect_timeout_ms = n;
    } else if (name == "timeout" && parse_int(value, n)) {
      spec.timeout_ms = n;
    } else if (name == "parallel" && parse_int(value, n) && n >= 1 && n <= 256) {
      spec.parallel = static_cast<int>(n);
    } else {
      error = "remote '" + spec.display() + "': unknown or malformed attribute '" + a +
              "' (read-only, layout=plain|bazel, connect-timeout=MS, timeout=MS, parallel=N)";
      return false;
    }
  }
  if (spec.scheme == "redis" && spec.layout == RemoteLayout::bazel) {
    error = "remote '" + spec.display() + "': layout=bazel is for HTTP remotes";
    return false;
  }
  out = std::move(spec);
  return true;
}

std::unique_ptr<RemoteSet> make_remote_set(const RemoteSettings& file, const GetEnv& env,
                                           RemoteSet::Warn warn, std::vector<std::string>& errors) {
  auto get = [&](const char* name) -> std::optional<std::string> {
    const char* v = env(name);
    if (v == nullptr) {
      return std::nullopt;
    }
    return std::string(v);
  };
  std::vector<std::pair<std::string, bool>> urls;  // (url, from the file)
  if (std::optional<std::string> e = get("QDBUILD_REMOTE")) {
    std::istringstream in(*e);
    std::string u;
    while (in >> u) {
      urls.emplace_back(u, false);
    }
  } else {
    for (const std::string& u : file.urls) {
      urls.emplace_back(u, true);
    }
  }
  std::optional<std::string> user = get("QDBUILD_REMOTE_USER");
  std::optional<std::string> password = get("QDBUILD_REMOTE_PASSWORD");
  std::optional<std::string> ro = get("QDBUILD_REMOTE_READ_ONLY");
  bool all_read_only = file.read_only.value_or(false) ||
                       (ro && !ro->empty() && *ro != "0" && *ro != "false" && *ro != "no");
  std::vector<RemoteEndpoint> remotes;
  for (const auto& [u, from_file] : urls) {
    RemoteSpec spec;
    std::string error;
    if (!parse_remote_url(u, from_file, spec, error)) {
      errors.push_back(error);
      continue;
    }
    if (file.connect_timeout_ms && u.find("|connect-timeout=") == std::string::npos) {
      spec.connect_timeout_ms = *file.connect_timeout_ms;
    }
    if (file.timeout_ms && u.find("|timeout=") == std::string::npos) {
      spec.timeout_ms = *file.timeout_ms;
    }
    if (spec.user.empty() && spec.password.empty()) {
      spec.user = user.value_or("");
      spec.password = password.value_or("");
    }
    RemoteEndpoint ep;
    ep.read_only = spec.read_only || all_read_only;
    ep.backend = spec.scheme == "redis" ? make_redis_remote(spec) : make_http_remote(spec);
    remotes.push_back(std::move(ep));
  }
  std::shared_ptr<const RecordSigner> signer;
  std::string error;
  if (std::optional<std::string> k = get("QDBUILD_REMOTE_HMAC_KEY"); k && !k->empty()) {
    signer = RecordSigner::hmac(*k);
  } else if (std::optional<std::string> k = get("QDBUILD_REMOTE_SIGNING_KEY"); k && !k->empty()) {
    signer = RecordSigner::ed25519(*k, true, error);
    if (!signer) {
      errors.push_back("QDBUILD_REMOTE_SIGNING_KEY: " + error);
    }
  } else {
    std::optional<std::string> v = get("QDBUILD_REMOTE_VERIFY_KEY");
    std::string key = v && !v->empty() ? *v : file.verify_key;
    if (!key.empty()) {
      signer = RecordSigner::ed25519(key, false, error);
      if (!signer) {
        errors.push_back(std::string(v && !v->empty() ? "QDBUILD_REMOTE_VERIFY_KEY"
                                                      : "remote "
                                                        "verify-key") +
                         ": " + error);
      }
    }
  }
  if (remotes.empty()) {
    return nullptr;
  }
  return std::make_unique<RemoteSet>(std::move(remotes), std::move(signer), std::move(warn));
}

}  // namespace qd::store
