// Printing sema diagnostics in the formats of `qdbuild check --format`: text (code frames),
// json (the object of `check --format json`), sarif (SARIF 2.1.0) and github (workflow commands).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qdbuild/diagnostic.hpp"
#include "sema/analysis.hpp"

namespace qd::api {

enum class DiagnosticFormat { text, json, sarif, github };

bool parse_diagnostic_format(const std::string& name, DiagnosticFormat& out);

// The whole output for `diagnostics` in `format` (text: code frames, one after another).
std::string format_diagnostics(const sema::Analysis& a,
                               const std::vector<sema::SemaDiagnostic>& diagnostics,
                               DiagnosticFormat format);

// One diagnostic as the JSON object of `check --format json`, its fields in that order.
nlohmann::ordered_json diagnostic_object(const sema::Analysis& a, const sema::SemaDiagnostic& d);

// The public form (include/qdbuild/diagnostic.hpp): the JSON fields and the rendered text.
qdbuild::Diagnostic to_public(const sema::Analysis& a, const sema::SemaDiagnostic& d);
std::vector<qdbuild::Diagnostic> to_public(const sema::Analysis& a,
                                           const std::vector<sema::SemaDiagnostic>& list);
// A configuration problem (QD112), rendered as the analysis renders config errors.
qdbuild::Diagnostic to_public(const sema::ConfigError& e);

}  // namespace qd::api
