// qdbuild build PATH... [--store DIR] [--target cpu] [--jobs N] [--json] [-d explain] [-d stats]
//                       [--dump-ir] [--watch]
//
// Builds every kernel instance under the paths into the store (build/builder.hpp, docs/build.md).
// Output: source diagnostics as code frames, `FAILED: <kernel>` blocks, a progress line on a smart
// terminal, and one summary line; --json prints one JSON object on stdout instead. Exit status:
// 0 built (or nothing to do); 1 a kernel failed or the input has errors; 2 usage; 3 environment
// or internal failure (store I/O, code the backend rejected: "internal error, please report").
//
// --watch (issue 8, docs/build.md "Watch mode"): the same Builder runs again after each batch of
// source changes (build/watcher.hpp); one line per rebuild (build/watch_line.hpp), or with --json
// one JSON object per line per build. SIGINT / SIGTERM stop it between builds: exit 0.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <sys/signalfd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "build/build_target.hpp"
#include "build/builder.hpp"
#include "build/status_printer.hpp"
#include "build/watch_line.hpp"
#include "build/watcher.hpp"
#include "driver/commands.hpp"
#include "driver/diagnostic_output.hpp"

namespace qd::driver {

namespace {

using Json = nlohmann::ordered_json;

// --json: diagnostics are collected for the JSON object; explain/stats lines and tool messages go
// to stderr so stdout holds only the object.
class JsonStatus : public build::Status {
public:
  void diagnostics(const sema::Analysis& a,
                   const std::vector<sema::SemaDiagnostic>& list) override {
    for (const sema::SemaDiagnostic& d : list) {
      m_diagnostics.push_back(Json::parse(diagnostic_json_text(a, d)));
    }
  }
  void kernel_failed(const sema::Analysis& a, const std::string& kernel_id,
                     const std::vector<sema::SemaDiagnostic>& list,
                     const std::vector<std::string>& messages) override {
    diagnostics(a, list);
    for (const std::string& m : messages) {
      std::fprintf(stderr, "qdbuild: %s: %s\n", kernel_id.c_str(), m.c_str());
    }
  }
  void info(const std::string& message) override { std::fprintf(stderr, "%s\n", message.c_str()); }
  void warning(const std::string& message) override {
    std::fprintf(stderr, "qdbuild: warning: %s\n", message.c_str());
  }
  void error(const std::string& message) override {
    std::fprintf(stderr, "qdbuild: error: %s\n", message.c_str());
  }
  void output(const std::string& text) override { std::fputs(text.c_str(), stderr); }

