// Prints the tokens of each file given on the command line, one per line:
//   KIND line col end_line end_col begin end
// then, for diagnostics, `DIAG severity code line col end_line end_col message`.
// With --bench: tokenizes every file (read up front) N times and prints MB/s.
// A file's output starts with `FILE path`.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "syntax/lexer.hpp"

namespace {

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() >= 3 && s.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    s.erase(0, 3);
  }
  return s;
}

void dump(const char* path, const std::string& text) {
  qd::syntax::TokenStream ts = qd::syntax::tokenize(text);
  std::printf("FILE %s\n", path);
  for (const qd::syntax::Token& t : ts.tokens) {
    std::printf("%s %d %d %d %d %u %u\n", qd::syntax::token_kind_name(t.kind), t.line, t.col,
                t.end_line, t.end_col, t.begin, t.end);
  }
  for (const qd::syntax::Diagnostic& d : ts.diagnostics) {
    std::printf("DIAG %s %s %d %d %d %d %s\n",
                d.severity == qd::syntax::Severity::Error ? "error" : "warning", d.code.c_str(),
                d.line, d.col, d.end_line, d.end_col, d.message.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "--bench") == 0) {
    int reps = std::atoi(argv[2]);
    std::vector<std::string> texts;
    size_t bytes = 0;
    for (int i = 3; i < argc; ++i) {
      texts.push_back(read_file(argv[i]));
      bytes += texts.back().size();
    }
    size_t ntok = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) {
      for (const std::string& s : texts) {
        ntok += qd::syntax::tokenize(s).tokens.size();
      }
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%zu files, %.1f MB x %d, %zu tokens, %.3f s, %.1f MB/s\n", texts.size(),
                bytes / 1e6, reps, ntok, secs, bytes * double(reps) / 1e6 / secs);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "-") == 0) {
    // Read a list of paths from stdin.
    char line[4096];
    while (std::fgets(line, sizeof line, stdin)) {
      size_t n = std::strlen(line);
      while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
        line[--n] = 0;
      }
      dump(line, read_file(line));
    }
    return 0;
  }
  for (int i = 1; i < argc; ++i) {
    dump(argv[i], read_file(argv[i]));
  }
  return 0;
}
