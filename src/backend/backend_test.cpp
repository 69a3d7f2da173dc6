// End-to-end units of the CPU backend: in-memory TUs using the prelude → objects → .so →
// memfd + dlopen → calls through qdrt/task_abi.h, with exact results; determinism; threads.
#include "backend/backend.hpp"

#include "backend/backend_test_util.hpp"
#include "backend/prelude_files.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <qdrt/task_abi.h>
#include <string>
#include <vector>

namespace qd::backend {

namespace {

const char* const k_saxpy = R"(// y[i] = a * x[i] + y[i]
#include "qd_prelude.hpp"

QD_TASK void saxpy(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  const qd::f32 a = qd::arg_scalar<qd::f32>(ctx, 0);
  const qd::f32* x = qd::array_data<qd::f32>(qd::arg_array(ctx, 1));
  qd::f32* y = qd::array_data<qd::f32>(qd::arg_array(ctx, 2));
  for (int64_t i = begin; i < end; ++i) {
    y[i] = a * x[i] + y[i];
  }
}

QD_TASK int64_t saxpy__extent(const qdrt_launch_context* ctx) {
  return qd::arg_array(ctx, 1)->shape[0];
}
)";

// Serial: total = sum(y) into the result, the element count into the temporaries atomically,
// and sin/sqrt of y[0] (libm and a builtin) into the temporaries.
const char* const k_reduce = R"(#include "qd_prelude.hpp"

QD_TASK void reduce(const qdrt_launch_context* ctx, int64_t, int64_t) {
  const qdrt_array* ya = qd::arg_array(ctx, 2);
  const qd::f32* y = qd::array_data<qd::f32>(ya);
  qd::f64 total = 0;
  for (int64_t i = 0; i < ya->shape[0]; ++i) {
    total += y[i];
    qd::atomic_add(qd::temp<qd::i64>(ctx, 0), qd::i64(1));
    qd::atomic_max(qd::temp<qd::f32>(ctx, 8), y[i]);
  }
  *qd::result<qd::f64>(ctx) = total;
  *qd::temp<qd::f32>(ctx, 12) = qd::sin(y[1]);
  *qd::temp<qd::f64>(ctx, 16) = qd::sqrt(qd::f64(y[2]));
}
)";

struct SaxpyLaunch {
  float a = 2.0f;
  std::vector<float> x;
  std::vector<float> y;
  qdrt_array xa{};
  qdrt_array ya{};
  const void* args[3]{};
  alignas(16) unsigned char temps[32]{};
  alignas(16) double result = 0;
  qdrt_launch_context ctx{};

  explicit SaxpyLaunch(int64_t n) : x(static_cast<size_t>(n)), y(static_cast<size_t>(n)) {
    for (int64_t i = 0; i < n; ++i) {
      x[static_cast<size_t>(i)] = static_cast<float>(i);
      y[static_cast<size_t>(i)] = static_cast<float>(3 * i + 1);
    }
    xa.data = x.data();
    xa.shape[0] = n;
    ya.data = y.data();
    ya.shape[0] = n;
    args[0] = &a;
    args[1] = &xa;
    args[2] = &ya;
    ctx.args = args;
    ctx.temps = temps;
    ctx.result = &result;
  }
};

std::vector<TaskUnit> saxpy_module() {
  return {{"saxpy", k_saxpy}, {"reduce", k_reduce}, module_abi_unit()};
}

Options two_threads() {
  Options options;
  options.threads = 2;
  return options;
}

std::string all_messages(const std::vector<Diagnostic>& diags) {
  std::string out;
  for (const Diagnostic& d : diags) {
    out += format_diagnostic(d) + "\n";
  }
  return out;
}

// A family of distinct, valid TUs (different constants, different code).
std::vector<TaskUnit> eight_units() {
  std::vector<TaskUnit> units;
  for (int k = 0; k < 8; ++k) {
    std::string n = std::to_string(k);
    units.push_back({"t" + n, "#include \"qd_prelude.hpp\"\n"
                              "QD_TASK void t" +
                                  n +
                                  "(const qdrt_launch_context* ctx, int64_t b, int64_t e) {\n"
                                  "  qd::f32* y = qd::array_data<qd::f32>(qd::arg_array(ctx, 0));\n"
                                  "  for (int64_t i = b; i < e; ++i) { y[i] = qd::fmax(y[i] * " +
                                  n + ".5f, qd::f32(i % " + std::to_string(k + 2) + ")); }\n}\n"});
  }
  return units;
}

}  // namespace

