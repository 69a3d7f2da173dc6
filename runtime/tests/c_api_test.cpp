// C API tests of libqdrt over the store runtime/tests/make_test_store.py builds (no compiler
// needed): computed values checked exactly, instance selection, aliasing fallback,
// observations, and hostile use (bad arguments, unknown kernels, missing instances, damaged and
// newer-format stores), each a clear status and message, never a crash.
// Usage: qdrt_c_api_test STORE_DIR   (the directory make_test_store.py --out wrote)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "qdrt/qdrt.h"
#include "qdrt/qdrt.hpp"

namespace {

int g_failures = 0;
std::string g_dir;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                \
      ++g_failures;                                                                                \
    }                                                                                              \
  } while (0)

// The call failed with `status` and a message containing every one of `parts`.
void expect_error(qdrt_status got, qdrt_status want, std::vector<std::string> parts, int line) {
  std::string m = qdrt_last_error();
  bool ok = got == want;
  for (const std::string& p : parts) {
    ok = ok && m.find(p) != std::string::npos;
  }
  if (!ok) {
    std::fprintf(stderr, "c_api_test.cpp:%d: expected %s with [", line, qdrt_status_name(want));
    for (const std::string& p : parts) {
      std::fprintf(stderr, " '%s'", p.c_str());
    }
    std::fprintf(stderr, " ], got %s: %s\n", qdrt_status_name(got), m.c_str());
    ++g_failures;
  }
}
#define EXPECT_ERROR(call, status, ...) expect_error((call), (status), {__VA_ARGS__}, __LINE__)

qdrt_kernel* kernel(qdrt_store* s, const char* id) {
  qdrt_kernel* k = nullptr;
  qdrt_status st = qdrt_get_kernel(s, id, &k);
  if (st != QDRT_OK) {
    std::fprintf(stderr, "cannot resolve %s: %s\n", id, qdrt_last_error());
    std::exit(1);
  }
  return k;
}

qdrt_store* open_store(const std::string& path, bool lazy, int threads = 0) {
  qdrt_open_options o{sizeof o, lazy ? QDRT_OPEN_LAZY : 0u, threads, 0};
  qdrt_store* s = nullptr;
  if (qdrt_open(path.c_str(), &o, &s) != QDRT_OK) {
    std::fprintf(stderr, "cannot open %s: %s\n", path.c_str(), qdrt_last_error());
    std::exit(1);
  }
  return s;
}

