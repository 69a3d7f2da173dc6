#include "sema/call_graph.hpp"

#include <deque>
#include <unordered_map>

namespace qd::sema {

std::vector<ReachedDef> reachable(const Program& p, const std::vector<BodyRefs>& refs,
                                  const std::vector<DefId>& roots) {
  std::vector<ReachedDef> out;
  std::unordered_map<DefId, size_t> seen;
  std::deque<size_t> queue;
  for (DefId r : roots) {
    if (r == k_none || seen.contains(r)) {
      continue;
    }
    seen.emplace(r, out.size());
    queue.push_back(out.size());
    out.push_back({r, -1, {}});
  }
  while (!queue.empty()) {
    size_t at = queue.front();
    queue.pop_front();
    DefId d = out[at].def;
    for (const CalleeRef& c : refs[d].callees) {
      if (c.def == k_none || seen.contains(c.def)) {
        continue;
      }
      seen.emplace(c.def, out.size());
      queue.push_back(out.size());
      out.push_back({c.def, static_cast<int32_t>(at), c.span});
    }
  }
  return out;
}

std::string call_path(const Program& p, const std::vector<ReachedDef>& reached, size_t index) {
  std::vector<std::string> parts;
  for (int32_t i = static_cast<int32_t>(index); i >= 0; i = reached[i].parent) {
    parts.push_back(p.def_id(reached[i].def));
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    out += (out.empty() ? "" : " -> ") + *it;
  }
  return out;
}

}  // namespace qd::sema
