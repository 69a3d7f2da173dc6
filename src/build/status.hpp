// What a build reports while it runs: the builder calls these; StatusPrinter (status_printer.hpp)
// shows them on a terminal, the driver's --json mode collects them, tests record them. The builder
// calls a Status from one thread at a time (it serialises calls from its compile threads).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qdbuild/build_types.hpp"
#include "sema/analysis.hpp"

namespace qd::build {

using qdbuild::TaskEvent;  // include/qdbuild/build_types.hpp

class Status {
public:
  virtual ~Status() = default;

  // `tasks` more tasks will be compiled (called as kernels are lowered; the total grows).
  virtual void planned(size_t tasks) { (void)tasks; }
  virtual void compile_started(const TaskEvent& task) { (void)task; }
  virtual void compile_finished(const TaskEvent& task, bool ok) {
    (void)task;
    (void)ok;
  }
  // Source diagnostics (sema's, and the code generator's) of `analysis`'s files.
  virtual void diagnostics(const sema::Analysis& analysis,
                           const std::vector<sema::SemaDiagnostic>& list) {
    (void)analysis;
    (void)list;
  }
  // A kernel that failed: `FAILED: <kernel id>`, then its source diagnostics (sema errors, code
  // generator errors) and `messages` (other lines, e.g. a backend error: an internal error).
  virtual void kernel_failed(const sema::Analysis& analysis, const std::string& kernel_id,
                             const std::vector<sema::SemaDiagnostic>& list,
                             const std::vector<std::string>& messages) {
    (void)analysis;
    (void)kernel_id;
    (void)list;
    (void)messages;
  }
  // -d explain lines, -d stats lines.
  virtual void info(const std::string& message) { (void)message; }
  virtual void warning(const std::string& message) { (void)message; }
  virtual void error(const std::string& message) { (void)message; }
  // --dump-ir text (stdout).
  virtual void output(const std::string& text) { (void)text; }
};

}  // namespace qd::build
