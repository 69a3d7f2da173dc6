// Building kernels into a store: `qdbuild build` as a function (docs/build.md).
//
//   qdbuild::BuildOptions o;
//   o.paths = {"src"};
//   o.store = "build/qdstore";
//   qdbuild::BuildReport r = qdbuild::build(o);
//   std::puts(r.results[0].summary.c_str());   // "qdbuild: built 3 kernels (3 instances): ..."
//
// Options left empty are resolved as the command line resolves them (BuildOptions below); a
// Builder keeps what a build leaves for the next one, so running it again rebuilds only what
// changed (what `qdbuild build --watch` does after each save).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "qdbuild/build_types.hpp"
#include "qdbuild/diagnostic.hpp"

namespace qdbuild {

// What a build reports while it runs. Calls come from one thread at a time. Every method does
// nothing by default.
class Reporter {
public:
  virtual ~Reporter();
  virtual void planned(size_t tasks);  // `tasks` more units will be compiled
  virtual void compile_started(const TaskEvent& task);
  virtual void compile_finished(const TaskEvent& task, bool ok);
  virtual void diagnostics(const std::vector<Diagnostic>& list);  // sema's, the lowering's
  // A failed kernel: its diagnostics and other lines (a backend error).
  virtual void kernel_failed(const std::string& kernel_id, const std::vector<Diagnostic>& list,
                             const std::vector<std::string>& messages);
  virtual void info(const std::string& line);     // -d explain, -d stats
  virtual void warning(const std::string& line);  // tool warnings
  virtual void error(const std::string& line);    // tool errors
  virtual void output(const std::string& text);   // --dump-ir
};

// The command line's output on stdout: on a smart terminal one overprinted progress line
// `[12/240] compile src/heat.py:step#2`, code frames, `FAILED: <kernel>` blocks (red when colour
// is on: NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR), tool messages on stderr.
class TerminalReporter : public Reporter {
public:
  TerminalReporter();
  ~TerminalReporter() override;
  void planned(size_t tasks) override;
  void compile_started(const TaskEvent& task) override;
  void compile_finished(const TaskEvent& task, bool ok) override;
  void diagnostics(const std::vector<Diagnostic>& list) override;
  void kernel_failed(const std::string& kernel_id, const std::vector<Diagnostic>& list,
                     const std::vector<std::string>& messages) override;
  void info(const std::string& line) override;
  void warning(const std::string& line) override;
  void error(const std::string& line) override;
  void output(const std::string& text) override;
  void finish(const std::string& line);  // clears the progress line, prints `line`

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// Builds one target again and again, keeping between runs the compiler identity, the build log,
// the store handles, parsed files and object bytes: a later run re-parses changed files only,
// lowers only kernels whose key changed and compiles only units the store lacks.
class Builder {
public:
  // `resolved` from resolve() (exit ok); `target` one of resolved.targets. The reporter must
  // outlive the Builder (null: report nothing; results still carry the diagnostics).
  Builder(const ResolvedBuild& resolved, const std::string& target, Reporter* reporter = nullptr);
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // One build. `check_noop`: finish at once ("no work to do") when no input changed since the
  // last successful build of these paths.
  BuildResult run(bool check_noop = true);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// resolve(), then one Builder run per target. report.exit is the command's exit status.
BuildReport build(const BuildOptions& options, Reporter* reporter = nullptr);

}  // namespace qdbuild
