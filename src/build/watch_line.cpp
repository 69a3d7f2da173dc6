#include "build/watch_line.hpp"

#include <algorithm>
#include <cstdio>

namespace qd::build {

namespace {

std::string count(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string qualname(const std::string& id) {
  size_t colon = id.find(':');
  return colon == std::string::npos ? id : id.substr(colon + 1);
}

}  // namespace

std::string watch_line(const WatchBatch& batch, const BuildResult& r) {
  std::string line;
  if (batch.rescan) {
    line = "rescan";
  } else if (batch.changed.size() == 1) {
    const std::string& p = *batch.changed.begin();
    line = p + (batch.deleted.count(p) != 0 ? " deleted" : "");
  } else {
    line = count(batch.changed.size(), "file", "files");
  }
  line += ": ";
  std::vector<std::string> parts;
  std::vector<std::string> built;
  for (const std::string& id : r.lowered) {
    if (std::find(r.failed.begin(), r.failed.end(), id) == r.failed.end()) {
      built.push_back(id);
    }
  }
  if (!built.empty()) {
    std::string kernels;
    if (built.size() <= 3) {
      for (const std::string& id : built) {
        kernels += (kernels.empty() ? "" : ", ") + qualname(id);
      }
    } else {
      kernels = count(built.size(), "kernel", "kernels");
    }
    parts.push_back(kernels + " " + std::to_string(r.tasks.compiled) + "/" +
                    std::to_string(r.lowered_tasks) + " tasks rebuilt");
  }
  if (!r.removed.empty()) {
    parts.push_back(count(r.removed.size(), "kernel", "kernels") + " removed");
  }
  if (!r.failed.empty()) {
    parts.push_back(count(r.failed.size(), "kernel", "kernels") + " failed, previous build kept");
  }
  if (parts.empty()) {
    parts.push_back("no kernel changed");
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    line += (i == 0 ? "" : ", ") + parts[i];
  }
  char tail[64];
  std::snprintf(tail, sizeof tail, " (%.0f ms); ", r.time_s * 1000);
  return line + tail + count(r.errors, "error", "errors");
}

}  // namespace qd::build
