// The CUDA path of the backend without a GPU (label cuda): task units → PTX (pinned .version and
// .target, libdevice linked, fast_math honoured) → merged PTX → sm_XX cubin (a CUDA ELF with every
// entry point) → bundle round trip; keys; determinism; error paths.
#include "backend/backend.hpp"

#include "cuda/cuda_elf.hpp"

#include <algorithm>
#include <cstdlib>
#include <doctest/doctest.h>
#include <qdrt/task_abi.h>
#include <string>
#include <thread>
#include <vector>

namespace qd::backend {

namespace {

using cuda_test::parse_elf;

// A range task: y[i] = a * x[i] + y[i], grid-stride over x's extent.
const char* const k_saxpy = R"(#include "qd_prelude.hpp"

QD_TASK void qd_saxpy(qdrt_cuda_context ctx_) {
  const qdrt_cuda_context* ctx = &ctx_;
  const qd::f32 a = qd::arg_scalar<qd::f32>(ctx, 0);
  const qd::f32* x = qd::array_data<qd::f32>(qd::arg_array(ctx, 1));
  qd::f32* y = qd::array_data<qd::f32>(qd::arg_array(ctx, 2));
  const qd::i64 n = qd::arg_array(ctx, 1)->shape[0];
  for (qd::i64 i = qd::thread_index(); i < n; i += qd::thread_stride()) {
    y[i] = a * x[i] + y[i];
  }
}
)";

// sin (libdevice, with its internal tables), sqrt, division: fast_math decides the instructions.
const char* const k_math = R"(#include "qd_prelude.hpp"

extern "C" float __nv_sqrtf(float);

QD_TASK void qd_math(qdrt_cuda_context ctx_) {
  const qdrt_cuda_context* ctx = &ctx_;
  qd::f32* y = qd::array_data<qd::f32>(qd::arg_array(ctx, 0));
  const qd::i64 i = qd::thread_index();
  y[i] = qd::sin(y[i]) + qd::sqrt(y[i + 1]) / y[i + 2];
  y[i + 3] = __nv_sqrtf(y[i + 4]);
}
)";

// Another unit using sin too: its libdevice copy must not clash with k_math's in one module.
const char* const k_math2 = R"(#include "qd_prelude.hpp"

QD_TASK void qd_math2(qdrt_cuda_context ctx_) {
  qd::f64* y = qd::array_data<qd::f64>(qd::arg_array(&ctx_, 0));
  y[0] = qd::sin(y[1]) + qd::exp(y[2]);
}
)";

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// qd.random on CUDA: thread i's state in qdrt_cuda_rand_states, which the module ABI unit defines.
const char* const k_draw = R"(#include "qd_prelude.hpp"

QD_TASK void qd_draw(qdrt_cuda_context ctx_) {
  const qdrt_cuda_context* ctx = &ctx_;
  qd::f32* y = qd::array_data<qd::f32>(qd::arg_array(ctx, 0));
  qd::u64* z = qd::array_data<qd::u64>(qd::arg_array(ctx, 1));
  const qd::i64 n = qd::arg_array(ctx, 0)->shape[0];
  for (qd::i64 i = qd::thread_index(); i < n; i += qd::thread_stride()) {
    y[i] = qd::rand_f32(ctx);
    z[i] = qd::rand_u64(ctx);
  }
}
)";

std::string messages(const std::vector<Diagnostic>& diags) {
  std::string out;
  for (const Diagnostic& d : diags) {
    out += format_diagnostic(d) + "\n";
  }
  return out;
}

TaskPtx compile_ok(const char* source, const CudaTarget& target = {}) {
  TaskPtx t = compile_cuda_task({"test", source}, target);
  INFO(messages(t.diagnostics));
  REQUIRE(t.ok);
  return t;
}

std::string item_text(const CudaBundleItem& item) {
  return item.bytes.substr(0, item.bytes.size() - 1);  // without the NUL
}

}  // namespace

TEST_CASE("cuda: a range task compiles to PTX with the pinned version and target") {
  TaskPtx t = compile_ok(k_saxpy);
  CHECK(contains(t.ptx, "\n.version 8.5\n"));
  CHECK(contains(t.ptx, "\n.target sm_90\n"));
  CHECK(contains(t.ptx, ".address_size 64"));
  CHECK(contains(t.ptx, ".visible .entry qd_saxpy("));
  CHECK_FALSE(contains(t.ptx, ".extern"));
  CHECK(t.key.size() == 64);

  CudaTarget sm80;
  sm80.arch = 80;
  sm80.ptx = "+ptx78";
  TaskPtx t80 = compile_ok(k_saxpy, sm80);
  CHECK(contains(t80.ptx, "\n.version 7.8\n"));
  CHECK(contains(t80.ptx, "\n.target sm_80\n"));
  CHECK(t80.key != t.key);
}

