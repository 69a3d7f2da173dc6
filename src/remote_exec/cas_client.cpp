#include "remote_exec/cas_client.hpp"

#include "remote_exec/channel.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>

#include <grpcpp/grpcpp.h>

#include "build/bazel/remote/execution/v2/remote_execution.grpc.pb.h"
#include "google/bytestream/bytestream.grpc.pb.h"

namespace qd::remote_exec {

namespace re = build::bazel::remote::execution::v2;

namespace {

constexpr size_t k_max_batch_digests = 500;
// Without a server limit, or above it: gRPC's default message limit is 4 MiB.
constexpr int64_t k_default_batch_bytes = 4 * 1024 * 1024;
// Room for the request's own fields (digests, framing) in a batch.
constexpr int64_t k_batch_overhead = 64 * 1024;
// A ByteStream message's payload (blobs over a batch go through ByteStream in chunks of this).
constexpr int64_t k_stream_chunk = 1024 * 1024;

re::Digest to_proto(const Digest& d) {
  re::Digest out;
  out.set_hash(d.hash);
  out.set_size_bytes(d.size);
  return out;
}

Digest from_proto(const re::Digest& d) { return {d.hash(), d.size_bytes()}; }

}  // namespace

struct CasClient::Impl {
  Endpoint endpoint;
  std::chrono::milliseconds timeout;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<re::ContentAddressableStorage::Stub> cas;
  std::unique_ptr<re::Capabilities::Stub> caps;
  std::unique_ptr<google::bytestream::ByteStream::Stub> bytestream;
  int64_t budget = 0;  // 0: not asked yet

