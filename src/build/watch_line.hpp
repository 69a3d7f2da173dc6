// The one line `qdbuild build --watch` prints per rebuild (docs/build.md "Watch mode"):
//
//   src/physics/sph.py: density 1/5 tasks rebuilt (38 ms); 0 errors
//   src/physics/sph.py: density, pressure 2/12 tasks rebuilt (61 ms); 0 errors
//   3 files: 4 kernels 2/30 tasks rebuilt (120 ms); 0 errors
//   src/physics/sph.py: no kernel changed (4 ms); 0 errors
//   src/old.py deleted: 2 kernels removed (6 ms); 0 errors
//   src/physics/sph.py: 1 kernel failed, previous build kept (5 ms); 2 errors
//
// Files: the one changed path (" deleted" when it is gone), else "N files". Kernels: the
// qualnames of the lowered kernels (up to three, else "N kernels"), then compiled/lowered units.
#pragma once

#include <string>

#include "build/builder.hpp"
#include "build/watcher.hpp"

namespace qd::build {

std::string watch_line(const WatchBatch& batch, const BuildResult& r);

}  // namespace qd::build
