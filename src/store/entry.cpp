#include "store/entry.hpp"

#include <algorithm>

namespace qd::store {

std::vector<ObjectId> referenced_objects(const Entry& entry) {
  std::vector<ObjectId> out;
  if (entry.record.module) {
    out.push_back(*entry.record.module);
  }
  for (const Task& t : entry.record.tasks) {
    if (t.code) {
      out.push_back(*t.code);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<Entry> merge_entries(std::vector<Entry> base, std::vector<Entry> incoming) {
  // Within one side, the last of equal keys wins (a later put replaces an earlier one).
  auto dedupe = [](std::vector<Entry>& v) {
    std::vector<size_t> order(v.size());
    for (size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
    }
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return v[a].key < v[b].key || (v[a].key == v[b].key && a < b);
    });
    std::vector<Entry> out;
    out.reserve(v.size());
    for (size_t i : order) {
      if (!out.empty() && out.back().key == v[i].key) {
        out.back() = std::move(v[i]);
      } else {
        out.push_back(std::move(v[i]));
      }
    }
    v = std::move(out);
  };
  dedupe(base);
  dedupe(incoming);
  std::vector<Entry> out;
  out.reserve(base.size() + incoming.size());
  size_t i = 0;
  size_t j = 0;
  while (i < base.size() || j < incoming.size()) {
    if (j == incoming.size() || (i < base.size() && base[i].key < incoming[j].key)) {
      out.push_back(std::move(base[i++]));
    } else if (i == base.size() || incoming[j].key < base[i].key) {
      out.push_back(std::move(incoming[j++]));
    } else {
      bool base_newer = base[i].record.last_used > incoming[j].record.last_used;
      out.push_back(std::move(base_newer ? base[i] : incoming[j]));
      ++i;
      ++j;
    }
  }
  return out;
}

}  // namespace qd::store