TEST_CASE("backend: saxpy + extent + serial reduction, linked, loaded and called") {
  Result r = compile_cpu_module(saxpy_module(), two_threads());
  INFO(all_messages(r.diagnostics));
  REQUIRE(r.ok);
  CHECK(r.diagnostics.empty());
  REQUIRE(r.objects.size() == 3);
  for (const TaskObject& object : r.objects) {
    CHECK(object.ok);
    CHECK(object.key.size() == 64);
    CHECK(object.object.substr(0, 4) == "\x7f"
                                        "ELF");
  }
  CHECK(r.so_bytes.substr(0, 4) == "\x7f"
                                   "ELF");

  test::LoadedModule so(r.so_bytes);
  INFO(so.error());
  REQUIRE(so.ok());
  const auto* abi = so.symbol<const uint32_t*>(QDRT_MODULE_ABI_SYMBOL);
  REQUIRE(abi != nullptr);
  CHECK(*abi == QDRT_TASK_ABI_VERSION);
  auto saxpy = so.symbol<qdrt_task_fn>("saxpy");
  auto extent = so.symbol<qdrt_extent_fn>("saxpy" QDRT_EXTENT_SUFFIX);
  auto reduce = so.symbol<qdrt_task_fn>("reduce");
  bool found = saxpy != nullptr && extent != nullptr && reduce != nullptr;
  REQUIRE(found);
  // Only the tasks and the ABI symbol are exported: prelude helpers stay internal.
  CHECK(so.symbol<void*>("_ZN2qd12_GLOBAL__N_13sinEf") == nullptr);

  const int64_t n = 1003;  // odd: exercises the vector loop's remainder
  SaxpyLaunch launch(n);
  REQUIRE(extent(&launch.ctx) == n);
  // Two disjoint sub-ranges, as the runtime's thread pool would call them.
  saxpy(&launch.ctx, 0, 500);
  saxpy(&launch.ctx, 500, extent(&launch.ctx));
  double expected_total = 0;
  for (int64_t i = 0; i < n; ++i) {
    float expected = 2.0f * static_cast<float>(i) + static_cast<float>(3 * i + 1);  // exact
    REQUIRE(launch.y[static_cast<size_t>(i)] == expected);
    expected_total += expected;
  }
  reduce(&launch.ctx, 0, 1);
  CHECK(launch.result == expected_total);
  int64_t count;
  float max;
  float sin1;
  double sqrt2;
  std::memcpy(&count, launch.temps + 0, 8);
  std::memcpy(&max, launch.temps + 8, 4);
  std::memcpy(&sin1, launch.temps + 12, 4);
  std::memcpy(&sqrt2, launch.temps + 16, 8);
  CHECK(count == n);
  CHECK(max == launch.y.back());
  CHECK(sin1 == std::sin(launch.y[1]));  // the same libm function
  CHECK(sqrt2 == std::sqrt(static_cast<double>(launch.y[2])));
}

TEST_CASE("backend: every opt level and a feature change give working code") {
  std::vector<CpuTarget> targets(5);
  for (unsigned level = 0; level < 4; ++level) {
    targets[level].opt_level = level;
  }
  targets[4].features = "-fma,-avx2";
  std::vector<std::string> objects;
  for (const CpuTarget& target : targets) {
    CAPTURE(target.opt_level);
    CAPTURE(target.features);
    TaskObject saxpy = compile_cpu_task({"saxpy", k_saxpy}, target);
    TaskObject abi = compile_cpu_task(module_abi_unit(), target);
    INFO(all_messages(saxpy.diagnostics));
    REQUIRE(saxpy.ok);
    REQUIRE(abi.ok);
    objects.push_back(saxpy.object);
    LinkedModule linked = link_cpu_module({saxpy.object, abi.object});
    REQUIRE(linked.ok);
    test::LoadedModule so(linked.so_bytes);
    REQUIRE(so.ok());
    auto saxpy_fn = so.symbol<qdrt_task_fn>("saxpy");
    bool found = saxpy_fn != nullptr;
    REQUIRE(found);
    SaxpyLaunch launch(77);
    saxpy_fn(&launch.ctx, 0, 77);
    for (int64_t i = 0; i < 77; ++i) {
      REQUIRE(launch.y[static_cast<size_t>(i)] == static_cast<float>(5 * i + 1));
    }
  }
  CHECK(objects[0] != objects[3]);
  CHECK(objects[4] != objects[3]);
}

