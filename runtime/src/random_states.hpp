// The generator states compiled kernels draw qd.random from (task_abi.h "Random numbers"): the
// store's own, seeded as Quadrants seeds them, or an array the caller binds (the bridge binds
// Quadrants' own, so a kernel served from the store continues Quadrants' sequence); on CUDA, the
// store's own states in each context's device memory (seeded alike, drawn from apart from the
// CPU's). Shared by every generation of a watched store; one launch that draws at a time.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "qdrt/task_abi.h"

namespace qdrt {

class RandomStates {
public:
  // Held for the whole of a launch that draws: no other launch draws meanwhile, and the
  // binding does not change under it.
  std::mutex& launch_mutex() { return m_mutex; }

  // The states to draw from (call with launch_mutex() held): the bound array, else the store's
  // own (`threads` of them, made on first use for the seed given last, 0 by default).
  qdrt_rand_state* states(uint32_t threads, uint32_t& count);

  // Binds `states[0..count)` (nullptr: back to the store's own states).
  void bind(qdrt_rand_state* states, uint32_t count);
  // Re-seeds the store's own states as Quadrants' qd.init(random_seed=seed) does.
  void seed(uint32_t seed);

  // Quadrants' initial state i of a program with random_seed `seed` (runtime.cpp
  // initialize_rand_state(state, seed * 1048391 + i)).
  static qdrt_rand_state initial(uint32_t seed, uint32_t i);

  // The store's own states on a CUDA device: one copy per context, made and seeded by the CUDA
  // launcher (cuda_random.hpp). Call these with launch_mutex() held.
  struct DeviceCopy {
    uint64_t ptr = 0;     // device address (CUdeviceptr), 0 until made
    uint64_t count = 0;   // states
    uint64_t seeded = 0;  // the seed generation its states were set for (0: never)
  };
  DeviceCopy& device_copy(void* context) { return m_device[context]; }
  // Frees the device copies when these states go (set by the CUDA launcher).
  void set_device_release(void (*release)(void* context, uint64_t ptr)) { m_release = release; }
  uint32_t seed_value() const { return m_seed; }
  // Bumped by every seed(): a device copy seeded for an older generation is re-seeded.
  uint64_t seed_generation() const { return m_generation; }

  RandomStates() = default;
  RandomStates(const RandomStates&) = delete;
  RandomStates& operator=(const RandomStates&) = delete;
  ~RandomStates();

private:
  std::mutex m_mutex;
  std::vector<qdrt_rand_state> m_own;
  uint32_t m_seed = 0;
  uint64_t m_generation = 1;
  std::map<void*, DeviceCopy> m_device;
  void (*m_release)(void* context, uint64_t ptr) = nullptr;
  qdrt_rand_state* m_bound = nullptr;
  uint32_t m_bound_count = 0;
};

}  // namespace qdrt
