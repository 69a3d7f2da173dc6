// Which remote execution server a build uses, and how (docs/remote-exec.md "Configuration"):
//
//   [tool.qdbuild.remote-execution]      (pyproject.toml; qdbuild.toml: [remote-execution])
//   url = "grpc://buildgrid:50051"       # grpc:// or grpcs://host:port[/instance]
//   max-in-flight = 32                   # actions in flight at most (fewer if the server
//                                        # says RESOURCE_EXHAUSTED)
//   queue-timeout = 30000                # ms: no action of a toolchain started -> local
//   action-timeout = 600000              # ms: one action, submission to result
//   timeout = 30000                      # ms: one CAS or capabilities call
//
// Environment (wins over the file): QDBUILD_REMOTE_EXECUTION (the URL; set and empty: none),
// QDBUILD_REMOTE_EXECUTION_TOKEN (a bearer token) or QDBUILD_REMOTE_EXECUTION_TOKEN_FILE (a file
// holding it), QDBUILD_REMOTE_EXECUTION_CA (a PEM file of the roots to trust for grpcs://).
// Credentials never come from the file. Needs no gRPC: a qdbuild built without it still reads
// and checks the settings (and says it cannot use them).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace qd::remote_exec {

// The table as written (sema/build_config.hpp reads it).
struct ExecFileSettings {
  std::string url;
  std::optional<int64_t> max_in_flight;
  std::optional<int64_t> queue_timeout_ms;
  std::optional<int64_t> action_timeout_ms;
  std::optional<int64_t> timeout_ms;
};

struct ExecSettings {
  std::string url;     // grpc://host:port[/instance] or grpcs://...
  std::string token;   // bearer token
  std::string ca_pem;  // grpcs: roots to trust (PEM text)
  int64_t max_in_flight = 32;
  int64_t queue_timeout_ms = 30000;
  int64_t action_timeout_ms = 600000;
  int64_t timeout_ms = 30000;
  int audit = 0;  // --audit N: results recompiled locally and compared
};

using GetEnv = std::function<const char*(const char*)>;

// The settings a build uses: false with `error` for a bad URL, number or credential file;
// `enabled` false (and true returned) when no server is configured.
bool resolve_exec_settings(const ExecFileSettings& file, const GetEnv& env, ExecSettings& out,
                           bool& enabled, std::string& error);

// The token and CA roots from the environment (the worker reads them too).
bool read_exec_credentials(const GetEnv& env, std::string& token, std::string& ca_pem,
                           std::string& error);

}  // namespace qd::remote_exec
