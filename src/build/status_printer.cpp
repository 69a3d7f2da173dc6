#include "build/status_printer.hpp"

#include <cstdio>

#include "syntax/diagnostic_render.hpp"

namespace qd::build {

std::string render_diagnostics(const sema::Analysis& a,
                               const std::vector<sema::SemaDiagnostic>& list) {
  std::string out;
  for (const sema::SemaDiagnostic& d : list) {
    bool in_module = d.module != sema::k_none && a.program != nullptr;
    const std::string& path = in_module ? a.program->modules[d.module].path : d.path;
    const syntax::SourceFile* source =
        in_module ? &a.program->modules[d.module].parsed->source : nullptr;
    out += syntax::render_diagnostic(d.d, path, source);
  }
  return out;
}

void StatusPrinter::planned(size_t tasks) { m_total += tasks; }

void StatusPrinter::compile_started(const TaskEvent& task) {
  ++m_started;
  if (m_finished == 0) {
    m_printer.status("[" + std::to_string(m_finished) + "/" + std::to_string(m_total) +
                     "] compile " + task.where);
  }
}

void StatusPrinter::compile_finished(const TaskEvent& task, bool ok) {
  (void)ok;
  ++m_finished;
  m_printer.status("[" + std::to_string(m_finished) + "/" + std::to_string(m_total) + "] compile " +
                   task.where);
}

void StatusPrinter::diagnostics(const sema::Analysis& analysis,
                                const std::vector<sema::SemaDiagnostic>& list) {
  if (!list.empty()) {
    m_printer.print(render_diagnostics(analysis, list));
  }
}

void StatusPrinter::kernel_failed(const sema::Analysis& analysis, const std::string& kernel_id,
                                  const std::vector<sema::SemaDiagnostic>& list,
                                  const std::vector<std::string>& messages) {
  m_printer.print(failed_block(m_printer, kernel_id, render_diagnostics(analysis, list), messages));
}

std::string failed_block(const LinePrinter& printer, const std::string& kernel_id,
                         const std::string& diagnostics_text,
                         const std::vector<std::string>& messages) {
  std::string text = printer.red("FAILED:") + " " + kernel_id + "\n";
  text += diagnostics_text;
  for (const std::string& m : messages) {
    text += m + "\n";
  }
  return text;
}

void StatusPrinter::info(const std::string& message) { m_printer.print(message + "\n"); }

void StatusPrinter::warning(const std::string& message) {
  m_printer.clear();
  std::fflush(stdout);
  std::fprintf(stderr, "qdbuild: warning: %s\n", message.c_str());
}

void StatusPrinter::error(const std::string& message) {
  m_printer.clear();
  std::fflush(stdout);
  std::fprintf(stderr, "qdbuild: error: %s\n", message.c_str());
}

void StatusPrinter::output(const std::string& text) { m_printer.print(text); }

void StatusPrinter::finish(const std::string& summary) { m_printer.print(summary + "\n"); }

}  // namespace qd::build