void test_values(qdrt_store* s) {
  // saxpy over 100,000 elements (the pool splits it); every value exact in f32.
  const int64_t n = 100000;
  std::vector<float> x(n), y(n, 1.0f);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
  }
  qdrt_value args[3] = {qdrt_float_value(2.0), qdrt_array_value(QDRT_DTYPE_F32, x.data(), 1, &n),
                        qdrt_array_value(QDRT_DTYPE_F32, y.data(), 1, &n)};
  qdrt_value r;
  CHECK(qdrt_launch(kernel(s, "rt.basic:saxpy"), args, 3, &r) == QDRT_OK);
  CHECK(r.kind == QDRT_VALUE_NONE);
  bool exact = true;
  for (int64_t i = 0; i < n; ++i) {
    exact = exact && y[i] == 2.0f * static_cast<float>(i) + 1.0f;
  }
  CHECK(exact);

  std::vector<int64_t> xi(1000);
  int64_t want = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    xi[i] = i * i - 7;
    want += xi[i];
  }
  int64_t ni = 1000;
  qdrt_value a1 = qdrt_array_value(QDRT_DTYPE_I64, xi.data(), 1, &ni);
  CHECK(qdrt_launch(kernel(s, "rt.basic:sum_i64"), &a1, 1, &r) == QDRT_OK);
  CHECK(r.kind == QDRT_VALUE_INT && r.dtype == QDRT_DTYPE_I64 && r.i == want);

  // Two parallel tasks passing a value through the temporaries, then a serial return.
  const int64_t m = 50001;
  std::vector<int32_t> xs(m), out(m, -1);
  int64_t total = 0;
  for (int64_t i = 0; i < m; ++i) {
    xs[i] = static_cast<int32_t>(i % 7);
    total += i % 7;
  }
  qdrt_value tf[2] = {qdrt_array_value(QDRT_DTYPE_I32, xs.data(), 1, &m),
                      qdrt_array_value(QDRT_DTYPE_I32, out.data(), 1, &m)};
  for (int rep = 0; rep < 3; ++rep) {  // temporaries are zeroed per launch
    CHECK(qdrt_launch(kernel(s, "rt.basic:total_fill"), tf, 2, &r) == QDRT_OK);
    CHECK(r.i == total);
  }
  bool filled = true;
  for (int32_t v : out) {
    filled = filled && v == total;
  }
  CHECK(filled);

  // Vector dtype: pos (n, 3) += vel (n, 3) * dt, through the C++ wrapper.
  qdrt::Kernel adv(kernel(s, "rt.basic:advance"));
  std::vector<float> pos(3 * 500), vel(3 * 500);
  for (size_t i = 0; i < pos.size(); ++i) {
    pos[i] = static_cast<float>(i);
    vel[i] = static_cast<float>(i % 3);
  }
  qdrt::Error e = adv({qdrt::Arg(QDRT_DTYPE_F32, pos.data(), {500, 3}),
                       qdrt::Arg(QDRT_DTYPE_F32, vel.data(), {500, 3}), qdrt::Arg(0.5)});
  CHECK(!e);
  bool moved = true;
  for (size_t i = 0; i < pos.size(); ++i) {
    moved = moved && pos[i] == static_cast<float>(i) + 0.5f * static_cast<float>(i % 3);
  }
  CHECK(moved);

  // Template instances: k selects the entry.
  std::vector<int32_t> fk(10);
  qdrt::Kernel fill(kernel(s, "rt.basic:fill_k"));
  CHECK(fill.instances().size() == 2);
  for (int k : {2, 3}) {
    CHECK(!fill({qdrt::array(fk), qdrt::Arg(k)}));
    CHECK(fk[9] == 9 * k && fk[1] == k);
  }
  // dtype instances: scale over f32 and f64.
  std::vector<float> sf = {1, 2, 3};
  std::vector<double> sd = {1, 2, 3};
  qdrt::Kernel scale(kernel(s, "rt.basic:scale"));
  CHECK(!scale({qdrt::array(sf), qdrt::Arg(1.5)}));
  CHECK(!scale({qdrt::array(sd), qdrt::Arg(0.25)}));
  CHECK(sf[2] == 4.5f && sd[2] == 0.75);

  std::vector<float> dx = {1, 2, 3}, dy = {4, 5, 6};
  CHECK(!qdrt::Kernel(kernel(s, "rt.basic:dot"))({qdrt::array(dx), qdrt::array(dy)}, &r));
  CHECK(r.kind == QDRT_VALUE_FLOAT && r.f == 32.0);
  std::vector<uint8_t> mask = {1, 0, 1, 1};
  int64_t four = 4;
  qdrt_value ct[2] = {qdrt_array_value(QDRT_DTYPE_U1, mask.data(), 1, &four), qdrt_bool_value(1)};
  CHECK(qdrt_launch(kernel(s, "rt.basic:count_true"), ct, 2, &r) == QDRT_OK && r.i == 3);

  // Empty arrays launch nothing and fail nothing.
  int64_t zero = 0;
  qdrt_value empty[3] = {qdrt_float_value(1), qdrt_array_value(QDRT_DTYPE_F32, nullptr, 1, &zero),
                         qdrt_array_value(QDRT_DTYPE_F32, nullptr, 1, &zero)};
  CHECK(qdrt_launch(kernel(s, "rt.basic:saxpy"), empty, 3, nullptr) == QDRT_OK);
}

