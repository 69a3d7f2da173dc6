#include "lsp/workspace.hpp"

#include <chrono>
#include <filesystem>

#include "api/explain_text.hpp"
#include "api/paths.hpp"
#include "api/sources.hpp"
#include "lsp/text_position.hpp"
#include "qdbuild/project.hpp"
#include "sema/call_graph.hpp"
#include "support/file_io.hpp"
#include "syntax/diagnostic_render.hpp"

namespace qd::lsp {

namespace fs = std::filesystem;

namespace {

std::string severity_name(syntax::Severity s) {
  switch (s) {
    case syntax::Severity::Error: return "error";
    case syntax::Severity::Warning: return "warning";
    default: return "note";
  }
}

bool inside(const sema::SourceSpan& s, Point at) {
  int64_t line = at.line + 1;
  if (line < s.line || line > (s.end_line > 0 ? s.end_line : s.line)) {
    return false;
  }
  if (line == s.line && at.col < s.col) {
    return false;
  }
  int64_t end_col = s.end_line > 0 ? s.end_col : s.col;
  return !(line == (s.end_line > 0 ? s.end_line : s.line) && at.col > end_col);
}

Span span_of(const std::string& path, const sema::SourceSpan& s) {
  Span out{path, {s.line - 1, s.col}, {(s.end_line > 0 ? s.end_line : s.line) - 1, s.end_col}};
  if (s.end_line <= 0) {
    out.end.col = s.col;
  }
  return out;
}

}  // namespace

Workspace::Workspace(WorkspaceOptions options) : m_options(std::move(options)) {}
Workspace::~Workspace() = default;

std::string Workspace::absolute(const std::string& path) const {
  fs::path p(path);
  if (p.is_relative()) {
    p = fs::path(m_options.folder) / p;
  }
  return p.lexically_normal().string();
}

bool Workspace::contains(const std::string& path) const {
  std::string rel = fs::path(path).lexically_normal().lexically_relative(m_options.folder).string();
  return !rel.empty() && rel != ".." && !rel.starts_with("../") && fs::path(path).is_absolute();
}

void Workspace::open(const std::string& path, std::string text) {
  m_cache.set_overlay(path, text);
  m_documents[path] = std::move(text);
}

void Workspace::update(const std::string& path, std::string text) { open(path, std::move(text)); }

void Workspace::close(const std::string& path) {
  m_cache.clear_overlay(path);
  m_documents.erase(path);
}

const std::string* Workspace::document(const std::string& path) const {
  auto it = m_documents.find(path);
  return it == m_documents.end() ? nullptr : &it->second;
}

void Workspace::analyze() {
  auto t0 = std::chrono::steady_clock::now();
  m_diagnostics.clear();
  m_tool_errors.clear();
  // The sources as `qdbuild check` selects them in the folder; without a project or records,
  // the folder itself.
  api::Selection sel = api::select_sources(m_options.paths, m_options.root,
                                           m_options.instance_files, true, m_options.paths.empty());
  for (const qdbuild::Diagnostic& d : sel.config_errors) {
    FileDiagnostic fd;
    int64_t line = std::max(1, d.line) - 1;
    fd.span = {absolute(d.file), {line, 0}, {line, 0}};
    fd.severity = d.severity;
    fd.code = d.code;
    fd.message = d.message;
    m_diagnostics[fd.span.path].push_back(std::move(fd));
  }
  if (!sel.config_errors.empty()) {
    m_previous = std::move(m_analysis);
    return;
  }
  api::Sources sources = sel.sources;
  if (sel.exit == qdbuild::Exit::usage && m_options.paths.empty()) {
    sources = api::Sources();  // no project, no records: the folder is the tree
    sources.paths = {"."};
    sources.root = m_options.root;
  } else if (sel.exit != qdbuild::Exit::ok) {
    m_tool_errors.push_back(sel.error);
    m_previous = std::move(m_analysis);
    return;
  }
  m_paths = sources.paths;
  m_analysis_options = sema::AnalysisOptions{.jobs = 0,
                                             .target = m_options.target,
                                             .parse_only = false,
                                             .print_non_pure = false,
                                             .keys = false,
                                             .config_dir = "",
                                             .root = sources.root,
                                             .follow_imports = sources.from_records,
                                             .instance_files = m_options.instance_files,
                                             .exclude = api::project_excludes(sel.project),
                                             .parse_cache = &m_cache,
                                             .record_cache = &m_records};
  run_analysis(false);
  m_tool_errors = m_analysis->tool_errors;
  collect_diagnostics();
  m_analysis_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void Workspace::run_analysis(bool keys) {
  m_analysis_options.keys = keys;
  size_t misses = m_cache.misses();
  m_previous = std::move(m_analysis);
  m_analysis = std::make_unique<sema::Analysis>(sema::analyze(m_paths, m_analysis_options));
  m_keyed = keys;
  m_reparsed = m_cache.misses() - misses;
  std::vector<std::string> kept;
  m_module_of.clear();
  for (size_t i = 0; i < m_analysis->program->modules.size(); ++i) {
    const sema::ModuleInfo& m = m_analysis->program->modules[i];
    kept.push_back(m.path);
    m_module_of[absolute(m.path)] = i;
  }
  m_cache.retain(kept);
}

std::string Workspace::def_path(sema::DefId d) const {
  return absolute(m_analysis->program->module_of(d).path);
}

Span Workspace::name_span(sema::DefId d) const {
  const sema::DefInfo& info = m_analysis->program->defs[d];
  std::string path = def_path(d);
  std::string line = line_text(path, info.line - 1);
  std::string name = info.name();
  size_t at = line.find(name, static_cast<size_t>(std::max(0, info.col)));
  int64_t col = at == std::string::npos ? info.col : static_cast<int64_t>(at);
  return {path, {info.line - 1, col}, {info.line - 1, col + static_cast<int64_t>(name.size())}};
}

void Workspace::collect_diagnostics() {
  const sema::Analysis& a = *m_analysis;
  const sema::Program& p = *a.program;
  for (const sema::SemaDiagnostic& sd : a.diagnostics) {
    FileDiagnostic fd;
    std::string path =
        sd.module != sema::k_none ? absolute(p.modules[sd.module].path) : absolute(sd.path);
    const syntax::Diagnostic& d = sd.d;
    int64_t line = std::max(1, d.line) - 1;
    int64_t end_line = d.end_line > 0 ? d.end_line - 1 : line;
    int64_t end_col = d.end_line > 0 ? d.end_col : d.col;
    fd.span = {path, {line, d.col}, {end_line, end_col}};
    fd.severity = severity_name(d.severity);
    fd.code = d.code;
    fd.message = syntax::valid_utf8(d.message);
    fd.kernel = sd.kernel;
    // A problem inside a func that a kernel reaches: the calls from the kernel to it.
    if (!sd.kernel.empty() && sd.module != sema::k_none) {
      for (const sema::KernelReport& k : a.kernels) {
        if (k.id != sd.kernel) {
          continue;
        }
        for (size_t i = 1; i < k.reached.size(); ++i) {
          const sema::DefInfo& info = p.defs[k.reached[i].def];
          if (info.module != sd.module || d.line < info.first_line || d.line > info.end_line) {
            continue;
          }
          std::vector<Related> chain;
          for (size_t j = i; k.reached[j].parent >= 0; j = k.reached[j].parent) {
            const sema::ReachedDef& r = k.reached[j];
            sema::DefId parent = k.reached[r.parent].def;
            chain.push_back({span_of(def_path(parent), r.span),
                             "'" + p.def_id(parent) + "' calls '" + p.def_id(r.def) + "' here"});
          }
          fd.related.assign(chain.rbegin(), chain.rend());
          fd.related.insert(fd.related.begin(),
                            {name_span(k.def), "in kernel '" + k.id + "' (reached via " +
                                                   sema::call_path(p, k.reached, i) + ")"});
          break;
        }
        break;
      }
    }
    m_diagnostics[path].push_back(std::move(fd));
  }
}

std::string Workspace::line_text(const std::string& path, int64_t line) const {
  if (const std::string* doc = document(path)) {
    return std::string(line_of(*doc, line));
  }
  if (m_analysis) {
    auto it = m_module_of.find(path);
    if (it != m_module_of.end()) {
      const sema::ModuleInfo& m = m_analysis->program->modules[it->second];
      if (m.parsed) {
        return std::string(m.parsed->source.line_text(static_cast<int32_t>(line + 1)));
      }
    }
  }
  std::string bytes;
  std::string error;
  if (support::read_file(path, bytes, error)) {
    return std::string(line_of(bytes, line));
  }
  return "";
}

std::optional<Workspace::Hover> Workspace::hover(const std::string& path, Point at) {
  if (!m_analysis) {
    return std::nullopt;
  }
  if (!m_keyed) {
    run_analysis(true);  // the same sources and buffers, with every kernel's key
    m_previous.reset();
  }
  const sema::Analysis& a = *m_analysis;
  const sema::Program& p = *a.program;
  // The def whose name is at `at`, or the def called at `at`.
  sema::DefId target = sema::k_none;
  Span span;
  for (sema::DefId d = 0; d < static_cast<sema::DefId>(p.defs.size()); ++d) {
    const sema::DefInfo& info = p.defs[d];
    if (info.decorator.empty() || info.line - 1 != at.line || def_path(d) != path) {
      continue;
    }
    Span s = name_span(d);
    if (at.col >= s.start.col && at.col <= s.end.col) {
      target = d;
      span = s;
      break;
    }
  }
  for (size_t n = 0; n < a.kernels.size() && target == sema::k_none; ++n) {
    const sema::KernelReport& k = a.kernels[n];
    for (size_t i = 1; i < k.reached.size() && target == sema::k_none; ++i) {
      const sema::ReachedDef& r = k.reached[i];
      if (r.parent >= 0 && inside(r.span, at) && def_path(k.reached[r.parent].def) == path) {
        target = r.def;
        span = span_of(path, r.span);
      }
    }
  }
  if (target == sema::k_none) {
    return std::nullopt;
  }
  for (const sema::KernelReport& k : a.kernels) {
    if (k.def == target) {
      return Hover{"```text\n" + api::explain_text(a, k, true) + "```\n", span};
    }
  }
  // A func: what it is and the kernels that reach it.
  const sema::DefInfo& info = p.defs[target];
  std::string md = "**" + info.decorator + "** `" + p.def_id(target) + "`\n\n";
  std::string reached;
  for (const sema::KernelReport& k : a.kernels) {
    for (size_t i = 1; i < k.reached.size(); ++i) {
      if (k.reached[i].def == target) {
        reached += "- `" + k.id + "` via " + sema::call_path(p, k.reached, i) + " (" +
                   (k.marked ? (k.eligible ? "fastcache" : "marked fastcache, not eligible")
                             : "not fastcache") +
                   ")\n";
        break;
      }
    }
  }
  md += reached.empty() ? "No kernel reaches it.\n" : "Reached by:\n" + reached;
  return Hover{md, span};
}

std::optional<Span> Workspace::definition(const std::string& path, Point at) const {
  if (!m_analysis) {
    return std::nullopt;
  }
  const sema::Analysis& a = *m_analysis;
  for (const sema::KernelReport& k : a.kernels) {
    for (size_t i = 1; i < k.reached.size(); ++i) {
      const sema::ReachedDef& r = k.reached[i];
      if (r.parent >= 0 && inside(r.span, at) && def_path(k.reached[r.parent].def) == path) {
        return name_span(r.def);
      }
    }
  }
  return std::nullopt;
}

}  // namespace qd::lsp
