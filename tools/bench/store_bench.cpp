// qd_store_bench: the artifact store against plain files and raw zstd, on the same bytes, in the
// same run (driven by scripts/bench/store_bench.sh, which makes the seed objects).
//
//   qd_store_bench --seeds DIR [--dir WORK] [--count N] [--level L] [--quick] [--no-fsync]
//
// Seeds (*.o, *.ptx) are sliced and perturbed into N distinct objects of 2-200 KB (log-uniform
// sizes, half object code and half PTX). Reported: store put vs writing the same bytes to plain
// files (with and without fsync: the store fsyncs each object and its directory), store get
// (read + zstd decode + XXH3 check) vs plain file read, raw zstd compress/decompress in memory, the
// acceptance ratio store-get / (zstd decompress + plain read) (<= 1.5), and zstd levels 1/3/9/19
// on the .o and PTX seeds (ratio, MB/s). Reads are from the page cache (files just written), for
// the plain files and the store alike.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "store/local_store.hpp"
#include "store/object_format.hpp"
#include "support/file_io.hpp"

namespace fs = std::filesystem;
using namespace qd::store;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_of(const std::function<void()>& fn) {
  auto t0 = Clock::now();
  fn();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "qd_store_bench: error: %s\n", message.c_str());
  std::exit(3);
}

std::string read_or_die(const std::string& path) {
  std::string bytes;
  std::string error;
  if (!qd::support::read_file(path, bytes, error)) {
    die(error);
  }
  return bytes;
}

void write_plain(const std::string& path, const std::string& data, bool sync) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size()) ||
      (sync && ::fsync(fd) != 0) || ::close(fd) != 0) {
    die("cannot write " + path);
  }
}

struct Corpus {
  std::string object_code;  // all .o seeds, concatenated
  std::string ptx;          // all .ptx seeds
};

Corpus load_seeds(const std::string& dir) {
  Corpus c;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    if (p.extension() == ".o") {
      c.object_code += read_or_die(p.string());
    } else if (p.extension() == ".ptx") {
      c.ptx += read_or_die(p.string());
    }
  }
  if (c.object_code.size() < 300000 || c.ptx.size() < 300000) {
    die("too few seed bytes in " + dir + " (need .o and .ptx files, 300 KB of each)");
  }
  return c;
}

std::vector<std::string> make_objects(const Corpus& c, size_t count) {
  std::mt19937_64 rng(42);
  std::vector<std::string> out;
  out.reserve(count);
  for (size_t k = 0; k < count; ++k) {
    const std::string& src = k % 2 ? c.ptx : c.object_code;
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    size_t size = static_cast<size_t>(2048 * std::pow(100.0, u));  // 2 KB .. 200 KB
    size_t at = rng() % (src.size() - size);
    std::string obj = src.substr(at, size);
    // Perturb: the object's number and a few changed bytes, as a different kernel would differ.
    std::string tag = "qd_task_" + std::to_string(k);
    std::memcpy(obj.data() + obj.size() / 2, tag.data(), std::min(tag.size(), obj.size() / 2));
    for (int i = 0; i < 4; ++i) {
      obj[rng() % obj.size()] = static_cast<char>(rng());
    }
    out.push_back(std::move(obj));
  }
  return out;
}

double mb(uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }

void level_table(const std::string& name, const std::string& bytes) {
  // Objects of ~64 KB, as the store compresses them one by one.
  std::vector<std::string> chunks;
  for (size_t at = 0; at < bytes.size(); at += 65536) {
    chunks.push_back(bytes.substr(at, 65536));
  }
  for (int level : {1, 3, 9, 19}) {
    std::vector<std::string> frames(chunks.size());
    uint64_t packed = 0;
    int rounds = 0;
    double ct = 0;
    while (ct < 0.3 || rounds == 0) {
      ct += seconds_of([&] {
        for (size_t i = 0; i < chunks.size(); ++i) {
          frames[i] = zstd_compress(chunks[i], level);
        }
      });
      ++rounds;
    }
    for (const std::string& f : frames) {
      packed += f.size();
    }
    double compress_s = ct / rounds;
    std::string out;
    rounds = 0;
    double dt = 0;
    while (dt < 0.3) {
      dt += seconds_of([&] {
        for (size_t i = 0; i < chunks.size(); ++i) {
          if (!zstd_decompress(frames[i], chunks[i].size(), out) || out != chunks[i]) {
            die("zstd round trip failed");
          }
        }
      });
      ++rounds;
    }
    double decompress_s = dt / rounds;
    std::printf("| %s (%.2f MB) | %d | %.2f | %.0f | %.0f |\n", name.c_str(), mb(bytes.size()),
                level, static_cast<double>(bytes.size()) / packed, mb(bytes.size()) / compress_s,
                mb(bytes.size()) / decompress_s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string seeds;
  std::string work = "build/bench/store_work";
  size_t count = 10000;
  int level = k_default_level;
  bool fsync_plain = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seeds" && i + 1 < argc) {
      seeds = argv[++i];
    } else if (a == "--dir" && i + 1 < argc) {
      work = argv[++i];
    } else if (a == "--count" && i + 1 < argc) {
      count = std::strtoul(argv[++i], nullptr, 10);
    } else if (a == "--level" && i + 1 < argc) {
      level = std::atoi(argv[++i]);
    } else if (a == "--quick") {
      count = 1000;
    } else if (a == "--no-fsync") {
      fsync_plain = false;
    } else {
      std::printf("usage: qd_store_bench --seeds DIR [--dir WORK] [--count N] [--level L] "
                  "[--quick] [--no-fsync]\n");
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (seeds.empty()) {
    die("--seeds DIR is required (scripts/bench/store_bench.sh makes them)");
  }
  Corpus corpus = load_seeds(seeds);
  std::vector<std::string> objects = make_objects(corpus, count);
  uint64_t raw_bytes = 0;
  for (const std::string& o : objects) {
    raw_bytes += o.size();
  }
  fs::remove_all(work);
  fs::create_directories(work + "/plain");
  fs::create_directories(work + "/plain_nosync");
  for (int d = 0; d < 256; ++d) {
    char sub[8];
    std::snprintf(sub, sizeof sub, "/%02x", d);
    fs::create_directories(work + "/plain" + sub);
    fs::create_directories(work + "/plain_nosync" + sub);
  }
  auto plain_path = [&](const char* dir, size_t k) {
    char sub[8];
    std::snprintf(sub, sizeof sub, "%02zx", k % 256);
    return work + "/" + dir + "/" + sub + "/" + std::to_string(k) + ".bin";
  };
  std::printf("store_bench: %zu objects, %.1f MB raw (object code and PTX, 2-200 KB), zstd level "
              "%d, work dir %s\n\n",
              count, mb(raw_bytes), level, work.c_str());

  // --- writes ---
  double plain_nosync_w = seconds_of([&] {
    for (size_t k = 0; k < count; ++k) {
      write_plain(plain_path("plain_nosync", k), objects[k], false);
    }
  });
  double plain_sync_w = fsync_plain ? seconds_of([&] {
    for (size_t k = 0; k < count; ++k) {
      write_plain(plain_path("plain", k), objects[k], true);
    }
  })
                                    : 0;
  LocalStore store(work + "/store", level);
  std::vector<ObjectId> ids(count);
  double store_w = seconds_of([&] {
    for (size_t k = 0; k < count; ++k) {
      Result<ObjectId> id = store.put(objects[k]);
      if (!id) {
        die(id.error());
      }
      ids[k] = *id;
    }
  });
  uint64_t stored_bytes = 0;
  Result<std::vector<ObjectInfo>> listed1 = store.list_objects();
  for (const ObjectInfo& o : *listed1) {
    stored_bytes += o.file_size;
  }

  // --- in-memory zstd on the same bytes ---
  std::vector<std::string> frames(count);
  double zc = seconds_of([&] {
    for (size_t k = 0; k < count; ++k) {
      frames[k] = zstd_compress(objects[k], level);
    }
  });
  std::string scratch;
  double zd = seconds_of([&] {
    for (size_t k = 0; k < count; ++k) {
      if (!zstd_decompress(frames[k], objects[k].size(), scratch)) {
        die("zstd decompress failed");
      }
    }
  });

  // --- reads (best of 3: page cache warm for all) ---
  auto best_of = [](int n, const std::function<void()>& fn) {
    double best = 1e30;
    for (int i = 0; i < n; ++i) {
      best = std::min(best, seconds_of(fn));
    }
    return best;
  };
  std::string error;
  double plain_r = best_of(3, [&] {
    for (size_t k = 0; k < count; ++k) {
      if (!qd::support::read_file(plain_path("plain_nosync", k), scratch, error)) {
        die(error);
      }
    }
  });
  double store_file_r = best_of(3, [&] {
    for (size_t k = 0; k < count; ++k) {
      if (!qd::support::read_file(store.object_path(ids[k]), scratch, error)) {
        die(error);
      }
    }
  });
  double store_r = best_of(3, [&] {
    for (size_t k = 0; k < count; ++k) {
      Result<std::string> r = store.get(ids[k]);
      if (!r || r->size() != objects[k].size()) {
        die("store get failed");
      }
    }
  });

  auto row = [&](const char* what, double s, uint64_t bytes) {
    std::printf("  %-46s %8.3f s  %8.0f MB/s  %7.1f us/object\n", what, s, mb(bytes) / s,
                s * 1e6 / static_cast<double>(count));
  };
  std::printf("writes\n");
  row("plain file write (no fsync)", plain_nosync_w, raw_bytes);
  if (fsync_plain) {
    row("plain file write + fsync", plain_sync_w, raw_bytes);
  }
  row("store put (zstd + temp + fsync + rename)", store_w, raw_bytes);
  std::printf("reads\n");
  row("plain file read (raw bytes)", plain_r, raw_bytes);
  row("store object file read (compressed bytes)", store_file_r, raw_bytes);
  row("store get (read + decompress + XXH3 check)", store_r, raw_bytes);
  std::printf("zstd in memory (level %d)\n", level);
  row("compress", zc, raw_bytes);
  row("decompress", zd, raw_bytes);
  std::printf("\nsizes: raw %.1f MB, stored %.1f MB (ratio %.2f incl. headers)\n", mb(raw_bytes),
              mb(stored_bytes), static_cast<double>(raw_bytes) / stored_bytes);
  std::printf("ratios\n");
  std::printf("  store put / plain write+fsync            %.2f\n",
              fsync_plain ? store_w / plain_sync_w : 0.0);
  std::printf("  store put / plain write (no fsync)       %.2f\n", store_w / plain_nosync_w);
  std::printf("  store put / zstd compress                %.2f\n", store_w / zc);
  std::printf("  store get / plain read                   %.2f\n", store_r / plain_r);
  std::printf("  store get / zstd decompress              %.2f\n", store_r / zd);
  double acceptance = store_r / (zd + plain_r);
  std::printf("  store get / (zstd decompress + plain read)             %.2f  (acceptance: <= 1.5: "
              "%s)\n",
              acceptance, acceptance <= 1.5 ? "PASS" : "FAIL");
  std::printf("  store get / (zstd decompress + compressed file read)   %.2f\n",
              store_r / (zd + store_file_r));

  std::printf("\nzstd levels on the seed bytes (64 KB objects, one-shot with a reused context)\n");
  std::printf(
      "| input | level | ratio | compress MB/s | decompress MB/s |\n|---|---|---|---|---|\n");
  level_table("x86-64 .o", corpus.object_code.substr(0, 4 << 20));
  level_table("PTX", corpus.ptx.substr(0, 4 << 20));
  fs::remove_all(work);
  return acceptance <= 1.5 ? 0 : 1;
}