void test_aliasing(qdrt_store* s) {
  std::vector<float> buf = {1, 2, 3, 4};
  std::vector<float> other(4);
  int64_t n = 4;
  qdrt_value r;
  qdrt_kernel* shift = kernel(s, "rt.basic:shift");
  qdrt_value disjoint[2] = {qdrt_array_value(QDRT_DTYPE_F32, buf.data(), 1, &n),
                            qdrt_array_value(QDRT_DTYPE_F32, other.data(), 1, &n)};
  CHECK(qdrt_launch(shift, disjoint, 2, &r) == QDRT_OK && r.i == 0);  // split tasks
  CHECK(other[3] == 5.0f);
  qdrt_value same[2] = {qdrt_array_value(QDRT_DTYPE_F32, buf.data(), 1, &n),
                        qdrt_array_value(QDRT_DTYPE_F32, buf.data(), 1, &n)};
  CHECK(qdrt_launch(shift, same, 2, &r) == QDRT_OK && r.i == 1);  // the "+whole" variant
  CHECK(buf[0] == 2.0f && buf[3] == 5.0f);
  qdrt_observations o{};
  o.struct_size = sizeof o;
  CHECK(qdrt_kernel_observations(shift, &o) == QDRT_OK);
  CHECK(o.launches == 2 && o.fallbacks == 1 && std::string(o.target) == "cpu+whole");
  CHECK(o.loaded == 1 && std::strlen(o.object) == 64);
  // No whole variant: the split tasks run, silently (values crossing tasks go through the
  // temporaries, so they compute what the whole kernel does); no fallback is counted.
  qdrt_kernel* nowhole = kernel(s, "rt.basic:shift_nowhole");
  CHECK(qdrt_launch(nowhole, same, 2, &r) == QDRT_OK && r.i == 0);
  CHECK(qdrt_kernel_observations(nowhole, &o) == QDRT_OK && o.fallbacks == 0);
  CHECK(std::string(o.target) == "cpu");
}

void test_prepared(qdrt_store* s) {
  // Prepared once, launched many times: the same results as qdrt_launch, the argument values
  // copied (the caller's qdrt_value array and shape may go away), the memory read at each launch.
  const int64_t n = 1000;
  std::vector<float> x(n), y(n, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
  }
  qdrt_prepared* p = nullptr;
  {
    int64_t shape = n;
    qdrt_value args[3] = {qdrt_float_value(0.5),
                          qdrt_array_value(QDRT_DTYPE_F32, x.data(), 1, &shape),
                          qdrt_array_value(QDRT_DTYPE_F32, y.data(), 1, &shape)};
    CHECK(qdrt_prepare(kernel(s, "rt.basic:saxpy"), args, 3, nullptr, &p) == QDRT_OK);
    args[0] = qdrt_float_value(99.0);
    shape = 1;
  }
  qdrt_value r;
  for (int rep = 0; rep < 4; ++rep) {
    CHECK(qdrt_prepared_launch(p, &r) == QDRT_OK && r.kind == QDRT_VALUE_NONE);
  }
  x[7] = 100.0f;  // the memory is read at each launch
  CHECK(qdrt_prepared_launch(p, nullptr) == QDRT_OK);
  CHECK(y[0] == 0.0f && y[1] == 2.5f && y[999] == 0.5f * 999 * 5 && y[7] == 0.5f * 7 * 4 + 50.0f);
  qdrt_prepared_free(p);

  // A return value, and temporaries zeroed per prepared launch.
  const int64_t m = 5001;
  std::vector<int32_t> xs(m, 2), out(m, -1);
  qdrt_value tf[2] = {qdrt_array_value(QDRT_DTYPE_I32, xs.data(), 1, &m),
                      qdrt_array_value(QDRT_DTYPE_I32, out.data(), 1, &m)};
  CHECK(qdrt_prepare(kernel(s, "rt.basic:total_fill"), tf, 2, nullptr, &p) == QDRT_OK);
  for (int rep = 0; rep < 3; ++rep) {
    CHECK(qdrt_prepared_launch(p, &r) == QDRT_OK && r.i == 2 * m);
  }
  qdrt_prepared_free(p);

  // Aliased arrays: the "+whole" variant is chosen once, at prepare.
  std::vector<float> buf = {1, 2, 3, 4};
  int64_t four = 4;
  qdrt_value same[2] = {qdrt_array_value(QDRT_DTYPE_F32, buf.data(), 1, &four),
                        qdrt_array_value(QDRT_DTYPE_F32, buf.data(), 1, &four)};
  CHECK(qdrt_prepare(kernel(s, "rt.basic:shift"), same, 2, nullptr, &p) == QDRT_OK);
  CHECK(qdrt_prepared_launch(p, &r) == QDRT_OK && r.i == 1);
  qdrt_prepared_free(p);

  // Errors at prepare are qdrt_launch's; nothing is returned.
  std::vector<double> xd(8);
  int64_t eight = 8;
  qdrt_value bad[3] = {qdrt_float_value(1), qdrt_array_value(QDRT_DTYPE_F64, xd.data(), 1, &eight),
                       qdrt_array_value(QDRT_DTYPE_F32, y.data(), 1, &eight)};
  p = reinterpret_cast<qdrt_prepared*>(uintptr_t{1});
  EXPECT_ERROR(qdrt_prepare(kernel(s, "rt.basic:saxpy"), bad, 3, nullptr, &p), QDRT_ERROR_ARGUMENT,
               "argument 'x': expected dtype f32, got f64");
  CHECK(p == nullptr);
  EXPECT_ERROR(qdrt_prepare(kernel(s, "rt.basic:saxpy"), bad, 2, nullptr, &p), QDRT_ERROR_ARGUMENT,
               "takes 3 arguments");
  EXPECT_ERROR(qdrt_prepare(nullptr, bad, 3, nullptr, &p), QDRT_ERROR_INVALID_ARGUMENT,
               "kernel or out is NULL");
  EXPECT_ERROR(qdrt_prepare(kernel(s, "rt.basic:saxpy"), nullptr, 3, nullptr, &p),
               QDRT_ERROR_INVALID_ARGUMENT, "args is NULL");
  qdrt_launch_options small{};
  small.struct_size = 4;
  EXPECT_ERROR(qdrt_prepare(kernel(s, "rt.basic:saxpy"), bad, 3, &small, &p),
               QDRT_ERROR_INVALID_ARGUMENT, "struct_size");
  EXPECT_ERROR(qdrt_prepared_launch(nullptr, &r), QDRT_ERROR_INVALID_ARGUMENT, "prepared is NULL");
  qdrt_prepared_free(nullptr);
}

