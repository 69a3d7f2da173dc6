// The remote action's target flags and settings (compile_request.hpp, exec_config.hpp).
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "remote_exec/compile_request.hpp"
#include "remote_exec/exec_config.hpp"

using namespace qd::remote_exec;

TEST_CASE("target flags: canonical text, parsed back to the same request") {
  CompileRequest cpu;
  cpu.cpu.cpu = "znver4";
  cpu.cpu.features = "+avx512f,-fma";
  cpu.cpu.opt_level = 2;
  std::string text = target_flags_text(cpu);
  CHECK(text == "qd-remote-compile-1\ntarget=cpu\ncpu=znver4\nfeatures=+avx512f,-fma\nopt=2\n");
  CompileRequest back;
  std::string error;
  REQUIRE(parse_target_flags(text, back, error));
  CHECK_FALSE(back.cuda);
  CHECK(back.cpu.cpu == "znver4");
  CHECK(back.cpu.features == "+avx512f,-fma");
  CHECK(back.cpu.opt_level == 2);

  CompileRequest gpu;
  gpu.cuda = true;
  gpu.gpu.arch = 86;
  gpu.gpu.fast_math = false;
  text = target_flags_text(gpu);
  CHECK(text == "qd-remote-compile-1\ntarget=cuda\narch=86\nptx=+ptx85\nfast_math=0\nopt=3\n");
  REQUIRE(parse_target_flags(text, back, error));
  CHECK(back.cuda);
  CHECK(back.gpu.arch == 86);
  CHECK_FALSE(back.gpu.fast_math);
}

TEST_CASE("target flags: anything target_flags_text does not make is refused, with a reason") {
  const std::map<std::string, std::string> bad = {
      {"", "name no target"},
      {"qd-remote-compile-2\ntarget=cpu\n", "not qdbuild's"},
      {"qd-remote-compile-1\ntarget=cpu\ncpu=x\nfeatures=\nopt=3", "newline"},
      {"qd-remote-compile-1\ntarget=tpu\n", "unknown target"},
      {"qd-remote-compile-1\ntarget=cpu\ncpu=x\nfeatures=\n", "settings"},
      {"qd-remote-compile-1\ntarget=cpu\nfeatures=\ncpu=x\nopt=3\n", "belongs"},
      {"qd-remote-compile-1\ntarget=cpu\ncpu=x\nfeatures=\nopt=9\n", "out of range"},
      {"qd-remote-compile-1\ntarget=cpu\ncpu=x\nfeatures=\nopt=03\n", "canonical"},
      {"qd-remote-compile-1\ntarget=cpu\ncpu=x\nfeatures=\nopt=-1\n", "not a number"},
      {"qd-remote-compile-1\ntarget=cuda\narch=91\nptx=+ptx85\nfast_math=1\nopt=3\n", "sm_91"},
      {"qd-remote-compile-1\ntarget=cuda\narch=90\nptx=+ptx85\nfast_math=2\nopt=3\n", "range"},
      {"qd-remote-compile-1\ntarget=cpu\ncpu\n", "without '='"},
  };
  for (const auto& [text, why] : bad) {
    CAPTURE(text);
    CompileRequest r;
    std::string error;
    CHECK_FALSE(parse_target_flags(text, r, error));
    CHECK(error.find(why) != std::string::npos);
  }
}

TEST_CASE("toolchain property: one value per family, stable, naming the family") {
  std::string cpu = toolchain_property(false);
  std::string cuda = toolchain_property(true);
  CHECK(cpu.starts_with("cpu-"));
  CHECK(cuda.starts_with("cuda-"));
  CHECK(cpu.size() == 4 + 64);
  CHECK(cpu == toolchain_property(false));
  CHECK(cpu != cuda);
}

namespace {

GetEnv env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("settings: the environment wins over the file; none configured is no error") {
  ExecFileSettings file;
  ExecSettings s;
  bool enabled = true;
  std::string error;
  REQUIRE(resolve_exec_settings(file, env_of({}), s, enabled, error));
  CHECK_FALSE(enabled);

  file.url = "grpc://file:1";
  file.max_in_flight = 8;
  file.queue_timeout_ms = 500;
  REQUIRE(resolve_exec_settings(file, env_of({}), s, enabled, error));
  CHECK(enabled);
  CHECK(s.url == "grpc://file:1");
  CHECK(s.max_in_flight == 8);
  CHECK(s.queue_timeout_ms == 500);
  CHECK(s.action_timeout_ms == 600000);

  REQUIRE(resolve_exec_settings(file,
                                env_of({{"QDBUILD_REMOTE_EXECUTION", "grpcs://env:2/main"},
                                        {"QDBUILD_REMOTE_EXECUTION_TOKEN", "tok\n"}}),
                                s, enabled, error));
  CHECK(s.url == "grpcs://env:2/main");
  CHECK(s.token == "tok");

  // Set and empty: no remote execution, whatever the file says.
  REQUIRE(
      resolve_exec_settings(file, env_of({{"QDBUILD_REMOTE_EXECUTION", ""}}), s, enabled, error));
  CHECK_FALSE(enabled);
}

TEST_CASE("settings: a bad URL, limit or credential file is an error naming it") {
  ExecFileSettings file;
  ExecSettings s;
  bool enabled = false;
  std::string error;
  file.url = "http://cache:8080";
  CHECK_FALSE(resolve_exec_settings(file, env_of({}), s, enabled, error));
  CHECK(error.find("grpc://") != std::string::npos);
  file.url = "grpc://host:1";
  file.timeout_ms = 0;
  CHECK_FALSE(resolve_exec_settings(file, env_of({}), s, enabled, error));
  CHECK(error.find("'timeout'") != std::string::npos);
  file.timeout_ms.reset();
  CHECK_FALSE(resolve_exec_settings(
      file, env_of({{"QDBUILD_REMOTE_EXECUTION_TOKEN_FILE", "/nonexistent/token"}}), s, enabled,
      error));
  CHECK(error.find("/nonexistent/token") != std::string::npos);
  CHECK_FALSE(resolve_exec_settings(
      file, env_of({{"QDBUILD_REMOTE_EXECUTION_CA", "/nonexistent/ca.pem"}}), s, enabled, error));
  CHECK(error.find("/nonexistent/ca.pem") != std::string::npos);
}
