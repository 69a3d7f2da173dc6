// qdbuild build PATH... [--store DIR] [--target cpu] [--jobs N] [--json] [-d explain] [-d stats]
//                       [--dump-ir]
//
// Builds every kernel instance under the paths into the store (build/builder.hpp, docs/build.md).
// Output: source diagnostics as code frames, `FAILED: <kernel>` blocks, a progress line on a smart
// terminal, and one summary line; --json prints one JSON object on stdout instead. Exit status:
// 0 built (or nothing to do); 1 a kernel failed or the input has errors; 2 usage; 3 environment
// or internal failure (store I/O, code the backend rejected: "internal error, please report").
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "build/builder.hpp"
#include "build/status_printer.hpp"
#include "driver/commands.hpp"
#include "driver/diagnostic_output.hpp"

namespace qd::driver {

namespace {

using Json = nlohmann::ordered_json;

std::string default_store() {
  const char* env = std::getenv("QDBUILD_STORE");
  return env != nullptr && *env != '\0' ? env : "build/qdstore";
}

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
  app.add_option("PATH", options.paths, "files or directories to build")->required();
  app.add_option("--store", options.store_dir,
                 "the store directory (default: $QDBUILD_STORE, else build/qdstore)");
  app.add_option("--target", targets, "cpu (the default; cuda[:sm_XX] is not supported yet)");
  app.add_option("-j,--jobs", options.jobs, "parallel jobs (default: number of CPUs)");
  app.add_flag("--json", json, "print one JSON object with the counts instead of text");
  app.add_option("-d", debug, "debug mode: explain (why each kernel is rebuilt), stats (timers)");
  app.add_flag("--dump-ir", options.dump_ir, "print each lowered kernel's IR after every pass");
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
  for (const std::string& t : targets) {
    if (t != "cpu") {
      std::fprintf(stderr, "qdbuild: error: target '%s' is not supported yet\n", t.c_str());
      return ExitStatus::usage;
    }
  }
  if (options.store_dir.empty()) {
    std::fprintf(stderr, "qdbuild: error: --store needs a directory\n");
    return ExitStatus::usage;
  }

  build::BuildResult r;
  if (json) {
    JsonStatus status;
    r = build::run_build(options, status);
    std::string out =
        to_json(r, status.take()).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else {
    build::StatusPrinter status{build::LinePrinter()};
    r = build::run_build(options, status);
    status.finish(build::summary_line(r));
  }
  std::fflush(stdout);
  if (r.internal_error) {
    return ExitStatus::internal;
  }
  if (!r.failed.empty() || r.input_error) {
    return ExitStatus::input_error;
  }
  return ExitStatus::ok;
}

}  // namespace qd::driver