void test_hostile_arguments(qdrt_store* s) {
  qdrt_kernel* saxpy = kernel(s, "rt.basic:saxpy");
  int64_t n = 8, n2[2] = {2, 4};
  std::vector<float> x(8), y(8);
  std::vector<double> xd(8);
  auto f32 = [&](std::vector<float>& v) {
    return qdrt_array_value(QDRT_DTYPE_F32, v.data(), 1, &n);
  };
  qdrt_value a[4] = {qdrt_float_value(1), f32(x), f32(y), qdrt_int_value(0)};
  EXPECT_ERROR(qdrt_launch(saxpy, a, 2, nullptr), QDRT_ERROR_ARGUMENT,
               "takes 3 arguments (a, x, y), got 2");
  EXPECT_ERROR(qdrt_launch(saxpy, a, 4, nullptr), QDRT_ERROR_ARGUMENT, "got 4");
  a[1] = qdrt_array_value(QDRT_DTYPE_F64, xd.data(), 1, &n);
  EXPECT_ERROR(qdrt_launch(saxpy, a, 3, nullptr), QDRT_ERROR_ARGUMENT, "argument 'x'",
               "expected dtype f32, got f64");
  a[1] = qdrt_array_value(QDRT_DTYPE_F32, x.data(), 2, n2);
  EXPECT_ERROR(qdrt_launch(saxpy, a, 3, nullptr), QDRT_ERROR_ARGUMENT, "argument 'x'",
               "expected 1 dimensions", "got 2");
  int64_t strides[1] = {8};
  int64_t four = 4;
  a[1] = qdrt_array_value(QDRT_DTYPE_F32, x.data(), 1, &four);
  a[1].strides = strides;
  EXPECT_ERROR(qdrt_launch(saxpy, a, 3, nullptr), QDRT_ERROR_ARGUMENT, "argument 'x'",
               "not C-contiguous");
  a[1] = qdrt_array_value(QDRT_DTYPE_F32, reinterpret_cast<char*>(x.data()) + 1, 1, &four);
  EXPECT_ERROR(qdrt_launch(saxpy, a, 3, nullptr), QDRT_ERROR_ARGUMENT, "argument 'x'",
               "not aligned");
  a[1] = f32(x);
  a[0] = f32(x);
  EXPECT_ERROR(qdrt_launch(saxpy, a, 3, nullptr), QDRT_ERROR_ARGUMENT, "argument 'a'",
               "expected a f32 scalar");
  a[0] = qdrt_float_value(1);
  a[2] = qdrt_int_value(3);
  EXPECT_ERROR(qdrt_launch(saxpy, a, 3, nullptr), QDRT_ERROR_ARGUMENT, "argument 'y'",
               "expected an array");
  int64_t neg = -1;
  a[2] = qdrt_array_value(QDRT_DTYPE_F32, y.data(), 1, &neg);
  EXPECT_ERROR(qdrt_launch(saxpy, a, 3, nullptr), QDRT_ERROR_ARGUMENT, "negative extent");

  qdrt_kernel* noop = kernel(s, "rt.basic:noop");
  qdrt_value nb[2] = {f32(x), qdrt_float_value(0.5)};
  EXPECT_ERROR(qdrt_launch(noop, nb, 2, nullptr), QDRT_ERROR_ARGUMENT, "argument 'n'",
               "takes no float");
  nb[1] = qdrt_int_value(int64_t{1} << 40);
  EXPECT_ERROR(qdrt_launch(noop, nb, 2, nullptr), QDRT_ERROR_ARGUMENT, "out of range for i32");

  std::vector<float> pos(8 * 4);
  int64_t shape4[2] = {8, 4};
  qdrt_value adv[3] = {qdrt_array_value(QDRT_DTYPE_F32, pos.data(), 2, shape4),
                       qdrt_array_value(QDRT_DTYPE_F32, pos.data(), 2, shape4),
                       qdrt_float_value(1)};
  EXPECT_ERROR(qdrt_launch(kernel(s, "rt.basic:advance"), adv, 3, nullptr), QDRT_ERROR_ARGUMENT,
               "argument 'pos'", "element shape mismatch", "expected 3, got 4");

  std::vector<int32_t> fk(4);
  qdrt_value fa[2] = {qdrt_array_value(QDRT_DTYPE_I32, fk.data(), 1, &four), qdrt_int_value(5)};
  EXPECT_ERROR(qdrt_launch(kernel(s, "rt.basic:fill_k"), fa, 2, nullptr), QDRT_ERROR_NO_INSTANCE,
               "no built instance matches", "2 built instances", "'out=ndarray(i32, 1), k=2'",
               "'out=ndarray(i32, 1), k=3'", "template value 5");
  qdrt_value sc[2] = {qdrt_array_value(QDRT_DTYPE_I32, fk.data(), 1, &four), qdrt_float_value(1)};
  EXPECT_ERROR(qdrt_launch(kernel(s, "rt.basic:scale"), sc, 2, nullptr), QDRT_ERROR_NO_INSTANCE,
               "x=ndarray(f32, 1), s=f64", "x=ndarray(f64, 1), s=f64", "got i32");

  qdrt_kernel* k = nullptr;
  EXPECT_ERROR(qdrt_get_kernel(s, "rt.basic:saxpi", &k), QDRT_ERROR_NOT_FOUND,
               "no kernel 'rt.basic:saxpi'", "did you mean 'rt.basic:saxpy'?");
  EXPECT_ERROR(qdrt_get_kernel(s, "saxpy", &k), QDRT_ERROR_NOT_FOUND,
               "did you mean 'rt.basic:saxpy'?");
  CHECK(k == nullptr);
  qdrt_value g = f32(x);
  EXPECT_ERROR(qdrt_launch(kernel(s, "rt.basic:gpu_only"), &g, 1, nullptr), QDRT_ERROR_NOT_FOUND,
               "no CPU instance", "cuda:sm_90");
  EXPECT_ERROR(qdrt_launch(nullptr, nullptr, 0, nullptr), QDRT_ERROR_INVALID_ARGUMENT, "NULL");
}

