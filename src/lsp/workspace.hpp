// What `qdbuild lsp` knows about one workspace folder: the sources `qdbuild check` would analyse
// there (the project's paths, the records' files, or the folder itself), the documents the editor
// has open (their unsaved text stands for the files: sema::ParseCache overlays), and the last
// analysis, from which it answers diagnostics, hover and go-to-definition.
//
// An analysis after an edit re-parses only the edited buffers (every other file's parse is
// cached, and every unchanged record's read) and re-runs the analysis proper over the whole
// tree, so a func edited in one file re-checks every kernel that reaches it, in any file.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sema/analysis.hpp"
#include "sema/parse_cache.hpp"
#include "sema/record_cache.hpp"

namespace qd::lsp {

struct WorkspaceOptions {
  std::string folder;                       // absolute; the server works from here
  std::vector<std::string> paths;           // "" = as `qdbuild check` without PATH
  std::string root;                         // --root
  std::vector<std::string> instance_files;  // --instances
  std::string target;                       // --target ("" = the config's)
};

// A position in a file: 0-based line, 0-based UTF-8 byte column.
struct Point {
  int64_t line = 0;
  int64_t col = 0;
};

struct Span {
  std::string path;  // absolute
  Point start;
  Point end;
};

struct Related {
  Span where;
  std::string message;
};

struct FileDiagnostic {
  Span span;
  std::string severity;  // "error", "warning", "note"
  std::string code;
  std::string message;
  std::string kernel;
  std::vector<Related> related;  // the call path from the kernel, for a problem in a func
};

class Workspace {
public:
  explicit Workspace(WorkspaceOptions options);
  ~Workspace();

  const WorkspaceOptions& options() const { return m_options; }
  // Whether `path` (absolute) is inside the workspace folder.
  bool contains(const std::string& path) const;

  void open(const std::string& path, std::string text);
  void update(const std::string& path, std::string text);
  void close(const std::string& path);
  const std::string* document(const std::string& path) const;  // nullptr when not open

  // Analyses the sources with the open documents' text, as `qdbuild check` does (no kernel
  // keys: a hover computes them). Problems that stop the analysis (the project's config, a
  // record) come back as diagnostics too.
  void analyze();
  // Frees the analysis the last analyze() replaced: called once the results are sent, so the
  // client does not wait for it. (On a thread of its own it competed with the next analysis
  // for the cores and made edits slower: measured with scripts/bench/lsp_bench.py.)
  void release_previous() { m_previous.reset(); }
  double last_analysis_ms() const { return m_analysis_ms; }
  size_t last_reparsed() const { return m_reparsed; }

  // By absolute path: every file with diagnostics in the last analysis.
  const std::map<std::string, std::vector<FileDiagnostic>>& diagnostics() const {
    return m_diagnostics;
  }
  // Tool errors of the last analysis (a path that cannot be read, a bad record).
  const std::vector<std::string>& tool_errors() const { return m_tool_errors; }

  // Markdown for the kernel or func named at `at` (its def, or a call of it), with the span of
  // the name; nullopt when there is none there.
  struct Hover {
    std::string markdown;
    Span span;
  };
  // The first hover after an edit analyses again with kernel keys.
  std::optional<Hover> hover(const std::string& path, Point at);
  // Where the func or kernel called or named at `at` is defined.
  std::optional<Span> definition(const std::string& path, Point at) const;

  // The text of 0-based `line` of `path`: the open document's, else the analysed file's.
  std::string line_text(const std::string& path, int64_t line) const;

private:
  std::string absolute(const std::string& path) const;  // a walk's path, made absolute
  std::string def_path(sema::DefId d) const;
  Span name_span(sema::DefId d) const;
  void collect_diagnostics();
  void run_analysis(bool keys);

  WorkspaceOptions m_options;
  std::map<std::string, std::string> m_documents;
  sema::ParseCache m_cache;
  sema::RecordCache m_records;
  std::unique_ptr<sema::Analysis> m_analysis;
  std::unique_ptr<sema::Analysis> m_previous;
  std::map<std::string, size_t> m_module_of;  // absolute path -> m_analysis's module index
  bool m_keyed = false;                       // m_analysis has kernel keys
  // The selection of the last analyze(): what a keyed analysis for a hover runs on.
  std::vector<std::string> m_paths;
  sema::AnalysisOptions m_analysis_options;
  std::map<std::string, std::vector<FileDiagnostic>> m_diagnostics;
  std::vector<std::string> m_tool_errors;
  double m_analysis_ms = 0;
  size_t m_reparsed = 0;
};

}  // namespace qd::lsp
