// qd_parse_bench: times qdbuild's parser (single thread) over a corpus held in memory.
//
//   qd_parse_bench [--repeat N] [--limit N] [--json] PATH...
//
// PATHs are files or directories (searched recursively for *.py, in sorted order). All files are
// read into memory first; then, best of N runs (default 3): the time to read the bytes again (the
// floor), and the time for parse_bytes() on every file (the tree is freed inside the timed loop,
// as CPython's ast.parse frees its tree). Prints files, lines, MB, lines/s and MB/s; --json prints
// one JSON object instead (used by scripts/bench/parse_bench.py, which adds the CPython baseline).
// Exit: 0, or 2 on a usage error, 3 if a file cannot be read.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "syntax/parser.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  int repeat = 3;
  size_t limit = 0;  // 0: all files
  bool json = false;
  std::vector<std::string> paths;
};

int usage() {
  std::fprintf(stderr, "usage: qd_parse_bench [--repeat N] [--limit N] [--json] PATH...\n");
  return 2;
}

bool read_file(const std::string& path, std::string& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return false;
  }
  out.clear();
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    out.append(buf, n);
  }
  bool ok = std::ferror(f) == 0;
  std::fclose(f);
  return ok;
}

std::vector<std::string> collect(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".py") {
          found.push_back(it->path().string());
        }
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--repeat" || a == "--limit") && i + 1 < argc) {
      long v = std::strtol(argv[++i], nullptr, 10);
      if (v < 0 || (a == "--repeat" && v < 1)) {
        return usage();
      }
      if (a == "--repeat") {
        opt.repeat = static_cast<int>(v);
      } else {
        opt.limit = static_cast<size_t>(v);
      }
    } else if (a == "--json") {
      opt.json = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else {
      opt.paths.push_back(a);
    }
  }
  if (opt.paths.empty()) {
    return usage();
  }

  std::vector<std::string> files = collect(opt.paths);
  if (opt.limit != 0 && files.size() > opt.limit) {
    files.resize(opt.limit);
  }
  std::vector<std::string> data(files.size());
  size_t bytes = 0;
  size_t lines = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!read_file(files[i], data[i])) {
      std::fprintf(stderr, "qd_parse_bench: error: cannot read %s\n", files[i].c_str());
      return 3;
    }
    bytes += data[i].size();
    lines += static_cast<size_t>(std::count(data[i].begin(), data[i].end(), '\n'));
    if (!data[i].empty() && data[i].back() != '\n') {
      ++lines;
    }
  }

  double best_read = 1e300;
  double best_parse = 1e300;
  size_t ok = 0;
  size_t diagnostics = 0;
  for (int r = 0; r < opt.repeat; ++r) {
    // Floor: reading the bytes again (page cache).
    auto t0 = Clock::now();
    size_t sink = 0;
    for (const auto& f : files) {
      std::string s;
      read_file(f, s);
      sink += s.size();
    }
    best_read = std::min(best_read, seconds_since(t0));
    if (sink != bytes) {
      std::fprintf(stderr, "qd_parse_bench: warning: files changed while running\n");
    }

    // The parser gets its own copy of each file (made outside the timed loop).
    std::vector<std::string> copies = data;
    size_t run_ok = 0;
    size_t run_diags = 0;
    t0 = Clock::now();
    for (size_t i = 0; i < files.size(); ++i) {
      auto result = qd::syntax::parse_bytes(files[i], std::move(copies[i]));
      run_ok += result->ok() ? 1 : 0;
      run_diags += result->diagnostics.size();
    }
    best_parse = std::min(best_parse, seconds_since(t0));
    ok = run_ok;
    diagnostics = run_diags;
  }

  const double mb = static_cast<double>(bytes) / 1e6;
  if (opt.json) {
    std::printf("{\"files\":%zu,\"ok\":%zu,\"diagnostics\":%zu,\"bytes\":%zu,\"lines\":%zu,"
                "\"repeat\":%d,\"read_s\":%.6f,\"parse_s\":%.6f}\n",
                files.size(), ok, diagnostics, bytes, lines, opt.repeat, best_read, best_parse);
    return 0;
  }
  std::printf("files        %zu (%zu parsed without errors)\n", files.size(), ok);
  std::printf("lines        %zu\n", lines);
  std::printf("size         %.1f MB\n", mb);
  std::printf("read floor   %.3f s  (%.0f MB/s)\n", best_read, mb / best_read);
  std::printf("parse        %.3f s  (%.0f lines/s, %.1f MB/s; best of %d, one thread)\n",
              best_parse, static_cast<double>(lines) / best_parse, mb / best_parse, opt.repeat);
  return 0;
}
