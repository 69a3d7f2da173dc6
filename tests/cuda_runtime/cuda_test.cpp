// qdrt_cuda_test: libqdrt's CUDA side without a GPU (ctest label cuda; also under ASan in
// scripts/sanitize.sh). Linked with libqdrt's objects, so it reaches the internals too.
//   qdrt_cuda_test units               bundle parsing (every truncation, damaged headers and
//                                      items), image choice per arch, qdrt_cuda_context packing,
//                                      a graph kernel's plan (its loops as nested WHILE nodes),
//                                      qd.random's grid and device states (Quadrants' geometry
//                                      and seeding)
//   qdrt_cuda_test driver TEXT         qdrt_cuda_init fails with TEXT in the message (run with
//                                      QDRT_CUDA_LIBRARY=/nonexistent or the toolkit's stub)
//   qdrt_cuda_test graph-ptx PTXAS DIR the graph condition kernels' PTX, assembled by PTXAS for
//                                      sm_90 and sm_100 in DIR (entry points and the
//                                      cudaGraphSetConditional calls in the SASS)
//   qdrt_cuda_test store DIR TEXT      launches from make_cuda_store.py's store: argument checks
//                                      before the driver, damaged bundles, then TEXT (the driver
//                                      error) for a well-formed launch
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cuda_bundle.hpp"
#include "cuda_graph.hpp"
#include "cuda_launch.hpp"
#include "cuda_random.hpp"
#include "qdrt/qdrt.h"
#include "store.hpp"

namespace {

int g_failures = 0;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                \
      ++g_failures;                                                                                \
    }                                                                                              \
  } while (0)

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

#define CHECK_HAS(text, part)                                                                      \
  do {                                                                                             \
    std::string t_ = (text);                                                                       \
    if (!contains(t_, part)) {                                                                     \
      std::fprintf(stderr, "%s:%d: expected '%s' in: %s\n", __FILE__, __LINE__,                    \
                   std::string(part).c_str(), t_.c_str());                                         \
      ++g_failures;                                                                                \
    }                                                                                              \
  } while (0)

std::string bundle(const std::vector<std::pair<uint32_t, std::string>>& items_with_kind,
                   const std::vector<uint32_t>& archs) {
  qdrt_cuda_bundle_header h{};
  std::memcpy(h.magic, QDRT_CUDA_BUNDLE_MAGIC, 8);
  h.version = QDRT_CUDA_BUNDLE_VERSION;
  h.count = static_cast<uint32_t>(items_with_kind.size());
  std::string out(reinterpret_cast<const char*>(&h), sizeof h);
  uint64_t offset = sizeof h + items_with_kind.size() * sizeof(qdrt_cuda_bundle_item);
  std::string blobs;
  for (size_t i = 0; i < items_with_kind.size(); ++i) {
    qdrt_cuda_bundle_item it{items_with_kind[i].first, archs[i], offset + blobs.size(),
                             items_with_kind[i].second.size()};
    out.append(reinterpret_cast<const char*>(&it), sizeof it);
    blobs += items_with_kind[i].second;
  }
  return out + blobs;
}

const std::string k_elf = std::string("\x7f"
                                      "ELF") +
                          std::string(28, '\0');
const std::string k_ptx = std::string(".version 8.7\n.target sm_90\n") + '\0';

