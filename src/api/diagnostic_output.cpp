#include "api/diagnostic_output.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "syntax/diagnostic_render.hpp"

namespace qd::api {

using Json = nlohmann::ordered_json;

bool parse_diagnostic_format(const std::string& name, DiagnosticFormat& out) {
  if (name == "text") {
    out = DiagnosticFormat::text;
  } else if (name == "json") {
    out = DiagnosticFormat::json;
  } else if (name == "sarif") {
    out = DiagnosticFormat::sarif;
  } else if (name == "github") {
    out = DiagnosticFormat::github;
  } else {
    return false;
  }
  return true;
}

namespace {

const std::string& path_of(const sema::Analysis& a, const sema::SemaDiagnostic& d) {
  return d.module == sema::k_none ? d.path : a.program->modules[d.module].path;
}

const syntax::SourceFile* source_of(const sema::Analysis& a, const sema::SemaDiagnostic& d) {
  return d.module == sema::k_none ? nullptr : &a.program->modules[d.module].parsed->source;
}

int32_t column(const syntax::SourceFile* src, int32_t line, int32_t byte_col) {
  return src == nullptr ? byte_col + 1 : src->char_column(line, byte_col);
}

// Short descriptions of the rules, for SARIF's rule table.
const std::map<std::string, std::string>& rule_texts() {
  static const std::map<std::string, std::string> rules = {
      {"QD001", "invalid syntax"},
      {"QD002", "invalid token or literal"},
      {"QD003", "indentation error"},
      {"QD004", "encoding error"},
      {"QD005", "nesting or size limit"},
      {"QD006", "file cannot be read"},
      {"QD101", "fastcache kernel captures a module-level value"},
      {"QD102", "fastcache kernel reads an UPPERCASE global"},
      {"QD103", "fastcache kernel captures a global inside qd.static"},
      {"QD104", "callee cannot be resolved statically"},
      {"QD105", "name is not defined"},
      {"QD106", "field-typed kernel parameter"},
      {"QD107", "kernel parameter annotation not understood"},
      {"QD108", "captured value cannot be evaluated statically"},
      {"QD109", "compound parameter with a field member"},
      {"QD110", "ndarray captured from module scope"},
      {"QD112", "qdbuild configuration problem"},
      {"QD113", "deprecated pure marker"},
      {"QD115", "kernel not marked fastcache=True"},
  };
  return rules;
}

std::string github_escape(std::string_view s, bool property) {
  std::string out;
  for (char c : s) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else if (property && c == ':') {
      out += "%3A";
    } else if (property && c == ',') {
      out += "%2C";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string sarif(const sema::Analysis& a, const std::vector<sema::SemaDiagnostic>& diags) {
  Json rules = Json::array();
  std::map<std::string, size_t> rule_index;
  for (const sema::SemaDiagnostic& d : diags) {
    if (rule_index.contains(d.d.code)) {
      continue;
    }
    rule_index[d.d.code] = rules.size();
    auto it = rule_texts().find(d.d.code);
    Json r;
    r["id"] = d.d.code;
    r["shortDescription"] = {{"text", it == rule_texts().end() ? d.d.code : it->second}};
    r["helpUri"] = "docs/diagnostics.md";
    rules.push_back(std::move(r));
  }
  Json results = Json::array();
  for (const sema::SemaDiagnostic& d : diags) {
    const syntax::SourceFile* src = source_of(a, d);
    Json region;
    region["startLine"] = std::max(1, d.d.line);
    region["startColumn"] = column(src, d.d.line, d.d.col);
    if (d.d.end_line >= d.d.line && d.d.end_line > 0) {
      region["endLine"] = d.d.end_line;
      region["endColumn"] = column(src, d.d.end_line, d.d.end_col);
    }
    Json r;
    r["ruleId"] = d.d.code;
    r["ruleIndex"] = rule_index[d.d.code];
    r["level"] = syntax::name_of(d.d.severity);
    r["message"] = {{"text", d.d.message}};
    Json loc;
    loc["physicalLocation"]["artifactLocation"]["uri"] = path_of(a, d);
    loc["physicalLocation"]["region"] = std::move(region);
    r["locations"] = Json::array({std::move(loc)});
    if (!d.kernel.empty()) {
      r["properties"] = {{"kernel", d.kernel}};
    }
    results.push_back(std::move(r));
  }
  Json run;
  run["tool"]["driver"] = {{"name", "qdbuild"},
                           {"version", "0.1.0"},
                           {"informationUri", "https://github.com/"},
                           {"rules", std::move(rules)}};
  run["results"] = std::move(results);
  Json doc;
  doc["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  doc["version"] = "2.1.0";
  doc["runs"] = Json::array({std::move(run)});
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

Json diagnostic_object(const sema::Analysis& a, const sema::SemaDiagnostic& d) {
  syntax::DiagnosticFields f =
      syntax::diagnostic_fields(d.d, path_of(a, d), source_of(a, d), d.kernel);
  return {{"file", f.file},       {"line", f.line},
          {"col", f.col},         {"end_line", f.end_line},
          {"end_col", f.end_col}, {"severity", f.severity},
          {"code", f.code},       {"kernel", f.kernel.empty() ? Json(nullptr) : Json(f.kernel)},
          {"message", f.message}};
}

std::string format_diagnostics(const sema::Analysis& a,
                               const std::vector<sema::SemaDiagnostic>& diags,
                               DiagnosticFormat format) {
  std::string out;
  switch (format) {
    case DiagnosticFormat::text:
      for (const sema::SemaDiagnostic& d : diags) {
        out += syntax::render_diagnostic(d.d, path_of(a, d), source_of(a, d));
      }
      return out;
    case DiagnosticFormat::json: {
      Json list = Json::array();
      for (const sema::SemaDiagnostic& d : diags) {
        list.push_back(diagnostic_object(a, d));
      }
      Json doc;
      doc["diagnostics"] = std::move(list);
      return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    }
    case DiagnosticFormat::sarif: return sarif(a, diags);
    case DiagnosticFormat::github:
      for (const sema::SemaDiagnostic& d : diags) {
        const syntax::SourceFile* src = source_of(a, d);
        const char* level = d.d.severity == syntax::Severity::Error     ? "error"
                            : d.d.severity == syntax::Severity::Warning ? "warning"
                                                                        : "notice";
        out += std::string("::") + level + " file=" + github_escape(path_of(a, d), true) +
               ",line=" + std::to_string(std::max(1, d.d.line)) +
               ",col=" + std::to_string(column(src, d.d.line, d.d.col));
        if (d.d.end_line > 0) {
          out += ",endLine=" + std::to_string(d.d.end_line) +
                 ",endColumn=" + std::to_string(column(src, d.d.end_line, d.d.end_col));
        }
        out += ",title=" + github_escape(d.d.code, true) +
               "::" + github_escape(d.d.message, false) + "\n";
      }
      return out;
  }
  return out;
}

qdbuild::Diagnostic to_public(const sema::Analysis& a, const sema::SemaDiagnostic& d) {
  qdbuild::Diagnostic out;
  syntax::DiagnosticFields f =
      syntax::diagnostic_fields(d.d, path_of(a, d), source_of(a, d), d.kernel);
  out.file = std::move(f.file);
  out.line = f.line;
  out.col = f.col;
  out.end_line = f.end_line;
  out.end_col = f.end_col;
  out.severity = std::move(f.severity);
  out.code = std::move(f.code);
  out.kernel = std::move(f.kernel);
  out.message = std::move(f.message);
  out.text = syntax::render_diagnostic(d.d, path_of(a, d), source_of(a, d));
  return out;
}

std::vector<qdbuild::Diagnostic> to_public(const sema::Analysis& a,
                                           const std::vector<sema::SemaDiagnostic>& list) {
  std::vector<qdbuild::Diagnostic> out;
  out.reserve(list.size());
  for (const sema::SemaDiagnostic& d : list) {
    out.push_back(to_public(a, d));
  }
  return out;
}

qdbuild::Diagnostic to_public(const sema::ConfigError& e) {
  syntax::Diagnostic d;
  d.code = "QD112";
  d.line = e.line;
  d.col = e.col;
  d.message = e.message;
  qdbuild::Diagnostic out;
  out.file = e.path;
  out.line = e.line;
  out.col = e.col + 1;
  out.end_line = e.line;
  out.end_col = e.col + 1;
  out.severity = "error";
  out.code = "QD112";
  out.message = e.message;
  out.text = syntax::render_diagnostic(d, e.path, nullptr);
  return out;
}

}  // namespace qd::api
