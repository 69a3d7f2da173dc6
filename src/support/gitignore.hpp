// .gitignore patterns (gitignore(5)), for leaving ignored files out of source walks and watches.
//
//   IgnoreFile f = IgnoreFile::parse(text);
//   f.match("build", true)        // the entry "build" (a directory) relative to the file's dir
//       -> Match::ignored / Match::included (a `!` pattern) / Match::none
//
// Supported as git does: blank lines and `#` comments; trailing spaces dropped unless escaped;
// `\` escapes (`\#`, `\!`, `\ `); `!` negates; a trailing `/` matches directories only; a pattern
// with a `/` at its start or middle is anchored to the file's directory, one without matches the
// name at any depth; `*` and `?` match within one path component, `[a-z]` / `[!a-z]` classes,
// `**/` any number of leading directories, `/**` everything inside, `/**/` zero or more
// directories. The last matching pattern decides.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace qd::support {

enum class IgnoreMatch { none, ignored, included };

class IgnoreFile {
public:
  static IgnoreFile parse(std::string_view text);

  // `relative`: '/'-separated path of the entry relative to the .gitignore's directory.
  IgnoreMatch match(std::string_view relative, bool is_dir) const;
  bool empty() const { return m_patterns.empty(); }

private:
  struct Pattern {
    std::string glob;
    bool negate = false;
    bool dir_only = false;
    bool anchored = false;
  };
  std::vector<Pattern> m_patterns;
};

// Glob match of a whole '/'-separated path (the syntax above, without the gitignore rules).
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace qd::support
