#include "syntax/parser.hpp"

#include <doctest/doctest.h>

#include <string>

#include "syntax/ast_dump.hpp"
#include "syntax/ast_walk.hpp"

namespace qd::syntax {
namespace {

std::string dump_of(const std::string& src) {
  auto r = parse_bytes("t.py", src);
  REQUIRE_MESSAGE(r->ok(), (r->diagnostics.empty() ? std::string() : r->diagnostics[0].message));
  return ast::dump(r->module);
}

std::string first_error(const std::string& src, int32_t* line = nullptr, int32_t* col = nullptr) {
  auto r = parse_bytes("t.py", src);
  REQUIRE(!r->ok());
  if (line != nullptr) {
    *line = r->diagnostics[0].line;
  }
  if (col != nullptr) {
    *col = r->diagnostics[0].col;
  }
  return r->diagnostics[0].message;
}

// Every node's span encloses the spans of its children (CPython's positions satisfy this for
// the constructs below).
class EnclosureCheck : public ast::Walker {
public:
  using ast::Walker::visit;
  int violations = 0;
  template <class N> void check(const N* n) {
    const ast::Pos& p = n->pos;
    bool before = p.lineno < m_outer.lineno ||
                  (p.lineno == m_outer.lineno && p.col_offset < m_outer.col_offset);
    bool after = p.end_lineno > m_outer.end_lineno ||
                 (p.end_lineno == m_outer.end_lineno && p.end_col_offset > m_outer.end_col_offset);
    if (m_outer.lineno != 0 && (before || after)) {
      ++violations;
    }
    ast::Pos saved = m_outer;
    m_outer = p;
    children(n);
    m_outer = saved;
  }
  void visit(const ast::Stmt* n) override { check(n); }
  void visit(const ast::Expr* n) override { check(n); }

private:
  ast::Pos m_outer{};
};

}  // namespace

TEST_CASE("positions come from tokens: parentheses belong to the enclosing node") {
  CHECK(dump_of("(a) * b\n") ==
        "Module(body=[Expr(value=BinOp(left=Name(id='a', ctx=Load(), lineno=1, col_offset=1, "
        "end_lineno=1, end_col_offset=2), op=Mult(), right=Name(id='b', ctx=Load(), lineno=1, "
        "col_offset=6, end_lineno=1, end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, "
        "end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7)], "
        "type_ignores=[])");
}

TEST_CASE("a decorated function starts at 'def' and ends at its last statement") {
  auto r = parse_bytes("t.py", "@dec\ndef f(x):\n    return x\n\n\n");
  REQUIRE(r->ok());
  const ast::Stmt* s = r->module->body[0];
  CHECK(s->tag == ast::StmtKind::FunctionDef);
  CHECK(s->pos.lineno == 2);
  CHECK(s->pos.col_offset == 0);
  CHECK(s->pos.end_lineno == 3);
  CHECK(s->pos.end_col_offset == 12);
}

TEST_CASE("assignment targets get Store, deletion targets Del, nested through tuples") {
  std::string d = dump_of("a, (b.c, *d) = e\ndel f[0], g\n");
  CHECK(d.find("Name(id='a', ctx=Store()") != std::string::npos);
  CHECK(d.find("Attribute(value=Name(id='b', ctx=Load()") != std::string::npos);
  CHECK(d.find("attr='c', ctx=Store()") != std::string::npos);
  CHECK(d.find("Starred(value=Name(id='d', ctx=Store()") != std::string::npos);
  CHECK(d.find("Subscript(value=Name(id='f', ctx=Load()") != std::string::npos);
  CHECK(d.find("Name(id='g', ctx=Del()") != std::string::npos);
}

TEST_CASE("soft keywords: match, case, type and _ are names outside their statements") {
  CHECK(dump_of("match = 1\ntype = 2\ncase = match\n_ = type\n").find("Match(") ==
        std::string::npos);
  std::string d = dump_of("match x:\n    case [1, *_] | {'k': _} if x:\n        pass\n");
  CHECK(d.find("MatchOr(patterns=[MatchSequence(") != std::string::npos);
  CHECK(d.find("MatchStar(lineno=2") != std::string::npos);
  CHECK(dump_of("type X[T] = list[T]\n").find("TypeAlias(name=Name(id='X', ctx=Store()") !=
        std::string::npos);
}

TEST_CASE("f-strings: debug text, conversions and nested format specs") {
  std::string d = dump_of("f'{x=!s:>{w}}'\n");
  CHECK(d.find("Constant(value='x='") != std::string::npos);
  CHECK(d.find("conversion=115") != std::string::npos);
  CHECK(d.find("format_spec=JoinedStr(values=[Constant(value='>'") != std::string::npos);
}

TEST_CASE("implicit concatenation folds constants and keeps the first string's kind") {
  CHECK(dump_of("u'a' 'b'\n")
            .find("Constant(value='ab', kind='u', lineno=1, col_offset=0, "
                  "end_lineno=1, end_col_offset=8)") != std::string::npos);
  CHECK(first_error("x = 'a' b'b'\n") == "cannot mix bytes and nonbytes literals");
}

TEST_CASE("errors carry CPython's message and line") {
  int32_t line = 0;
  int32_t col = 0;
  CHECK(first_error("f() = 1\n") == "cannot assign to function call here. Maybe you meant '==' "
                                    "instead of '='?");
  CHECK(first_error("if x:\npass\n", &line, &col) ==
        "expected an indented block after 'if' statement on line 1");
  CHECK(line == 2);
  CHECK(first_error("print 'hello'\n") ==
        "Missing parentheses in call to 'print'. Did you mean print(...)?");
  CHECK(first_error("def f(a=1, b): pass\n") ==
        "parameter without a default follows parameter with a default");
  CHECK(first_error("f(x for x in y, 1)\n") == "Generator expression must be parenthesized");
  CHECK(first_error("x = (1,\ny = 2\n", &line) == "'(' was never closed");
  CHECK(line == 1);
  CHECK(first_error("try:\n  pass\nx = 1\n", &line) == "expected 'except' or 'finally' block");
  CHECK(line == 2);
}

TEST_CASE("CPython's second-pass hints: a forgotten comma, a missing else") {
  int32_t line = 0;
  int32_t col = 0;
  CHECK(first_error("f(1, x y)\n", &line, &col) == "invalid syntax. Perhaps you forgot a comma?");
  CHECK(col == 5);
  CHECK(first_error("x = a b\n") == "invalid syntax");  // not inside brackets
  CHECK(first_error("(a if b c)\n") == "expected 'else' after 'if' expression");
  // An unclosed bracket wins when the parser read past its line (as in CPython).
  CHECK(first_error("x = [1, 2\ny = 3\n", &line) == "'[' was never closed");
  CHECK(line == 1);
}

TEST_CASE("a tokenizer error later in the file replaces a generic parser error (as CPython)") {
  int32_t line = 0;
  CHECK(first_error("x = = 1\ny = 'abc\n", &line) ==
        "unterminated string literal (detected at line 2)");
  CHECK(line == 2);
  // ...but an unclosed bracket opened after the parser's error does not.
  CHECK(first_error("x = = 1\ny = (\n", &line) == "invalid syntax");
  CHECK(line == 1);
}

TEST_CASE("the parser recovers and reports every statement's error") {
  auto r = parse_bytes("t.py", "x = = 1\n"
                               "def f():\n"
                               "    y = 3 3\n"
                               "    return 1\n"
                               "if x\n"
                               "    pass\n"
                               "f() = 3\n"
                               "ok = 1\n");
  REQUIRE(r->diagnostics.size() == 4);
  CHECK(r->diagnostics[0].line == 1);
  CHECK(r->diagnostics[1].line == 3);
  CHECK(r->diagnostics[2].line == 5);
  CHECK(r->diagnostics[2].message == "expected ':'");
  CHECK(r->diagnostics[3].line == 7);
  // The statements that parsed are in the tree.
  REQUIRE(r->module != nullptr);
  CHECK(r->module->body.size == 2);  // def f (its good statements) and ok = 1
}

TEST_CASE("nesting beyond the depth budget is an error, not a crash") {
  std::string deep = "x = " + std::string(20000, '-') + "1\n";
  auto r = parse_bytes("t.py", deep);
  REQUIRE(!r->ok());
  CHECK(r->diagnostics[0].code == k_code_limit);
  std::string chain = "x = 1";
  for (int i = 0; i < 10000; ++i) {
    chain += "+1";
  }
  r = parse_bytes("t.py", chain + "\n");
  REQUIRE(!r->ok());
  CHECK(r->diagnostics[0].code == k_code_limit);
  // 3,000 links is within CPython's limits and within ours.
  std::string ok_chain = "x = 1";
  for (int i = 0; i < 3000; ++i) {
    ok_chain += "+1";
  }
  CHECK(parse_bytes("t.py", ok_chain + "\n")->ok());
}

TEST_CASE("every parent node encloses its children") {
  // (Decorators are the one exception, in CPython too: a def starts at 'def'.)
  auto r = parse_bytes("t.py", "async def f(a: int = 1, *b, c, **d) -> T:\n"
                               "    async with x as (y, z), w:\n"
                               "        r = [i async for i in g if i] + {k: v for k, v in h}\n"
                               "    return (yield from q)\n"
                               "class C(B, metaclass=M):\n"
                               "    x: int = f'{a!r:{b}}' 'c'\n");
  REQUIRE(r->ok());
  EnclosureCheck check;
  check.visit(r->module);
  CHECK(check.violations == 0);
}

}  // namespace qd::syntax