void test_bundles() {
  using namespace qdrt::cuda;
  std::string good = bundle(
      {{QDRT_CUDA_ITEM_CUBIN, k_elf}, {QDRT_CUDA_ITEM_CUBIN, k_elf}, {QDRT_CUDA_ITEM_PTX, k_ptx}},
      {80, 90, 90});
  std::vector<BundleImage> im;
  qdrt::Status s = parse_bundle(good, "obj", im);
  CHECK(s.ok());
  CHECK(im.size() == 3);
  CHECK(describe_images(im) == "cubin sm_80, cubin sm_90, PTX sm_90");
  auto picks = select_images(im, 90);
  // the exact cubin, then the PTX (a cubin runs only on its own major: sm_80 is no use on sm_90)
  CHECK(picks.size() == 2 && picks[0]->arch == 90 && picks[0]->kind == QDRT_CUDA_ITEM_CUBIN &&
        picks[1]->kind == QDRT_CUDA_ITEM_PTX);
  std::string two =
      bundle({{QDRT_CUDA_ITEM_CUBIN, k_elf}, {QDRT_CUDA_ITEM_CUBIN, k_elf}}, {80, 86});
  std::vector<BundleImage> im2;
  CHECK(parse_bundle(two, "obj", im2).ok());
  picks = select_images(im2, 89);  // the closest lower minor first
  CHECK(picks.size() == 2 && picks[0]->arch == 86 && picks[1]->arch == 80);
  picks = select_images(im, 100);  // a newer major: only the PTX (JIT)
  CHECK(picks.size() == 1 && picks[0]->kind == QDRT_CUDA_ITEM_PTX);
  picks = select_images(im, 86);  // sm_80 cubin runs on sm_86; the sm_90 PTX does not
  CHECK(picks.size() == 1 && picks[0]->arch == 80 && picks[0]->kind == QDRT_CUDA_ITEM_CUBIN);
  CHECK(select_images(im, 75).empty());

  // Every truncation fails cleanly (ASan checks the reads).
  for (size_t n = 0; n < good.size(); ++n) {
    s = parse_bundle(std::string_view(good).substr(0, n), "obj", im);
    CHECK(!s.ok() && s.code == QDRT_ERROR_CORRUPT);
    CHECK_HAS(s.message, "CUDA bundle obj is damaged");
  }
  s = parse_bundle(good.substr(0, 7), "obj", im);
  CHECK_HAS(s.message, "truncated header");
  s = parse_bundle(good.substr(0, 40), "obj", im);
  CHECK_HAS(s.message, "truncated item table");
  s = parse_bundle(good.substr(0, good.size() - 1), "obj", im);
  CHECK_HAS(s.message, "lies outside the bundle");

  auto edited = [&](size_t at, const void* bytes, size_t n) {
    std::string b = good;
    std::memcpy(&b[at], bytes, n);
    return b;
  };
  uint32_t v2 = 2, zero = 0, big = 1u << 30, kind7 = 7;
  uint64_t huge = ~uint64_t{0} - 7, small = 4;
  s = parse_bundle(edited(0, "QDCUDX", 6), "obj", im);
  CHECK_HAS(s.message, "bad magic");
  s = parse_bundle(edited(8, &v2, 4), "obj", im);
  CHECK(s.code == QDRT_ERROR_VERSION);
  CHECK_HAS(s.message, "bundle version 2");
  s = parse_bundle(edited(12, &zero, 4), "obj", im);
  CHECK_HAS(s.message, "unusable item count 0");
  s = parse_bundle(edited(12, &big, 4), "obj", im);
  CHECK_HAS(s.message, "unusable item count");
  s = parse_bundle(edited(16, &kind7, 4), "obj", im);
  CHECK_HAS(s.message, "item 0 has unknown kind 7");
  s = parse_bundle(edited(20, &zero, 4), "obj", im);
  CHECK_HAS(s.message, "item 0 has unusable arch 0");
  s = parse_bundle(edited(24, &huge, 8), "obj", im);  // offset near 2^64: no overflow
  CHECK_HAS(s.message, "item 0 [");
  s = parse_bundle(edited(24 + 8, &huge, 8), "obj", im);  // size near 2^64
  CHECK_HAS(s.message, "lies outside the bundle");
  s = parse_bundle(edited(24, &small, 8), "obj", im);  // inside the header
  CHECK_HAS(s.message, "lies outside the bundle");
  s = parse_bundle(bundle({{QDRT_CUDA_ITEM_CUBIN, "NOTANELF"}}, {90}), "obj", im);
  CHECK_HAS(s.message, "is not an ELF image");
  s = parse_bundle(bundle({{QDRT_CUDA_ITEM_PTX, ".version 8.7"}}, {90}), "obj", im);
  CHECK_HAS(s.message, "is not NUL-terminated");
}

