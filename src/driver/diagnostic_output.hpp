// Printing sema diagnostics in the formats of `qdbuild check --format`: text (code frames),
// json (DESIGN.md's object), sarif (SARIF 2.1.0) and github (workflow commands).
#pragma once

#include <string>
#include <vector>

#include "sema/analysis.hpp"

namespace qd::driver {

enum class DiagnosticFormat { text, json, sarif, github };

bool parse_diagnostic_format(const std::string& name, DiagnosticFormat& out);

// The whole output for `diagnostics` in `format` (text: code frames, one after another).
std::string format_diagnostics(const sema::Analysis& a,
                               const std::vector<sema::SemaDiagnostic>& diagnostics,
                               DiagnosticFormat format);

// One diagnostic as DESIGN.md's JSON object (text).
std::string diagnostic_json_text(const sema::Analysis& a, const sema::SemaDiagnostic& d);

}  // namespace qd::driver
