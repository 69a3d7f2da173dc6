// find_project and resolve (include/qdbuild/project.hpp, build.hpp): the precedence of the
// command line, the environment and the project's [tool.qdbuild] table (docs/build.md "Project
// configuration").
#include "qdbuild/project.hpp"
#include "qdbuild/build.hpp"

#include <cstdlib>
#include <filesystem>

#include "api/diagnostic_output.hpp"
#include "api/paths.hpp"
#include "api/sources.hpp"
#include "build/build_target.hpp"
#include "sema/build_config.hpp"

namespace qdbuild {

namespace fs = std::filesystem;

namespace {

bool is_project_key(const std::string& key) {
  return key.empty() || key == "paths" || key == "store" || key == "targets";
}

}  // namespace

Project find_project(const std::string& start_dir) {
  Project p;
  std::string file = qd::sema::find_build_config(start_dir);
  if (file.empty()) {
    return p;
  }
  std::vector<qd::sema::ConfigError> errors;
  qd::sema::BuildConfig c = qd::sema::load_build_config(start_dir, errors);
  p.config = file;
  p.dir = fs::path(file).parent_path().string();
  p.paths = c.paths.empty() ? std::vector<std::string>{p.dir} : c.paths;
  p.store = c.store;
  p.targets = c.targets;
  for (const qd::sema::ConfigError& e : errors) {
    if (is_project_key(e.key)) {
      p.errors.push_back(qd::api::to_public(e));
    }
  }
  return p;
}

std::string default_store(const Project& project) {
  const char* env = std::getenv("QDBUILD_STORE");
  if (env != nullptr && *env != '\0') {
    return env;
  }
  if (!project.store.empty()) {
    return qd::api::display_path(project.store);
  }
  return project.config.empty() ? "build/qdstore"
                                : qd::api::display_path(project.dir + "/build/qdstore");
}

ResolvedBuild resolve(const BuildOptions& options) {
  ResolvedBuild r;
  r.options = options;
  // The project (found once), then the paths: the command line, else the project's, else the
  // records' files.
  qd::api::Selection sel = qd::api::select_sources(
      options.paths, options.root, options.instance_files, options.use_project,
      options.paths.empty() || options.store.empty() || options.targets.empty());
  const Project& project = sel.project;
  r.config = project.config;
  r.config_errors = sel.config_errors;
  if (!sel.error.empty()) {
    r.errors.push_back(sel.error);
  }
  if (sel.exit != Exit::ok) {
    r.exit = sel.exit;
    return r;
  }
  const qd::api::Sources& sources = sel.sources;
  r.paths = sources.paths;
  r.options.root = sources.root;
  r.sources_from_records = sources.from_records;
  // Store: --store, else $QDBUILD_STORE, else the project's, else build/qdstore beside the
  // config (in the working directory without one).
  r.store = !options.store.empty() ? options.store : default_store(project);
  // Targets: --target, else the project's, else cpu.
  r.targets = !options.targets.empty()   ? options.targets
              : !project.targets.empty() ? project.targets
                                         : std::vector<std::string>{"cpu"};
  for (const std::string& t : r.targets) {
    qd::build::BuildTarget parsed;
    std::string error;
    if (!qd::build::BuildTarget::parse(t, parsed, error)) {
      r.errors.push_back(error);
      r.exit = Exit::usage;
      return r;
    }
  }
  // The build directory: never a source, never watched (the store is excluded by the build).
  r.exclude.push_back(qd::api::build_dir(project));
  r.options.paths = r.paths;
  r.options.store = r.store;
  r.options.targets = r.targets;
  return r;
}

}  // namespace qdbuild

namespace qd::api {

std::string build_dir(const qdbuild::Project& project) {
  return project.config.empty() ? "build" : display_path(project.dir + "/build");
}

std::vector<std::string> project_excludes(const qdbuild::Project& project) {
  return {build_dir(project), qdbuild::default_store(project)};
}

std::vector<std::string> project_excludes() { return project_excludes(qdbuild::find_project(".")); }

}  // namespace qd::api
