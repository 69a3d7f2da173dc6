// An application that embeds the builder (docs/embedding.md): checks a directory of kernels and
// builds it into a store through libqdbuild, the library the qdbuild command itself is a client
// of, then prints what the build did.
//
//   cmake -S examples/embed -B build/embed -DCMAKE_PREFIX_PATH=<install prefix>
//   cmake --build build/embed && build/embed/qdbuild_embed_example examples build/embed_store
//
// Output (for examples/, into an empty store):
//   libqdbuild 0.1.0
//   check: 4 files, 12 kernels, 0 errors, 8 warnings
//   cpu: 12 kernels, 12 instances, 28 tasks (26 compiled, 2 reused), 3 modules linked
//   qdbuild: built 12 kernels (12 instances): 26 tasks compiled, 2 reused, 3 modules linked
//   in 1.23s
// (2 reused: equal tasks of two kernels are compiled once).
// and, run again on the unchanged tree, the same check line, then
//   cpu: no work to do
//   qdbuild: no work to do.
// Exit status: the build's (0 built, 1 errors in the kernels, 2 usage, 3 internal failure).
#include <qdbuild/qdbuild.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// Shows what went wrong, nothing else: failed kernels with their code frames, tool errors.
// (qdbuild::TerminalReporter prints everything the command prints, progress line included.)
class Errors : public qdbuild::Reporter {
public:
  void kernel_failed(const std::string& kernel_id, const std::vector<qdbuild::Diagnostic>& list,
                     const std::vector<std::string>& messages) override {
    std::printf("FAILED: %s\n", kernel_id.c_str());
    for (const qdbuild::Diagnostic& d : list) {
      std::fputs(d.text.c_str(), stdout);
    }
    for (const std::string& m : messages) {
      std::printf("%s\n", m.c_str());
    }
  }
  void error(const std::string& line) override {
    std::fprintf(stderr, "error: %s\n", line.c_str());
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SOURCE_DIR STORE_DIR\n", argv[0]);
    return 2;
  }
  std::printf("libqdbuild %s\n", qdbuild::version());

  qdbuild::CheckOptions check;
  check.paths = {argv[1]};
  qdbuild::CheckResult c = qdbuild::check(check);
  std::printf("check: %zu files, %zu kernels, %zu errors, %zu warnings\n", c.files, c.kernels,
              c.errors, c.warnings);
  for (const qdbuild::Diagnostic& d : c.diagnostics) {
    if (d.severity == "error") {
      std::fputs(d.text.c_str(), stdout);  // a code frame, as `qdbuild check` prints it
    }
  }

  qdbuild::BuildOptions options;
  options.paths = {argv[1]};
  options.store = argv[2];
  options.targets = {"cpu"};
  Errors reporter;
  qdbuild::BuildReport report = qdbuild::build(options, &reporter);
  for (const std::string& e : report.resolved.errors) {
    std::fprintf(stderr, "error: %s\n", e.c_str());
  }
  for (const qdbuild::BuildResult& r : report.results) {
    if (r.noop) {
      std::printf("%s: no work to do\n", r.target.c_str());
    } else {
      std::printf("%s: %zu kernels, %zu instances, %zu tasks (%zu compiled, %zu reused), "
                  "%zu modules linked\n",
                  r.target.c_str(), r.kernels, r.instances, r.tasks.total, r.tasks.compiled,
                  r.tasks.reused, r.modules_linked);
    }
    for (const std::string& k : r.failed) {
      std::printf("failed: %s\n", k.c_str());
    }
    std::printf("%s\n", r.summary.c_str());
  }
  return static_cast<int>(report.exit);
}
