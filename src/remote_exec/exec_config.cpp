#include "remote_exec/exec_config.hpp"

#include <fstream>
#include <iterator>

#include "remote_exec/endpoint.hpp"

namespace qd::remote_exec {

namespace {

bool read_text(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return false;
  }
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

}  // namespace

bool read_exec_credentials(const GetEnv& env, std::string& token, std::string& ca_pem,
                           std::string& error) {
  token.clear();
  ca_pem.clear();
  if (const char* t = env("QDBUILD_REMOTE_EXECUTION_TOKEN"); t != nullptr && *t != '\0') {
    token = trimmed(t);
  } else if (const char* f = env("QDBUILD_REMOTE_EXECUTION_TOKEN_FILE");
             f != nullptr && *f != '\0') {
    if (!read_text(f, token)) {
      error = "QDBUILD_REMOTE_EXECUTION_TOKEN_FILE: cannot read " + std::string(f);
      return false;
    }
    token = trimmed(token);
  }
  if (token.find_first_of("\r\n") != std::string::npos) {
    error = "the remote execution token holds a line break";
    return false;
  }
  if (const char* ca = env("QDBUILD_REMOTE_EXECUTION_CA"); ca != nullptr && *ca != '\0') {
    if (!read_text(ca, ca_pem)) {
      error = "QDBUILD_REMOTE_EXECUTION_CA: cannot read " + std::string(ca);
      return false;
    }
  }
  return true;
}

bool resolve_exec_settings(const ExecFileSettings& file, const GetEnv& env, ExecSettings& out,
                           bool& enabled, std::string& error) {
  out = ExecSettings{};
  out.url = file.url;
  if (const char* u = env("QDBUILD_REMOTE_EXECUTION"); u != nullptr) {
    out.url = u;  // set and empty: no remote execution
  }
  enabled = !out.url.empty();
  if (!enabled) {
    return true;
  }
  Endpoint ep;
  if (!parse_endpoint(out.url, ep, error)) {
    error = "remote execution: " + error;
    return false;
  }
  struct Limit {
    const char* key;
    const std::optional<int64_t>& value;
    int64_t& into;
  };
  for (const Limit& l : {Limit{"max-in-flight", file.max_in_flight, out.max_in_flight},
                         Limit{"queue-timeout", file.queue_timeout_ms, out.queue_timeout_ms},
                         Limit{"action-timeout", file.action_timeout_ms, out.action_timeout_ms},
                         Limit{"timeout", file.timeout_ms, out.timeout_ms}}) {
    if (l.value) {
      if (*l.value <= 0) {
        error = std::string("remote-execution '") + l.key + "' must be positive";
        return false;
      }
      l.into = *l.value;
    }
  }
  return read_exec_credentials(env, out.token, out.ca_pem, error);
}

}  // namespace qd::remote_exec
