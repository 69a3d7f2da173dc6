// qdbuild::check (include/qdbuild/check.hpp): sema::analyze and the diagnostics in one format.
#include "qdbuild/check.hpp"

#include "api/diagnostic_output.hpp"
#include "api/paths.hpp"
#include "api/sources.hpp"
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
  // The project is found once: it names the paths when none are given, and the directories a
  // walk leaves out. The PATHs, else the project's, else the records' files (one rule with build).
  qd::api::Selection sel = qd::api::select_sources(
      options.paths, options.root, options.instance_files, true, options.paths.empty());
  for (const Diagnostic& d : sel.config_errors) {
    out.diagnostics.push_back(d);
    out.output += d.text;
    ++out.errors;
  }
  if (!sel.error.empty()) {
    out.tool_errors.push_back(sel.error);
  }
  if (sel.exit != Exit::ok) {
    out.exit = sel.exit;
    return out;
  }
  const qd::api::Sources& sources = sel.sources;
  const std::vector<std::string>& paths = sources.paths;
  qd::sema::AnalysisOptions ao{.jobs = options.jobs,
                               .target = options.target,
                               .parse_only = options.parse_only,
                               .print_non_pure = options.print_non_pure,
                               .keys = options.keys,
                               .config_dir = "",
                               .root = sources.root,
                               .follow_imports = sources.from_records,
                               .instance_files = options.instance_files,
                               .exclude = qd::api::project_excludes(sel.project),
                               .parse_cache = nullptr,
                               .record_cache = nullptr};
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
