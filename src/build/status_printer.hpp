// The terminal Status (ninja's StatusPrinter): a smart terminal gets one overprinted progress line
// `[12/240] compile examples/heat.py:step#2`; any terminal gets, for a failed kernel,
// `FAILED: <kernel id>` (red when colour is on) and its diagnostics as code frames; warnings and
// sema errors print as code frames too; -d explain / -d stats lines and tool messages
// (`qdbuild: warning: ...`) go on their own lines. Nothing per task off a smart terminal.
#pragma once

#include <string>

#include "build/line_printer.hpp"
#include "build/status.hpp"

namespace qd::build {

// Text of source diagnostics: `path:line:col: severity: message [QDnnn]` plus the code frame.
std::string render_diagnostics(const sema::Analysis& analysis,
                               const std::vector<sema::SemaDiagnostic>& list);

// `FAILED: <kernel id>` (red when `printer` has colour), then the diagnostics' text and the
// other lines, each ending in '\n'.
std::string failed_block(const LinePrinter& printer, const std::string& kernel_id,
                         const std::string& diagnostics_text,
                         const std::vector<std::string>& messages);

class StatusPrinter : public Status {
public:
  explicit StatusPrinter(LinePrinter printer) : m_printer(std::move(printer)) {}

  void planned(size_t tasks) override;
  void compile_started(const TaskEvent& task) override;
  void compile_finished(const TaskEvent& task, bool ok) override;
  void diagnostics(const sema::Analysis& analysis,
                   const std::vector<sema::SemaDiagnostic>& list) override;
  void kernel_failed(const sema::Analysis& analysis, const std::string& kernel_id,
                     const std::vector<sema::SemaDiagnostic>& list,
                     const std::vector<std::string>& messages) override;
  void info(const std::string& message) override;
  void warning(const std::string& message) override;
  void error(const std::string& message) override;
  void output(const std::string& text) override;

  // Clears the progress line and prints the build's last line.
  void finish(const std::string& summary);

  LinePrinter& printer() { return m_printer; }

private:
  LinePrinter m_printer;
  size_t m_total = 0;
  size_t m_started = 0;
  size_t m_finished = 0;
};

}  // namespace qd::build
