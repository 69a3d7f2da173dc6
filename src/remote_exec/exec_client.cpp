#include "remote_exec/exec_client.hpp"

#include <map>

#include "build/bazel/remote/execution/v2/remote_execution.grpc.pb.h"
#include "google/longrunning/operations.grpc.pb.h"
#include "remote_exec/channel.hpp"

namespace qd::remote_exec {

namespace re = build::bazel::remote::execution::v2;

namespace {

// Times a broken operation stream is resumed with WaitExecution before the action is given up.
constexpr int k_stream_resumes = 3;
// The longest stderr of a failed action read back for the message.
constexpr int64_t k_max_stderr = 64 * 1024;

}  // namespace

void ExecCall::attach(grpc::ClientContext* ctx) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_ctx = ctx;
  if (m_ctx != nullptr && m_cancelled) {
    m_ctx->TryCancel();
  }
}

void ExecCall::cancel() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_cancelled = true;
  if (m_ctx != nullptr) {
    m_ctx->TryCancel();
  }
}

struct ExecClient::Impl {
  Endpoint endpoint;
  std::chrono::milliseconds call_timeout;
  std::chrono::milliseconds action_timeout;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<re::Execution::Stub> exec;
  std::unique_ptr<google::longrunning::Operations::Stub> operations;
  std::unique_ptr<CasClient> cas;
  // CasClient's calls are independent once its batch budget is known (check_server asks for it
  // first); uploads are serialised, reads are not.
  std::mutex cas_mutex;

  ExecOutcome interpret(const google::longrunning::Operation& op);
  // Closing an Execute stream leaves the job on the server (queued, or running on a worker):
  // an abandoned action is cancelled there too, best effort (a server without the Operations
  // service, or one that refuses, keeps it: it then lands in the action cache).
  void cancel_operation(const std::string& name);
};

ExecClient::ExecClient(const Endpoint& endpoint, std::chrono::milliseconds call_timeout,
                       std::chrono::milliseconds action_timeout)
    : m_impl(std::make_unique<Impl>()) {
  m_impl->endpoint = endpoint;
  m_impl->call_timeout = call_timeout;
  m_impl->action_timeout = action_timeout;
  m_impl->channel = open_channel(endpoint);
  m_impl->exec = re::Execution::NewStub(m_impl->channel);
  m_impl->operations = google::longrunning::Operations::NewStub(m_impl->channel);
  m_impl->cas = std::make_unique<CasClient>(endpoint, call_timeout, m_impl->channel);
}

ExecClient::~ExecClient() = default;

const Endpoint& ExecClient::endpoint() const { return m_impl->endpoint; }

bool ExecClient::check_server(std::string& error, bool& transport) {
  Capabilities caps;
  transport = false;
  std::lock_guard<std::mutex> lock(m_impl->cas_mutex);
  if (!m_impl->cas->capabilities(caps, error)) {
    // UNAUTHENTICATED / PERMISSION_DENIED are answers, not transport failures.
    transport = error.find("UNAUTHENTICATED") == std::string::npos &&
                error.find("PERMISSION_DENIED") == std::string::npos;
    return false;
  }
  if (!caps.exec_enabled) {
    error = m_impl->endpoint.target + " does not execute actions (its capabilities say so)";
    return false;
  }
  if (!caps.sha256) {
    error = m_impl->endpoint.target + " does not take SHA-256 digests";
    return false;
  }
  m_impl->cas->batch_budget();
  return true;
}

bool ExecClient::upload(const std::vector<const ActionBlobs*>& actions, std::string& error) {
  std::map<Digest, const std::string*> all;
  for (const ActionBlobs* a : actions) {
    for (const auto& [d, bytes] : a->blobs) {
      all.emplace(d, &bytes);
    }
  }
  std::vector<Digest> wanted;
  wanted.reserve(all.size());
  for (const auto& [d, bytes] : all) {
    wanted.push_back(d);
  }
  std::vector<Digest> missing;
  std::lock_guard<std::mutex> lock(m_impl->cas_mutex);
  if (!m_impl->cas->find_missing(wanted, missing, error)) {
    return false;
  }
  std::vector<std::string> blobs;
  blobs.reserve(missing.size());
  for (const Digest& d : missing) {
    blobs.push_back(*all.at(d));
  }
  return m_impl->cas->upload(blobs, error);
}

void ExecClient::Impl::cancel_operation(const std::string& name) {
  grpc::ClientContext ctx;
  prepare_call(ctx, endpoint, std::chrono::milliseconds(2000));
  google::longrunning::CancelOperationRequest req;
  req.set_name(name);
  google::protobuf::Empty empty;
  (void)operations->CancelOperation(&ctx, req, &empty);
}

