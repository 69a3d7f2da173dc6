// qd_codegen_dump PATH [--kernel ID]: the IR after every pass and the generated C++ units of every
// kernel instance under PATH (a file or a directory), deterministic, for the golden fixtures in
// tests/codegen/fixtures (run_codegen_tests.py compares them with the .snap files).
// --path P (repeatable), --root R and --instances REC read an app's tree as `qdbuild build` does
// (e.g. the code of one recorded Genesis kernel: --root SITE --path SITE/genesis --instances ...).
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "codegen/kernel_codegen.hpp"
#include "sema/analysis.hpp"

#include <qdrt/task_abi.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: qd_codegen_dump PATH [--kernel ID] [--no-cpp] [--no-ir] [--cuda] "
                         "[--path P]... [--root R] [--instances REC]...\n");
    return 2;
  }
  std::string only;
  bool cpp = true;
  bool ir = true;
  bool cuda = false;
  std::vector<std::string> paths{argv[1]};
  qd::sema::AnalysisOptions opt;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--kernel") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (std::strcmp(argv[i], "--no-cpp") == 0) {
      cpp = false;
    } else if (std::strcmp(argv[i], "--no-ir") == 0) {
      ir = false;
    } else if (std::strcmp(argv[i], "--cuda") == 0) {
      cuda = true;
    } else if (std::strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
      paths.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
      opt.root = argv[++i];
    } else if (std::strcmp(argv[i], "--instances") == 0 && i + 1 < argc) {
      opt.instance_files.emplace_back(argv[++i]);
    }
  }
  opt.jobs = 1;
  qd::sema::Analysis a = qd::sema::analyze(paths, opt);
  int status = 0;
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    const qd::sema::KernelReport& r = a.kernels[k];
    if (!only.empty() && r.id != only) {
      continue;
    }
    for (size_t i = 0; i < r.instances.size(); ++i) {
      std::printf("=== %s [%s]\n", r.id.c_str(), r.instances[i].instance.c_str());
      qd::codegen::Options o;
      o.dump_ir = ir;
      o.cuda = cuda;
      qd::codegen::KernelCode code = qd::codegen::generate_kernel(a, k, i, o);
      for (const qd::sema::SemaDiagnostic& d : code.diagnostics) {
        std::string path = d.module >= 0 ? a.program->modules[d.module].path : d.path;
        std::printf("%s:%d:%d: %s: %s [%s]\n", path.c_str(), d.d.line, d.d.col + 1,
                    d.d.severity == qd::syntax::Severity::Error ? "error" : "warning",
                    d.d.message.c_str(), d.d.code.c_str());
      }
      if (!code.ok) {
        status = 1;
        continue;
      }
      if (ir) {
        std::fputs(code.ir_dump.c_str(), stdout);
      }
      if (!code.whole_reason.empty()) {
        std::printf("whole-kernel: %s\n", code.whole_reason.c_str());
      }
      for (const qd::codegen::TaskCode& t : code.tasks) {
        // The launch metadata where it is not the default: its version and flags.
        std::string meta;
        if (t.launch.block_dim > 0) {
          meta += " block_dim " + std::to_string(t.launch.block_dim);
        }
        if (t.launch.abi_version != QDRT_TASK_ABI_VERSION) {
          meta += " metadata v" + std::to_string(t.launch.abi_version);
        }
        for (auto [flag, name] :
             {std::pair{QDRT_LAUNCH_WRITES_RESULT, " result"},
              std::pair{QDRT_LAUNCH_PRINTS, " prints"}, std::pair{QDRT_LAUNCH_RANDOM, " random"}}) {
          meta += (t.launch.flags & flag) != 0 ? name : "";
        }
        std::printf("task %s %s unit %zu temps %llu%s: %s\n", t.symbol.c_str(),
                    t.range ? "range" : "serial", t.unit,
                    static_cast<unsigned long long>(t.launch.temps_size), meta.c_str(),
                    t.label.c_str());
      }
      if (cpp) {
        for (size_t u = 0; u < code.units.size(); ++u) {
          std::printf("--- unit %zu\n%s", u, code.units[u].source.c_str());
        }
      }
    }
  }
  return status;
}
