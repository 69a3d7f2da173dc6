// qdbuild build [PATH...] [--store DIR] [--target cpu] [--jobs N] [--json] [-d explain]
//                         [-d stats] [--dump-ir] [--watch]
//
// A client of qdbuild::build (include/qdbuild/build.hpp; docs/build.md). Without a PATH (or a
// --store, a --target) the project's [tool.qdbuild] gives them ("Project configuration": the
// command line wins, then $QDBUILD_STORE for the store, then the config, then the defaults).
// Output: source diagnostics as code frames, `FAILED: <kernel>` blocks, a progress line on a
// smart terminal, and one summary line; --json prints one JSON object on stdout instead. Exit
// status: 0 built (or nothing to do); 1 a kernel failed or the input has errors; 2 usage; 3
// environment or internal failure (store I/O, code the backend rejected).
//
// --watch (docs/build.md "Watch mode"; `qdbuild --watch` is the same): a qdbuild::Watch
// (include/qdbuild/watch.hpp) builds again after each batch of source changes; one line per
// rebuild, or with --json one JSON object per line per build. SIGINT / SIGTERM
// stop it between builds: exit 0.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <sys/signalfd.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "driver/command_line.hpp"
#include "driver/commands.hpp"
#include "driver/source_flags.hpp"
#include "qdbuild/build.hpp"
#include "qdbuild/watch.hpp"

