// Kernel analysis over a source tree: the one entry point `qdbuild check`, `qdbuild explain` and
// `qdbuild build` share. Parses every file in parallel, builds the module model,
// evaluates module constants, resolves every def's body, then analyzes each kernel in parallel:
// signature, reachable funcs, purity (for kernels marked fastcache=True / pure=True / @qd.pure),
// and kernel keys for each configured instance.
//
// Diagnostic codes (docs/diagnostics.md):
//   QD101 error    a fastcache kernel (or a func it reaches) captures a module-level value
//   QD102 warning  ... captures an UPPERCASE global
//   QD103 warning  ... captures a global inside qd.static(...)
//   QD104 warning  a callee that cannot be resolved statically (the kernel is not eligible)
//   QD105 error    a name that is not defined anywhere
//   QD106 warning  a field-typed parameter (the kernel is not eligible)
//   QD107 error    a kernel parameter annotation qdbuild cannot read
//   QD108 warning  a captured value that cannot be evaluated statically (not eligible)
//   QD109 warning  a compound parameter holds a qd.field member (not eligible)
//   QD110 error    a qd.ndarray captured from module scope (any kernel)
//   QD112 error    a problem in the qdbuild configuration (pyproject.toml / qdbuild.toml);
//                  a warning for instances of a kernel that is not among the files checked
//   QD113 warning  deprecated pure=True / @qd.pure
//   QD115 note     --print-non-pure: a kernel not marked fastcache=True
//   QD116 error    a module global assigned at run time, read without a recorded or defined
//                  value (runtime_globals.hpp)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sema/kernel_key.hpp"
#include "sema/parse_cache.hpp"
#include "sema/record_cache.hpp"
#include "syntax/diagnostic.hpp"

namespace qd::sema {

struct SemaDiagnostic {
  syntax::Diagnostic d;
  int32_t module = k_none;  // the Python file it points into; k_none for other files
  std::string path;         // the file when module == k_none
  std::string kernel;       // the kernel id it concerns ("" for file-level problems)
};

struct KernelReport {
  DefId def = k_none;
  std::string id;
  Signature signature;
  std::vector<ReachedDef> reached;      // [0] is the kernel
  bool marked = false;                  // fastcache=True / pure=True / @qd.pure
  bool eligible = false;                // marked, and every rule passes
  std::string verdict;                  // one line
  std::vector<std::string> reasons;     // what keeps it from fastcache
  std::vector<std::string> exemptions;  // captures that pass, and why
  std::vector<std::string> constants;   // "path = repr" entering the key
  std::vector<InstanceKey> instances;
  std::vector<SemaDiagnostic> diagnostics;
};

struct AnalysisOptions {
  unsigned jobs = 0;
  std::string target;           // "cpu", "cuda", "cuda:sm_90"; "" = the config's arch
  bool parse_only = false;      // stop after parsing (benchmark baseline)
  bool print_non_pure = false;  // QD115 notes
  bool keys = true;             // kernel keys (re-lexes every reached def; explain and build)
  std::string config_dir;       // where to look for the config ("" = the first path's root)
  std::string root;             // --root: the source root(s) module names are relative to
  // Load the modules the sources import that are under a root but not among them (a build from
  // a record's sources: analysis.cpp follow_imports()).
  bool follow_imports = false;
  std::vector<std::string> instance_files;  // --instances: recorded runs (docs/record.md)
  std::vector<std::string> exclude;         // directories the walk leaves out (sema::SourceFilter)
  // Reuse the parses of unchanged files between analyses (`qdbuild build --watch`).
  ParseCache* parse_cache = nullptr;
  // Reuse the reads of unchanged records between analyses (`qdbuild lsp`).
  RecordCache* record_cache = nullptr;
};

struct Analysis {
  std::unique_ptr<Program> program;
  BuildConfig config;
  std::string device_caps;
  std::vector<KernelReport> kernels;
  std::vector<SemaDiagnostic> diagnostics;  // all of them, in file and line order
  std::vector<std::string> tool_errors;     // "cannot access 'x': ..."
  size_t count(syntax::Severity s) const;
};

Analysis analyze(const std::vector<std::string>& paths, const AnalysisOptions& options);

// What an analysis with follow_imports can read, for a watcher: `paths`, the directory (or file)
// of each followed top-level package under each root of `root`, and a given top-level module's
// root directory (analysis.cpp build_following_imports follows exactly these).
std::vector<std::string> follow_watch_paths(const std::vector<std::string>& paths,
                                            const std::string& root);

// The recorded-run files an analysis of `paths` reads: the config's instances-from, then
// options.instance_files (a build stamps them with the sources: a new record rebuilds).
std::vector<std::string> record_files(const std::vector<std::string>& paths,
                                      const AnalysisOptions& options);

}  // namespace qd::sema