void test_bad_store() {
  std::string bad = g_dir + "/bad";
  qdrt_store* s = nullptr;
  EXPECT_ERROR(qdrt_open(bad.c_str(), nullptr, &s), QDRT_ERROR_VERSION, "task ABI version 99");
  CHECK(s == nullptr);
  // The eager open stages modules on helper threads and builds tables on all of them; the error
  // it reports is still the first in kernel order (a module that fails its ABI check, before the
  // kernels whose tables fail), every time.
  for (int round = 0; round < 20; ++round) {
    qdrt_open_options o{};
    o.struct_size = sizeof o;
    o.num_threads = 4;
    EXPECT_ERROR(qdrt_open(bad.c_str(), &o, &s), QDRT_ERROR_VERSION, "task ABI version 99");
    CHECK(s == nullptr);
  }
  s = open_store(bad, true);
  std::vector<float> x(4);
  int64_t n = 4;
  qdrt_value a = qdrt_array_value(QDRT_DTYPE_F32, x.data(), 1, &n);
  qdrt_kernel* k = nullptr;
  EXPECT_ERROR(qdrt_launch(kernel(s, "rt.bad:abi_version"), &a, 1, nullptr), QDRT_ERROR_VERSION,
               "task ABI version 99");
  EXPECT_ERROR(qdrt_launch(kernel(s, "rt.bad:missing_symbol"), &a, 1, nullptr), QDRT_ERROR_LOAD,
               "no task symbol 'no_such_task'");
  EXPECT_ERROR(qdrt_launch(kernel(s, "rt.bad:missing_extent"), &a, 1, nullptr), QDRT_ERROR_LOAD,
               "no extent symbol 'noop_t0__extent'");
  EXPECT_ERROR(qdrt_get_kernel(s, "rt.bad:metadata_size", &k), QDRT_ERROR_CORRUPT,
               "16 bytes of launch metadata");
  EXPECT_ERROR(qdrt_get_kernel(s, "rt.bad:metadata_version", &k), QDRT_ERROR_VERSION,
               "launch metadata version 7", "reads versions 1 to 6");
  for (const char* loop :
       {"rt.bad:loop_forward", "rt.bad:loop_flag_f32", "rt.bad:loop_flag_missing"}) {
    EXPECT_ERROR(qdrt_get_kernel(s, loop, &k), QDRT_ERROR_CORRUPT,
                 "ends a graph loop that does not start at an earlier task or whose flag is not a "
                 "0-dim i32 array argument");
  }
  EXPECT_ERROR(qdrt_get_kernel(s, "rt.bad:loop_v4", &k), QDRT_ERROR_CORRUPT,
               "40 bytes of launch metadata (version 4)");
  qdrt_close(s);
}

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

