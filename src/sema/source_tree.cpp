#include "sema/source_tree.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "support/file_io.hpp"

namespace qd::sema {

namespace fs = std::filesystem;

namespace {

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

std::string absolute_normal(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec).lexically_normal();
  std::string text = p.string();
  if (text.size() > 1 && text.back() == '/') {
    text.pop_back();
  }
  return text;
}

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

void walk_directory(const std::string& argument, size_t index, const std::string& root,
                    SourceFilter& filter, SourceTree& out) {
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
      if (filter.skip_dir(entry.path().string())) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (entry.path().extension() != ".py" || !entry.is_regular_file(type_ec) ||
        filter.skip_file(entry.path().string())) {
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

SourceFilter::SourceFilter(const std::vector<std::string>& excluded) {
  for (const std::string& e : excluded) {
    if (!e.empty()) {
      m_excluded.push_back(absolute_normal(e));
    }
  }
}

bool SourceFilter::skip_dir(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  if (!name.empty() && name[0] == '.') {
    return true;
  }
  std::string abs = absolute_normal(path);
  for (const std::string& e : m_excluded) {
    if (abs == e) {
      return true;
    }
  }
  std::error_code ec;
  if (fs::is_regular_file(abs + "/CACHEDIR.TAG", ec)) {
    return true;
  }
  return ignored(abs, true);
}

bool SourceFilter::skip_file(const std::string& path) {
  return ignored(absolute_normal(path), false);
}

const std::string& SourceFilter::git_top(const std::string& dir) {
  auto it = m_top.find(dir);
  if (it != m_top.end()) {
    return it->second;
  }
  std::error_code ec;
  std::string top;
  if (fs::exists(dir + (dir == "/" ? ".git" : "/.git"), ec)) {
    top = dir;
  } else if (dir != "/") {
    top = git_top(parent_of(dir));
  }
  return m_top[dir] = top;
}

const support::IgnoreFile* SourceFilter::rules(const std::string& file) {
  auto it = m_rules.find(file);
  if (it == m_rules.end()) {
    std::optional<support::IgnoreFile> parsed;
    std::string text;
    std::string error;
    if (support::read_file(file, text, error)) {
      parsed = support::IgnoreFile::parse(text);
    }
    it = m_rules.emplace(file, std::move(parsed)).first;
  }
  return it->second ? &*it->second : nullptr;
}

bool SourceFilter::ignored(const std::string& path, bool is_dir) {
  if (path == "/") {
    return false;
  }
  const std::string& top = git_top(parent_of(path));
  if (top.empty()) {
    return false;
  }
  // From the top of the work tree down to the entry's directory: a deeper match overrides.
  std::vector<std::string> dirs;
  for (std::string d = parent_of(path);; d = parent_of(d)) {
    dirs.push_back(d);
    if (d == top || d == "/") {
      break;
    }
  }
  auto relative = [&](const std::string& dir) {
    return dir == "/" ? path.substr(1) : path.substr(dir.size() + 1);
  };
  support::IgnoreMatch result = support::IgnoreMatch::none;
  if (const support::IgnoreFile* f = rules(top + "/.git/info/exclude")) {
    result = f->match(relative(top), is_dir);
  }
  for (size_t i = dirs.size(); i-- > 0;) {
    const support::IgnoreFile* f = rules((dirs[i] == "/" ? "" : dirs[i]) + "/.gitignore");
    if (f == nullptr) {
      continue;
    }
    support::IgnoreMatch m = f->match(relative(dirs[i]), is_dir);
    if (m != support::IgnoreMatch::none) {
      result = m;
    }
  }
  return result == support::IgnoreMatch::ignored;
}

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

std::vector<std::string> split_roots(const std::string& root) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= root.size()) {
    size_t colon = root.find(':', start);
    std::string part =
        root.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!part.empty()) {
      out.push_back(part);
    }
    if (colon == std::string::npos) {
      break;
    }
    start = colon + 1;
  }
  return out;
}

std::optional<SourceEntry> find_module_file(const std::string& name,
                                            const std::vector<std::string>& roots) {
  if (name.empty()) {
    return std::nullopt;
  }
  std::string rel = name;
  std::replace(rel.begin(), rel.end(), '.', '/');
  for (const std::string& root : roots) {
    for (const std::string& candidate : {rel + ".py", rel + "/__init__.py"}) {
      std::error_code ec;
      std::string path = join(root, candidate);
      if (fs::is_regular_file(path, ec)) {
        SourceEntry e;
        e.path = path;
        e.relative = candidate;
        e.module = name;
        return e;
      }
    }
  }
  return std::nullopt;
}

SourceTree find_sources(const std::vector<std::string>& arguments, const std::string& root_list,
                        const std::vector<std::string>& excluded) {
  SourceTree out;
  SourceFilter filter(excluded);
  std::vector<std::string> roots = split_roots(root_list);
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& arg = arguments[i];
    // The deepest root the argument is in (several roots: the record's, or --root A:B).
    std::string root;
    for (const std::string& r : roots) {
      bool inside = !under_root(arg, r).empty() ||
                    fs::absolute(arg).lexically_normal() == fs::absolute(r).lexically_normal();
      if (inside && absolute_normal(r).size() > absolute_normal(root).size()) {
        root = r;
      }
    }
    if (!roots.empty() && root.empty()) {
      out.errors.push_back("'" + arg + "' is not under the source root '" + root_list +
                           "' (--root)");
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
      walk_directory(arg, i, root, filter, out);
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
