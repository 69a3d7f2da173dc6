// Paths as the command line shows them (internal to src/api).
#pragma once

#include <string>
#include <vector>

namespace qd::api {

// `path` relative to the working directory when it is under it ("." for the directory itself),
// else absolute and lexically normal: what a user would have typed.
std::string display_path(const std::string& path);

// What a walk of the sources leaves out, as a build from the working directory resolves it
// (qdbuild::resolve): the build directory and the store. For scan and check, which have no
// store of their own.
std::vector<std::string> project_excludes();

}  // namespace qd::api
