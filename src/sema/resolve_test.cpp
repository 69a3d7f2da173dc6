#include "sema/resolve.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "sema/signature.hpp"

namespace qd::sema {
namespace {

namespace fs = std::filesystem;

// Writes the files into the test's temporary directory (the cwd) under `root` and builds the
// program with everything evaluated.
std::unique_ptr<Program> program(const std::map<std::string, std::string>& files) {
  for (const auto& [path, text] : files) {
    fs::path p = fs::path("src") / path;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  SourceTree tree = find_sources({"src"});
  auto p = build_program(tree, 1);
  evaluate_program(*p);
  return p;
}

std::string value_of(const Program& p, const std::string& module, const std::string& name) {
  REQUIRE(p.find_module(module) != k_none);
  Entity e = lookup_global(p, p.find_module(module), name);
  return e.kind == Entity::Kind::value ? repr(e.value) : name_of(e.kind);
}

TEST_CASE("resolve: constants in source order, across modules and relative imports") {
  auto p = program({
      {"pkg/__init__.py", "from .consts import N as PKG_N\n"},
      {"pkg/consts.py", "N = 4\nM = N * 2\nN = 5\nT = (N, M)\nL = T[-1]\nC = 1 if N > 4 else 2\n"},
      {"pkg/sub/user.py", "from ..consts import N, M\nfrom .. import consts\nK = N + consts.M\n"},
      {"top.py",
       "import pkg.consts\nimport pkg.consts as pc\nA = pkg.consts.N + pc.M\nB = len((1, 2))\n"},
      {"sibling.py", "from . import top\nfrom .top import B\nS = top.A + B\n"},
  });
  CHECK(value_of(*p, "pkg.consts", "M") == "8");  // N was 4 when M was assigned
  CHECK(value_of(*p, "pkg.consts", "N") == "5");
  CHECK(value_of(*p, "pkg.consts", "T") == "(5, 8)");
  CHECK(value_of(*p, "pkg.consts", "L") == "8");
  CHECK(value_of(*p, "pkg.consts", "C") == "1");
  CHECK(value_of(*p, "pkg.sub.user", "K") == "13");
  CHECK(value_of(*p, "pkg", "PKG_N") == "5");
  CHECK(value_of(*p, "top", "A") == "13");
  CHECK(value_of(*p, "top", "B") == "2");
  CHECK(value_of(*p, "sibling", "S") == "15");  // relative imports between top-level modules
}

TEST_CASE("resolve: conditional values are unknown; imports, fields, instances, builtins") {
  auto p = program({
      {"m.py",
       "import math\nimport numpy as np\nimport quadrants as qd\n"
       "from quadrants.lang import misc\n"
       "if flag():\n    X = 1\nelse:\n    X = 2\n"
       "if __name__ == '__main__':\n    Y = 3\n"
       "F = qd.field(qd.f32, (4,))\nA = qd.ndarray(qd.f32, (4,))\nV = qd.types.vector(3, qd.f32)\n"
       "class Cfg:\n    SIZE = 32\n    def __init__(self):\n        self.bar = 2\n"
       "cfg = Cfg()\nP = math.pi * 2\n"},
  });
  const Program& pr = *p;
  int32_t m = pr.find_module("m");
  Entity x = lookup_global(pr, m, "X");
  CHECK(x.kind == Entity::Kind::value);
  CHECK_FALSE(x.value.known());
  CHECK(lookup_global(pr, m, "Y").kind == Entity::Kind::undefined);
  CHECK(lookup_global(pr, m, "F").kind == Entity::Kind::field);
  CHECK(lookup_global(pr, m, "A").kind == Entity::Kind::ndarray);
  CHECK(lookup_global(pr, m, "V").kind == Entity::Kind::quadrants);
  CHECK(lookup_global(pr, m, "range").kind == Entity::Kind::builtin);
  CHECK(lookup_global(pr, m, "np").path == "numpy");
  CHECK(lookup_global(pr, m, "misc").path == "quadrants.lang.misc");
  Entity cfg = lookup_global(pr, m, "cfg");
  REQUIRE(cfg.kind == Entity::Kind::instance);
  CHECK(repr(member_of(pr, cfg, "bar").value) == "2");
  CHECK(repr(member_of(pr, cfg, "SIZE").value) == "32");
  CHECK(value_of(pr, "m", "P") == "6.283185307179586");
}

TEST_CASE("resolve: enums, data_oriented inheritance, template_primitives, methods") {
  auto p = program({
      {"e.py", "import enum\nclass Color(enum.IntEnum):\n    RED = 1\n    GREEN = RED + 1\n"
               "class Shade(Color):\n    pass\nFAV = Color.GREEN\n"},
      {"d.py",
       "import quadrants as qd\n@qd.data_oriented(template_primitives=False)\nclass Base:\n"
       "    def __init__(self):\n        self.a = 1\n    @qd.func\n    def f(self):\n        pass\n"
       "class Sub(Base):\n    def __init__(self):\n        super().__init__()\n        self.b = "
       "2\n"},
  });
  const Program& pr = *p;
  CHECK(value_of(pr, "e", "FAV") == "<e.Color.GREEN: 2>");
  Entity shade = lookup_global(pr, pr.find_module("e"), "Shade");
  REQUIRE(shade.kind == Entity::Kind::class_);
  CHECK(pr.classes[shade.cls].is_enum);
  Entity sub = lookup_global(pr, pr.find_module("d"), "Sub");
  REQUIRE(sub.kind == Entity::Kind::class_);
  CHECK(is_data_oriented(pr, sub.cls));
  CHECK_FALSE(template_primitives(pr, sub.cls));
  CHECK(find_method(pr, sub.cls, "f") != k_none);
  auto members = all_members(pr, sub.cls);
  REQUIRE(members.size() == 2);
  CHECK(members[0].second->name == "a");
  CHECK(members[1].second->name == "b");
}

TEST_CASE("signature: annotations through aliases and modules; precise errors") {
  auto p = program({
      {"types_.py", "import quadrants as qd\nvec3 = qd.types.vector(3, qd.f32)\nArr = "
                    "qd.types.NDArray[vec3, 2]\n"},
      {"k.py", "import quadrants as qd\nimport types_ as t\nfrom types_ import Arr\n"
               "@qd.kernel\ndef k(a: Arr, b: t.vec3, c: qd.types.ndarray(dtype=qd.i8), d: list, "
               "e):\n    pass\n"},
  });
  const Program& pr = *p;
  DefId k = k_none;
  for (DefId d = 0; d < static_cast<DefId>(pr.defs.size()); ++d) {
    if (pr.def_id(d) == "k:k") {
      k = d;
    }
  }
  REQUIRE(k != k_none);
  Signature sig = signature_of(pr, k);
  REQUIRE(sig.params.size() == 5);
  CHECK(sig.params[0].type.text == "ndarray(vector(3, f32), 2)");
  CHECK(sig.params[1].type.text == "vector(3, f32)");
  CHECK(sig.params[2].type.text == "ndarray(i8, ?)");
  CHECK(sig.params[2].type.partial());
  CHECK(sig.params[3].type.error == "the builtin 'list' is not a parameter type");
  CHECK(sig.params[4].type.error.find("no annotation") != std::string::npos);
}

}  // namespace
}  // namespace qd::sema
