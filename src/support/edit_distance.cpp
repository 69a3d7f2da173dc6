#include "support/edit_distance.hpp"

#include <algorithm>
#include <vector>

namespace qd::support {

size_t edit_distance(std::string_view a, std::string_view b, size_t max_distance) {
  // One row of the dynamic-programming table at a time.
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    size_t best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({substitute, above + 1, row[j - 1] + 1});
      diagonal = above;
      best = std::min(best, row[j]);
    }
    if (max_distance != 0 && best > max_distance) {
      return max_distance + 1;
    }
  }
  return row[b.size()];
}

std::string_view closest(std::string_view name,
                         std::initializer_list<std::string_view> candidates) {
  std::string_view best;
  size_t best_distance = 0;
  for (std::string_view candidate : candidates) {
    size_t limit = std::max<size_t>(2, std::max(name.size(), candidate.size()) / 3);
    size_t d = edit_distance(name, candidate, limit);
    if (d <= limit && (best.empty() || d < best_distance)) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace qd::support
