#include "sema/source_tree.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace qd::sema {

namespace fs = std::filesystem;

namespace {

bool is_hidden(const fs::path& p) {
  std::string name = p.filename().string();
  return !name.empty() && name[0] == '.' && name != "." && name != "..";
}

std::string join(const std::string& dir, const std::string& relative) {
  if (dir.empty() || dir == ".") {
    return relative;
  }
  if (dir.back() == '/') {
    return dir + relative;
  }
  return dir + "/" + relative;
}

// The path of `file` relative to `root` ('/'-separated), or "" when it is not under the root.
std::string under_root(const std::string& file, const std::string& root) {
  std::error_code ec;
  fs::path f = fs::absolute(file, ec).lexically_normal();
  fs::path r = fs::absolute(root, ec).lexically_normal();
  fs::path rel = f.lexically_relative(r);
  std::string text = rel.generic_string();
  if (rel.empty() || text == "." || text.starts_with("..")) {
    return "";
  }
  return text;
}

void walk_directory(const std::string& argument, size_t index, const std::string& root,
                    SourceTree& out) {
  std::vector<SourceEntry> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(argument, fs::directory_options::none, ec);
  if (ec) {
    out.errors.push_back("cannot read directory '" + argument + "': " + ec.message());
    return;
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      out.errors.push_back("cannot read directory '" + argument + "': " + ec.message());
      break;
    }
    const fs::directory_entry& entry = *it;
    std::error_code type_ec;
    if (entry.is_directory(type_ec)) {
      if (is_hidden(entry.path())) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (entry.path().extension() != ".py" || !entry.is_regular_file(type_ec)) {
      continue;
    }
    SourceEntry e;
    e.relative = entry.path().lexically_relative(argument).generic_string();
    e.path = join(argument, e.relative);
    if (!root.empty()) {
      e.relative = under_root(e.path, root);
    }
    e.module = module_name(e.relative);
    e.argument = index;
    found.push_back(std::move(e));
  }
  std::sort(found.begin(), found.end(),
            [](const SourceEntry& a, const SourceEntry& b) { return a.relative < b.relative; });
  for (SourceEntry& e : found) {
    out.files.push_back(std::move(e));
  }
}

}  // namespace

std::string module_name(const std::string& relative) {
  std::string m = relative;
  if (m.size() >= 3 && m.compare(m.size() - 3, 3, ".py") == 0) {
    m.resize(m.size() - 3);
  }
  const std::string init = "__init__";
  if (m.size() > init.size() &&
      m.compare(m.size() - init.size() - 1, init.size() + 1, "/" + init) == 0) {
    m.resize(m.size() - init.size() - 1);
  }
  std::replace(m.begin(), m.end(), '/', '.');
  return m;
}

SourceTree find_sources(const std::vector<std::string>& arguments, const std::string& root) {
  SourceTree out;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& arg = arguments[i];
    if (!root.empty() && under_root(arg, root).empty() &&
        fs::absolute(arg).lexically_normal() != fs::absolute(root).lexically_normal()) {
      out.errors.push_back("'" + arg + "' is not under the source root '" + root + "' (--root)");
      continue;
    }
    std::error_code ec;
    fs::file_status st = fs::status(arg, ec);
    if (ec || !fs::exists(st)) {
      out.errors.push_back("cannot access '" + arg +
                           "': " + (ec ? ec.message() : std::string(std::strerror(ENOENT))));
      continue;
    }
    if (fs::is_directory(st)) {
      walk_directory(arg, i, root, out);
      continue;
    }
    SourceEntry e;
    e.path = arg;
    e.relative = root.empty() ? fs::path(arg).filename().string() : under_root(arg, root);
    e.module = module_name(e.relative);
    e.argument = i;
    out.files.push_back(std::move(e));
  }
  return out;
}

}  // namespace qd::sema
