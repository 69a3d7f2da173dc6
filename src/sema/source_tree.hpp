// Finding the Python files under the paths given to a command, and their module names.
//
// DESIGN.md contract: a directory argument is a source root; a file argument's root is its
// directory; `--root DIR` names one root for every argument. A file's module is its path relative
// to the root, without `.py`, with `/` as `.`; `pkg/__init__.py` is `pkg`, and an `__init__.py`
// directly in the root is `__init__`.
#pragma once

#include <string>
#include <vector>

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

// Walks each argument: directories recursively over `*.py` files (hidden directories, whose name
// starts with '.', are skipped; directory symlinks are not followed), files as given whatever
// their extension. Files come in argument order, each argument's files sorted by relative path.
// With a `root` (--root), module names are relative to it instead (every argument must be
// under it: `find_sources({"SITE/genesis"}, "SITE")` names the modules genesis.engine...).
SourceTree find_sources(const std::vector<std::string>& arguments, const std::string& root = "");

// The module name of a root-relative, '/'-separated path ("pkg/__init__.py" -> "pkg").
std::string module_name(const std::string& relative);

}  // namespace qd::sema
