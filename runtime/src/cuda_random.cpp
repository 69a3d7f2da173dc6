#include "cuda_random.hpp"

#include <algorithm>

namespace qdrt::cuda {

namespace {

// States seeded and uploaded per step (20 MiB of host memory at a time).
constexpr uint64_t k_chunk = uint64_t{1} << 20;

void release_states(void* context, uint64_t ptr) {
  const Driver* d = nullptr;
  if (!load_driver(d).ok()) {
    return;
  }
  // The context may be gone (destroyed by the app): then its memory went with it.
  if (d->cuCtxPushCurrent(static_cast<CUcontext>(context)) == CUDA_SUCCESS) {
    d->cuMemFree(static_cast<CUdeviceptr>(ptr));
    CUcontext popped = nullptr;
    d->cuCtxPopCurrent(&popped);
  }
}

}  // namespace

RandomGeometry random_geometry(const Device& dev) {
  RandomGeometry g;
  g.grid = static_cast<unsigned>(std::max(1, dev.sms) * std::max(1, dev.max_blocks_per_sm) * 2);
  g.states = uint64_t{g.grid} * static_cast<uint64_t>(std::max(1, dev.max_block_dim));
  return g;
}

void initial_states(uint32_t seed, uint64_t first, std::vector<qdrt_rand_state>& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = RandomStates::initial(seed, static_cast<uint32_t>(first + i));
  }
}

Status device_states(const Driver& d, const ContextScope& scope, RandomStates& r,
                     const std::string& what, CUdeviceptr& ptr) {
  RandomStates::DeviceCopy& copy = r.device_copy(scope.context());
  if (copy.ptr == 0) {
    RandomGeometry g = random_geometry(scope.device());
    CUdeviceptr p = 0;
    if (CUresult res = d.cuMemAlloc(&p, g.states * sizeof(qdrt_rand_state)); res != CUDA_SUCCESS) {
      return call_error(d, what + " (qd.random: " + std::to_string(g.states) + " generator states)",
                        "cuMemAlloc", res);
    }
    copy.ptr = p;
    copy.count = g.states;
    copy.seeded = 0;
    r.set_device_release(&release_states);
    log_debug("qd.random on CUDA: %llu generator states (%.1f MiB) for a grid of %u blocks",
              static_cast<unsigned long long>(g.states),
              static_cast<double>(g.states * sizeof(qdrt_rand_state)) / (1 << 20), g.grid);
  }
  if (copy.seeded != r.seed_generation()) {
    std::vector<qdrt_rand_state> chunk;
    for (uint64_t first = 0; first < copy.count; first += k_chunk) {
      chunk.resize(static_cast<size_t>(std::min(k_chunk, copy.count - first)));
      initial_states(r.seed_value(), first, chunk);
      if (CUresult res = d.cuMemcpyHtoD(copy.ptr + first * sizeof(qdrt_rand_state), chunk.data(),
                                        chunk.size() * sizeof(qdrt_rand_state));
          res != CUDA_SUCCESS) {
        return call_error(d, what + " (qd.random: seeding the generator states)", "cuMemcpyHtoD",
                          res);
      }
    }
    copy.seeded = r.seed_generation();
  }
  ptr = copy.ptr;
  return {};
}

Status point_module(const Driver& d, CUmodule module, CUdeviceptr ptr, const std::string& what) {
  CUdeviceptr global = 0;
  size_t bytes = 0;
  if (CUresult res = d.cuModuleGetGlobal(&global, &bytes, module, QDRT_CUDA_RAND_STATES_SYMBOL);
      res != CUDA_SUCCESS || bytes != sizeof(CUdeviceptr)) {
    return Status::error(
        QDRT_ERROR_LOAD,
        what +
            ": its CUDA module has no " QDRT_CUDA_RAND_STATES_SYMBOL
            " pointer (cuModuleGetGlobal: " +
            (res != CUDA_SUCCESS ? result_name(&d, res) : std::to_string(bytes) + " bytes") +
            "), which a task that draws qd.random reads (rebuild it)");
  }
  if (CUresult res = d.cuMemcpyHtoD(global, &ptr, sizeof ptr); res != CUDA_SUCCESS) {
    return call_error(d, what + " (qd.random: " QDRT_CUDA_RAND_STATES_SYMBOL ")", "cuMemcpyHtoD",
                      res);
  }
  return {};
}

}  // namespace qdrt::cuda
