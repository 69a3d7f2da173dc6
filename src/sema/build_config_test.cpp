#include "sema/build_config.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace qd::sema {
namespace {

TEST_CASE("config: [tool.qdbuild] codegen keys and instances") {
  std::vector<ConfigError> errors;
  BuildConfig c = parse_build_config(
      "[tool.qdbuild]\nopt_level = 2\nfast_math = false\ndefault_fp = \"f64\"\n"
      "[tool.qdbuild.instances.\"m:k\"]\nn = 4\nx = { dtype = \"f32\", ndim = 2 }\n"
      "[[tool.qdbuild.instances.\"m:j\"]]\nf = \"m:add\"\n[[tool.qdbuild.instances.\"m:j\"]]\nf = "
      "\"m:mul\"\n",
      "pyproject.toml", true, errors);
  CHECK(errors.empty());
  CHECK(c.codegen_text() ==
        "arch=x64 opt_level=2 fast_math=False debug=False default_ip=i32 default_fp=f64");
  REQUIRE(c.instances["m:k"].size() == 1);
  CHECK(c.instances["m:k"][0]["n"].text() == "4");
  CHECK(c.instances["m:k"][0]["x"].text() == "{dtype='f32', ndim=2}");
  CHECK(c.instances["m:j"].size() == 2);
}

TEST_CASE("config: errors name the file and line") {
  std::vector<ConfigError> errors;
  parse_build_config("opt_level = \"high\"\n[instances]\nnot_an_id = 3\n", "qdbuild.toml", false,
                     errors);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].message == "'opt_level' must be an integer");
  CHECK(errors[0].line == 1);
  CHECK(errors[1].line == 3);
  errors.clear();
  parse_build_config("x = [", "qdbuild.toml", false, errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message.starts_with("invalid TOML"));
}

TEST_CASE(
    "config: found in the nearest directory above; a pyproject without our table is skipped") {
  std::filesystem::create_directories("proj/src/pkg");
  std::ofstream("proj/qdbuild.toml") << "opt_level = 1\n";
  std::ofstream("proj/src/pyproject.toml") << "[project]\nname = \"x\"\n";
  std::vector<ConfigError> errors;
  BuildConfig c = load_build_config("proj/src/pkg", errors);
  CHECK(errors.empty());
  CHECK(c.opt_level == 1);
  CHECK(c.source.ends_with("proj/qdbuild.toml"));
  std::string arch, caps;
  CHECK(parse_target("cuda:sm_90", arch, caps));
  CHECK(caps == "cuda:sm_90");
  CHECK_FALSE(parse_target("tpu", arch, caps));
}

}  // namespace
}  // namespace qd::sema
