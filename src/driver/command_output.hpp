// How check and explain end: their tool errors on stderr ("qdbuild: error: ..."), their output
// on stdout, and the API's exit status as the command's.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "driver/exit_status.hpp"
#include "qdbuild/diagnostic.hpp"

namespace qd::driver {

inline ExitStatus print_result(const std::vector<std::string>& errors, const std::string& output,
                               qdbuild::Exit exit) {
  for (const std::string& e : errors) {
    std::fprintf(stderr, "qdbuild: error: %s\n", e.c_str());
  }
  std::fwrite(output.data(), 1, output.size(), stdout);
  std::fflush(stdout);
  return static_cast<ExitStatus>(exit);
}

}  // namespace qd::driver
