// `qdbuild store verify`: every object (header, content checksum, SHA-256 against its address),
// the index (structure and checksum) and every reference from the index to an object.
#pragma once

#include <string>
#include <vector>

#include "store/backend.hpp"

namespace qd::store {

struct VerifyReport {
  std::vector<std::string> damage;  // one sentence per damaged or missing file, naming it
  std::vector<std::string> notes;   // not damage: stray files, temp files of running writers
  size_t objects_checked = 0;
  size_t entries_checked = 0;

  bool clean() const { return damage.empty(); }
};

// Checks the store with `threads` threads (0: all CPUs). Never modifies anything.
VerifyReport verify_store(Backend& store, unsigned threads = 0);

}  // namespace qd::store