void test_pack() {
  qdrt::Instance inst;
  inst.instance = "a=f32, k=3, x=ndarray(f32[3], 1), n=i64";
  auto add = [&](const char* name, uint32_t kind, uint32_t dtype, uint32_t ndim) {
    qdrt::ArgInfo a;
    a.name = name;
    a.index.kind = kind;
    a.index.dtype = dtype;
    a.index.ndim = ndim;
    inst.args.push_back(a);
    if (kind != QDRT_ARG_TEMPLATE) {
      ++inst.passed;
    }
  };
  add("a", QDRT_ARG_SCALAR, QDRT_DTYPE_F32, 0);
  add("k", QDRT_ARG_TEMPLATE, QDRT_DTYPE_NONE, 0);
  add("x", QDRT_ARG_NDARRAY, QDRT_DTYPE_F32, 1);
  add("n", QDRT_ARG_SCALAR, QDRT_DTYPE_I64, 0);
  // What launch.cpp's binding produces: scalars in uint64_t slots, arrays as qdrt_array.
  uint64_t a_slot = 0;
  float a = 2.5f;
  std::memcpy(&a_slot, &a, 4);
  qdrt_array x{};
  x.data = reinterpret_cast<void*>(uintptr_t{0x7f0000001000});
  x.shape[0] = 1000;
  uint64_t n_slot = static_cast<uint64_t>(int64_t{-5});
  const void* args[] = {&a_slot, &x, &n_slot};
  auto boxed = std::make_unique<qdrt_cuda_context>();  // 32 KiB
  qdrt_cuda_context& ctx = *boxed;
  std::memset(&ctx, 0xab, sizeof ctx);
  qdrt::Status s = qdrt::pack_cuda_context(inst, args, 0x1000, 0x1010, ctx);
  CHECK(s.ok());
  CHECK(reinterpret_cast<uintptr_t>(ctx.temps) == 0x1000);
  CHECK(reinterpret_cast<uintptr_t>(ctx.result) == 0x1010);
  float got;
  std::memcpy(&got, &ctx.args[0].scalar, 4);
  CHECK(got == 2.5f && (ctx.args[0].scalar >> 32) == 0);
  CHECK(ctx.args[0].data == nullptr);
  CHECK(ctx.args[1].data == x.data && ctx.args[1].shape[0] == 1000 && ctx.args[1].shape[1] == 0);
  CHECK(static_cast<int64_t>(ctx.args[2].scalar) == -5);
  CHECK(ctx.args[3].scalar == 0 && ctx.args[3].data == nullptr);  // unused slots zeroed
  CHECK(ctx.args[QDRT_CUDA_LEGACY_ARGS - 1].shape[7] == 0);
  // The layout the kernels read (qdrt/task_abi.h): temps, result, then 80-byte args.
  CHECK(offsetof(qdrt_cuda_context, args) == 16);
  CHECK(offsetof(qdrt_cuda_arg, data) == 8 && offsetof(qdrt_cuda_arg, shape) == 16);

  // Genesis-sized calls (ABI 3): 150 arguments, each in its own slot, the slots past `passed`
  // never written (an ABI 3 kernel declares only max(1, passed) of them).
  while (inst.passed < 150) {
    add("s", QDRT_ARG_SCALAR, QDRT_DTYPE_I32, 0);
  }
  std::vector<uint64_t> slots(inst.passed);
  std::vector<const void*> many(inst.passed);
  for (size_t i = 0; i < many.size(); ++i) {
    slots[i] = 1000 + i;
    many[i] = i == 1 ? static_cast<const void*>(&x) : &slots[i];
  }
  auto big = std::make_unique<qdrt_cuda_context>();
  std::memset(big.get(), 0xab, sizeof *big);
  s = qdrt::pack_cuda_context(inst, many.data(), 0, 0, *big);
  CHECK(s.ok());
  CHECK(big->args[1].data == x.data && big->args[1].shape[0] == 1000);
  bool all = true;
  for (size_t i = 2; i < 150; ++i) {
    all = all && big->args[i].scalar == 1000 + i && big->args[i].data == nullptr &&
          big->args[i].shape[7] == 0;
  }
  CHECK(all);
  CHECK(big->args[150].scalar == 0xabababababababab);  // past `passed`: not touched
  // A small instance still fills the 32 slots an ABI 1-2 kernel reads.
  qdrt::Instance small;
  small.passed = 1;
  qdrt::ArgInfo one;
  one.name = "a";
  one.index.kind = QDRT_ARG_SCALAR;
  small.args.push_back(one);
  std::memset(big.get(), 0xab, sizeof *big);
  CHECK(qdrt::pack_cuda_context(small, many.data(), 0, 0, *big).ok());
  CHECK(big->args[0].scalar == 1000 && big->args[31].scalar == 0 && big->args[31].shape[7] == 0);
  CHECK(big->args[32].scalar == 0xabababababababab);
  // Over the limit: refused, naming it.
  while (inst.passed <= QDRT_CUDA_MAX_ARGS) {
    add("s", QDRT_ARG_SCALAR, QDRT_DTYPE_I32, 0);
  }
  slots.resize(inst.passed);
  many.resize(inst.passed);
  for (size_t i = 0; i < many.size(); ++i) {
    many[i] = i == 1 ? static_cast<const void*>(&x) : &slots[i];
  }
  s = qdrt::pack_cuda_context(inst, many.data(), 0, 0, *big);
  CHECK(!s.ok());
  CHECK_HAS(s.message, "CUDA tasks take at most 409");
  CHECK(std::string(qdrt_status_name(QDRT_ERROR_CUDA)) == "QDRT_ERROR_CUDA");
}

