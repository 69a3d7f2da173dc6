// The Redis remote (hiredis), as ccache and sccache offer: one connection, batches as one MGET
// per k_redis_chunk keys (gets), EXISTS and SET pipelined (one round trip per chunk).
//
//   qdbuild:obj:<object-hex>   the object file (header + zstd payload)
//   qdbuild:task:<task-key>    the task record
//
// The database is the URL's path (redis://host:6379/2); QDBUILD_REMOTE_PASSWORD (and _USER, for
// Redis 6 ACLs) are sent with AUTH. Keys never expire from qdbuild's side: configure the server
// with maxmemory and an LRU policy (docs/remote.md).
#pragma once

#include <memory>

#include "store/remote.hpp"

namespace qd::store {

struct RemoteSpec;  // store/remote_config.hpp

std::unique_ptr<RemoteBackend> make_redis_remote(const RemoteSpec& spec);

}  // namespace qd::store
