// Levenshtein distance for "did you mean" suggestions (ninja's src/edit_distance.cc).
#pragma once

#include <cstddef>
#include <string_view>

namespace qd::driver {

// Insertions, deletions and substitutions turning `a` into `b`. Stops early and returns
// max_distance + 1 once every path exceeds max_distance (0 means no limit).
size_t edit_distance(std::string_view a, std::string_view b, size_t max_distance = 0);

}  // namespace qd::driver
