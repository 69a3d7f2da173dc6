#include "remote_exec/endpoint.hpp"

namespace qd::remote_exec {

bool parse_endpoint(const std::string& url, Endpoint& out, std::string& error) {
  std::string rest;
  if (url.starts_with("grpc://")) {
    out.tls = false;
    rest = url.substr(7);
  } else if (url.starts_with("grpcs://")) {
    out.tls = true;
    rest = url.substr(8);
  } else {
    error = "'" + url + "' is not a grpc:// or grpcs:// address";
    return false;
  }
  size_t slash = rest.find('/');
  out.target = rest.substr(0, slash);
  out.instance = slash == std::string::npos ? "" : rest.substr(slash + 1);
  size_t colon = out.target.rfind(':');
  if (out.target.empty() || colon == std::string::npos || colon == 0 ||
      colon + 1 == out.target.size() ||
      out.target.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    error = "'" + url + "' names no host:port";
    return false;
  }
  return true;
}

}  // namespace qd::remote_exec
