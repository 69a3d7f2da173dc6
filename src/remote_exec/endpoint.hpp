// Where a Remote Execution API server is, and how to talk to it:
//
//   grpc://host:port[/instance]    plain HTTP/2 (tests, a trusted network)
//   grpcs://host:port[/instance]   TLS (the system's roots, or the CA bundle given)
#pragma once

#include <string>

namespace qd::remote_exec {

struct Endpoint {
  std::string target;    // host:port
  std::string instance;  // the REAPI instance name ("" by default)
  bool tls = false;
  std::string token;   // sent as "authorization: Bearer TOKEN" when set
  std::string ca_pem;  // grpcs: the roots to trust (PEM); empty: the system's
};
// False, with `error`, for anything but grpc:// or grpcs:// with a host and a port.
bool parse_endpoint(const std::string& url, Endpoint& out, std::string& error);

}  // namespace qd::remote_exec