// A plan as text: t<task>, or L<flag>( ... ) for a loop.
std::string plan_text(const std::vector<qdrt::cuda::GraphPlanNode>& nodes) {
  std::string out;
  for (const auto& n : nodes) {
    out += out.empty() ? "" : " ";
    out += n.loop ? "L" + std::to_string(n.condition) + "(" + plan_text(n.body) + ")"
                  : "t" + std::to_string(n.task);
  }
  return out;
}

// Tasks with the loops {last task, first task, flag} (each task's loop_ends innermost first, as
// the launch metadata lists them).
std::string plan_of(size_t n, std::vector<std::vector<qdrt_task_loop_end>> ends,
                    qdrt::Status* status = nullptr) {
  std::vector<qdrt::TaskInfo> tasks(n);
  for (size_t i = 0; i < ends.size() && i < n; ++i) {
    tasks[i].loop_ends = ends[i];
  }
  std::vector<qdrt::cuda::GraphPlanNode> plan;
  qdrt::Status s = qdrt::cuda::plan_graph(tasks, plan);
  if (status != nullptr) {
    *status = s;
  }
  return s.ok() ? plan_text(plan) : "error";
}

void test_graph_plan() {
  CHECK(plan_of(3, {}) == "t0 t1 t2");
  // graph_k.countdown: a task before, the loop over two tasks (flag: argument 0), one after.
  CHECK(plan_of(4, {{}, {}, {{1, 0}}, {}}) == "t0 L0(t1 t2) t3");
  // graph_k.nested: the inner loop (flag 1) over tasks 3-4 inside the outer (flag 0) over 1-5.
  CHECK(plan_of(7, {{}, {}, {}, {}, {{3, 1}}, {{1, 0}}, {}}) == "t0 L0(t1 t2 L1(t3 t4) t5) t6");
  // Two loops ending at one task, innermost first; the same tasks: the later one is outer.
  CHECK(plan_of(3, {{}, {}, {{2, 1}, {0, 0}}}) == "L0(t0 t1 L1(t2))");
  CHECK(plan_of(2, {{}, {{0, 1}, {0, 0}}}) == "L0(L1(t0 t1))");
  // A loop of one task, two loops one after the other, a loop at the very start and end.
  CHECK(plan_of(3, {{{0, 2}}, {}, {{2, 3}}}) == "L2(t0) t1 L3(t2)");
  CHECK(plan_of(5, {{}, {{0, 0}}, {}, {}, {{2, 1}}}) == "L0(t0 t1) L1(t2 t3 t4)");
  // Not a nesting: refused (the host loop runs such metadata; a graph cannot).
  qdrt::Status s;
  CHECK(plan_of(4, {{}, {}, {{0, 0}}, {{1, 1}}}, &s) == "error");
  CHECK_HAS(s.message, "graph loops over tasks 0-2 and 1-3 overlap without nesting");
  CHECK(plan_of(2, {{{1, 0}}}, &s) == "error");
  CHECK_HAS(s.message, "a graph loop ending after task 0 starts after it");
}

