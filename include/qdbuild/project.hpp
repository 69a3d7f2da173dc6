// A project: the `[tool.qdbuild]` table of a pyproject.toml, or a qdbuild.toml, found by walking
// up from a directory (docs/build.md "Project configuration"). Its `paths`, `store` and
// `targets` are what `qdbuild build` builds when the command line names none of them.
#pragma once

#include <string>
#include <vector>

#include "qdbuild/diagnostic.hpp"

namespace qdbuild {

struct Project {
  std::string config;  // the config file, absolute; "" when none was found
  std::string dir;     // its directory, absolute ("" when none was found)
  // `paths` (default: `dir`), `store` ("" when not given): absolute paths, written relative to
  // the config file. `targets` as written (empty when not given).
  std::vector<std::string> paths;
  std::string store;
  std::vector<std::string> targets;
  // Problems with the file or with these keys (code QD112). Other keys' problems are reported by
  // the build or check that reads them.
  std::vector<Diagnostic> errors;
};

// Looks for qdbuild.toml, then a pyproject.toml that has a [tool.qdbuild] table, in `start_dir`
// and each directory above it; the first found is the project.
Project find_project(const std::string& start_dir = ".");

// The store a build uses when --store is not given: $QDBUILD_STORE, else the project's `store`,
// else build/qdstore in the project's directory (in the working directory without a project),
// as the command line shows it. `qdbuild store` defaults to it too.
std::string default_store(const Project& project);

}  // namespace qdbuild