void test_damaged_files() {
  char tmpl[] = "/tmp/qdrt_c_api_test.XXXXXX";
  std::string tmp = ::mkdtemp(tmpl);
  qdrt_store* s = nullptr;
  std::string pack = read_file(g_dir + "/good.qdpack");
  CHECK(pack.size() > 64);

  std::string newer = pack;
  newer[8] = 2;  // pack format version 2
  write_file(tmp + "/newer.qdpack", newer);
  EXPECT_ERROR(qdrt_open((tmp + "/newer.qdpack").c_str(), nullptr, &s), QDRT_ERROR_VERSION,
               "pack format version 2 is newer than this libqdrt reads");
  write_file(tmp + "/short.qdpack", pack.substr(0, pack.size() / 2));
  EXPECT_ERROR(qdrt_open((tmp + "/short.qdpack").c_str(), nullptr, &s), QDRT_ERROR_CORRUPT,
               "truncated");
  // A flipped byte inside the last object (a module): lazy open works, the launch fails.
  std::string flipped = pack;
  flipped[flipped.size() - 100] ^= 0x5a;
  write_file(tmp + "/flipped.qdpack", flipped);
  EXPECT_ERROR(qdrt_open((tmp + "/flipped.qdpack").c_str(), nullptr, &s), QDRT_ERROR_CORRUPT,
               "is damaged");
  std::string index = read_file(g_dir + "/good/index.qdi");
  ::mkdir((tmp + "/trunc").c_str(), 0755);
  write_file(tmp + "/trunc/index.qdi", index.substr(0, 200));
  EXPECT_ERROR(qdrt_open((tmp + "/trunc").c_str(), nullptr, &s), QDRT_ERROR_CORRUPT,
               "index.qdi' is damaged: truncated");
  EXPECT_ERROR(qdrt_open((tmp + "/nothing-here").c_str(), nullptr, &s), QDRT_ERROR_NOT_FOUND,
               "nothing-here");
  ::mkdir((tmp + "/empty").c_str(), 0755);
  EXPECT_ERROR(qdrt_open((tmp + "/empty").c_str(), nullptr, &s), QDRT_ERROR_NOT_FOUND,
               "is not a qdbuild store");
  CHECK(std::system(("rm -rf '" + tmp + "'").c_str()) == 0);
}

}  // namespace

