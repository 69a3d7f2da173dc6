// Finding the Python files under the paths given to a command, and their module names.
//
// The rule (README "Commands"): a directory argument is a source root; a file argument's root is
// its directory; `--root DIR` names one root for every argument. A file's module is its path
// relative to the root, without `.py`, with `/` as `.`; `pkg/__init__.py` is `pkg`, and an
// `__init__.py` directly in the root is `__init__`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/gitignore.hpp"

namespace qd::sema {

struct SourceEntry {
  std::string path;      // the file as it can be opened: the argument joined with the relative path
  std::string relative;  // relative to the root ("pkg/mod.py"), '/'-separated
  std::string module;    // dotted module name ("pkg.mod")
  size_t argument = 0;   // index of the PATH argument it was found under
};

struct SourceTree {
  std::vector<SourceEntry> files;
  std::vector<std::string> errors;  // "cannot access 'x': No such file or directory"
};

// What a walk of a directory argument leaves out (the same for `find_sources`, the no-op stamp
// and the watcher; docs/build.md "What is built and watched"), below the argument itself:
//   - hidden directories (a name starting with '.');
//   - the directories in `excluded` (a build passes its store and the project's build
//     directory) and everything under them;
//   - directories holding a CACHEDIR.TAG (every qdbuild store has one, as cargo's target/ does);
//   - inside a git work tree (a directory above holds `.git`), what its .gitignore files and
//     .git/info/exclude ignore, with git's precedence (a deeper file's patterns win).
// An argument itself is never left out: `qdbuild build build/gen` builds build/gen.
class SourceFilter {
public:
  explicit SourceFilter(const std::vector<std::string>& excluded = {});

  bool skip_dir(const std::string& path);   // a directory found under an argument
  bool skip_file(const std::string& path);  // a file found under an argument

private:
  bool ignored(const std::string& path, bool is_dir);
  const std::string& git_top(const std::string& dir);  // "" outside a work tree
  const support::IgnoreFile* rules(const std::string& file);

  std::vector<std::string> m_excluded;  // absolute, lexically normal
  std::map<std::string, std::string> m_top;
  std::map<std::string, std::optional<support::IgnoreFile>> m_rules;
};

// The roots of a --root value: one directory, or several separated by ':' as on PYTHONPATH (a
// build from a record's sources gives each recorded module's root). Empty parts are dropped.
std::vector<std::string> split_roots(const std::string& root);

// The module `name` ("a.b") as a file under the first of `roots` that has it: root/a/b.py, else
// root/a/b/__init__.py. `argument` is 0. nullopt when no root has it.
std::optional<SourceEntry> find_module_file(const std::string& name,
                                            const std::vector<std::string>& roots);

// Walks each argument: directories recursively over `*.py` files (what SourceFilter leaves out
// is skipped, `excluded` included; directory symlinks are not followed), files as given whatever
// their extension. Files come in argument order, each argument's files sorted by relative path.
// With a `root` (--root), module names are relative to it instead (every argument must be
// under it: `find_sources({"SITE/genesis"}, "SITE")` names the modules genesis.engine...); with
// several roots ("A:B"), relative to the deepest root the argument is under.
SourceTree find_sources(const std::vector<std::string>& arguments, const std::string& root = "",
                        const std::vector<std::string>& excluded = {});

// The module name of a root-relative, '/'-separated path ("pkg/__init__.py" -> "pkg").
std::string module_name(const std::string& relative);

}  // namespace qd::sema
