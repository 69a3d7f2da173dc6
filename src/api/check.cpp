// qdbuild::check (include/qdbuild/check.hpp): sema::analyze and the diagnostics in one format.
#include "qdbuild/check.hpp"

#include "api/diagnostic_output.hpp"
#include "api/paths.hpp"
#include "qdbuild/project.hpp"
#include "support/never_freed.hpp"

namespace qdbuild {

bool parse_format(const std::string& name, Format& out) {
  qd::api::DiagnosticFormat f;
  if (!qd::api::parse_diagnostic_format(name, f)) {
    return false;
  }
  out = f == qd::api::DiagnosticFormat::text    ? Format::text
        : f == qd::api::DiagnosticFormat::json  ? Format::json
        : f == qd::api::DiagnosticFormat::sarif ? Format::sarif
                                                : Format::github;
  return true;
}

namespace {

qd::api::DiagnosticFormat internal(Format f) {
  switch (f) {
    case Format::text: return qd::api::DiagnosticFormat::text;
    case Format::json: return qd::api::DiagnosticFormat::json;
    case Format::sarif: return qd::api::DiagnosticFormat::sarif;
    case Format::github: return qd::api::DiagnosticFormat::github;
  }
  return qd::api::DiagnosticFormat::text;
}

std::string plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

CheckResult check(const CheckOptions& options) {
  CheckResult out;
  std::vector<std::string> paths = options.paths;
  if (paths.empty()) {
    Project project = find_project(".");
    if (project.config.empty()) {
      out.tool_errors.push_back("no PATH given and no project found (`paths` in [tool.qdbuild])");
      out.exit = Exit::usage;
      return out;
    }
    if (!project.errors.empty()) {
      out.diagnostics = project.errors;
      for (const Diagnostic& d : project.errors) {
        out.output += d.text;
      }
      out.errors = project.errors.size();
      out.exit = Exit::input_error;
      return out;
    }
    for (const std::string& p : project.paths) {
      paths.push_back(qd::api::display_path(p));
    }
  }
  qd::sema::AnalysisOptions ao;
  ao.jobs = options.jobs;
  ao.target = options.target;
  ao.print_non_pure = options.print_non_pure;
  ao.keys = options.keys;
  ao.parse_only = options.parse_only;
  ao.root = options.root;
  ao.instance_files = options.instance_files;
  ao.exclude = qd::api::project_excludes();
  // Never destroyed: freeing every AST and report costs time and changes nothing.
  qd::sema::Analysis& a =
      *qd::support::never_freed(new qd::sema::Analysis(qd::sema::analyze(paths, ao)));

  out.tool_errors = a.tool_errors;
  out.diagnostics = qd::api::to_public(a, a.diagnostics);
  out.files = a.program->modules.size();
  out.kernels = a.kernels.size();
  for (const qd::sema::KernelReport& k : a.kernels) {
    out.marked += k.marked ? 1 : 0;
  }
  out.errors = a.count(qd::syntax::Severity::Error);
  out.warnings = a.count(qd::syntax::Severity::Warning);
  out.output = qd::api::format_diagnostics(a, a.diagnostics, internal(options.format));
  if (options.format == Format::text) {
    out.output += "qdbuild check: " + plural(out.files, "file") + ", " +
                  plural(out.kernels, "kernel") + " (" + std::to_string(out.marked) +
                  " marked fastcache), " + plural(out.errors, "error") + ", " +
                  plural(out.warnings, "warning") + "\n";
  }
  out.exit = out.errors > 0 || !out.tool_errors.empty() ? Exit::input_error : Exit::ok;
  return out;
}

}  // namespace qdbuild
