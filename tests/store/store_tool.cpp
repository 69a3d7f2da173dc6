// qd_store_tool: drives the store library for the Python tests in tests/store (built only for
// tests). Entries are generated deterministically from their number, so any process can check
// what any other wrote.
//
//   qd_store_tool put STORE FROM TO [--target T] [--max-kb N] [--level L]
//       publishes entries FROM..TO-1 one at a time; prints "published I" after each publish
//   qd_store_tool check STORE FROM TO [--target T] [--max-kb N] [--allow-missing]
//       every entry is in the index, equal to what put writes, and its objects read back intact;
//       --allow-missing: absent entries are fine (present ones must be intact)
//   qd_store_tool get STORE ADDRESS      reads one object (checked); prints its size
//   qd_store_tool build-stats STORE HITS MISSES COMPILE_MS SAVED_MS   appends a build record
//   qd_store_tool hostile STORE          publishes entries with hostile kernel ids
//   qd_store_tool pack STORE OUT         writes a pack of the whole store (fuzz seeds)
// Exit: 0 ok; 1 a check failed or a store error (printed as "qd_store_tool: error: ...").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "store/build_stats.hpp"
#include "store/local_store.hpp"
#include "store/pack.hpp"

using namespace qd::store;

namespace {

struct Options {
  std::string target = "cpu";
  size_t max_kb = 200;
  int level = 3;
  bool allow_missing = false;
};

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

// Compiler-output-like bytes: runs of text-ish tokens and of random bytes, 2 KB to max_kb.
std::string content(uint64_t seed, size_t max_kb) {
  uint64_t s = mix(seed + 1);
  size_t lo = 2048;
  size_t hi = std::max<size_t>(lo + 1, max_kb * 1024);
  // log-uniform size
  double u = static_cast<double>(s % 1000000) / 1000000.0;
  size_t size = static_cast<size_t>(lo * std::pow(static_cast<double>(hi) / lo, u));
  static const char* words[] = {"ld.global.f32 ", "%r",   "add.s64 ", "mov.u32 ", ", ",       ";\n",
                                "\tmovq\t",       "%rax", "(%rdi)",   "call\t",   "qd_task_", "0x"};
  std::string out;
  out.reserve(size + 32);
  while (out.size() < size) {
    s = mix(s);
    if (s % 4 == 0) {
      for (int k = 0; k < 8; ++k) {
        out.push_back(static_cast<char>(mix(s + k)));
      }
    } else {
      out += words[s % 12];
      out += std::to_string((s >> 8) % 64);
    }
  }
  out.resize(size);
  return out;
}

EntryKey key_of(size_t i, const Options& o) {
  return {"pkg.mod" + std::to_string(i % 7) + ":Solver.kernel_" + std::to_string(i),
          "n=" + std::to_string(i), o.target};
}

// The entry I and its objects' contents (put them, or check them).
Entry make_entry(size_t i, const Options& o, std::vector<std::string>& contents) {
  Entry e;
  e.key = key_of(i, o);
  size_t tasks = 1 + mix(i) % 3;
  contents.clear();
  for (size_t t = 0; t < tasks; ++t) {
    contents.push_back(content(i * 16 + t, o.max_kb));
    e.record.tasks.push_back({"task" + std::to_string(t),
                              t % 2 ? TaskKind::serial : TaskKind::range,
                              "grid=" + std::to_string(i), sha256(contents.back())});
  }
  contents.push_back(content(i * 16 + 15, o.max_kb));
  e.record.module = sha256(contents.back());
  e.record.arguments = {{"x", QDRT_ARG_NDARRAY, QDRT_DTYPE_F32, 2, {3}, {}, {}},
                        {"dt", QDRT_ARG_SCALAR, QDRT_DTYPE_F32, 0, {}, {}, {}}};
  e.record.last_used = static_cast<int64_t>(std::time(nullptr));
  return e;
}

int fail_with(const std::string& message) {
  std::fprintf(stderr, "qd_store_tool: error: %s\n", message.c_str());
  return 1;
}

int put(LocalStore& store, size_t from, size_t to, const Options& o) {
  std::vector<std::string> contents;
  for (size_t i = from; i < to; ++i) {
    Entry e = make_entry(i, o, contents);
    for (const std::string& c : contents) {
      Result<ObjectId> id = store.put(c);
      if (!id) {
        return fail_with(id.error());
      }
    }
    Result<Unit> r = store.publish({e});
    if (!r) {
      return fail_with(r.error());
    }
    std::printf("published %zu\n", i);
    std::fflush(stdout);
  }
  return 0;
}

int check(LocalStore& store, size_t from, size_t to, const Options& o) {
  Result<const IndexView*> index = store.index();
  if (!index) {
    return fail_with(index.error());
  }
  if (*index == nullptr) {
    return o.allow_missing ? 0 : fail_with("no index in '" + store.root() + "'");
  }
  std::vector<std::string> contents;
  size_t present = 0;
  for (size_t i = from; i < to; ++i) {
    Entry want = make_entry(i, o, contents);
    std::optional<size_t> at =
        (*index)->find(want.key.kernel_id, want.key.instance, want.key.target);
    if (!at) {
      if (o.allow_missing) {
        continue;
      }
      return fail_with("entry " + std::to_string(i) + " (" + want.key.kernel_id +
                       ") is not in the index");
    }
    ++present;
    Entry got = (*index)->entry(*at);
    want.record.last_used = got.record.last_used;
    if (!(got == want)) {
      return fail_with("entry " + std::to_string(i) + " differs from what was written");
    }
    for (const std::string& c : contents) {
      Result<std::string> back = store.get(sha256(c));
      if (!back) {
        return fail_with(back.error());
      }
      if (*back != c) {
        return fail_with("object " + sha256(c).hex() + " has the wrong content");
      }
    }
  }
  std::printf("ok %zu entries\n", present);
  return 0;
}

int hostile(LocalStore& store) {
  std::vector<std::string> ids = {"..",
                                  "../../../../etc/passwd",
                                  "/absolute/path",
                                  std::string("nul\0byte", 8),
                                  std::string(10 * 1024, 'A'),
                                  std::string(10 * 1024, '/'),
                                  "objects/../index.qdi",
                                  "\xff\xfe invalid utf-8",
                                  ""};
  std::vector<Entry> entries;
  for (const std::string& id : ids) {
    Entry e;
    e.key = {id, id, "cpu"};
    Result<ObjectId> code = store.put("code for " + id);
    if (!code) {
      return fail_with(code.error());
    }
    e.record.tasks.push_back({id, TaskKind::serial, id, *code});
    entries.push_back(e);
  }
  Result<Unit> r = store.publish(entries);
  if (!r) {
    return fail_with(r.error());
  }
  store.reload_index();
  for (const std::string& id : ids) {
    if (!(*store.index())->find(id, id, "cpu")) {
      return fail_with("hostile entry not found after publish");
    }
  }
  std::printf("ok %zu hostile entries\n", ids.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: qd_store_tool put|check|get|build-stats|hostile STORE ...\n");
    return 2;
  }
  std::string cmd = argv[1];
  std::vector<std::string> positional;
  Options o;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--target" && i + 1 < argc) {
      o.target = argv[++i];
    } else if (a == "--max-kb" && i + 1 < argc) {
      o.max_kb = std::strtoul(argv[++i], nullptr, 10);
    } else if (a == "--level" && i + 1 < argc) {
      o.level = std::atoi(argv[++i]);
    } else if (a == "--allow-missing") {
      o.allow_missing = true;
    } else {
      positional.push_back(a);
    }
  }
  LocalStore store(argv[2], o.level);
  auto num = [&](size_t k) { return std::strtoull(positional.at(k).c_str(), nullptr, 10); };
  if ((cmd == "put" || cmd == "check") && positional.size() == 2) {
    return cmd == "put" ? put(store, num(0), num(1), o) : check(store, num(0), num(1), o);
  }
  if (cmd == "get" && positional.size() == 1) {
    std::optional<ObjectId> id = ObjectId::from_hex(positional[0]);
    if (!id) {
      return fail_with("not an address: " + positional[0]);
    }
    Result<std::string> bytes = store.get(*id);
    if (!bytes) {
      return fail_with(bytes.error());
    }
    std::printf("%zu bytes\n", bytes->size());
    return 0;
  }
  if (cmd == "build-stats" && positional.size() == 4) {
    Result<Unit> r =
        append_build_stats(store.stats_log_path(), {static_cast<int64_t>(std::time(nullptr)),
                                                    num(0), num(1), num(2), num(3)});
    return r ? 0 : fail_with(r.error());
  }
  if (cmd == "pack" && positional.size() == 1) {
    Result<PackSummary> r = write_pack(store, positional[0], {});
    return r ? 0 : fail_with(r.error());
  }
  if (cmd == "hostile") {
    return hostile(store);
  }
  std::fprintf(stderr, "qd_store_tool: bad arguments (see the comment at the top of "
                       "tests/store/store_tool.cpp)\n");
  return 2;
}
