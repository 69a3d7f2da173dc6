#include "ir/passes/temporaries.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace qd::ir::passes {

namespace {

void collect(const Stmt& s, std::set<int32_t>& out) {
  for_each_expr(s, [&](const Expr* e) {
    walk_expr(e, [&](const Expr& x) {
      if (x.kind == ExprKind::var) {
        out.insert(x.index);
      }
    });
  });
  for (int32_t v : {s.var, s.target_var}) {
    if (v >= 0) {
      out.insert(v);
    }
  }
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h = (h ^ c) * 1099511628211ull;
  }
  return h;
}

}  // namespace

std::vector<std::vector<int32_t>> vars_per_task(const Kernel& k) {
  std::vector<std::vector<int32_t>> out;
  for (const Task& t : k.tasks) {
    std::set<int32_t> used;
    if (t.range) {
      collect(*t.loop, used);
      walk_stmts(t.loop->body, [&](const Stmt& s) { collect(s, used); });
    } else {
      walk_stmts(t.body, [&](const Stmt& s) { collect(s, used); });
    }
    out.emplace_back(used.begin(), used.end());
  }
  return out;
}

void assign_temporaries(Kernel& k) {
  k.temp_offset.assign(k.vars.size(), -1);
  k.temps_size = 0;
  std::vector<std::vector<int32_t>> per_task = vars_per_task(k);
  std::vector<int32_t> count(k.vars.size(), 0);
  for (const auto& vars : per_task) {
    for (int32_t v : vars) {
      ++count[v];
    }
  }
  // The statement that declares each variable (for the key of unnamed ones).
  std::vector<std::string> decl_text(k.vars.size());
  walk_stmts(k.body, [&](const Stmt& s) {
    if (s.decl && s.var >= 0 && decl_text[s.var].empty()) {
      decl_text[s.var] = s.text;
    }
  });
  std::vector<std::pair<std::string, int32_t>> keyed;
  std::map<std::string, int32_t> ordinal;
  for (size_t v = 0; v < k.vars.size(); ++v) {
    if (count[v] < 2) {
      continue;
    }
    std::string base = k.vars[v].name.empty() ? "$" + decl_text[v] : k.vars[v].name;
    base += std::string(":") + name_of(k.vars[v].type);
    int32_t n = ordinal[base]++;
    keyed.emplace_back(base + "#" + std::to_string(n), static_cast<int32_t>(v));
  }
  if (keyed.empty()) {
    return;
  }
  std::sort(keyed.begin(), keyed.end());
  size_t slots = 16;
  while (slots < 2 * keyed.size()) {
    slots *= 2;
  }
  std::vector<bool> taken(slots, false);
  for (const auto& [key, v] : keyed) {
    size_t s = fnv1a(key) % slots;
    while (taken[s]) {
      s = (s + 1) % slots;
    }
    taken[s] = true;
    k.temp_offset[v] = static_cast<int32_t>(s * 8);
  }
  k.temps_size = slots * 8;
}

}  // namespace qd::ir::passes
