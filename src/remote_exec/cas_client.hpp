// A client of a Remote Execution API v2 server's Content Addressable Storage: what it holds
// (FindMissingBlobs), putting blobs (BatchUpdateBlobs) and getting them back
// (BatchReadBlobs), each batch within the server's limits (GetCapabilities: the total bytes of a
// batch; at most 500 digests); a blob larger than a batch goes through ByteStream Write / Read in
// chunks of 1 MiB. Every blob read back is verified against its digest: a server that
// returns other bytes is an error, never a result.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "remote_exec/digest.hpp"
#include "remote_exec/endpoint.hpp"

namespace grpc {
class Channel;
}

namespace qd::remote_exec {

struct Capabilities {
  bool sha256 = false;          // the server's CAS takes SHA-256 digests (the only ones we make)
  int64_t max_batch_bytes = 0;  // 0: the server sets none (we keep under 4 MiB anyway)
  bool exec_enabled = false;    // the server executes actions
  std::string api_version;      // "2.2" (the highest it speaks)
};

class CasClient {
public:
  // Connects lazily: the first call reaches the server. `timeout`: each call's deadline.
  CasClient(const Endpoint& endpoint, std::chrono::milliseconds timeout);
  // The same on a channel already open to the endpoint (shared with other services' stubs;
  // channel.hpp).
  CasClient(const Endpoint& endpoint, std::chrono::milliseconds timeout,
            std::shared_ptr<grpc::Channel> channel);
  ~CasClient();
  CasClient(const CasClient&) = delete;
  CasClient& operator=(const CasClient&) = delete;

  bool capabilities(Capabilities& out, std::string& error);
  // The digests of `wanted` the server lacks, in `wanted`'s order.
  bool find_missing(const std::vector<Digest>& wanted, std::vector<Digest>& missing,
                    std::string& error);
  // Puts every blob (as many batches as the limits need; larger ones by ByteStream).
  bool upload(const std::vector<std::string>& blobs, std::string& error);
  // The blobs of `digests`, in their order, each verified against its digest. A blob the server
  // does not have is an error naming it.
  bool read(const std::vector<Digest>& digests, std::vector<std::string>& out, std::string& error);

  // The byte budget of one batch: the server's limit less room for the request's framing.
  int64_t batch_budget();

private:
  std::string resource_prefix() const;  // "INSTANCE/" ("" for the default instance)
  bool stream_write(const std::string& blob, std::string& error);
  bool stream_read(const Digest& d, std::string& out, std::string& error);

  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace qd::remote_exec
