// qdbuild worker --server grpc://HOST:PORT[/INSTANCE]: a remote execution worker, a bot of a
// BuildGrid server (src/remote_exec/worker.hpp, docs/remote-exec.md "Workers"). SIGINT or SIGTERM
// stops it gracefully (running compiles finish and are reported). Exit 0 when stopped, 1 when
// the server refuses its credentials or the backend cannot be loaded, 2 on a bad command line.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <thread>

#include <unistd.h>

#include "driver/command_line.hpp"
#include "driver/commands.hpp"
#include "remote_exec/exec_config.hpp"
#ifdef QD_HAVE_REMOTE_EXEC
#include "remote_exec/worker.hpp"
#endif

namespace qd::driver {

namespace {

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

}  // namespace

ExitStatus cmd_worker(int argc, char** argv) {
  CommandLine app(
      "A remote execution worker: compiles qdbuild's actions for a Remote Execution API\n"
      "server with the in-process backend of a local build (docs/remote-exec.md).\n"
      "Connects to a BuildGrid server as a bot. The token comes from\n"
      "$QDBUILD_REMOTE_EXECUTION_TOKEN, the TLS roots from $QDBUILD_REMOTE_EXECUTION_CA.",
      "qdbuild worker");
  std::string server;
  unsigned capacity = std::max(1u, std::thread::hardware_concurrency());
  std::string name;
  bool quiet = false;
  app.add_option("--server", server, "the server: grpc://HOST:PORT[/INSTANCE] or grpcs://...")
      .required();
  app.add_option("--capacity", capacity, "compiles at once (default: the machine's cores)")
      .range(1, 1024);
  app.add_option("--name", name, "the bot id results carry (default: HOSTNAME:PID)");
  app.add_flag("-q,--quiet", quiet, "print only errors, not one line per action");
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
  }
#ifndef QD_HAVE_REMOTE_EXEC
  std::fprintf(stderr, "qdbuild worker: error: this qdbuild was built without remote execution "
                       "(gRPC was not found)\n");
  return ExitStatus::internal;
#else
  remote_exec::WorkerOptions o;
  std::string error;
  if (!remote_exec::parse_endpoint(server, o.endpoint, error)) {
    std::fprintf(stderr, "qdbuild worker: error: --server: %s\n", error.c_str());
    return ExitStatus::usage;
  }
  if (!remote_exec::read_exec_credentials([](const char* n) { return std::getenv(n); },
                                          o.endpoint.token, o.endpoint.ca_pem, error)) {
    std::fprintf(stderr, "qdbuild worker: error: %s\n", error.c_str());
    return ExitStatus::usage;
  }
  if (name.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    name = std::string(host) + ":" + std::to_string(getpid());
  }
  o.bot_id = name;
  o.capacity = capacity;
  o.stop = &g_stop;
  o.log = [quiet, &name](const std::string& line) {
    bool error_line = line.starts_with("error:");
    if (quiet && !error_line) {
      return;
    }
    auto now = std::chrono::system_clock::now();
    std::time_t t = std::chrono::system_clock::to_time_t(now);
    int ms = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000);
    char stamp[32];
    size_t n = std::strftime(stamp, sizeof stamp, "%H:%M:%S", std::localtime(&t));
    std::snprintf(stamp + n, sizeof stamp - n, ".%03d", ms);
    std::fprintf(stderr, "qdbuild worker %s [%s]: %s\n", name.c_str(), stamp, line.c_str());
  };
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  int rc = remote_exec::run_worker(o);
  return rc == 0 ? ExitStatus::ok : ExitStatus::input_error;
#endif
}

}  // namespace qd::driver
