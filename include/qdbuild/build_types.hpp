// What a build takes and gives (docs/build.md): the options, the options resolved against the
// project and the environment, one target's result, one compile event. Plain data, shared by the
// embedding API (build.hpp, watch.hpp) and the build layer that fills it (src/build), so that
// neither keeps a copy of the other's types.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qdbuild/diagnostic.hpp"

namespace qdbuild {

struct BuildOptions {
  // Files and directories to build. Empty: the project's `paths` (find_project from the working
  // directory; with no project found that is a usage error).
  std::vector<std::string> paths;
  std::string root;                         // --root: the source root kernel ids are relative to
  std::vector<std::string> instance_files;  // --instances: recorded runs
  // The store directory. Empty: $QDBUILD_STORE, else the project's `store`, else
  // build/qdstore in the project's directory (in the working directory without a project).
  std::string store;
  // cpu, cuda (sm_90) or cuda:sm_XX, built in order. Empty: the project's `targets`, else cpu.
  std::vector<std::string> targets;
  unsigned jobs = 0;        // 0: every core
  bool explain = false;     // -d explain: Reporter::info says why each kernel is rebuilt
  bool stats = false;       // -d stats: Reporter::info gets the phase timers
  bool dump_ir = false;     // --dump-ir: Reporter::output gets each lowered kernel's IR
  bool use_project = true;  // false: no project lookup (only the options given and defaults)
  // --audit N: with remote execution, N remote results (a random sample) recompiled locally and
  // compared byte for byte; a difference is an internal error naming the worker.
  unsigned audit = 0;
};

// BuildOptions with the precedence applied: what a build will use.
struct ResolvedBuild {
  Exit exit = Exit::ok;             // usage or input_error: nothing can be built
  std::vector<std::string> errors;  // usage problems ("no PATH given and no project found ...")
  std::vector<Diagnostic> config_errors;  // QD112 problems of the project's keys
  std::string config;                     // the project's config file, "" when none
  std::vector<std::string> paths;
  std::string store;
  std::vector<std::string> targets;
  // Never walked nor watched, besides the store: the build directory (build/ in the project's
  // directory, else in the working directory).
  std::vector<std::string> exclude;
  // No PATH and no project, but records (--instances) that name their modules' files: the paths
  // are those files, options.root their roots, and the build loads what they import from the
  // roots (docs/record.md "Sources").
  bool sources_from_records = false;
  BuildOptions options;  // the input, paths/store/targets filled in (and root, from records)
};
ResolvedBuild resolve(const BuildOptions& options);

struct TaskCounts {
  size_t total = 0;
  size_t compiled = 0;  // compiled by this build
  size_t reused = 0;    // from the store's task cache or an earlier build
  size_t fetched = 0;   // of the reused: fetched from the remote cache (docs/remote.md)
  // Of the compiled (docs/remote-exec.md): run by a remote execution worker, or served by the
  // server's action cache; and how many remote results --audit recompiled here.
  size_t remote_executed = 0;
  size_t remote_cached = 0;
  size_t audited = 0;
};

// One target's build (`qdbuild build --json` prints these fields).
struct BuildResult {
  std::string target;
  bool noop = false;     // nothing changed since the last build: nothing read or written
  size_t kernels = 0;    // kernels with every buildable instance built or reused
  size_t instances = 0;  // kernel instances built or reused
  TaskCounts tasks;
  size_t modules_linked = 0;
  std::vector<std::string> failed;   // kernel ids that failed, sorted
  std::vector<std::string> skipped;  // kernel ids without a buildable instance (QD301)
  double time_s = 0;
  std::vector<Diagnostic> diagnostics;  // every source diagnostic the build reported
  std::vector<std::string> lowered;     // kernel ids this build lowered
  size_t lowered_tasks = 0;             // units of the lowered instances
  std::vector<std::string> removed;     // kernel ids whose entries left the index
  size_t errors = 0;                    // error diagnostics and tool errors
  double compile_ms = 0;                // compile time of the units compiled
  bool input_error = false;             // a path, file or configuration error (exit 1)
  bool internal_error = false;          // store I/O, the backend rejected code (exit 3)
  // The command's last line: "qdbuild: built 5 kernels (6 instances): 12 tasks compiled, 30
  // reused, 1 module linked in 1.23s", "qdbuild: no work to do." or "qdbuild: build stopped: 2
  // kernels failed."
  std::string summary;
  bool ok() const { return !internal_error && !input_error && failed.empty(); }
};

struct BuildReport {
  Exit exit = Exit::ok;
  ResolvedBuild resolved;
  std::vector<BuildResult> results;  // one per target, in order (none when resolving failed)
};

// One compile of an offload task.
struct TaskEvent {
  std::string kernel_id;
  std::string instance;
  std::string where;  // "src/heat.py:step#2" (path : qualname # task)
  std::string label;  // "for i in range(n)"
};

}  // namespace qdbuild
