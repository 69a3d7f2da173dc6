// qd_cuda_corpus PATH [--arch N] [--ieee] [--quiet]: every kernel instance under PATH (the
// differential corpus in CI) generated as CUDA units (codegen::Options::cuda), compiled to PTX
// in-process, linked per instance with the module ABI unit into an sm_XX cubin, and checked: the
// pinned .version/.target in every unit's PTX, no .extern but vprintf's and the generator states',
// a CUDA ELF (e_machine 190, the arch in e_flags) holding every task's entry point in .symtab, a
// well-formed bundle. Prints
// per-task compile and per-module link times (docs/cuda.md). Exit 0 if all pass, 1 otherwise.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "codegen/kernel_codegen.hpp"
#include "cuda/cuda_elf.hpp"
#include "sema/analysis.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: qd_cuda_corpus PATH [--arch N] [--ieee] [--quiet]\n");
    return 2;
  }
  qd::backend::CudaTarget target;
  bool quiet = false;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--arch") == 0 && i + 1 < argc) {
      target.arch = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--ieee") == 0) {
      target.fast_math = false;
    } else if (std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    }
  }
  const std::string version = ".version " + qd::backend::cuda_ptx_version(target) + "\n";
  const std::string arch_line = ".target " + qd::backend::cuda_arch_name(target.arch) + "\n";

  qd::sema::AnalysisOptions opt;
  opt.jobs = 1;
  qd::sema::Analysis a = qd::sema::analyze({argv[1]}, opt);
  qd::backend::TaskPtx abi = qd::backend::compile_cuda_task(qd::backend::module_abi_unit(), target);
  if (!abi.ok) {
    std::printf("FAIL the module ABI unit does not compile\n");
    return 1;
  }

  size_t instances = 0;
  size_t units = 0;
  size_t tasks = 0;
  size_t failures = 0;
  std::vector<double> compile_ms;
  std::vector<double> link_ms;
  std::map<std::string, std::string> ptx_of;  // unit source -> PTX (units repeat across instances)
  auto fail = [&](const std::string& where, const std::string& what) {
    ++failures;
    std::printf("FAIL %s: %s\n", where.c_str(), what.c_str());
  };
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    const qd::sema::KernelReport& r = a.kernels[k];
    for (size_t i = 0; i < r.instances.size(); ++i) {
      std::string where = r.id + " [" + r.instances[i].instance + "]";
      qd::codegen::Options o;
      o.cuda = true;
      qd::codegen::KernelCode code = qd::codegen::generate_kernel(a, k, i, o);
      if (!code.ok) {
        if (!quiet) {
          std::printf("skip %s (not generated: %s)\n", where.c_str(),
                      code.diagnostics.empty() ? "?" : code.diagnostics[0].d.message.c_str());
        }
        continue;
      }
      ++instances;
      std::vector<std::string> ptx_units;
      bool ok = true;
      for (const qd::codegen::Unit& u : code.units) {
        auto it = ptx_of.find(u.source);
        if (it == ptx_of.end()) {
          Clock::time_point t0 = Clock::now();
          qd::backend::TaskPtx t = qd::backend::compile_cuda_task({where, u.source}, target);
          compile_ms.push_back(ms_since(t0));
          ++units;
          if (!t.ok) {
            std::string msg;
            for (const qd::backend::Diagnostic& d : t.diagnostics) {
              msg += "\n  " + qd::backend::format_diagnostic(d);
            }
            fail(where, "unit does not compile:" + msg);
            ok = false;
            continue;
          }
          if (t.ptx.find(version) == std::string::npos ||
              t.ptx.find(arch_line) == std::string::npos) {
            fail(where, "PTX lacks '" + version.substr(0, version.size() - 1) + "' / '" +
                            arch_line.substr(0, arch_line.size() - 1) + "'");
          }
          // The only externals a unit may declare: vprintf (print() in kernels), a PTX system
          // call ptxas resolves, and the generator states (qd.random), which the module ABI unit
          // defines.
          for (size_t at = t.ptx.find(".extern"); at != std::string::npos;
               at = t.ptx.find(".extern", at + 1)) {
            size_t eol = t.ptx.find('\n', at);
            std::string line = t.ptx.substr(at, eol == std::string::npos ? eol : eol - at);
            if (line != ".extern .global .align 8 .b64 qdrt_cuda_rand_states;" &&
                (!line.starts_with(".extern .func") || !line.ends_with(" vprintf"))) {
              fail(where, "PTX has an unresolved .extern: " + line);
            }
          }
          it = ptx_of.emplace(u.source, t.ptx).first;
        }
        ptx_units.push_back(it->second);
      }
      if (!ok) {
        continue;
      }
      ptx_units.push_back(abi.ptx);
      Clock::time_point t0 = Clock::now();
      qd::backend::CudaModule m = qd::backend::link_cuda_module(ptx_units, target.arch);
      link_ms.push_back(ms_since(t0));
      if (!m.ok) {
        std::string msg;
        for (const qd::backend::Diagnostic& d : m.diagnostics) {
          msg += "\n  " + qd::backend::format_diagnostic(d);
        }
        fail(where, "link failed:" + msg);
        continue;
      }
      std::vector<qd::backend::CudaBundleItem> items;
      std::string error;
      if (!qd::backend::parse_cuda_bundle(m.bundle, items, error) || items.size() != 2) {
        fail(where, "bad bundle: " + error);
        continue;
      }
      qd::cuda_test::ElfInfo elf = qd::cuda_test::parse_elf(items[0].bytes);
      if (!elf.ok || elf.machine != qd::cuda_test::k_em_cuda ||
          ((elf.flags >> 8) & 0xff) != target.arch) {
        fail(where, "the cubin is not a CUDA ELF for the arch: " + elf.error);
        continue;
      }
      for (const qd::codegen::TaskCode& t : code.tasks) {
        ++tasks;
        if (std::count(elf.symbols.begin(), elf.symbols.end(), t.symbol) != 1) {
          fail(where, "the cubin lacks the entry point " + t.symbol);
        }
      }
      if (std::count(elf.symbols.begin(), elf.symbols.end(), "qdrt_module_abi_version") != 1) {
        fail(where, "the cubin lacks qdrt_module_abi_version");
      }
    }
  }
  std::printf("cuda corpus: %zu instances, %zu distinct units, %zu tasks, %zu failures "
              "(sm_%u, PTX %s, fast_math %s)\n",
              instances, units, tasks, failures, target.arch,
              qd::backend::cuda_ptx_version(target).c_str(), target.fast_math ? "on" : "off");
  std::printf("compile to PTX per unit: median %.1f ms, p90 %.1f ms, max %.1f ms\n",
              percentile(compile_ms, 0.5), percentile(compile_ms, 0.9),
              percentile(compile_ms, 1.0));
  std::printf("link to cubin per module: median %.1f ms, p90 %.1f ms, max %.1f ms\n",
              percentile(link_ms, 0.5), percentile(link_ms, 0.9), percentile(link_ms, 1.0));
  return failures == 0 && instances > 0 ? 0 : 1;
}
