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

TEST_CASE("config: project keys are relative to the config file") {
  std::vector<ConfigError> errors;
  BuildConfig c = parse_build_config(
      "[tool.qdbuild]\npaths = [\"src\", \"../common/k.py\"]\nstore = \"out/st/\"\n"
      "targets = \"cuda:sm_90\"\n",
      "/p/proj/pyproject.toml", true, errors);
  CHECK(errors.empty());
  CHECK(c.paths == std::vector<std::string>{"/p/proj/src", "/p/common/k.py"});
  CHECK(c.store == "/p/proj/out/st");
  CHECK(c.targets == std::vector<std::string>{"cuda:sm_90"});
  c = parse_build_config("paths = \"/abs/src\"\ntargets = [\"cpu\", \"cuda\"]\n", "/p/qdbuild.toml",
                         false, errors);
  CHECK(errors.empty());
  CHECK(c.paths == std::vector<std::string>{"/abs/src"});
  CHECK(c.store.empty());
  CHECK(c.targets == std::vector<std::string>{"cpu", "cuda"});
}

TEST_CASE("config: project keys of the wrong type, unknown keys") {
  std::vector<ConfigError> errors;
  parse_build_config("paths = []\nstore = 3\ntargets = [\"tpu\", 7]\nstoree = \"x\"\n"
                     "[tool]\n",
                     "/p/qdbuild.toml", false, errors);
  REQUIRE(errors.size() == 6);
  CHECK(errors[0].message == "'paths' must be a path or a non-empty list of paths");
  CHECK(errors[0].key == "paths");
  CHECK(errors[0].line == 1);
  CHECK(errors[0].col == 8);
  CHECK(errors[1].message == "'store' must be a directory (a non-empty string)");
  CHECK(errors[1].line == 2);
  CHECK(errors[2].message == "unknown target 'tpu' (cpu, cuda or cuda:sm_XX)");
  CHECK(errors[2].line == 3);
  CHECK(errors[2].col == 11);
  CHECK(errors[3].message == "'targets' must hold strings (cpu, cuda or cuda:sm_XX)");
  CHECK(errors[4].message == "unknown key 'storee', did you mean 'store'?");
  CHECK(errors[4].key == "storee");
  CHECK(errors[4].line == 4);
  CHECK(errors[4].col == 0);  // at the key
  CHECK(errors[5].message == "unknown key 'tool'");
  CHECK(errors[5].line == 5);
}

TEST_CASE("config: find_build_config") {
  std::filesystem::create_directories("find/a/b");
  std::ofstream("find/pyproject.toml") << "[tool.qdbuild]\nstore = \"s\"\n";
  std::string found = find_build_config("find/a/b");
  CHECK(found.ends_with("/find/pyproject.toml"));
  CHECK(std::filesystem::path(found).is_absolute());
  std::filesystem::create_directories("nothing_here");
}

}  // namespace
}  // namespace qd::sema

namespace qd::sema {

TEST_CASE("config: [tool.qdbuild.remote]") {
  std::vector<ConfigError> errors;
  BuildConfig c = parse_build_config(
      "[tool.qdbuild.remote]\nurl = [\"http://c:1/q\", \"redis://c:2/0|read-only\"]\n"
      "read-only = true\nconnect-timeout = 50\ntimeout = 700\nverify-key = \"keys/team.pub\"\n",
      "/p/pyproject.toml", true, errors);
  CHECK(errors.empty());
  CHECK(c.remote.urls == std::vector<std::string>{"http://c:1/q", "redis://c:2/0|read-only"});
  CHECK(c.remote.read_only == true);
  CHECK(c.remote.connect_timeout_ms == 50);
  CHECK(c.remote.timeout_ms == 700);
  CHECK(c.remote.verify_key == "/p/keys/team.pub");
  CHECK(c.codegen_text() == BuildConfig{}.codegen_text());  // never part of a key
  parse_build_config("[remote]\nurl = 3\ntimout = 5\n", "qdbuild.toml", false, errors);
  REQUIRE(errors.size() == 2);
  CHECK(errors[1].message.find("did you mean 'timeout'?") != std::string::npos);
}

}  // namespace qd::sema
