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
#include "qdbuild/build_types.hpp"

namespace qd::build {

// The data types are the embedding API's (include/qdbuild/build_types.hpp): a Builder builds one
// target of a resolved build and fills in its result (all but `diagnostics`, which the API's
// Status adapter turns into public ones).
using qdbuild::BuildResult;
using qdbuild::ResolvedBuild;

// resolved.exclude plus the store directory: what the source walk and the watcher leave out.
std::vector<std::string> excluded_dirs(const ResolvedBuild& resolved);

class Builder {
public:
  // `target`: one of resolved.targets. A build from the records' sources
  // (resolved.sources_from_records) analyses every time: its no-op stamp would not cover the
  // files it followed.
  Builder(const ResolvedBuild& resolved, const std::string& target, Status& status);
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // One build. `check_noop`: say "no work to do" when the inputs stamp is unchanged (the first
  // run of a one-shot build); a watcher that saw a change passes false.
  BuildResult run(bool check_noop = true);

  struct Session;  // builder.cpp

private:
  std::unique_ptr<Session> m_s;
};

// The one-line summary: "qdbuild: built 5 kernels (6 instances): 12 tasks compiled, 30 reused,
// 1 module linked in 1.23s", "qdbuild: no work to do." or "qdbuild: build stopped: 2 kernels
// failed.".
std::string summary_line(const BuildResult& r);

}  // namespace qd::build