void test_random_geometry() {
  using qdrt::cuda::random_geometry;
  // An H200: 132 SMs, 32 resident blocks per SM, 1024 threads per block: Quadrants'
  // saturating_grid_dim 132 * 32 * 2 and num_rand_states that * 1024 (165 MiB of states).
  qdrt::cuda::Device h200;
  h200.sms = 132;
  h200.max_blocks_per_sm = 32;
  h200.max_block_dim = 1024;
  qdrt::cuda::RandomGeometry g = random_geometry(h200);
  CHECK(g.grid == 8448);
  CHECK(g.states == 8650752);
  // A driver before CUDA 11 (16 blocks per SM assumed) on 20 SMs.
  qdrt::cuda::Device old;
  old.sms = 20;
  old.max_blocks_per_sm = 16;
  old.max_block_dim = 1024;
  CHECK(random_geometry(old).grid == 640);
  CHECK(random_geometry(old).states == 655360);
  // The states a chunk is seeded with, from any first index, are RandomStates::initial's:
  // x = 123456789 * (seed * 1048391 + i) * 1000000007 (mod 2^32), y z w Quadrants' constants.
  std::vector<qdrt_rand_state> chunk(3);
  qdrt::cuda::initial_states(0, 0, chunk);
  CHECK(chunk[0].x == 0u && chunk[0].y == 362436069u && chunk[0].z == 521288629u &&
        chunk[0].w == 88675123u && chunk[0].lock == 0);
  CHECK(chunk[1].x == static_cast<uint32_t>(123456789ull * 1000000007ull));
  qdrt::cuda::initial_states(7, (uint64_t{1} << 20) + 5, chunk);
  uint32_t n = 7u * 1048391u + (1u << 20) + 6u;
  CHECK(chunk[1].x == 123456789u * n * 1000000007u);
  CHECK(chunk[2].x == qdrt::RandomStates::initial(7, (1u << 20) + 7).x);
}

int run_units() {
  test_bundles();
  test_pack();
  test_graph_plan();
  test_random_geometry();
  return g_failures;
}

int run_driver(const std::string& expect) {
  for (int i = 0; i < 2; ++i) {  // the failure is remembered, the same message each time
    qdrt_status s = qdrt_cuda_init();
    CHECK(s == QDRT_ERROR_CUDA);
    CHECK_HAS(qdrt_last_error(), expect);
  }
  return g_failures;
}

