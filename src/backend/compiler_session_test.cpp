// Units of the front end and the keys: structured diagnostics with positions and nothing on
// stderr, no reachable system header, the whole prelude compiling cleanly, task keys.
#include "backend/compiler_session.hpp"

#include "backend/backend_test_util.hpp"
#include "backend/prelude_files.hpp"

#include <doctest/doctest.h>
#include <string>
#include <vector>

namespace qd::backend {

namespace {

const Diagnostic* first_error(const std::vector<Diagnostic>& diags) {
  for (const Diagnostic& d : diags) {
    if (d.severity == Diagnostic::Severity::error) {
      return &d;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("compiler_session: a C++ error gives structured diagnostics, nothing on stderr") {
  TaskUnit bad{"broken", "#include \"qd_prelude.hpp\"\n"
                         "QD_TASK void f(const qdrt_launch_context* ctx, int64_t, int64_t) {\n"
                         "  qd::f32 x = 1.0f\n"
                         "}\n"
                         "QD_TASK void g(const qdrt_launch_context*, int64_t, int64_t) {\n"
                         "  undeclared_name = 1;\n"
                         "}\n"};
  test::StderrCapture err;
  TaskObject r = compile_cpu_task(bad, CpuTarget{});
  std::string printed = err.text();
  CHECK(printed.empty());
  CHECK_FALSE(r.ok);
  CHECK(r.object.empty());
  const Diagnostic* d = first_error(r.diagnostics);
  REQUIRE(d != nullptr);
  CHECK(d->task == "broken");
  CHECK(d->file == "qd_task.cpp");
  CHECK(d->line == 3);
  CHECK(d->column == 19);
  CHECK(d->message == "expected ';' at end of declaration");
  CHECK(format_diagnostic(*d) == "qd_task.cpp:3:19: error: expected ';' at end of declaration");
  bool undeclared = false;
  for (const Diagnostic& x : r.diagnostics) {
    undeclared = undeclared || (x.line == 6 && x.column == 3 &&
                                x.message.find("undeclared_name") != std::string::npos);
  }
  CHECK(undeclared);

  // The session is still usable afterwards.
  TaskObject ok = compile_cpu_task(module_abi_unit(), CpuTarget{});
  CHECK(ok.ok);
}

TEST_CASE("compiler_session: no system header is reachable") {
  for (const char* header : {"<vector>", "<stdlib.h>", "<math.h>", "\"/usr/include/stdio.h\""}) {
    CAPTURE(header);
    TaskUnit unit{"sys", std::string("#include ") + header + "\nint x;\n"};
    test::StderrCapture err;
    TaskObject r = compile_cpu_task(unit, CpuTarget{});
    CHECK(err.text().empty());
    CHECK_FALSE(r.ok);
    const Diagnostic* d = first_error(r.diagnostics);
    REQUIRE(d != nullptr);
    CHECK(d->line == 1);
    CHECK(d->message.find("file not found") != std::string::npos);
    if (std::string(header) == "<vector>") {
      CHECK(format_diagnostic(*d) == "qd_task.cpp:1:10: error: 'vector' file not found");
    }
  }
}

TEST_CASE("compiler_session: the prelude compiles without a diagnostic and is fully embedded") {
  std::vector<std::string> names;
  for (const EmbeddedFile& file : embedded_prelude_files()) {
    names.emplace_back(file.name);
    CHECK(file.bytes.size() > 100);
    CHECK(file.bytes.data()[file.bytes.size()] == '\0');
  }
  CHECK(names == std::vector<std::string>{"qd_prelude.hpp", "stdint.h", "qdrt/task_abi.h"});

  // Every builtin, instantiated for every type it supports.
  TaskUnit all{"all", R"(#include "qd_prelude.hpp"
template <class T> static T math(T x) {
  return qd::sqrt(x) + qd::sin(x) + qd::cos(x) + qd::tan(x) + qd::exp(x) + qd::log(x) +
         qd::pow(x, x) + qd::floor(x) + qd::ceil(x) + qd::fabs(x) + qd::fmin(x, x) + qd::fmax(x, x);
}
template <class T> static void atomics(T* p) {
  qd::atomic_add(p, T(1));
  qd::atomic_sub(p, T(1));
  qd::atomic_min(p, T(1));
  qd::atomic_max(p, T(1));
}
QD_TASK void all(const qdrt_launch_context* ctx, int64_t, int64_t) {
  *qd::temp<qd::f32>(ctx, 0) = math(qd::arg_scalar<qd::f32>(ctx, 0));
  *qd::temp<qd::f64>(ctx, 8) = math(qd::arg_scalar<qd::f64>(ctx, 1));
  atomics(qd::temp<qd::i32>(ctx, 16));
  atomics(qd::temp<qd::u32>(ctx, 20));
  atomics(qd::temp<qd::i64>(ctx, 24));
  atomics(qd::temp<qd::u64>(ctx, 32));
  atomics(qd::temp<qd::f32>(ctx, 40));
  atomics(qd::temp<qd::f64>(ctx, 48));
  *qd::result<qd::i8>(ctx) = qd::i8(INT32_MAX > 0);
}
)"};
  TaskObject r = compile_cpu_task(all, CpuTarget{});
  CHECK(r.ok);
  CHECK(r.diagnostics.empty());
}

TEST_CASE("compiler_session: the driver's cc1 line pins the target and keeps headers out") {
  auto session = CompilerSession::for_target(CpuTarget{});
  CHECK(session == CompilerSession::for_target(CpuTarget{}));  // cached per configuration
  std::string cc1;
  for (const std::string& arg : session->cc1_arguments()) {
    cc1 += arg + " ";
  }
  CHECK(cc1.find("-triple x86_64-pc-linux-gnu") != std::string::npos);
  CHECK(cc1.find("-target-cpu x86-64-v3") != std::string::npos);
  CHECK(cc1.find("-nostdsysteminc") != std::string::npos);
  CHECK(cc1.find("-nobuiltininc") != std::string::npos);

  CpuTarget bad_cpu;
  bad_cpu.cpu = "no-such-cpu";
  test::StderrCapture err;
  TaskObject r = compile_cpu_task(module_abi_unit(), bad_cpu);
  CHECK(err.text().empty());
  CHECK_FALSE(r.ok);
  CHECK(first_error(r.diagnostics) != nullptr);
}

TEST_CASE("toolchain_id and task_key") {
  CpuTarget base;
  std::string id = toolchain_id(base);
  CHECK(id.find("llvm=19.1") != std::string::npos);
  CHECK(id.find("cpu=x86-64-v3") != std::string::npos);
  CHECK(id.find("opt=O3") != std::string::npos);
  CHECK(id.find("prelude=" + prelude_digest()) != std::string::npos);
  CHECK(id == toolchain_id(base));

  std::string key = task_key("int x;", base);
  CHECK(key.size() == 64);
  CHECK(key.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(key == task_key("int x;", base));
  CHECK(key != task_key("int x; ", base));
  CpuTarget other = base;
  other.cpu = "x86-64-v4";
  CHECK(key != task_key("int x;", other));
  other = base;
  other.opt_level = 2;
  CHECK(key != task_key("int x;", other));
  other = base;
  other.features = "-fma";
  CHECK(key != task_key("int x;", other));
}

}  // namespace qd::backend