TEST_CASE("cuda: libdevice is linked and internalised; fast_math decides sqrt and division") {
  CudaTarget fast;
  CudaTarget ieee;
  ieee.fast_math = false;
  TaskPtx f = compile_ok(k_math, fast);
  TaskPtx p = compile_ok(k_math, ieee);
  CHECK(f.key != p.key);
  for (const TaskPtx* t : {&f, &p}) {
    CHECK_FALSE(contains(t->ptx, ".extern"));
    CHECK_FALSE(contains(t->ptx, ".visible .func"));  // libdevice is internal
    CHECK(contains(t->ptx, ".visible .entry qd_math("));
  }
  // IEEE: correctly rounded sqrt (the builtin and __nv_sqrtf through __CUDA_PREC_SQRT = 1) and
  // division; no flush to zero.
  CHECK(contains(p.ptx, "sqrt.rn.f32"));
  CHECK_FALSE(contains(p.ptx, "sqrt.approx"));
  CHECK(contains(p.ptx, "div.rn.f32"));
  CHECK_FALSE(contains(p.ptx, ".ftz.f32"));
  // fast_math: approximate sqrt and division (libdevice's sin may divide exactly inside).
  CHECK_FALSE(contains(f.ptx, "sqrt.rn.f32"));
  CHECK(contains(f.ptx, "sqrt.approx.f32"));
  CHECK(contains(f.ptx, "div.approx.f32"));
}