  Json take() { return std::move(m_diagnostics); }

private:
  Json m_diagnostics = Json::array();
};

Json to_json(const build::BuildResult& r, Json diagnostics) {
  Json j;
  j["kernels"] = r.kernels;
  j["instances"] = r.instances;
  j["tasks"] = {
      {"total", r.tasks_total}, {"compiled", r.tasks_compiled}, {"reused", r.tasks_reused}};
  j["modules_linked"] = r.modules_linked;
  j["failed"] = r.failed;
  j["skipped"] = r.skipped;
  j["noop"] = r.noop;
  j["time_s"] = r.time_s;
  j["diagnostics"] = std::move(diagnostics);
  return j;
}

Json event_json(const char* event, const build::WatchBatch& batch, const build::BuildResult& r,
                Json diagnostics) {
  Json j;
  j["event"] = event;
  j["changed"] = batch.changed;
  j["deleted"] = batch.deleted;
  Json counts = to_json(r, std::move(diagnostics));
  for (auto& [k, v] : counts.items()) {
    j[k] = std::move(v);
  }
  j["lowered"] = r.lowered;
  j["removed"] = r.removed;
  j["errors"] = r.errors;
  j["compile_ms"] = r.compile_ms;
  j["ok"] = !r.internal_error && r.failed.empty() && !r.input_error;
  return j;
}

void print_json(const Json& j) {
  std::string out = j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// The watch loop: the first build, then one build per batch of changes, until a signal.
ExitStatus watch(const build::BuildOptions& options, bool json) {
  // Signals wait for the loop (never in the middle of a publish): blocked in every thread (the
  // build's threads inherit the mask), read through a signalfd.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  int stop_fd = ::signalfd(-1, &stop, SFD_CLOEXEC);
  // Watches first, so edits made during the first build are seen.
  // Recorded runs (--instances, instances-from) are inputs too: a new record rebuilds.
  build::Watcher watcher;
  std::string error;
  std::vector<std::string> watched = options.paths;
  sema::AnalysisOptions records;
  records.instance_files = options.instance_files;
  for (std::string& f : sema::record_files(options.paths, records)) {
    watched.push_back(std::move(f));
  }
  if (!watcher.start(watched, error)) {
    std::fprintf(stderr, "qdbuild: error: %s\n", error.c_str());
    return ExitStatus::internal;
  }
  JsonStatus json_status;
  build::StatusPrinter printer{build::LinePrinter()};
  build::Status& status = json ? static_cast<build::Status&>(json_status) : printer;
  build::Builder builder(options, status);
  build::BuildResult r = builder.run(true);
  if (json) {
    print_json(event_json("build", {}, r, json_status.take()));
  } else {
    printer.finish(build::summary_line(r));
  }
  std::fprintf(stderr, "qdbuild: watching %zu directories for changes (Ctrl-C to stop)\n",
               watcher.watch_count());
  while (true) {
    build::WatchBatch batch;
    build::Watcher::Wait w = watcher.wait(batch, stop_fd, error);
    if (w == build::Watcher::Wait::stopped) {
      break;
    }
    if (w == build::Watcher::Wait::error) {
      std::fprintf(stderr, "qdbuild: error: %s\n", error.c_str());
      ::close(stop_fd);
      return ExitStatus::internal;
    }
    r = builder.run(false);
    if (json) {
      print_json(event_json("rebuild", batch, r, json_status.take()));
    } else {
      printer.finish(build::watch_line(batch, r));
    }
  }
  if (!json) {
    printer.finish("qdbuild: stopped watching.");
  }
  ::close(stop_fd);
  return ExitStatus::ok;
}

}  // namespace

ExitStatus cmd_build(int argc, char** argv) {
  CLI::App app("Build every kernel under files and directories into a store: analyse, lower,\n"
               "compile each offload task in parallel, link one module per Python file, publish.",
               "qdbuild build");
  build::BuildOptions options;
  options.store_dir = default_store();
  std::vector<std::string> targets;
  std::vector<std::string> debug;
  bool json = false;
  bool watch_mode = false;
  app.add_option("PATH", options.paths, "files or directories to build")->required();
  app.add_option("--root", options.root,
                 "the source root kernel ids are relative to (default: each directory given; "
                 "--root SITE SITE/genesis names the modules genesis.*)");
  app.add_option("--instances", options.instance_files,
                 "a recorded run (python -m qdrt.record): instances and run-time values "
                 "(repeatable)");
  app.add_option("--store", options.store_dir,
                 "the store directory (default: $QDBUILD_STORE, else build/qdstore)");
  app.add_option("--target", targets,
                 "cpu (the default), cuda (sm_90) or cuda:sm_XX; repeat to build several");
  app.add_option("-j,--jobs", options.jobs, "parallel jobs (default: number of CPUs)");
  app.add_flag("--json", json, "print one JSON object with the counts instead of text");
  app.add_option("-d", debug, "debug mode: explain (why each kernel is rebuilt), stats (timers)");
  app.add_flag("--dump-ir", options.dump_ir, "print each lowered kernel's IR after every pass");
  app.add_flag("--watch", watch_mode,
               "keep running: rebuild what each saved change needs (one line, or one JSON "
               "object, per rebuild); Ctrl-C stops");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? ExitStatus::ok : ExitStatus::usage;
  }
  for (const std::string& d : debug) {
    if (d == "explain") {
      options.explain = true;
    } else if (d == "stats") {
      options.stats = true;
    } else {
      std::fprintf(stderr, "qdbuild: error: unknown debug mode '%s' (explain or stats)\n",
                   d.c_str());
      return ExitStatus::usage;
    }
  }
  if (targets.empty()) {
    targets.push_back("cpu");
  }
  for (const std::string& t : targets) {
    build::BuildTarget parsed;
    std::string error;
    if (!build::BuildTarget::parse(t, parsed, error)) {
      std::fprintf(stderr, "qdbuild: error: %s\n", error.c_str());
      return ExitStatus::usage;
    }
  }
  if (options.store_dir.empty()) {
    std::fprintf(stderr, "qdbuild: error: --store needs a directory\n");
    return ExitStatus::usage;
  }

  if (watch_mode) {
    if (targets.size() > 1) {
      std::fprintf(stderr, "qdbuild: error: --watch builds one target (got %zu)\n", targets.size());
      return ExitStatus::usage;
    }
    options.target = targets.front();
    return watch(options, json);
  }
  // One build per target, in order (each has its own log records, entries and modules).
  bool internal = false;
  bool failed = false;
  Json per_target = Json::array();
  for (const std::string& t : targets) {
    options.target = t;
    build::BuildResult r;
    if (json) {
      JsonStatus status;
      r = build::run_build(options, status);
      Json j = to_json(r, status.take());
      j["target"] = t;
      per_target.push_back(std::move(j));
    } else {
      build::StatusPrinter status{build::LinePrinter()};
      r = build::run_build(options, status);
      std::string line = build::summary_line(r);
      if (targets.size() > 1) {
        line = "[" + t + "] " + line;
      }
      status.finish(line);
    }
    internal = internal || r.internal_error;
    failed = failed || !r.failed.empty() || r.input_error;
  }
  if (json) {
    // One target: its object, as before. Several: their objects under "targets".
    Json out = per_target.size() == 1 ? per_target[0] : Json{{"targets", per_target}};
    std::string text = out.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  std::fflush(stdout);
  if (internal) {
    return ExitStatus::internal;
  }
  if (failed) {
    return ExitStatus::input_error;
  }
  return ExitStatus::ok;
}

}  // namespace qd::driver
