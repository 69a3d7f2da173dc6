// Checking kernels without building them: `qdbuild check` as a function (README "Commands",
// docs/diagnostics.md): parameter types, reachable funcs, fastcache purity, kernel keys.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qdbuild/diagnostic.hpp"

namespace qdbuild {

enum class Format { text, json, sarif, github };

// "text", "json", "sarif", "github"; false for anything else.
bool parse_format(const std::string& name, Format& out);

struct CheckOptions {
  std::vector<std::string> paths;  // empty: the project's `paths` (as BuildOptions)
  std::string root;
  std::vector<std::string> instance_files;
  std::string target;  // cpu, cuda, cuda:sm_XX for the keys; "" the config's arch
  unsigned jobs = 0;
  bool print_non_pure = false;  // QD115 notes for kernels not marked fastcache
  bool keys = false;            // compute every kernel key too
  bool parse_only = false;      // only read and parse the files (a benchmark's baseline)
  Format format = Format::text;
};

struct CheckResult {
  Exit exit = Exit::ok;  // input_error when any error (or a path cannot be read)
  size_t files = 0;
  size_t kernels = 0;
  size_t marked = 0;  // kernels marked for fastcache
  size_t errors = 0;
  size_t warnings = 0;
  std::vector<Diagnostic> diagnostics;
  std::vector<std::string> tool_errors;  // "cannot access 'x': ..." (the command: on stderr)
  // What `qdbuild check --format F` prints on stdout (text: code frames and the summary line
  // "qdbuild check: 3 files, 5 kernels (2 marked fastcache), 0 errors, 1 warning").
  std::string output;
};

CheckResult check(const CheckOptions& options);

}  // namespace qdbuild
