// The HTTP remote (libcurl): GET / PUT / HEAD on the layouts ccache's and Bazel's HTTP caches use
// (docs/remote.md "Servers"):
//
//   plain  (nginx with WebDAV `dav_methods PUT`, any server that stores what is PUT)
//          PREFIX/objects/<object-hex>   the object file (header + zstd payload)
//          PREFIX/tasks/<task-key>       the task record
//   bazel  (bazel-remote's REST layout; run it with --disable_http_ac_validation)
//          PREFIX/cas/<object-hex>       the uncompressed content (its SHA-256 is the address,
//                                        as bazel-remote checks)
//          PREFIX/ac/<task-key>          the task record's bytes (not an ActionResult protobuf)
//
// A batch runs as parallel requests on one curl multi handle (at most `parallel` at a time, over
// HTTP/1.1 keep-alive connections that stay open between batches).
#pragma once

#include <memory>
#include <string>

#include "store/remote.hpp"

namespace qd::store {

struct RemoteSpec;  // store/remote_config.hpp

std::unique_ptr<RemoteBackend> make_http_remote(const RemoteSpec& spec);

}  // namespace qd::store