TEST_CASE("cuda: same input, same PTX and bundle bytes, from any thread") {
  TaskPtx a = compile_ok(k_math);
  std::vector<TaskPtx> others(3);
  std::vector<std::thread> threads;
  for (TaskPtx& o : others) {
    threads.emplace_back([&o] { o = compile_cuda_task({"other-name", k_math}, CudaTarget{}); });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  for (const TaskPtx& o : others) {
    CHECK(o.ok);
    CHECK(o.ptx == a.ptx);
    CHECK(o.key == a.key);
  }
  TaskPtx b = compile_ok(k_saxpy);
  CudaModule m1 = link_cuda_module({a.ptx, b.ptx}, 90);
  CudaModule m2 = link_cuda_module({a.ptx, b.ptx}, 90);
  INFO(messages(m1.diagnostics));
  REQUIRE(m1.ok);
  REQUIRE(m2.ok);
  CHECK(m1.bundle == m2.bundle);
}

TEST_CASE("cuda: units link into one cubin with every entry point; bundle round trip") {
  std::vector<std::string> ptx;
  for (const char* source : {k_saxpy, k_math, k_math2}) {
    ptx.push_back(compile_ok(source).ptx);
  }
  ptx.push_back(compile_ok(module_abi_unit().source.c_str()).ptx);
  CudaModule m = link_cuda_module(ptx, 90);
  INFO(messages(m.diagnostics));
  REQUIRE(m.ok);
  MESSAGE("linked with " << m.linker);

  std::vector<CudaBundleItem> items;
  std::string error;
  REQUIRE(parse_cuda_bundle(m.bundle, items, error));
  REQUIRE(items.size() == 2);
  CHECK(items[0].kind == QDRT_CUDA_ITEM_CUBIN);
  CHECK(items[0].arch == 90);
  CHECK(items[1].kind == QDRT_CUDA_ITEM_PTX);
  CHECK(items[1].arch == 90);
  CHECK(make_cuda_bundle(items) == m.bundle);

  cuda_test::ElfInfo elf = parse_elf(items[0].bytes);
  INFO(elf.error);
  REQUIRE(elf.ok);
  CHECK(elf.machine == cuda_test::k_em_cuda);
  CHECK(((elf.flags >> 8) & 0xff) == 90);  // the SM arch in e_flags (0x..5a..)
  for (const char* sym : {"qd_saxpy", "qd_math", "qd_math2", "qdrt_module_abi_version"}) {
    CHECK_MESSAGE(std::count(elf.symbols.begin(), elf.symbols.end(), sym) == 1, sym);
  }
  CHECK(std::find(elf.sections.begin(), elf.sections.end(), ".text.qd_saxpy") !=
        elf.sections.end());

  std::string merged = item_text(items[1]);
  CHECK(merged.find(".version 8.5") == merged.rfind(".version 8.5"));  // one header
  CHECK(contains(merged, ".visible .entry qd_math2("));

  // The merged PTX alone is what ptxas (the fallback) accepts too.
  setenv("QDBUILD_CUDA_LINKER", "ptxas", 1);
  CudaModule spawned = link_cuda_module(ptx, 90);
  unsetenv("QDBUILD_CUDA_LINKER");
  INFO(messages(spawned.diagnostics));
  REQUIRE(spawned.ok);
  CHECK(spawned.linker == "ptxas");
  std::vector<CudaBundleItem> spawned_items;
  REQUIRE(parse_cuda_bundle(spawned.bundle, spawned_items, error));
  cuda_test::ElfInfo elf2 = parse_elf(spawned_items[0].bytes);
  REQUIRE(elf2.ok);
  CHECK(elf2.machine == cuda_test::k_em_cuda);
  CHECK(std::count(elf2.symbols.begin(), elf2.symbols.end(), "qd_math2") == 1);
  CHECK(spawned_items[1].bytes == items[1].bytes);
}

TEST_CASE("cuda: malformed bundles are rejected") {
  std::string bundle = make_cuda_bundle({{QDRT_CUDA_ITEM_CUBIN, 90,
                                          "\x7f"
                                          "ELF"},
                                         {QDRT_CUDA_ITEM_PTX, 90, std::string("x\0", 2)}});
  std::vector<CudaBundleItem> items;
  std::string error;
  REQUIRE(parse_cuda_bundle(bundle, items, error));
  CHECK(items[1].bytes == std::string("x\0", 2));
  CHECK_FALSE(parse_cuda_bundle(bundle.substr(0, 20), items, error));
  CHECK_FALSE(parse_cuda_bundle("QDCUDA", items, error));
  std::string bad = bundle;
  bad[0] = 'X';
  CHECK_FALSE(parse_cuda_bundle(bad, items, error));
  bad = bundle;
  bad[16] = 7;  // unknown item kind
  CHECK_FALSE(parse_cuda_bundle(bad, items, error));
  bad = bundle;
  bad[16 + 24 + 16] = 100;  // the PTX item's size runs past the end
  CHECK_FALSE(parse_cuda_bundle(bad, items, error));
  CHECK_FALSE(
      parse_cuda_bundle(make_cuda_bundle({{QDRT_CUDA_ITEM_PTX, 90, "no NUL"}}), items, error));
}

TEST_CASE("cuda: targets, keys and error paths") {
  CudaTarget t;
  CHECK(parse_cuda_target("cuda", t));
  CHECK(t.arch == 90);
  CHECK(parse_cuda_target("cuda:sm_86", t));
  CHECK(t.arch == 86);
  CHECK(parse_cuda_target("sm_80", t));
  CHECK_FALSE(parse_cuda_target("cuda:sm_", t));
  CHECK_FALSE(parse_cuda_target("cpu", t));
  CHECK(cuda_ptx_version(CudaTarget{}) == "8.5");

  CudaTarget a;
  CudaTarget b;
  b.fast_math = false;
  CudaTarget c;
  c.ptx = "+ptx78";
  CudaTarget d;
  d.arch = 89;
  std::vector<std::string> keys = {task_key("x", a), task_key("x", b), task_key("x", c),
                                   task_key("x", d), task_key("y", a), task_key("x", CpuTarget{})};
  std::sort(keys.begin(), keys.end());
  CHECK(std::unique(keys.begin(), keys.end()) == keys.end());
  CHECK(contains(toolchain_id(a), ";libdevice=" + libdevice_digest()));
  CHECK(libdevice_digest().size() == 64);

  CudaTarget blackwell;
  blackwell.arch = 100;
  CHECK_FALSE(check_cuda_target(blackwell).empty());
  TaskPtx r = compile_cuda_task({"t", k_saxpy}, blackwell);
  CHECK_FALSE(r.ok);
  CHECK(contains(messages(r.diagnostics), "sm_100 is not supported"));
  CHECK_FALSE(link_cuda_module({"x"}, 100).ok);

  // Front-end error: a diagnostic with its position, not a crash.
  TaskPtx fe = compile_cuda_task({"bad", "#include \"qd_prelude.hpp\"\nint f() { return x; }\n"},
                                 CudaTarget{});
  CHECK_FALSE(fe.ok);
  CHECK(contains(messages(fe.diagnostics), "qd_task.cpp:2:"));
  // A function neither the unit nor libdevice defines.
  TaskPtx undef = compile_cuda_task(
      {"undef", "extern \"C\" float __nv_nothing(float);\nextern \"C\" "
                "__attribute__((nvptx_kernel)) void k(float* p) { p[0] = __nv_nothing(p[1]); }\n"},
      CudaTarget{});
  CHECK_FALSE(undef.ok);
  CHECK(contains(messages(undef.diagnostics), "__nv_nothing"));
  // nvJitLink / ptxas errors come back as diagnostics.
  CudaModule bad =
      link_cuda_module({".version 8.5\n.target sm_90\n.address_size 64\nnonsense\n"}, 90);
  CHECK_FALSE(bad.ok);
  CHECK_FALSE(bad.diagnostics.empty());
  std::string error;
  CHECK(merge_ptx_units({".version 8.5\n.target sm_90\n", ".version 7.8\n.target sm_90\n"}, error)
            .empty());
}

TEST_CASE("cuda: a task that draws reads qdrt_cuda_rand_states, which the module defines once") {
  TaskPtx draw = compile_ok(k_draw);
  // The unit declares the states; the module ABI unit defines them (null until the runtime sets
  // them, task_abi.h "Random numbers").
  CHECK(contains(draw.ptx, ".extern .global .align 8 .b64 qdrt_cuda_rand_states;"));
  TaskPtx abi = compile_ok(module_abi_unit().source.c_str());
  CHECK(contains(abi.ptx, ".visible .global .align 8 .u64 qdrt_cuda_rand_states;"));
  CHECK(contains(abi.ptx, ".visible .global .align 4 .u32 qdrt_module_abi_version = 4;"));
  // The draw: Quadrants' xorshift128 step and the prime.
  CHECK(contains(draw.ptx, "1000000007"));

  // Merged: one definition before every unit's code, and no .extern (ptxas warns on an .extern
  // it cannot resolve and reads it as a second definition).
  std::vector<std::string> ptx = {draw.ptx, compile_ok(k_saxpy).ptx, abi.ptx};
  std::string error;
  std::string merged = merge_ptx_units(ptx, error);
  REQUIRE(error.empty());
  CHECK_FALSE(contains(merged, ".extern .global"));
  CHECK(merged.find("qdrt_cuda_rand_states;") == merged.rfind("qdrt_cuda_rand_states;"));
  CHECK(merged.find("qdrt_cuda_rand_states;") < merged.find("[qdrt_cuda_rand_states]"));
  for (const char* linker : {"", "ptxas"}) {
    if (*linker != 0) {
      setenv("QDBUILD_CUDA_LINKER", linker, 1);
    }
    CudaModule m = link_cuda_module(ptx, 90);
    unsetenv("QDBUILD_CUDA_LINKER");
    INFO(messages(m.diagnostics));
    REQUIRE(m.ok);
    CHECK(m.diagnostics.empty());  // no warning either
    std::vector<CudaBundleItem> items;
    REQUIRE(parse_cuda_bundle(m.bundle, items, error));
    cuda_test::ElfInfo elf = parse_elf(items[0].bytes);
    REQUIRE(elf.ok);
    for (const char* sym : {"qd_draw", "qd_saxpy", "qdrt_cuda_rand_states"}) {
      CHECK_MESSAGE(std::count(elf.symbols.begin(), elf.symbols.end(), sym) == 1, sym);
    }
  }
  // An .extern no unit defines stays (the linker reports it), and a definition elsewhere in a
  // line's text does not count.
  std::string kept = merge_ptx_units(
      {".version 8.5\n.target sm_90\n.address_size 64\n.extern .global .align 8 .u64 other;\n",
       ".version 8.5\n.target sm_90\n.address_size 64\n.visible .global .align 4 .b8 "
       "table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n// other;\n"},
      error);
  CHECK(contains(kept, ".extern .global .align 8 .u64 other;"));
  CHECK(merge_ptx_units({".version 8.5\n.target sm_90\n.address_size 64\n.extern .global .u32 "
                         "table[8];\n",
                         ".version 8.5\n.target sm_90\n.address_size 64\n.global .u32 "
                         "table[8];\n"},
                        error)
            .find(".extern") == std::string::npos);
}

TEST_CASE("cuda: qd.simt.warp.match_any / match_all are the hardware's match.sync") {
  TaskPtx t = compile_ok(R"(#include "qd_prelude.hpp"

QD_TASK void qd_match(qdrt_cuda_context ctx_) {
  qd::i32* y = qd::array_data<qd::i32>(qd::arg_array(&ctx_, 0));
  const qd::i64 i = qd::thread_index();
  y[i] = qd::warp_op<10, qd::i32>(y[i], 0) + qd::warp_op<11, qd::i32>(y[i] / 2, 0);
}
)");
  CHECK(contains(t.ptx, "match.any.sync.b32"));
  CHECK(contains(t.ptx, "match.all.sync.b32"));
}

}  // namespace qd::backend