// qdrt_instance_text: the canonical text qdbuild prints for recorded parameter descriptions
// (the same reading and repr() as src/sema's), and its errors.
void test_instance_text() {
  auto text = [](const std::string& json) -> std::string {
    const char* out = nullptr;
    qdrt_status st = qdrt_instance_text(json.data(), json.size(), &out);
    return st == QDRT_OK ? std::string(out) : "error: " + std::string(qdrt_last_error());
  };
  CHECK(text(R"j("ndarray(f32, 2, element=(3,), layout=(1, 0), grad, source=numpy)")j") ==
        "{dtype='vector(3, f32)', layout='(1, 0)', ndim=2, needs_grad=True, source='numpy'}");
  CHECK(text(R"j({"template": 3})j") == "3");
  CHECK(text(R"j({"template": 18446744073709551615})j") == "18446744073709551615");
  CHECK(text(R"j({"template": 0.1})j") == "0.1");
  CHECK(text(R"j({"template": 1e16})j") == "1e+16");
  CHECK(text(R"j({"template": {"float": "-inf"}})j") == "-inf");
  CHECK(text(R"j({"template": "it's \u00e9\n"})j") == "\"it's \u00e9\\n\"");
  CHECK(text(R"j({"template": {"tuple": [1]}})j") == "(1,)");
  CHECK(text(R"j({"template": {"tuple": [true, null, "a"]}})j") == "(True, None, 'a')");
  CHECK(text(R"j({"template": {"tuple": [1, {"module": "m"}]}})j") ==
        "{0=1, 1={__module__='m'}, __tuple__=2}");
  CHECK(text(R"j({"template": {"enum": "m.E", "member": "A", "value": 2}})j") == "<m.E.A: 2>");
  CHECK(text(R"j({"template": {"enum": "m.E", "member": "A"}})j") == "<m.E.A: <unknown>>");
  CHECK(text(R"j({"template": {"method": "m:f", "self": "owner"}})j") ==
        "{__method__='m:f', __self_owner__=True}");
  CHECK(
      text(
          R"j({"template": {"object": "m.C", "fields": {"b": 1, "a": {"unsupported": "no"}}}})j") ==
      "{__class__='m.C', a={__unsupported__='no'}, b=1}");
  CHECK(text(R"j({"field": "f32", "shape": [4], "element": [2, 3], "strides": [24, 12, 4]})j") ==
        "{__field__=True, dtype='matrix(2, 3, f32)', ndim=1, shape=(4,), strides=(24, 12, 4)}");
  CHECK(
      text(
          R"j({"dataclass": "m.S", "members": {"x": "ndarray(i32, 1)", "n": {"scalar": "i32"}}})j") ==
      "{__class__='m.S', x={dtype='i32', ndim=1}}");
  CHECK(text(R"j({"scalar": "f32"})j").empty());
  CHECK(text(R"j({"none": true})j") == "None");
  CHECK(text(R"j({"template": {"enum": 3}})j") ==
        "error: an enum member recorded without its class and name");
  CHECK(text(R"j({"template": {"tuple": "x"}})j") == "error: a recorded tuple that is not a list");
  CHECK(text(R"j("ndarray(f32, 1x)")j") == "error: 'ndarray(f32, 1x)': the ndim is not a number");
  CHECK(text(R"j({"unsupported": "a lambda"})j") == "error: a lambda");
  CHECK(text(R"j({"template": )j") == "error: the description is not JSON");
  CHECK(text(std::string(200, '[')) == "error: the description is not JSON");
  const char* out = nullptr;
  EXPECT_ERROR(qdrt_instance_text(nullptr, 0, &out), QDRT_ERROR_INVALID_ARGUMENT, "NULL");
  EXPECT_ERROR(qdrt_instance_text("{}", 2, nullptr), QDRT_ERROR_INVALID_ARGUMENT, "NULL");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: qdrt_c_api_test STORE_DIR\n");
    return 2;
  }
  g_dir = argv[1];
  CHECK(qdrt_version() == QDRT_VERSION);
  test_instance_text();
  CHECK(std::string(qdrt_version_string()) == "0.1.0");
  for (const char* where : {"/good", "/good.qdpack"}) {
    for (bool lazy : {false, true}) {
      qdrt_store* s = open_store(g_dir + where, lazy, lazy ? 2 : 0);
      CHECK(qdrt_kernel_count(s) == 13);
      CHECK(std::string(qdrt_kernel_id(s, 0)) == "rt.basic:advance");
      // Launch flags per instance; binding random states checks its arguments.
      CHECK(qdrt_kernel_instance_flags(kernel(s, "rt.basic:rand_probe"), 0) == QDRT_LAUNCH_RANDOM);
      CHECK(qdrt_kernel_instance_flags(kernel(s, "rt.basic:saxpy"), 0) == 0);
      CHECK(qdrt_kernel_instance_flags(kernel(s, "rt.basic:saxpy"), 9) == 0);
      CHECK(qdrt_kernel_instance_flags(kernel(s, "rt.basic:sum_i64"), 0) ==
            QDRT_LAUNCH_WRITES_RESULT);
      qdrt_rand_state one{};
      EXPECT_ERROR(qdrt_bind_random_states(s, &one, 0), QDRT_ERROR_INVALID_ARGUMENT,
                   "states and count disagree");
      EXPECT_ERROR(qdrt_bind_random_states(s, nullptr, 1), QDRT_ERROR_INVALID_ARGUMENT,
                   "states and count disagree");
      CHECK(qdrt_bind_random_states(s, nullptr, 0) == QDRT_OK);
      CHECK(qdrt_seed_random(s, 3) == QDRT_OK);
      qdrt_observations o{};
      o.struct_size = sizeof o;
      qdrt_kernel_observations(kernel(s, "rt.basic:saxpy"), &o);
      CHECK(o.loaded == (lazy ? 0u : 1u) && o.launches == 0);
      test_values(s);
      test_aliasing(s);
      test_hostile_arguments(s);
      qdrt_kernel_observations(kernel(s, "rt.basic:saxpy"), &o);
      CHECK(o.loaded == 1 && o.launches == 2);
      test_prepared(s);
      qdrt_kernel_observations(kernel(s, "rt.basic:saxpy"), &o);
      CHECK(o.launches == 7);  // prepared launches count as launches
      CHECK(std::string(o.instance) == "a=f32, x=ndarray(f32, 1), y=ndarray(f32, 1)");
      qdrt_close(s);
    }
  }
  test_bad_store();
  test_damaged_files();
  if (g_failures != 0) {
    std::fprintf(stderr, "qdrt_c_api_test: %d checks failed\n", g_failures);
    return 1;
  }
  std::printf("qdrt_c_api_test: all checks passed\n");
  return 0;
}
