// One gRPC channel to a Remote Execution API server and what every call on it carries: the
// deadline, and the credentials (a bearer token in the `authorization` metadata, as BuildGrid,
// Buildbarn, NativeLink and BuildBuddy take it). Internal to src/remote_exec (includes gRPC).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "remote_exec/cas_client.hpp"

namespace qd::remote_exec {

// grpc:// insecure; grpcs:// TLS with the endpoint's CA bundle, else the system's roots.
std::shared_ptr<grpc::Channel> open_channel(const Endpoint& endpoint);

// Sets the call's deadline and credentials.
void prepare_call(grpc::ClientContext& ctx, const Endpoint& endpoint,
                  std::chrono::milliseconds timeout);

// "gRPC status 14 (UNAVAILABLE): message".
std::string status_text(const grpc::Status& s);

// Whether a failed call says the server (or the way to it) is unwell, not the request: the
// failures that count toward a circuit breaker.
bool is_transport_failure(const grpc::Status& s);

}  // namespace qd::remote_exec
