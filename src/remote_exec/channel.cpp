#include "remote_exec/channel.hpp"

namespace qd::remote_exec {

namespace {

constexpr int k_max_message_bytes = 16 * 1024 * 1024;

const char* code_name(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "?";
  }
}

}  // namespace

std::shared_ptr<grpc::Channel> open_channel(const Endpoint& endpoint) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(k_max_message_bytes);
  args.SetMaxSendMessageSize(k_max_message_bytes);
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (endpoint.tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = endpoint.ca_pem;  // empty: the system's roots
    creds = grpc::SslCredentials(ssl);
  } else {
    creds = grpc::InsecureChannelCredentials();
  }
  return grpc::CreateCustomChannel(endpoint.target, creds, args);
}

void prepare_call(grpc::ClientContext& ctx, const Endpoint& endpoint,
                  std::chrono::milliseconds timeout) {
  ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  if (!endpoint.token.empty()) {
    ctx.AddMetadata("authorization", "Bearer " + endpoint.token);
  }
}

std::string status_text(const grpc::Status& s) {
  return "gRPC status " + std::to_string(static_cast<int>(s.error_code())) + " (" +
         code_name(s.error_code()) + ")" +
         (s.error_message().empty() ? "" : ": " + s.error_message());
}

bool is_transport_failure(const grpc::Status& s) {
  switch (s.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return true;
    default: return false;
  }
}

}  // namespace qd::remote_exec
