#include "syntax/ast_blocks.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "syntax/parser.hpp"

namespace qd::syntax {

TEST_CASE("for_each_nested_block yields the same-scope blocks of each compound statement") {
  auto r =
      parse_bytes("t.py", "if a:\n  x\nelse:\n  y\n"
                          "for i in r:\n  x\nelse:\n  y\n"
                          "while a:\n  x\n"
                          "with c:\n  x\n"
                          "try:\n  x\nexcept E:\n  y\nexcept F:\n  z\nelse:\n  w\nfinally:\n  v\n"
                          "match m:\n  case 1:\n    x\n  case 2:\n    y\n"
                          "def f():\n  x\n"
                          "class C:\n  x\n"
                          "x = 1\n");
  REQUIRE(r->ok());
  std::vector<std::vector<int>> lines;
  for (const ast::Stmt* s : r->module->body) {
    std::vector<int> firsts;
    ast::for_each_nested_block(s, [&](const ast::Seq<ast::Stmt*>& block) {
      firsts.push_back(block.empty() ? 0 : block[0]->pos.lineno);
    });
    lines.push_back(firsts);
  }
  REQUIRE(lines.size() == 9);
  CHECK(lines[0] == std::vector<int>{2, 4});
  CHECK(lines[1] == std::vector<int>{6, 8});
  CHECK(lines[2] == std::vector<int>{10, 0});  // while: body, (empty) else
  CHECK(lines[3] == std::vector<int>{12});
  CHECK(lines[4] == std::vector<int>{14, 16, 18, 20, 22});
  CHECK(lines[5] == std::vector<int>{25, 27});
  CHECK(lines[6].empty());  // def and class open their own scopes
  CHECK(lines[7].empty());
  CHECK(lines[8].empty());
}

}  // namespace qd::syntax
