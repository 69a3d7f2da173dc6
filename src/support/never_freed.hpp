// Objects deliberately never destroyed (an analysis with every AST: freeing it at exit costs time
// and changes nothing). They are registered in a list reachable from a global, so leak checkers
// (LeakSanitizer under scripts/sanitize.sh) see them as live, not as leaks: before, whether a
// stale copy of the pointer happened to remain on the stack decided it.
#pragma once

#include <mutex>
#include <vector>

namespace qd::support {

template <class T> T* never_freed(T* object) {
  static std::mutex* mutex = new std::mutex();
  static std::vector<const void*>* kept = new std::vector<const void*>();
  std::lock_guard<std::mutex> lock(*mutex);
  kept->push_back(object);
  return object;
}

}  // namespace qd::support
