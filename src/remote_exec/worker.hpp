// `qdbuild worker`: a bot of a Remote Workers API server (BuildGrid's Bots service; docs/
// remote-exec.md "Workers"). It holds one bot session, advertises the toolchains it compiles for
// as the `qdbuild-toolchain` platform property, takes up to `capacity` leases at once and
// compiles each in this process with the backend a local build uses (LLVM loaded once). It runs
// only the one action of compile_action.hpp: any other command, toolchain or prelude is refused
// before anything runs, and it reads nothing but the action's inputs from the CAS.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "remote_exec/cas_client.hpp"

namespace qd::remote_exec {

struct WorkerOptions {
  Endpoint endpoint;   // the server (its Bots and CAS services), with the token
  std::string bot_id;  // unique per worker: the name results carry (ExecutedActionMetadata)
  unsigned capacity = 1;
  // Stops the worker gracefully when set: no new leases (BOT_TERMINATING), the running ones
  // finished and reported.
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const std::string&)> log;  // one line per event
};

// Runs until `stop` (exit 0) or a failure that retrying cannot mend (the server refuses the
// credentials: exit 1). A server that is down or restarts is waited for, with backoff.
int run_worker(const WorkerOptions& options);

}  // namespace qd::remote_exec
