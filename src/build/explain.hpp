// -d explain (ninja's explanations): why a kernel instance is lowered again. The kernel key's
// components (sema/kernel_key.hpp) are logged per instance, so a changed key is explained by the
// components that differ: "source of 'm:f' changed", "'m:g' is newly reached", "signature
// changed", ...
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace qd::build {

using Components = std::vector<std::pair<std::string, std::string>>;  // (tag, hash)

// The differences from `before` to `after`, one phrase each, in `after`'s order then removals.
std::vector<std::string> diff_components(const Components& before, const Components& after);

// "kernel key changed: source of 'm:f' changed, signature changed"
std::string explain_key_change(const Components& before, const Components& after);

}  // namespace qd::build