int run_store(const std::string& dir, const std::string& expect) {
  qdrt_store* store = nullptr;
  if (qdrt_open(dir.c_str(), nullptr, &store) != QDRT_OK) {
    std::fprintf(stderr, "cannot open %s: %s\n", dir.c_str(), qdrt_last_error());
    return 1;
  }
  qdrt_kernel* k = nullptr;
  CHECK(qdrt_get_kernel(store, "rt.cuda:saxpy", &k) == QDRT_OK);
  int64_t n = 1000;
  auto dptr = [](uintptr_t p) { return reinterpret_cast<void*>(p); };
  std::vector<float> host(1000);
  qdrt_value args[3] = {qdrt_float_value(2.0),
                        qdrt_cuda_array_value(QDRT_DTYPE_F32, dptr(0x10000), 1, &n),
                        qdrt_cuda_array_value(QDRT_DTYPE_F32, dptr(0x20000), 1, &n)};
  auto launch = [&](const qdrt_launch_options* o = nullptr) {
    qdrt_status s = qdrt_launch_ex(k, args, 3, nullptr, o);
    return std::make_pair(s, std::string(qdrt_last_error()));
  };
  // Argument checks come before the driver is touched.
  args[1].dtype = QDRT_DTYPE_F64;
  auto r = launch();
  CHECK(r.first == QDRT_ERROR_ARGUMENT);
  CHECK_HAS(r.second, "argument 'x': expected dtype f32, got f64");
  args[1].dtype = QDRT_DTYPE_F32;
  args[2].data = nullptr;
  r = launch();
  CHECK(r.first == QDRT_ERROR_ARGUMENT);
  CHECK_HAS(r.second, "argument 'y': the array's data pointer is NULL");
  args[2].data = dptr(0x20002);
  r = launch();
  CHECK_HAS(r.second, "argument 'y': the array's data is not aligned for f32");
  args[2].data = dptr(0x20000);
  int64_t shape2[2] = {1000, 1};
  args[2].ndim = 2;
  args[2].shape = shape2;
  r = launch();
  CHECK_HAS(r.second, "argument 'y': expected 1 dimensions");
  args[2].ndim = 1;
  args[2].shape = &n;
  args[2] = qdrt_array_value(QDRT_DTYPE_F32, host.data(), 1, &n);
  r = launch();
  CHECK(r.first == QDRT_ERROR_ARGUMENT);
  CHECK_HAS(r.second, "argument 'y' is a host array, but the launch runs on CUDA");
  // A host-only launch finds no CPU instance; device arrays forced onto the CPU are refused.
  qdrt_value host_args[3] = {qdrt_float_value(2.0), args[2], args[2]};
  CHECK(qdrt_launch(k, host_args, 3, nullptr) == QDRT_ERROR_NOT_FOUND);
  CHECK_HAS(qdrt_last_error(), "has no CPU instance in the store (built for: cuda:sm_90)");
  args[2] = qdrt_cuda_array_value(QDRT_DTYPE_F32, dptr(0x20000), 1, &n);
  qdrt_launch_options cpu{sizeof(qdrt_launch_options), QDRT_DEVICE_CPU, nullptr};
  r = launch(&cpu);
  CHECK(r.first == QDRT_ERROR_ARGUMENT);
  CHECK_HAS(r.second, "argument 'x' is a CUDA device array, but the launch runs on the CPU");
  qdrt_launch_options bad{sizeof(qdrt_launch_options), 9, nullptr};
  CHECK(launch(&bad).first == QDRT_ERROR_INVALID_ARGUMENT);
  qdrt_launch_options small{4, QDRT_DEVICE_CUDA, nullptr};
  CHECK(launch(&small).first == QDRT_ERROR_INVALID_ARGUMENT);

  // Damaged bundles: clear errors, whatever the driver.
  const char* bad_names[] = {"truncated_header", "bad_magic",      "version",      "no_items",
                             "truncated_table",  "item_outside",   "unknown_kind", "not_elf",
                             "ptx_unterminated", "offset_overflow"};
  for (const char* name : bad_names) {
    qdrt_kernel* b = nullptr;
    std::string id = std::string("rt.cuda:bad_") + name;
    CHECK(qdrt_get_kernel(store, id.c_str(), &b) == QDRT_OK);
    for (int i = 0; i < 2; ++i) {
      qdrt_status s = qdrt_launch(b, args, 3, nullptr);
      std::string m = qdrt_last_error();
      CHECK(s == (std::string(name) == "version" ? QDRT_ERROR_VERSION : QDRT_ERROR_CORRUPT));
      CHECK_HAS(m, "kernel '" + id + "'");
      CHECK_HAS(m, "CUDA bundle ");
    }
  }

  // A well-formed launch reaches the driver: the expected driver error, on every launch.
  for (int i = 0; i < 2; ++i) {
    r = launch();
    CHECK(r.first == QDRT_ERROR_CUDA);
    CHECK_HAS(r.second, "kernel 'rt.cuda:saxpy' instance");
    CHECK_HAS(r.second, expect);
  }
  qdrt_launch_options stream{sizeof(qdrt_launch_options), QDRT_DEVICE_CUDA,
                             reinterpret_cast<void*>(uintptr_t{0x1234})};
  CHECK(launch(&stream).first == QDRT_ERROR_CUDA);
  qdrt_kernel* e = nullptr;
  CHECK(qdrt_get_kernel(store, "rt.cuda:empty", &e) == QDRT_OK);
  qdrt_launch_options cuda{sizeof(qdrt_launch_options), QDRT_DEVICE_CUDA, nullptr};
  CHECK(qdrt_launch_ex(e, nullptr, 0, nullptr, &cuda) == QDRT_ERROR_CUDA);
  CHECK(qdrt_launch_ex(e, nullptr, 0, nullptr, nullptr) == QDRT_ERROR_NOT_FOUND);
  qdrt_observations o{};
  o.struct_size = sizeof o;
  CHECK(qdrt_kernel_observations(k, &o) == QDRT_OK && o.launches == 0 && o.loaded == 0);
  qdrt_close(store);
  return g_failures;
}

