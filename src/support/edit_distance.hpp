// Levenshtein distance for "did you mean" suggestions (ninja's src/edit_distance.cc).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>

namespace qd::support {

// Insertions, deletions and substitutions turning `a` into `b`. Stops early and returns
// max_distance + 1 once every path exceeds max_distance (0 means no limit).
size_t edit_distance(std::string_view a, std::string_view b, size_t max_distance = 0);

// The candidate closest to `name`, allowing about one edit in three characters and always two
// ("sacn" -> "scan"); "" when none is that close.
std::string_view closest(std::string_view name, std::initializer_list<std::string_view> candidates);

}  // namespace qd::support
