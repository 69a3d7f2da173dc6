// Paths as the command line shows them (internal to src/api).
#pragma once

#include <string>
#include <vector>

#include "qdbuild/project.hpp"

namespace qd::api {

// `path` relative to the working directory when it is under it ("." for the directory itself),
// else absolute and lexically normal: what a user would have typed.
std::string display_path(const std::string& path);

// The project's build directory (build/ beside its config; ./build without a project): never a
// source, never watched.
std::string build_dir(const qdbuild::Project& project);

// What a walk of the sources leaves out, as a build resolves it (qdbuild::resolve): the build
// directory and the default store. For scan and check, which have no store of their own.
std::vector<std::string> project_excludes(const qdbuild::Project& project);
std::vector<std::string> project_excludes();  // of find_project(".")

}  // namespace qd::api