// The in-process pipeline is clang++-19's: the same flags on the same text give the same bytes
// in another process (which also shows the bytes do not depend on the process).
TEST_CASE("backend: objects are byte-identical to a spawned clang++-19 with driver_arguments") {
  namespace fs = std::filesystem;
  if (std::system("command -v clang++-19 >/dev/null 2>&1") != 0) {
    MESSAGE("clang++-19 not found: comparison skipped");
    return;
  }
  fs::create_directories("include/qdrt");
  for (const EmbeddedFile& file : embedded_prelude_files()) {
    std::ofstream(fs::path("include") / std::string(file.name), std::ios::binary) << file.bytes;
  }
  std::ofstream("qd_task.cpp", std::ios::binary) << k_saxpy;
  std::string command;
  std::vector<std::string> args =
      driver_arguments(CpuTarget{}, (fs::current_path() / "include").string());
  args[0] = "clang++-19";
  for (const std::string& arg : args) {
    command += "'" + arg + "' ";
  }
  command += "-c qd_task.cpp -o qd_task.o 2>clang.err";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream in("qd_task.o", std::ios::binary);
  std::string spawned((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TaskObject in_process = compile_cpu_task({"saxpy", k_saxpy}, CpuTarget{});
  REQUIRE(in_process.ok);
  CHECK(spawned.size() == in_process.object.size());
  CHECK(spawned == in_process.object);
}

TEST_CASE("backend: the same TU gives identical object and shared-object bytes") {
  TaskObject a = compile_cpu_task({"saxpy", k_saxpy}, CpuTarget{});
  TaskObject b = compile_cpu_task({"another_name", k_saxpy}, CpuTarget{});
  REQUIRE(a.ok);
  REQUIRE(b.ok);
  CHECK(a.object == b.object);  // the task name is not part of the bytes
  CHECK(a.key == b.key);

  Result m1 = compile_cpu_module(saxpy_module(), two_threads());
  Result m2 = compile_cpu_module(saxpy_module(), Options{});
  REQUIRE(m1.ok);
  REQUIRE(m2.ok);
  CHECK(m1.so_bytes == m2.so_bytes);
  CHECK(m1.objects[0].object == a.object);

  // Relinking already-compiled objects (the incremental path) gives the same module.
  std::vector<std::string> objects;
  for (const TaskObject& o : m1.objects) {
    objects.push_back(o.object);
  }
  LinkedModule relinked = link_cpu_module(objects);
  REQUIRE(relinked.ok);
  CHECK(relinked.so_bytes == m1.so_bytes);
}

TEST_CASE("backend: 8 TUs on 2 threads give the same bytes as serially") {
  std::vector<TaskUnit> units = eight_units();
  Options serial;
  serial.threads = 1;
  Result one = compile_cpu_module(units, serial);
  Result two = compile_cpu_module(units, two_threads());
  INFO(all_messages(one.diagnostics));
  REQUIRE(one.ok);
  REQUIRE(two.ok);
  for (size_t i = 0; i < units.size(); ++i) {
    CHECK(one.objects[i].object == two.objects[i].object);
    CHECK(one.objects[i].key == two.objects[i].key);
  }
  CHECK(one.so_bytes == two.so_bytes);
  CHECK(one.objects[0].object != one.objects[1].object);
}

TEST_CASE("backend: a link error is a diagnostic, and the next link still works") {
  TaskUnit bad{"calls_missing", "#include \"qd_prelude.hpp\"\n"
                                "extern \"C\" void qd_missing_function();\n"
                                "QD_TASK void f(const qdrt_launch_context*, int64_t, int64_t) {\n"
                                "  qd_missing_function();\n"
                                "}\n"};
  test::StderrCapture err;
  Result r = compile_cpu_module({bad}, Options{});
  std::string printed = err.text();
  CHECK_FALSE(r.ok);
  CHECK(r.so_bytes.empty());
  REQUIRE(r.objects.size() == 1);
  CHECK(r.objects[0].ok);  // it compiled; the link failed
  CHECK(all_messages(r.diagnostics).find("undefined symbol: qd_missing_function") !=
        std::string::npos);
  CHECK(printed.empty());

  Result good = compile_cpu_module(saxpy_module(), Options{});
  CHECK(good.ok);
}

}  // namespace qd::backend
