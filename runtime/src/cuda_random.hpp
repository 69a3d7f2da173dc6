// qd.random on CUDA (task_abi.h "Random numbers", launch metadata version 6): the grid Quadrants
// launches a task that draws in, and the device states such a task draws from.
//
// Quadrants' CUDA runtime keeps saturating_grid_dim * max_block_dim generator states (one per
// thread it can launch), seeded once per program as on the CPU, and a thread draws from state
// blockIdx.x * blockDim.x + threadIdx.x. Its range tasks run a grid of saturating_grid_dim =
// SMs * max resident blocks per SM * 2 blocks (fewer when constant bounds need fewer; since the
// tasks grid-stride, iteration i then runs on the same thread either way). Launched the same way,
// a compiled task draws for iteration i exactly what Quadrants' would from the same states.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_driver.hpp"
#include "random_states.hpp"

namespace qdrt::cuda {

struct RandomGeometry {
  unsigned grid = 1;    // Quadrants' saturating_grid_dim: blocks of a range task that draws
  uint64_t states = 0;  // Quadrants' num_rand_states: grid * max threads per block
};
RandomGeometry random_geometry(const Device& dev);

// States [first, first + out.size()) of random_seed `seed`, as RandomStates::initial makes them.
void initial_states(uint32_t seed, uint64_t first, std::vector<qdrt_rand_state>& out);

// The current context's device states of `r` (call with r.launch_mutex() held): made on first use
// (geometry.states of them), seeded for r's seed, re-seeded when r was re-seeded since; `ptr` is
// their device address.
Status device_states(const Driver& d, const ContextScope& scope, RandomStates& r,
                     const std::string& what, CUdeviceptr& ptr);

// Points `module`'s qdrt_cuda_rand_states at `ptr` (a module without it: QDRT_ERROR_LOAD).
Status point_module(const Driver& d, CUmodule module, CUdeviceptr ptr, const std::string& what);

}  // namespace qdrt::cuda