// Assembles the condition kernels' PTX (cuda_graph.cpp) as the driver's JIT would: every entry
// point resolves and the call stays the one device-runtime call the driver binds at load.
int run_graph_ptx(const std::string& ptxas, const std::string& dir) {
  std::string ptx = dir + "/graph_condition.ptx";
  if (FILE* f = std::fopen(ptx.c_str(), "w")) {
    std::fputs(qdrt::cuda::k_graph_condition_ptx, f);
    std::fclose(f);
  } else {
    std::fprintf(stderr, "cannot write %s\n", ptx.c_str());
    return 1;
  }
  for (const char* arch : {"sm_90", "sm_100"}) {
    std::string out = dir + "/graph_condition." + arch + ".cubin";
    std::string cmd = "'" + ptxas + "' -arch=" + arch + " '" + ptx + "' -o '" + out + "'";
    CHECK(std::system(cmd.c_str()) == 0);
    std::string elf;
    if (FILE* f = std::fopen(out.c_str(), "rb")) {
      char buf[4096];
      size_t n = 0;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        elf.append(buf, n);
      }
      std::fclose(f);
    }
    CHECK(elf.compare(0, 4,
                      "\x7f"
                      "ELF") == 0);
    CHECK_HAS(elf, "qdrt_graph_while_next");
    CHECK_HAS(elf, "qdrt_graph_while_arm");
    CHECK_HAS(elf, "cudaGraphSetConditional");
  }
  return g_failures;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  int failures = 0;
  if (mode == "units" && argc == 2) {
    failures = run_units();
  } else if (mode == "driver" && argc == 3) {
    failures = run_driver(argv[2]);
  } else if (mode == "store" && argc == 4) {
    failures = run_store(argv[2], argv[3]);
  } else if (mode == "graph-ptx" && argc == 4) {
    failures = run_graph_ptx(argv[2], argv[3]);
  } else {
    std::fprintf(stderr,
                 "usage: qdrt_cuda_test units | driver TEXT | graph-ptx PTXAS DIR | store DIR "
                 "TEXT\n");
    return 2;
  }
  std::printf("qdrt_cuda_test %s: %s (%d failed checks)\n", mode.c_str(),
              failures == 0 ? "passed" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
