#include "support/gitignore.hpp"

namespace qd::support {

namespace {

// `[...]` at p[0] == '[': whether `c` is in the class; `p` is advanced past the class. A '[' with
// no closing ']' is a literal '['.
bool class_match(std::string_view& p, char c, bool& ok) {
  size_t i = 1;
  bool negate = i < p.size() && (p[i] == '!' || p[i] == '^');
  if (negate) {
    ++i;
  }
  bool found = false;
  bool first = true;
  for (; i < p.size(); ++i) {
    if (p[i] == ']' && !first) {
      p.remove_prefix(i + 1);
      ok = true;
      return found != negate && c != '/';
    }
    first = false;
    char lo = p[i];
    if (lo == '\\' && i + 1 < p.size()) {
      lo = p[++i];
    }
    char hi = lo;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      hi = p[i + 2];
      i += 2;
    }
    if (c >= lo && c <= hi) {
      found = true;
    }
  }
  ok = false;  // unterminated: a literal '['
  return false;
}

bool match_here(std::string_view p, std::string_view t) {
  while (!p.empty()) {
    if (p.starts_with("**")) {
      std::string_view rest = p.substr(2);
      if (rest.starts_with("/")) {
        // "**/": zero or more whole directories.
        rest.remove_prefix(1);
        for (size_t i = 0; i <= t.size(); ++i) {
          if ((i == 0 || t[i - 1] == '/') && match_here(rest, t.substr(i))) {
            return true;
          }
        }
        return false;
      }
      for (size_t i = t.size() + 1; i-- > 0;) {  // "**" elsewhere: anything, '/' included
        if (match_here(rest, t.substr(i))) {
          return true;
        }
      }
      return false;
    }
    char c = p[0];
    if (c == '*') {
      p.remove_prefix(1);
      for (size_t i = 0; i <= t.size(); ++i) {
        if (match_here(p, t.substr(i))) {
          return true;
        }
        if (i < t.size() && t[i] == '/') {
          return false;
        }
      }
      return false;
    }
    if (t.empty()) {
      return false;
    }
    if (c == '?') {
      if (t[0] == '/') {
        return false;
      }
      p.remove_prefix(1);
      t.remove_prefix(1);
      continue;
    }
    if (c == '[') {
      bool ok = false;
      std::string_view q = p;
      bool in = class_match(q, t[0], ok);
      if (ok) {
        if (!in) {
          return false;
        }
        p = q;
        t.remove_prefix(1);
        continue;
      }
    }
    if (c == '\\' && p.size() > 1) {
      p.remove_prefix(1);
      c = p[0];
    }
    if (c != t[0]) {
      return false;
    }
    p.remove_prefix(1);
    t.remove_prefix(1);
  }
  return t.empty();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  return match_here(pattern, text);
}

IgnoreFile IgnoreFile::parse(std::string_view text) {
  IgnoreFile f;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    // Trailing spaces are dropped unless escaped with a backslash.
    while (!line.empty() && line.back() == ' ' &&
           !(line.size() >= 2 && line[line.size() - 2] == '\\')) {
      line.remove_suffix(1);
    }
    if (line.empty() || line[0] == '#') {
      continue;
    }
    Pattern p;
    if (line[0] == '!') {
      p.negate = true;
      line.remove_prefix(1);
    }
    if (line.size() > 1 && line.back() == '/') {
      p.dir_only = true;
      line.remove_suffix(1);
    }
    if (line.find('/') != std::string_view::npos) {
      p.anchored = true;
      if (line[0] == '/') {
        line.remove_prefix(1);
      }
    }
    if (line.empty()) {
      continue;
    }
    p.glob = std::string(line);
    f.m_patterns.push_back(std::move(p));
  }
  return f;
}

IgnoreMatch IgnoreFile::match(std::string_view relative, bool is_dir) const {
  std::string_view name = relative.substr(relative.rfind('/') + 1);
  for (size_t i = m_patterns.size(); i-- > 0;) {
    const Pattern& p = m_patterns[i];
    if (p.dir_only && !is_dir) {
      continue;
    }
    if (glob_match(p.glob, p.anchored ? relative : name)) {
      return p.negate ? IgnoreMatch::included : IgnoreMatch::ignored;
    }
  }
  return IgnoreMatch::none;
}

}  // namespace qd::support
