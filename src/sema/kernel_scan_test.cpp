#include "sema/kernel_scan.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "syntax/parser.hpp"

namespace qd::sema {
namespace {

struct Scanned {
  std::unique_ptr<syntax::ParseResult> parsed;
  std::vector<KernelDef> defs;
};

Scanned scan(std::string source) {
  Scanned s;
  s.parsed = syntax::parse_bytes("t.py", std::move(source));
  REQUIRE(s.parsed->ok());
  s.defs = scan_kernels(*s.parsed->module, s.parsed->source);
  return s;
}

std::string summary(const std::vector<KernelDef>& defs) {
  std::string out;
  for (const KernelDef& d : defs) {
    out += std::string(name_of(d.kind)) + "/" + d.decorator + " " + d.qualname + "@" +
           std::to_string(d.line) + "-" + std::to_string(d.end_line) + "\n";
  }
  return out;
}

TEST_CASE("aliases of the package and bare imported names") {
  Scanned s = scan("import quadrants as qd\n"
                   "import taichi\n"
                   "from gstaichi import func as f, pyfunc\n"
                   "@qd.kernel\n"
                   "def a(): pass\n"
                   "@taichi.real_func\n"
                   "def b(): pass\n"
                   "@f\n"
                   "def c(): pass\n"
                   "@pyfunc()\n"
                   "def d(): pass\n"
                   "@qd.other\n"
                   "def e(): pass\n"
                   "@func\n"
                   "def g(): pass\n");
  CHECK(summary(s.defs) == "kernel/kernel a@5-5\n"
                           "func/real_func b@7-7\n"
                           "func/func c@9-9\n"
                           "func/pyfunc d@11-11\n");
}

TEST_CASE("nothing without a package import") {
  Scanned s = scan("import numba as qd\n@qd.kernel\ndef a(): pass\n");
  CHECK(s.defs.empty());
}

TEST_CASE("qualnames follow __qualname__") {
  Scanned s = scan("import quadrants as qd\n"
                   "@qd.data_oriented\n"
                   "class A:\n"
                   "    @qd.kernel\n"
                   "    def m(self): pass\n"
                   "    class B:\n"
                   "        @qd.func\n"
                   "        def n(self): pass\n"
                   "def outer():\n"
                   "    global g\n"
                   "    @qd.func\n"
                   "    def inner(): pass\n"
                   "    class C:\n"
                   "        @qd.kernel\n"
                   "        def k(self):\n"
                   "            pass\n"
                   "    @qd.kernel\n"
                   "    def g(): pass\n"
                   "if True:\n"
                   "    @qd.kernel\n"
                   "    def cond(): pass\n");
  CHECK(summary(s.defs) == "kernel/kernel A.m@5-5\n"
                           "func/func A.B.n@8-8\n"
                           "func/func outer.<locals>.inner@12-12\n"
                           "kernel/kernel outer.<locals>.C.k@15-16\n"
                           "kernel/kernel g@18-18\n"
                           "kernel/kernel cond@21-21\n");
}

TEST_CASE("imports inside a function apply to that function only") {
  Scanned s = scan("def f():\n"
                   "    import quadrants as q\n"
                   "    @q.kernel\n"
                   "    def k(): pass\n"
                   "@q.kernel\n"
                   "def top(): pass\n");
  CHECK(summary(s.defs) == "kernel/kernel f.<locals>.k@4-4\n");
}

TEST_CASE("decorator keyword arguments: literals as JSON, the rest as source text") {
  Scanned s = scan("import quadrants as qd\n"
                   "@qd.kernel(a=1, b=-2.5, c='x\"y', d=None, e=[True, (1, 2)], f={'k': 0}, g=N + "
                   "1, h=2**70, **kw)\n"
                   "def k(): pass\n");
  REQUIRE(s.defs.size() == 1);
  const auto& args = s.defs[0].arguments;
  REQUIRE(args.size() == 9);
  auto expect = [&](size_t i, const char* name, const char* value, bool literal) {
    CHECK(args[i].name == name);
    CHECK(args[i].value == value);
    CHECK(args[i].is_literal == literal);
  };
  expect(0, "a", "1", true);
  expect(1, "b", "-2.5", true);
  expect(2, "c", "\"x\\\"y\"", true);
  expect(3, "d", "null", true);
  expect(4, "e", "[true,[1,2]]", true);
  expect(5, "f", "{\"k\":0}", true);
  expect(6, "g", "N + 1", false);
  expect(7, "h", "2**70", false);
  expect(8, "**", "kw", false);
}

TEST_CASE("definitions in every kind of nested block of a scope are found") {
  Scanned s = scan("import quadrants as qd\n"
                   "while True:\n"
                   "    @qd.kernel\n"
                   "    def in_while(): pass\n"
                   "    break\n"
                   "match mode:\n"
                   "    case 1:\n"
                   "        @qd.func\n"
                   "        def in_match(): pass\n"
                   "try:\n"
                   "    pass\n"
                   "except* ValueError:\n"
                   "    @qd.kernel\n"
                   "    def in_except_star(): pass\n"
                   "async def outer():\n"
                   "    async with m:\n"
                   "        @qd.kernel\n"
                   "        def in_async_with(): pass\n");
  CHECK(summary(s.defs) == "kernel/kernel in_while@4-4\n"
                           "func/func in_match@9-9\n"
                           "kernel/kernel in_except_star@14-14\n"
                           "kernel/kernel outer.<locals>.in_async_with@18-18\n");
}

}  // namespace
}  // namespace qd::sema
