#include "support/gitignore.hpp"

#include <doctest/doctest.h>

namespace qd::support {
namespace {

TEST_CASE("glob_match") {
  CHECK(glob_match("*.py", "a.py"));
  CHECK_FALSE(glob_match("*.py", "d/a.py"));  // '*' stays within a component
  CHECK(glob_match("a?c", "abc"));
  CHECK_FALSE(glob_match("a?c", "a/c"));
  CHECK(glob_match("[a-c]x", "bx"));
  CHECK_FALSE(glob_match("[!a-c]x", "bx"));
  CHECK(glob_match("**/gen", "gen"));
  CHECK(glob_match("**/gen", "a/b/gen"));
  CHECK(glob_match("out/**", "out/a/b.py"));
  CHECK_FALSE(glob_match("out/**", "out"));
  CHECK(glob_match("a/**/b", "a/b"));
  CHECK(glob_match("a/**/b", "a/x/y/b"));
  CHECK(glob_match("\\*x", "*x"));
  CHECK_FALSE(glob_match("\\*x", "ax"));
  CHECK(glob_match("[x", "[x"));  // an unterminated class is a literal
}

TEST_CASE("IgnoreFile") {
  IgnoreFile f = IgnoreFile::parse("# comment\n\n/build/\n__pycache__/\n*.gen.py\n!keep.gen.py\n"
                                   "docs/*.py\nspaced\\ \ntrailing   \n");
  CHECK(f.match("build", true) == IgnoreMatch::ignored);
  CHECK(f.match("build", false) == IgnoreMatch::none);              // directories only
  CHECK(f.match("src/build", true) == IgnoreMatch::none);           // anchored to the file's dir
  CHECK(f.match("a/b/__pycache__", true) == IgnoreMatch::ignored);  // any depth
  CHECK(f.match("pkg/x.gen.py", false) == IgnoreMatch::ignored);
  CHECK(f.match("pkg/keep.gen.py", false) == IgnoreMatch::included);  // the last match decides
  CHECK(f.match("docs/conf.py", false) == IgnoreMatch::ignored);
  CHECK(f.match("src/docs/conf.py", false) == IgnoreMatch::none);
  CHECK(f.match("spaced ", false) == IgnoreMatch::ignored);
  CHECK(f.match("trailing", false) == IgnoreMatch::ignored);
  CHECK(f.match("kernels.py", false) == IgnoreMatch::none);
  CHECK(IgnoreFile::parse("\n# only comments\n").empty());
}

}  // namespace
}  // namespace qd::support
