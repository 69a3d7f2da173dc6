#include "sema/kernel_key.hpp"

#include <doctest/doctest.h>

#include "sema/purity.hpp"
#include "syntax/parser.hpp"

namespace qd::sema {
namespace {

// The normalized token stream of the first def of `source`.
std::string tokens_of(const std::string& source) {
  Program p;
  p.modules.resize(1);
  ModuleInfo& m = p.modules[0];
  m.name = "t";
  m.parsed = syntax::parse_bytes("t.py", source);
  REQUIRE(m.parsed->ok());
  collect_module(p, 0);
  REQUIRE_FALSE(p.defs.empty());
  return normalized_tokens(m, p.defs[0]);
}

TEST_CASE("sha256: known vectors (OpenSSL)") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("key hasher: each component has its own hash; the key depends on all of them") {
  KeyHasher a;
  a.add("x", "1");
  a.add("y", "2");
  KeyHasher b;
  b.add("x", "1");
  b.add("y", "3");
  KeyHasher c;
  c.add("x", "12");  // the delimiters keep tag and text apart: ("x","12") != ("x1","2")
  KeyHasher d;
  d.add("x1", "2");
  CHECK(a.components()[0].hash == b.components()[0].hash);
  CHECK(a.components()[1].hash != b.components()[1].hash);
  CHECK(a.key() != b.key());
  CHECK(c.key() != d.key());
  CHECK(a.key().size() == 64);
}

TEST_CASE("normalized tokens: comments, blank lines, spacing and indentation width do not count") {
  std::string base = "import quadrants as qd\n@qd.func\ndef f(a, b):\n    return a+b\n";
  std::string same = "import quadrants as qd\n\n\n# comment\n@qd.func  # c\ndef f(a,  b) :\n\n"
                     "        return a + \\\n  b   # trailing\n";
  CHECK(tokens_of(base) == tokens_of(same));
  CHECK(tokens_of(base) !=
        tokens_of("import quadrants as qd\n@qd.func\ndef f(a, b):\n    return a-b\n"));
  CHECK(tokens_of(base) !=
        tokens_of("import quadrants as qd\n@qd.func\ndef f(a, b,):\n    return a+b\n"));
  CHECK(tokens_of(base).find("Name 1:f\n") ==
        std::string::npos);  // kind names as the lexer prints them
  CHECK(tokens_of(base).find("NEWLINE\nINDENT\n") != std::string::npos);
}

TEST_CASE("purity: UPPERCASE as Python's name.upper() == name") {
  CHECK(is_uppercase_name("N"));
  CHECK(is_uppercase_name("MAX_N2"));
  CHECK(is_uppercase_name("_"));
  CHECK_FALSE(is_uppercase_name("Max"));
  CHECK_FALSE(is_uppercase_name("n"));
}

}  // namespace
}  // namespace qd::sema
