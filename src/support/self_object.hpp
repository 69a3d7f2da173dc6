// The file that holds qdbuild's own code: the qdbuild executable, or libqdbuild.so when an
// application embeds the builder (include/qdbuild). The compiler identity of a build
// (build/builder.cpp) and the place the backend plugin is looked for (backend/plugin.hpp) both
// follow it, so an embedding app and the command line from one installation are one compiler.
#pragma once

#include <string>

namespace qd::support {

// Absolute path of the ELF object (executable or shared library) this function is linked into;
// /proc/self/exe's target for the executable. "" when it cannot be found.
std::string self_object_path();

}  // namespace qd::support
