#include "api/sources.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "api/paths.hpp"
#include "sema/instance_record.hpp"

namespace qd::api {

namespace fs = std::filesystem;
using qdbuild::Exit;

Sources resolve_sources(const std::vector<std::string>& paths, const std::string& root,
                        const std::vector<std::string>& instance_files,
                        const qdbuild::Project& project) {
  Sources out;
  out.root = root;
  if (!paths.empty()) {
    out.paths = paths;
    return out;
  }
  if (!project.config.empty()) {
    for (const std::string& p : project.paths) {
      out.paths.push_back(display_path(p));
    }
    return out;
  }
  // The records' own sources: each recorded module's file, under its import root.
  std::vector<qd::sema::RecordedModule> modules;
  for (const std::string& f : instance_files) {
    std::string error;
    if (!qd::sema::read_record_modules(f, modules, error)) {
      out.error = "cannot use the instance file: " + error;
      out.exit = Exit::input_error;
      return out;
    }
  }
  if (modules.empty()) {
    out.error = instance_files.empty()
                    ? "no PATH given and no project found: name the files or directories, or "
                      "give them as `paths` in [tool.qdbuild] of a pyproject.toml (or in a "
                      "qdbuild.toml) in this directory or one above it, or record the app "
                      "(--instances)"
                    : "no PATH given, no project found, and the records name no module files (a "
                      "record written by qdrt 0.1 names them: record the app again, or name the "
                      "files or directories)";
    out.exit = Exit::usage;
    return out;
  }
  std::set<std::string> files;
  std::vector<std::string> roots;
  for (const qd::sema::RecordedModule& m : modules) {
    std::error_code ec;
    if (!fs::is_regular_file(m.file, ec)) {
      out.error = "the records name '" + m.file + "' for module '" + m.module +
                  "', which does not exist (the tree moved? name its files or directories, "
                  "with --root)";
      out.exit = Exit::input_error;
      return out;
    }
    files.insert(m.file);
    if (std::find(roots.begin(), roots.end(), m.root) == roots.end()) {
      roots.push_back(m.root);
    }
  }
  out.paths.assign(files.begin(), files.end());
  for (const std::string& r : roots) {
    out.root += (out.root.empty() ? "" : ":") + r;
  }
  out.from_records = true;
  return out;
}

Selection select_sources(const std::vector<std::string>& paths, const std::string& root,
                         const std::vector<std::string>& instance_files, bool use_project,
                         bool needs_project) {
  Selection out;
  if (use_project) {
    out.project = qdbuild::find_project(".");
  }
  if (needs_project && !out.project.errors.empty()) {
    out.config_errors = out.project.errors;
    out.exit = Exit::input_error;
    return out;
  }
  out.sources = resolve_sources(paths, root, instance_files, out.project);
  out.exit = out.sources.exit;
  out.error = out.sources.error;
  return out;
}

}  // namespace qd::api
