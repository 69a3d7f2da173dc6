#include "random_states.hpp"

namespace qdrt {

qdrt_rand_state RandomStates::initial(uint32_t seed, uint32_t i) {
  // Quadrants computes `int starting_rand_state = random_seed * 1048391` and passes
  // starting_rand_state + i as a u32; the products wrap modulo 2^32.
  uint32_t n = seed * 1048391u + i;
  qdrt_rand_state s{};
  s.x = 123456789u * n * 1000000007u;
  s.y = 362436069u;
  s.z = 521288629u;
  s.w = 88675123u;
  s.lock = 0;
  return s;
}

qdrt_rand_state* RandomStates::states(uint32_t threads, uint32_t& count) {
  if (m_bound != nullptr) {
    count = m_bound_count;
    return m_bound;
  }
  if (m_own.size() < threads) {
    for (uint32_t i = static_cast<uint32_t>(m_own.size()); i < threads; ++i) {
      m_own.push_back(initial(m_seed, i));
    }
  }
  count = static_cast<uint32_t>(m_own.size());
  return m_own.data();
}

void RandomStates::bind(qdrt_rand_state* states, uint32_t count) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_bound = count > 0 ? states : nullptr;
  m_bound_count = m_bound != nullptr ? count : 0;
}

RandomStates::~RandomStates() {
  for (auto& [context, copy] : m_device) {
    if (copy.ptr != 0 && m_release != nullptr) {
      m_release(context, copy.ptr);
    }
  }
}

void RandomStates::seed(uint32_t seed) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_seed = seed;
  ++m_generation;
  for (uint32_t i = 0; i < m_own.size(); ++i) {
    m_own[i] = initial(seed, i);
  }
}

}  // namespace qdrt
