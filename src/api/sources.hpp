// Which sources an analysis reads (internal to src/api): one rule for build and check
// (docs/build.md "Project configuration", docs/record.md "Sources").
#pragma once

#include <string>
#include <vector>

#include "qdbuild/build.hpp"
#include "qdbuild/project.hpp"

namespace qd::api {

struct Sources {
  qdbuild::Exit exit = qdbuild::Exit::ok;  // usage or input_error: `error` says why
  std::string error;
  std::vector<std::string> paths;  // as the command line shows them
  std::string root;                // --root, plus the records' roots when from_records
  bool from_records = false;       // the records' module files: follow their imports
};

// The PATHs given; else the project's `paths` (`project`: the one found, config "" for none);
// else, without a project, the files the records (`instance_files`) name, under their roots.
// A record that names a file that no longer exists is an input error naming it; no PATH, no
// project and no named files is a usage error.
Sources resolve_sources(const std::vector<std::string>& paths, const std::string& root,
                        const std::vector<std::string>& instance_files,
                        const qdbuild::Project& project);

// The project and the sources of one command, the project found once (build, check).
struct Selection {
  qdbuild::Exit exit = qdbuild::Exit::ok;
  std::vector<qdbuild::Diagnostic> config_errors;  // the project's QD112 errors (input_error)
  std::string error;                               // why no sources (usage or input_error)
  qdbuild::Project project;                        // config "" when none (or not looked up)
  Sources sources;
};

// find_project(".") unless `use_project` is false; its errors stop the command when
// `needs_project` (something it would give is missing); then resolve_sources.
Selection select_sources(const std::vector<std::string>& paths, const std::string& root,
                         const std::vector<std::string>& instance_files, bool use_project,
                         bool needs_project);

}  // namespace qd::api