ExecOutcome ExecClient::Impl::interpret(const google::longrunning::Operation& op) {
  ExecOutcome out;
  if (op.has_error()) {
    out.kind = op.error().code() == static_cast<int>(grpc::StatusCode::UNAVAILABLE)
                   ? ExecOutcome::Kind::transport
                   : ExecOutcome::Kind::failed;
    out.error = "the operation failed with status " + std::to_string(op.error().code()) + ": " +
                op.error().message();
    return out;
  }
  re::ExecuteResponse resp;
  if (!op.response().UnpackTo(&resp)) {
    out.error = "the operation's response is not an ExecuteResponse";
    return out;
  }
  if (resp.status().code() != 0) {
    out.error = "status " + std::to_string(resp.status().code()) + ": " + resp.status().message();
    return out;
  }
  const re::ActionResult& result = resp.result();
  out.cached = resp.cached_result();
  out.worker = result.execution_metadata().worker();
  if (result.exit_code() != 0) {
    std::string stderr_text = result.stderr_raw();
    if (stderr_text.empty() && result.has_stderr_digest() &&
        result.stderr_digest().size_bytes() <= k_max_stderr) {
      std::vector<std::string> got;
      std::string ignored;
      if (cas->read({{result.stderr_digest().hash(), result.stderr_digest().size_bytes()}}, got,
                    ignored)) {
        stderr_text = got[0];
      }
    }
    out.error = "the compile exited with " + std::to_string(result.exit_code()) +
                (out.worker.empty() ? "" : " on " + out.worker) +
                (stderr_text.empty() ? "" : ": " + stderr_text);
    return out;
  }
  const re::OutputFile* file = nullptr;
  for (const re::OutputFile& f : result.output_files()) {
    if (f.path() == k_output_file) {
      file = &f;
    }
  }
  if (file == nullptr) {
    out.error = "the action's result has no " + std::string(k_output_file);
    return out;
  }
  std::vector<std::string> got;
  if (!cas->read({{file->digest().hash(), file->digest().size_bytes()}}, got, out.error)) {
    out.kind = ExecOutcome::Kind::transport;
    return out;
  }
  out.output = std::move(got[0]);
  out.kind = ExecOutcome::Kind::ok;
  return out;
}

ExecOutcome ExecClient::execute(const Digest& action, ExecCall& call) {
  Impl& m = *m_impl;
  auto deadline = std::chrono::system_clock::now() + m.action_timeout;
  std::string operation;
  ExecOutcome out;
  for (int attempt = 0; attempt <= k_stream_resumes; ++attempt) {
    grpc::ClientContext ctx;
    prepare_call(ctx, m.endpoint, m.action_timeout);
    ctx.set_deadline(deadline);
    std::unique_ptr<grpc::ClientReader<google::longrunning::Operation>> reader;
    if (operation.empty()) {
      re::ExecuteRequest req;
      req.set_instance_name(m.endpoint.instance);
      req.mutable_action_digest()->set_hash(action.hash);
      req.mutable_action_digest()->set_size_bytes(action.size);
      req.set_digest_function(re::DigestFunction::SHA256);
      reader = m.exec->Execute(&ctx, req);
    } else {
      re::WaitExecutionRequest req;
      req.set_name(operation);
      reader = m.exec->WaitExecution(&ctx, req);
    }
    call.attach(&ctx);
    google::longrunning::Operation op;
    bool done = false;
    while (reader->Read(&op)) {
      operation = op.name();
      re::ExecuteOperationMetadata md;
      if (op.metadata().UnpackTo(&md)) {
        if (md.stage() == re::ExecutionStage::EXECUTING) {
          call.set_stage(ExecCall::Stage::executing);
        } else if (md.stage() == re::ExecutionStage::QUEUED ||
                   md.stage() == re::ExecutionStage::CACHE_CHECK) {
          call.set_stage(ExecCall::Stage::queued);
        }
      }
      if (op.done()) {
        done = true;
        break;
      }
    }
    if (done) {
      ctx.TryCancel();  // the stream's end is of no further interest
    }
    grpc::Status s = reader->Finish();
    call.attach(nullptr);
    if (done) {
      call.set_stage(ExecCall::Stage::done);
      return m.interpret(op);
    }
    {
      std::lock_guard<std::mutex> lock(call.m_mutex);
      if (call.m_cancelled) {
        out.kind = ExecOutcome::Kind::cancelled;
        out.error = "cancelled";
      }
    }
    if (out.kind == ExecOutcome::Kind::cancelled) {
      if (!operation.empty()) {
        m.cancel_operation(operation);
      }
      return out;
    }
    out.error = "Execute: " +
                (s.ok() ? std::string("the stream ended before the action did") : status_text(s));
    if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      out.kind = ExecOutcome::Kind::failed;
      out.error = "the action did not finish within the action timeout";
      return out;
    }
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED && operation.empty()) {
      out.kind = ExecOutcome::Kind::busy;
      return out;
    }
    bool resumable =
        !operation.empty() && (s.ok() || s.error_code() == grpc::StatusCode::UNAVAILABLE);
    if (!resumable) {
      out.kind = is_transport_failure(s) ? ExecOutcome::Kind::transport : ExecOutcome::Kind::failed;
      return out;
    }
  }
  out.kind = ExecOutcome::Kind::transport;
  return out;
}

}  // namespace qd::remote_exec
