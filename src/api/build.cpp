// qdbuild::build, Builder, Reporter, TerminalReporter (include/qdbuild/build.hpp): the public face
// of build::Builder (src/build/builder.hpp), which takes and fills the same data types
// (qdbuild/build_types.hpp). A build::Status adapter turns the builder's events
// into Reporter calls with public diagnostics, and collects every diagnostic for the result.
#include "qdbuild/build.hpp"

#include <cstdio>

#include "api/diagnostic_output.hpp"
#include "build/builder.hpp"
#include "build/status_printer.hpp"
#include "sema/kernel_key.hpp"

namespace qdbuild {

const char* version() {
  static const std::string v = std::string(qd::sema::k_tool_version).substr(8);  // "qdbuild "
  return v.c_str();
}

Reporter::~Reporter() = default;
void Reporter::planned(size_t) {}
void Reporter::compile_started(const TaskEvent&) {}
void Reporter::compile_finished(const TaskEvent&, bool) {}
void Reporter::diagnostics(const std::vector<Diagnostic>&) {}
void Reporter::kernel_failed(const std::string&, const std::vector<Diagnostic>&,
                             const std::vector<std::string>&) {}
void Reporter::info(const std::string&) {}
void Reporter::warning(const std::string&) {}
void Reporter::error(const std::string&) {}
void Reporter::output(const std::string&) {}

// --- TerminalReporter ------------------------------------------------------------------------

struct TerminalReporter::Impl {
  qd::build::StatusPrinter printer{qd::build::LinePrinter()};
};

namespace {

std::string text_of(const std::vector<Diagnostic>& list) {
  std::string out;
  for (const Diagnostic& d : list) {
    out += d.text;
  }
  return out;
}

}  // namespace

TerminalReporter::TerminalReporter() : m_impl(std::make_unique<Impl>()) {}
TerminalReporter::~TerminalReporter() = default;
void TerminalReporter::planned(size_t tasks) { m_impl->printer.planned(tasks); }
void TerminalReporter::compile_started(const TaskEvent& task) {
  m_impl->printer.compile_started(task);
}
void TerminalReporter::compile_finished(const TaskEvent& task, bool ok) {
  m_impl->printer.compile_finished(task, ok);
}
void TerminalReporter::diagnostics(const std::vector<Diagnostic>& list) {
  if (!list.empty()) {
    m_impl->printer.printer().print(text_of(list));
  }
}
void TerminalReporter::kernel_failed(const std::string& kernel_id,
                                     const std::vector<Diagnostic>& list,
                                     const std::vector<std::string>& messages) {
  qd::build::LinePrinter& p = m_impl->printer.printer();
  p.print(qd::build::failed_block(p, kernel_id, text_of(list), messages));
}
void TerminalReporter::info(const std::string& line) { m_impl->printer.info(line); }
void TerminalReporter::warning(const std::string& line) { m_impl->printer.warning(line); }
void TerminalReporter::error(const std::string& line) { m_impl->printer.error(line); }
void TerminalReporter::output(const std::string& text) { m_impl->printer.output(text); }
void TerminalReporter::finish(const std::string& line) { m_impl->printer.finish(line); }

// --- Builder ---------------------------------------------------------------------------------

namespace {

// build::Status -> Reporter, keeping every diagnostic for the result.
class Adapter : public qd::build::Status {
public:
  explicit Adapter(Reporter* r) : m_r(r) {}

  void planned(size_t tasks) override {
    if (m_r) {
      m_r->planned(tasks);
    }
  }
  void compile_started(const TaskEvent& task) override {
    if (m_r) {
      m_r->compile_started(task);
    }
  }
  void compile_finished(const TaskEvent& task, bool ok) override {
    if (m_r) {
      m_r->compile_finished(task, ok);
    }
  }
  void diagnostics(const qd::sema::Analysis& a,
                   const std::vector<qd::sema::SemaDiagnostic>& list) override {
    std::vector<Diagnostic> d = qd::api::to_public(a, list);
    m_collected.insert(m_collected.end(), d.begin(), d.end());
    if (m_r) {
      m_r->diagnostics(d);
    }
  }
  void kernel_failed(const qd::sema::Analysis& a, const std::string& kernel_id,
                     const std::vector<qd::sema::SemaDiagnostic>& list,
                     const std::vector<std::string>& messages) override {
    std::vector<Diagnostic> d = qd::api::to_public(a, list);
    m_collected.insert(m_collected.end(), d.begin(), d.end());
    if (m_r) {
      m_r->kernel_failed(kernel_id, d, messages);
    }
  }
  void info(const std::string& m) override {
    if (m_r) {
      m_r->info(m);
    }
  }
  void warning(const std::string& m) override {
    if (m_r) {
      m_r->warning(m);
    }
  }
  void error(const std::string& m) override {
    if (m_r) {
      m_r->error(m);
    }
  }
  void output(const std::string& t) override {
    if (m_r) {
      m_r->output(t);
    }
  }

  std::vector<Diagnostic> take() { return std::move(m_collected); }

private:
  Reporter* m_r;
  std::vector<Diagnostic> m_collected;
};

}  // namespace

struct Builder::Impl {
  Impl(const ResolvedBuild& r, const std::string& t, Reporter* reporter)
      : adapter(reporter), builder(r, t, adapter) {}
  Adapter adapter;
  qd::build::Builder builder;
};

Builder::Builder(const ResolvedBuild& resolved, const std::string& target, Reporter* reporter)
    : m_impl(std::make_unique<Impl>(resolved, target, reporter)) {}
Builder::~Builder() = default;

BuildResult Builder::run(bool check_noop) {
  BuildResult r = m_impl->builder.run(check_noop);
  r.diagnostics = m_impl->adapter.take();
  return r;
}

BuildReport build(const BuildOptions& options, Reporter* reporter) {
  BuildReport report;
  report.resolved = resolve(options);
  report.exit = report.resolved.exit;
  if (report.exit != Exit::ok) {
    return report;
  }
  bool internal = false;
  bool failed = false;
  for (const std::string& t : report.resolved.targets) {
    Builder b(report.resolved, t, reporter);
    report.results.push_back(b.run());
    const BuildResult& r = report.results.back();
    internal = internal || r.internal_error;
    failed = failed || !r.failed.empty() || r.input_error;
  }
  report.exit = internal ? Exit::internal : failed ? Exit::input_error : Exit::ok;
  return report;
}

}  // namespace qdbuild
