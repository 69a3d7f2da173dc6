#include "build/explain.hpp"

#include <map>

namespace qd::build {

namespace {

std::string describe(const std::string& tag, const char* what) {
  const std::string source = "source ";
  const std::string compound = "compound ";
  if (tag.starts_with(source)) {
    std::string id = tag.substr(source.size());
    if (std::string(what) == "changed") {
      return "source of '" + id + "' changed";
    }
    return "'" + id + "' is " +
           (std::string(what) == "added" ? "newly reached" : "no longer reached");
  }
  if (tag.starts_with(compound)) {
    return "layout of compound parameter '" + tag.substr(compound.size()) + "' " + what;
  }
  if (tag == "tool") {
    return std::string("qdbuild version ") + what;
  }
  if (tag == "constants") {
    return std::string("module constants read ") + what;
  }
  if (tag == "config") {
    return std::string("codegen configuration ") + what;
  }
  if (tag == "device") {
    return std::string("device capabilities ") + what;
  }
  return tag + " " + what;
}

}  // namespace

std::vector<std::string> diff_components(const Components& before, const Components& after) {
  std::map<std::string, std::string> old;
  for (const auto& [tag, hash] : before) {
    old[tag] = hash;
  }
  std::vector<std::string> out;
  std::map<std::string, bool> seen;
  for (const auto& [tag, hash] : after) {
    seen[tag] = true;
    auto it = old.find(tag);
    if (it == old.end()) {
      out.push_back(describe(tag, "added"));
    } else if (it->second != hash) {
      out.push_back(describe(tag, "changed"));
    }
  }
  for (const auto& [tag, hash] : before) {
    if (!seen.count(tag)) {
      out.push_back(describe(tag, "removed"));
    }
  }
  return out;
}

std::string explain_key_change(const Components& before, const Components& after) {
  std::vector<std::string> diffs = diff_components(before, after);
  std::string text = "kernel key changed";
  for (size_t i = 0; i < diffs.size(); ++i) {
    text += (i == 0 ? ": " : ", ") + diffs[i];
  }
  return text;
}

}  // namespace qd::build