namespace qd::driver {

namespace {

using Json = nlohmann::ordered_json;

// --json: explain/stats lines and tool messages go to stderr so stdout holds only the object;
// the diagnostics come with the result.
class JsonReporter : public qdbuild::Reporter {
public:
  void kernel_failed(const std::string& kernel_id, const std::vector<qdbuild::Diagnostic>&,
                     const std::vector<std::string>& messages) override {
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
};

Json diagnostic_json(const qdbuild::Diagnostic& d) {
  Json j;
  j["file"] = d.file;
  j["line"] = d.line;
  j["col"] = d.col;
  j["end_line"] = d.end_line;
  j["end_col"] = d.end_col;
  j["severity"] = d.severity;
  j["code"] = d.code;
  j["kernel"] = d.kernel.empty() ? Json(nullptr) : Json(d.kernel);
  j["message"] = d.message;
  return j;
}

Json to_json(const qdbuild::BuildResult& r) {
  Json j;
  j["kernels"] = r.kernels;
  j["instances"] = r.instances;
  j["tasks"] = {{"total", r.tasks.total},
                {"compiled", r.tasks.compiled},
                {"reused", r.tasks.reused},
                {"fetched", r.tasks.fetched},
                {"remote_executed", r.tasks.remote_executed},
                {"remote_cached", r.tasks.remote_cached},
                {"audited", r.tasks.audited}};
  j["modules_linked"] = r.modules_linked;
  j["failed"] = r.failed;
  j["skipped"] = r.skipped;
  j["noop"] = r.noop;
  j["time_s"] = r.time_s;
  j["compile_ms"] = r.compile_ms;
  Json diagnostics = Json::array();
  for (const qdbuild::Diagnostic& d : r.diagnostics) {
    diagnostics.push_back(diagnostic_json(d));
  }
  j["diagnostics"] = std::move(diagnostics);
  return j;
}

Json event_json(const qdbuild::WatchEvent& e) {
  const qdbuild::BuildResult& r = e.result;
  Json j;
  j["event"] = e.first ? "build" : "rebuild";
  j["changed"] = e.changed;
  j["deleted"] = e.deleted;
  Json counts = to_json(r);
  for (auto& [k, v] : counts.items()) {
    j[k] = std::move(v);
  }
  j["lowered"] = r.lowered;
  j["removed"] = r.removed;
  j["errors"] = r.errors;
  j["compile_ms"] = r.compile_ms;
  j["ok"] = r.ok();
  return j;
}

void print_json(const Json& j) {
  std::string out = j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// The watch loop (qdbuild::Watch): the first build, then one build per batch of changes, until
// a signal.
ExitStatus watch(const qdbuild::ResolvedBuild& resolved, bool json) {
  // Signals wait for the loop (never in the middle of a publish): blocked in every thread (the
  // build's threads inherit the mask), read through a signalfd.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  int stop_fd = ::signalfd(-1, &stop, SFD_CLOEXEC);
  JsonReporter json_reporter;
  qdbuild::TerminalReporter printer;
  qdbuild::Reporter* reporter = json ? static_cast<qdbuild::Reporter*>(&json_reporter) : &printer;
  qdbuild::Watch w(resolved, reporter);
  std::string error;
  // Watches first, so edits made during the first build are seen.
  if (!w.start(error)) {
    std::fprintf(stderr, "qdbuild: error: %s\n", error.c_str());
    ::close(stop_fd);
    return ExitStatus::internal;
  }
  qdbuild::WatchEvent e;
  qdbuild::Watch::Next next;
  while ((next = w.next(e, stop_fd, error)) == qdbuild::Watch::Next::built) {
    if (json) {
      print_json(event_json(e));
    } else {
      printer.finish(e.line);
    }
    if (e.first) {
      std::fprintf(stderr, "qdbuild: watching %zu directories for changes (Ctrl-C to stop)\n",
                   w.watch_count());
    }
  }
  ::close(stop_fd);
  if (next == qdbuild::Watch::Next::error) {
    std::fprintf(stderr, "qdbuild: error: %s\n", error.c_str());
    return ExitStatus::internal;
  }
  if (!json) {
    printer.finish("qdbuild: stopped watching.");
  }
  return ExitStatus::ok;
}

}  // namespace

ExitStatus cmd_build(int argc, char** argv) {
  CommandLine app(
      "Build every kernel under files and directories into a store: analyse, lower,\n"
      "compile each offload task in parallel, link one module per Python file, publish.\n"
      "Without PATH, the project's [tool.qdbuild] names the paths, store and targets.\n"
      "The kernel language it compiles: docs/language.md.",
      "qdbuild build");
  qdbuild::BuildOptions options;
  std::vector<std::string> debug;
  bool json = false;
  bool watch_mode = false;
  add_source_flags(app, options.paths, options.root, options.instance_files, "build",
                   WithoutPath::project);
  app.add_option("--store", options.store,
                 "the store directory (default: $QDBUILD_STORE, else the project's `store`, else "
                 "build/qdstore beside the project's config or in the working directory)");
  add_targets_flag(app, options.targets, "the project's `targets`, else cpu");
  add_jobs_flag(app, options.jobs);
  app.add_flag("--json", json, "print one JSON object with the counts instead of text");
  app.add_option("-d", debug, "debug mode: explain (why each kernel is rebuilt), stats (timers)");
  app.add_flag("--dump-ir", options.dump_ir, "print each lowered kernel's IR after every pass");
  app.add_option("--audit", options.audit,
                 "with remote execution: recompile N remote results here and compare the bytes "
                 "(a difference fails the build)")
      .value_name("N");
  app.add_flag("--watch", watch_mode,
               "keep running: rebuild what each saved change needs (one line, or one JSON "
               "object, per rebuild); Ctrl-C stops");
  if (std::optional<ExitStatus> done = app.parse(argc, argv)) {
    return *done;
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
  if (app.count("--store") != 0 && options.store.empty()) {
    std::fprintf(stderr, "qdbuild: error: --store needs a directory\n");
    return ExitStatus::usage;
  }
  qdbuild::ResolvedBuild resolved = qdbuild::resolve(options);
  for (const std::string& e : resolved.errors) {
    std::fprintf(stderr, "qdbuild: error: %s\n", e.c_str());
  }
  for (const qdbuild::Diagnostic& d : resolved.config_errors) {
    std::fputs(d.text.c_str(), stderr);
  }
  if (resolved.exit != qdbuild::Exit::ok) {
    return static_cast<ExitStatus>(resolved.exit);
  }
  if (watch_mode) {
    if (resolved.targets.size() > 1) {
      std::fprintf(stderr, "qdbuild: error: --watch builds one target (got %zu)\n",
                   resolved.targets.size());
      return ExitStatus::usage;
    }
    return watch(resolved, json);
  }
  // One build per target, in order (each has its own log records, entries and modules).
  bool internal = false;
  bool failed = false;
  Json per_target = Json::array();
  for (const std::string& t : resolved.targets) {
    if (json) {
      JsonReporter reporter;
      qdbuild::Builder builder(resolved, t, &reporter);
      qdbuild::BuildResult r = builder.run();
      Json j = to_json(r);
      j["target"] = t;
      per_target.push_back(std::move(j));
      internal = internal || r.internal_error;
      failed = failed || !r.failed.empty() || r.input_error;
    } else {
      qdbuild::TerminalReporter reporter;
      qdbuild::Builder builder(resolved, t, &reporter);
      qdbuild::BuildResult r = builder.run();
      reporter.finish(resolved.targets.size() > 1 ? "[" + t + "] " + r.summary : r.summary);
      internal = internal || r.internal_error;
      failed = failed || !r.failed.empty() || r.input_error;
    }
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
