// `qdbuild build`: the build of a source tree into a store (issue 5 items 5 and 6; docs/build.md).
//
//   no-op check (input_stamp.hpp, build_log.hpp)  ── unchanged: "no work to do", nothing written
//   sema::analyze ── per kernel instance: kernel key unchanged since the log's record and the
//                    index still holds that record → reused without lowering
//                 ── else codegen::generate_kernel → units → task key → task cache hit, or
//                    compile (backend::compile_cpu_task) on --jobs threads → object + task record
//   per Python module: link every distinct unit object of its instances + the module ABI unit
//                    into one .so (only when one of its instances changed) → entries
//   publish (one index update) → build log records → build stats
//
// A kernel that fails (sema errors, codegen errors, a task that does not compile) is reported
// through Status and the build goes on with the others; its last good entry stays published.
//
// A Builder runs this pipeline any number of times (`qdbuild build --watch`, watch.hpp): what a
// run leaves for the next (compiler identity, the build log, the store, parsed files, object
// bytes) is kept in the Builder, so a later run re-parses only changed files, lowers only
// instances whose kernel key changed and compiles only units the task cache lacks. Entries of
// kernels that left the tree are removed from the index (docs/build.md "Entries a build owns").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "build/status.hpp"

namespace qd::build {

struct BuildOptions {
  std::vector<std::string> paths;
  std::string store_dir;
  std::string target = "cpu";
  unsigned jobs = 0;                        // 0: all cores
  bool explain = false;                     // -d explain
  bool stats = false;                       // -d stats
  bool dump_ir = false;                     // --dump-ir
  std::string root;                         // --root: the source root module names are relative to
  std::vector<std::string> instance_files;  // --instances: recorded runs (docs/record.md)
  // The paths are a record's module files: load what they import from the roots
  // (sema::AnalysisOptions::follow_imports). Such a build analyses every time: its no-op stamp
  // would not cover the files it followed.
  bool follow_imports = false;
  // Directories the source walk and the watcher leave out (sema::SourceFilter) besides the
  // store, which is always left out: the project's build directory.
  std::vector<std::string> exclude;
};

// options.exclude plus the store directory.
std::vector<std::string> excluded_dirs(const BuildOptions& options);

struct BuildResult {
  bool noop = false;
  size_t kernels = 0;    // kernels with every buildable instance built or reused
  size_t instances = 0;  // instances built or reused
  size_t tasks_total = 0;
  size_t tasks_compiled = 0;
  size_t tasks_reused = 0;
  size_t tasks_fetched = 0;  // of the reused: fetched from the remote cache by this run
  size_t modules_linked = 0;
  std::vector<std::string> failed;   // kernel ids, sorted
  std::vector<std::string> skipped;  // kernels without a buildable instance
  double time_s = 0;
  bool input_error = false;     // a path that cannot be read, a file or config error (exit 1)
  bool internal_error = false;  // store I/O, a task or module the backend rejected (exit 3)
  // What this run did (the --watch line and events):
  std::vector<std::string> lowered;  // kernel ids with an instance lowered, sorted
  size_t lowered_tasks = 0;          // units of the lowered instances that built
  std::vector<std::string> removed;  // kernel ids whose entries left the index, sorted
  size_t errors = 0;                 // error diagnostics of files and config, tool errors
  double compile_ms = 0;             // compile time summed over the units compiled
};

class Builder {
public:
  Builder(BuildOptions options, Status& status);
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // One build. `check_noop`: say "no work to do" when the inputs stamp is unchanged (the first
  // run of a one-shot build); a watcher that saw a change passes false.
  BuildResult run(bool check_noop = true);
  const BuildOptions& options() const;

  struct Session;  // builder.cpp

private:
  std::unique_ptr<Session> m_s;
};

// A one-shot build: Builder(options, status).run().
BuildResult run_build(const BuildOptions& options, Status& status);

// The one-line summary: "qdbuild: built 5 kernels (6 instances): 12 tasks compiled, 30 reused,
// 1 module linked in 1.23s", "qdbuild: no work to do." or "qdbuild: build stopped: 2 kernels
// failed.".
std::string summary_line(const BuildResult& r);

}  // namespace qd::build