  void deadline(grpc::ClientContext& ctx) const { prepare_call(ctx, endpoint, timeout); }
};

CasClient::CasClient(const Endpoint& endpoint, std::chrono::milliseconds timeout)
    : CasClient(endpoint, timeout, open_channel(endpoint)) {}

CasClient::CasClient(const Endpoint& endpoint, std::chrono::milliseconds timeout,
                     std::shared_ptr<grpc::Channel> channel)
    : m_impl(std::make_unique<Impl>()) {
  m_impl->endpoint = endpoint;
  m_impl->timeout = timeout;
  m_impl->channel = std::move(channel);
  m_impl->cas = re::ContentAddressableStorage::NewStub(m_impl->channel);
  m_impl->caps = re::Capabilities::NewStub(m_impl->channel);
  m_impl->bytestream = google::bytestream::ByteStream::NewStub(m_impl->channel);
}

CasClient::~CasClient() = default;

bool CasClient::capabilities(Capabilities& out, std::string& error) {
  grpc::ClientContext ctx;
  m_impl->deadline(ctx);
  re::GetCapabilitiesRequest req;
  req.set_instance_name(m_impl->endpoint.instance);
  re::ServerCapabilities caps;
  grpc::Status s = m_impl->caps->GetCapabilities(&ctx, req, &caps);
  if (!s.ok()) {
    error = "GetCapabilities from " + m_impl->endpoint.target + ": " + status_text(s);
    return false;
  }
  out = Capabilities();
  const re::CacheCapabilities& cc = caps.cache_capabilities();
  out.sha256 = std::find(cc.digest_functions().begin(), cc.digest_functions().end(),
                         re::DigestFunction::SHA256) != cc.digest_functions().end();
  out.max_batch_bytes = cc.max_batch_total_size_bytes();
  out.exec_enabled = caps.execution_capabilities().exec_enabled();
  out.api_version = std::to_string(caps.high_api_version().major()) + "." +
                    std::to_string(caps.high_api_version().minor());
  return true;
}

int64_t CasClient::batch_budget() {
  if (m_impl->budget == 0) {
    Capabilities c;
    std::string error;
    int64_t limit = k_default_batch_bytes;
    if (capabilities(c, error) && c.max_batch_bytes > 0) {
      limit = std::min(limit, c.max_batch_bytes);
    }
    m_impl->budget = std::max<int64_t>(limit - k_batch_overhead, 1);
  }
  return m_impl->budget;
}

bool CasClient::find_missing(const std::vector<Digest>& wanted, std::vector<Digest>& missing,
                             std::string& error) {
  missing.clear();
  for (size_t start = 0; start < wanted.size(); start += k_max_batch_digests) {
    size_t end = std::min(wanted.size(), start + k_max_batch_digests);
    grpc::ClientContext ctx;
    m_impl->deadline(ctx);
    re::FindMissingBlobsRequest req;
    req.set_instance_name(m_impl->endpoint.instance);
    req.set_digest_function(re::DigestFunction::SHA256);
    for (size_t i = start; i < end; ++i) {
      *req.add_blob_digests() = to_proto(wanted[i]);
    }
    re::FindMissingBlobsResponse resp;
    grpc::Status s = m_impl->cas->FindMissingBlobs(&ctx, req, &resp);
    if (!s.ok()) {
      error = "FindMissingBlobs: " + status_text(s);
      return false;
    }
    std::map<Digest, int> absent;
    for (const re::Digest& d : resp.missing_blob_digests()) {
      ++absent[from_proto(d)];
    }
    for (size_t i = start; i < end; ++i) {
      if (absent.count(wanted[i]) != 0) {
        missing.push_back(wanted[i]);
      }
    }
  }
  return true;
}

bool CasClient::upload(const std::vector<std::string>& blobs, std::string& error) {
  int64_t budget = batch_budget();
  std::vector<size_t> small;
  for (size_t i = 0; i < blobs.size(); ++i) {
    if (static_cast<int64_t>(blobs[i].size()) > budget) {
      if (!stream_write(blobs[i], error)) {
        return false;
      }
    } else {
      small.push_back(i);
    }
  }
  size_t next = 0;
  while (next < small.size()) {
    re::BatchUpdateBlobsRequest req;
    req.set_instance_name(m_impl->endpoint.instance);
    req.set_digest_function(re::DigestFunction::SHA256);
    int64_t bytes = 0;
    while (next < small.size() && static_cast<size_t>(req.requests_size()) < k_max_batch_digests) {
      const std::string& blob = blobs[small[next]];
      int64_t size = static_cast<int64_t>(blob.size());
      if (bytes + size > budget && req.requests_size() > 0) {
        break;
      }
      re::BatchUpdateBlobsRequest::Request* r = req.add_requests();
      *r->mutable_digest() = to_proto(digest_of(blob));
      r->set_data(blob);
      bytes += size;
      ++next;
    }
    grpc::ClientContext ctx;
    m_impl->deadline(ctx);
    re::BatchUpdateBlobsResponse resp;
    grpc::Status s = m_impl->cas->BatchUpdateBlobs(&ctx, req, &resp);
    if (!s.ok()) {
      error = "BatchUpdateBlobs: " + status_text(s);
      return false;
    }
    for (const auto& r : resp.responses()) {
      if (r.status().code() != 0) {
        error = "BatchUpdateBlobs: " + from_proto(r.digest()).text() + ": status " +
                std::to_string(r.status().code()) + " " + r.status().message();
        return false;
      }
    }
  }
  return true;
}

bool CasClient::read(const std::vector<Digest>& digests, std::vector<std::string>& out,
                     std::string& error) {
  out.assign(digests.size(), std::string());
  int64_t budget = batch_budget();
  std::vector<size_t> small;
  for (size_t i = 0; i < digests.size(); ++i) {
    if (digests[i].size > budget) {
      if (!stream_read(digests[i], out[i], error)) {
        return false;
      }
    } else {
      small.push_back(i);
    }
  }
  size_t next = 0;
  while (next < small.size()) {
    re::BatchReadBlobsRequest req;
    req.set_instance_name(m_impl->endpoint.instance);
    req.set_digest_function(re::DigestFunction::SHA256);
    std::multimap<Digest, size_t> where;
    int64_t bytes = 0;
    while (next < small.size() && static_cast<size_t>(req.digests_size()) < k_max_batch_digests) {
      const Digest& d = digests[small[next]];
      if (bytes + d.size > budget && req.digests_size() > 0) {
        break;
      }
      *req.add_digests() = to_proto(d);
      where.emplace(d, small[next]);
      bytes += d.size;
      ++next;
    }
    grpc::ClientContext ctx;
    m_impl->deadline(ctx);
    re::BatchReadBlobsResponse resp;
    grpc::Status s = m_impl->cas->BatchReadBlobs(&ctx, req, &resp);
    if (!s.ok()) {
      error = "BatchReadBlobs: " + status_text(s);
      return false;
    }
    for (const auto& r : resp.responses()) {
      Digest d = from_proto(r.digest());
      auto it = where.find(d);
      if (it == where.end()) {
        error = "BatchReadBlobs: the server answered for " + d.text() + ", which was not asked";
        return false;
      }
      if (r.status().code() != 0) {
        error = "BatchReadBlobs: " + d.text() + ": status " + std::to_string(r.status().code()) +
                (r.status().message().empty() ? "" : " " + r.status().message());
        return false;
      }
      if (digest_of(r.data()) != d) {
        error = "BatchReadBlobs: the bytes the server returned for " + d.text() +
                " have another digest (" + digest_of(r.data()).text() + ")";
        return false;
      }
      out[it->second] = r.data();
      where.erase(it);
    }
    if (!where.empty()) {
      error = "BatchReadBlobs: no answer for " + where.begin()->first.text();
      return false;
    }
  }
  return true;
}

std::string CasClient::resource_prefix() const {
  return m_impl->endpoint.instance.empty() ? "" : m_impl->endpoint.instance + "/";
}

bool CasClient::stream_write(const std::string& blob, std::string& error) {
  Digest d = digest_of(blob);
  std::random_device rd;
  char uuid[40];
  std::snprintf(uuid, sizeof uuid, "%08x-%04x-4%03x-a%03x-%08x%04x", rd(), rd() & 0xFFFF,
                rd() & 0xFFF, rd() & 0xFFF, rd(), rd() & 0xFFFF);
  std::string name =
      resource_prefix() + "uploads/" + uuid + "/blobs/" + d.hash + "/" + std::to_string(d.size);
  grpc::ClientContext ctx;
  m_impl->deadline(ctx);
  google::bytestream::WriteResponse resp;
  std::unique_ptr<grpc::ClientWriter<google::bytestream::WriteRequest>> writer =
      m_impl->bytestream->Write(&ctx, &resp);
  int64_t offset = 0;
  bool sent = true;
  do {
    google::bytestream::WriteRequest req;
    if (offset == 0) {
      req.set_resource_name(name);
    }
    int64_t n = std::min<int64_t>(k_stream_chunk, d.size - offset);
    req.set_write_offset(offset);
    req.set_data(blob.data() + offset, static_cast<size_t>(n));
    offset += n;
    req.set_finish_write(offset == d.size);
    sent = writer->Write(req);
  } while (sent && offset < d.size);
  writer->WritesDone();
  grpc::Status s = writer->Finish();
  if (!s.ok()) {
    error = "ByteStream.Write " + d.text() + ": " + status_text(s);
    return false;
  }
  if (resp.committed_size() != d.size) {
    error = "ByteStream.Write " + d.text() + ": the server committed " +
            std::to_string(resp.committed_size()) + " bytes";
    return false;
  }
  return true;
}

bool CasClient::stream_read(const Digest& d, std::string& out, std::string& error) {
  grpc::ClientContext ctx;
  m_impl->deadline(ctx);
  google::bytestream::ReadRequest req;
  req.set_resource_name(resource_prefix() + "blobs/" + d.hash + "/" + std::to_string(d.size));
  std::unique_ptr<grpc::ClientReader<google::bytestream::ReadResponse>> reader =
      m_impl->bytestream->Read(&ctx, req);
  out.clear();
  // (A digest may come from a server: reserve no more than a chunk or so on its word.)
  out.reserve(static_cast<size_t>(std::min<int64_t>(d.size, 16 * k_stream_chunk)));
  google::bytestream::ReadResponse chunk;
  while (reader->Read(&chunk)) {
    if (static_cast<int64_t>(out.size() + chunk.data().size()) > d.size) {
      ctx.TryCancel();
      reader->Finish();
      error = "ByteStream.Read " + d.text() + ": the server sent more bytes than the blob has";
      return false;
    }
    out += chunk.data();
  }
  grpc::Status s = reader->Finish();
  if (!s.ok()) {
    error = "ByteStream.Read " + d.text() + ": " + status_text(s);
    return false;
  }
  if (digest_of(out) != d) {
    error = "ByteStream.Read: the bytes the server returned for " + d.text() +
            " have another digest (" + digest_of(out).text() + ")";
    return false;
  }
  return true;
}

}  // namespace qd::remote_exec
