#include "build/build_target.hpp"

#include "backend/plugin.hpp"

namespace qd::build {

bool BuildTarget::parse(std::string_view text, BuildTarget& out, std::string& error) {
  out = BuildTarget{};
  if (text == "cpu") {
    return true;
  }
  if (text == "cuda" || text.starts_with("cuda:")) {
    if (!backend::parse_cuda_target(text, out.gpu)) {
      error = "'" + std::string(text) + "' is not a CUDA target (cuda or cuda:sm_XX)";
      return false;
    }
    if (std::string why = backend::check_cuda_target(out.gpu); !why.empty()) {
      error = "target '" + std::string(text) + "': " + why;
      return false;
    }
    out.cuda = true;
    out.name = "cuda:" + backend::cuda_arch_name(out.gpu.arch);
    return true;
  }
  error = "unknown target '" + std::string(text) + "' (cpu, cuda or cuda:sm_XX)";
  return false;
}

std::string BuildTarget::toolchain() const {
  return cuda ? backend::toolchain_id(gpu) : backend::toolchain_id(cpu);
}

std::string BuildTarget::task_key(std::string_view source) const {
  return cuda ? backend::task_key(source, gpu) : backend::task_key(source, cpu);
}

BuildTarget::Output BuildTarget::compile(const backend::TaskUnit& unit) const {
  Output out;
  if (cuda) {
    backend::TaskPtx p = backend::plugin::compile_cuda_task(unit, gpu);
    out.ok = p.ok;
    out.bytes = std::move(p.ptx);
    out.diagnostics = std::move(p.diagnostics);
    return out;
  }
  backend::TaskObject o = backend::plugin::compile_cpu_task(unit, cpu);
  out.ok = o.ok;
  out.bytes = std::move(o.object);
  out.diagnostics = std::move(o.diagnostics);
  return out;
}

BuildTarget::Output BuildTarget::link(const std::vector<std::string>& units) const {
  Output out;
  if (cuda) {
    backend::CudaModule m = backend::plugin::link_cuda_module(units, gpu.arch);
    out.ok = m.ok;
    out.bytes = std::move(m.bundle);
    out.diagnostics = std::move(m.diagnostics);
    return out;
  }
  backend::LinkedModule m = backend::plugin::link_cpu_module(units);
  out.ok = m.ok;
  out.bytes = std::move(m.so_bytes);
  out.diagnostics = std::move(m.diagnostics);
  return out;
}

}  // namespace qd::build
