// An application using the installed qdrt package: opens the store `qdbuild build examples/`
// wrote and runs the examples' kernels (examples/heat.py, particles.py, reduce.py) on real data,
// checking every result against the same computation done here on the host.
//
//   cmake -S examples/app_cpp -B build/app_cpp -DCMAKE_PREFIX_PATH=build/install
//   cmake --build build/app_cpp && build/app_cpp/qdrt_example_app build/examples_store
//
// Prints values and a PASS/FAIL line per check; exits 1 on any mismatch or error.
#include <qdrt/qdrt.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int g_failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  if (!ok) {
    ++g_failures;
  }
}

// Floats from compiled kernels may differ in the last bits (fast math, reduction order).
bool close(double got, double want, double rel = 1e-4, double abs = 1e-4) {
  return std::fabs(got - want) <= abs + rel * std::fabs(want);
}

template <class... A> std::string fmt(const char* f, A... a) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

// Deterministic pseudo-random numbers in [0, 1) (a 32-bit LCG), the same on every machine.
struct Lcg {
  uint32_t state;
  float next() {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f;
  }
};

class App {
public:
  explicit App(const std::string& store_path) {
    if (qdrt::Error e = m_store.open(store_path)) {
      std::fprintf(stderr, "cannot open the store '%s': %s\n", store_path.c_str(),
                   e.message.c_str());
      std::exit(1);
    }
    std::printf("store %s: %zu kernels (libqdrt %s)\n", store_path.c_str(),
                m_store.kernels().size(), qdrt_version_string());
  }

  qdrt::Kernel kernel(const std::string& id) {
    qdrt::Kernel k;
    if (qdrt::Error e = m_store.kernel(id, k)) {
      std::fprintf(stderr, "%s\n", e.message.c_str());
      std::exit(1);
    }
    return k;
  }

  // Launches and returns the result value (kind NONE for kernels without one); exits on error.
  static qdrt_value launch(const qdrt::Kernel& k, std::initializer_list<qdrt::Arg> args) {
    qdrt_value result{};
    if (qdrt::Error e = k(args, &result)) {
      std::fprintf(stderr, "launch of %s failed: %s\n", k.name().c_str(), e.message.c_str());
      std::exit(1);
    }
    return result;
  }

  void heat();
  void particles();
  void reductions();

private:
  qdrt::Store m_store;
};

// --- examples/heat.py: fill, a hot spot, 200 explicit steps, the last step's largest change ---
void App::heat() {
  constexpr int n = 96, m = 64, steps = 200;
  constexpr float alpha = 0.2f;  // heat.py's ALPHA
  qdrt::Kernel fill = kernel("heat:fill"), hot = kernel("heat:set_hot_spot"),
               step = kernel("heat:step"), max_change = kernel("heat:max_change");
  std::vector<float> u(n * m), u_next(n * m), out(1);
  auto grid = [&](std::vector<float>& g) { return qdrt::Arg(QDRT_DTYPE_F32, g.data(), {n, m}); };
  launch(fill, {grid(u), 10.0});
  launch(fill, {grid(u_next), 0.0});
  launch(hot, {grid(u), 40, 20, 6, 100.0});

  std::vector<float> h(n * m, 10.0f), h_next(n * m);
  for (int i = 40 - 6; i <= 40 + 6; ++i) {
    for (int j = 20 - 6; j <= 20 + 6; ++j) {
      if ((i - 40) * (i - 40) + (j - 20) * (j - 20) <= 36) {
        h[i * m + j] = 100.0f;
      }
    }
  }
  check(u == h, "heat: fill + set_hot_spot match the host exactly");

  for (int s = 0; s < steps; ++s) {
    launch(step, {grid(u), grid(u_next)});
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < m; ++j) {
        float c = h[i * m + j];
        if (i == 0 || j == 0 || i == n - 1 || j == m - 1) {
          h_next[i * m + j] = c;
        } else {
          float lap = h[(i - 1) * m + j] + h[(i + 1) * m + j] + h[i * m + j - 1] +
                      h[i * m + j + 1] - 4.0f * c;
          h_next[i * m + j] = c + alpha * lap;
        }
      }
    }
    if (s + 1 < steps) {
      std::swap(u, u_next);
      std::swap(h, h_next);
    }
  }
  double worst = 0, total = 0, htotal = 0;
  for (size_t i = 0; i < u_next.size(); ++i) {
    worst = std::max(worst, static_cast<double>(std::fabs(u_next[i] - h_next[i])));
    total += u_next[i];
    htotal += h_next[i];
  }
  std::printf("heat: %dx%d grid, %d steps: center %.4f, total heat %.2f (host %.2f)\n", n, m, steps,
              u_next[40 * m + 20], total, htotal);
  check(worst <= 1e-3,
        fmt("heat: %d steps match the host (largest difference %.2g)", steps, worst));

  launch(max_change, {grid(u), grid(u_next), qdrt::Arg(QDRT_DTYPE_F32, out.data(), {1})});
  double hmax = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    hmax = std::max(hmax, static_cast<double>(std::fabs(h_next[i] - h[i])));
  }
  check(close(out[0], hmax, 1e-3, 1e-5), fmt("heat: max_change %.6f (host %.6f)", out[0], hmax));
}

// --- examples/particles.py: wind, 150 integration steps in a box, kinetic energy --------------
void App::particles() {
  constexpr int count = 2000, steps = 150;
  constexpr float dt = 0.01f, gravity = -9.81f, drag = 0.02f, restitution = 0.6f, half = 4.0f;
  qdrt::Kernel integrate = kernel("particles:integrate"), wind = kernel("particles:apply_wind"),
               energy = kernel("particles:kinetic_energy");
  std::vector<float> pos(count * 3), vel(count * 3), mass(count);
  Lcg rng{12345};
  for (int i = 0; i < count; ++i) {
    pos[i * 3 + 0] = -3.0f + 6.0f * rng.next();
    pos[i * 3 + 1] = 0.5f + 3.0f * rng.next();
    pos[i * 3 + 2] = -3.0f + 6.0f * rng.next();
    for (int k = 0; k < 3; ++k) {
      vel[i * 3 + k] = -2.0f + 4.0f * rng.next();
    }
    mass[i] = i % 50 == 0 ? 0.0f : 0.5f + rng.next();  // every 50th is pinned (no wind)
  }
  auto vec3s = [&](std::vector<float>& a) {
    return qdrt::Arg(QDRT_DTYPE_F32, a.data(), {count, 3});
  };
  auto masses = qdrt::Arg(QDRT_DTYPE_F32, mass.data(), {count});

  std::vector<float> hv = vel;
  launch(wind, {vec3s(vel), masses, 1.5, -0.5, 0.1});
  for (int i = 0; i < count; ++i) {
    if (mass[i] > 0) {
      hv[i * 3 + 0] += 0.1f * 1.5f / mass[i];
      hv[i * 3 + 2] += 0.1f * -0.5f / mass[i];
    }
  }
  double worst = 0;
  for (size_t i = 0; i < vel.size(); ++i) {
    worst = std::max(worst, static_cast<double>(std::fabs(vel[i] - hv[i])));
  }
  check(worst <= 1e-5,
        fmt("particles: apply_wind matches the host (largest difference %.2g)", worst));

  // Each step is checked against the host stepping from the same state, so rounding cannot
  // accumulate; a particle that lands within rounding of a wall may bounce on one side and not
  // the other, and is not compared in that step (counted as "at a wall").
  worst = 0;
  int at_wall = 0;
  for (int s = 0; s < steps; ++s) {
    std::vector<float> hp = pos;
    hv = vel;
    launch(integrate, {vec3s(pos), vec3s(vel), static_cast<double>(dt)});
    for (int i = 0; i < count; ++i) {
      const float* v = &hv[i * 3];
      float norm = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      float np[3], nv[3];
      bool ambiguous = false;
      for (int k = 0; k < 3; ++k) {
        float acc = -drag * norm * v[k] + (k == 1 ? gravity : 0.0f);
        nv[k] = v[k] + dt * acc;
        np[k] = hp[i * 3 + k] + dt * nv[k];
        float lo = k == 1 ? 0.0f : -half;
        ambiguous |= std::fabs(np[k] - lo) < 1e-5f || std::fabs(np[k] - half) < 1e-5f;
        if (np[k] < lo) {
          np[k] = lo;
          nv[k] = -nv[k] * restitution;
        }
        if (np[k] > half) {
          np[k] = half;
          nv[k] = -nv[k] * restitution;
        }
      }
      if (ambiguous) {
        ++at_wall;
        continue;
      }
      for (int k = 0; k < 3; ++k) {
        worst = std::max(worst, static_cast<double>(std::fabs(pos[i * 3 + k] - np[k])));
        worst = std::max(worst, static_cast<double>(std::fabs(vel[i * 3 + k] - nv[k])));
      }
    }
  }
  float lowest = 1e9f;
  for (int i = 0; i < count; ++i) {
    lowest = std::min(lowest, pos[i * 3 + 1]);
  }
  std::printf(
      "particles: %d particles, %d steps: particle 1 at (%.4f, %.4f, %.4f), lowest y %.4f\n", count,
      steps, pos[3], pos[4], pos[5], lowest);
  check(worst <= 1e-4, fmt("particles: every integrate step matches the host (largest difference "
                           "%.2g; %d particle-steps at a wall not compared)",
                           worst, at_wall));
  check(lowest >= 0.0f, "particles: nobody fell through the ground");

  qdrt_value e = launch(energy, {vec3s(vel), masses});
  double he = 0;
  for (int i = 0; i < count; ++i) {
    const float* v = &vel[i * 3];
    he += 0.5 * mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  check(e.kind == QDRT_VALUE_FLOAT && close(e.f, he, 1e-3, 1e-3),
        fmt("particles: kinetic_energy %.4f (host %.4f)", e.f, he));
}

// --- examples/reduce.py: sum, mean/variance, min/max, a histogram, a count ---------------------
void App::reductions() {
  constexpr int n = 100000, nbins = 16;
  constexpr float lo = -2.0f, hi = 6.0f;
  std::vector<float> x(n);
  Lcg rng{2024};
  for (int i = 0; i < n; ++i) {
    // Values inside a bin, away from its edges (fast math may round a quotient at an edge).
    int b = static_cast<int>(rng.next() * nbins);
    x[i] = lo + (hi - lo) * (static_cast<float>(b) + 0.2f + 0.6f * rng.next()) / nbins;
  }
  x[777] = -7.5f;  // below the range: clamped into the first bin
  x[778] = 11.0f;  // above: the last bin
  std::vector<int32_t> want_bins(nbins, 0);
  double minv = x[0], maxv = x[0];
  for (float v : x) {
    int b = static_cast<int>((v - lo) / (hi - lo) * nbins);  // reduce.py's bin_of
    ++want_bins[std::max(0, std::min(nbins - 1, b))];
    minv = std::min<double>(minv, v);
    maxv = std::max<double>(maxv, v);
  }
  auto xs = qdrt::Arg(QDRT_DTYPE_F32, x.data(), {n});

  qdrt_value total = launch(kernel("reduce:sum_f32"), {xs});
  double hsum = 0;
  for (float v : x) {
    hsum += v;
  }
  check(total.kind == QDRT_VALUE_FLOAT && close(total.f, hsum, 1e-4, 1e-2),
        fmt("reduce: sum_f32 %.3f (host %.3f)", total.f, hsum));

  std::vector<float> out(2);
  launch(kernel("reduce:moments"), {xs, qdrt::Arg(QDRT_DTYPE_F32, out.data(), {2})});
  double mean = hsum / n, var = 0;
  for (float v : x) {
    var += (v - mean) * (v - mean);
  }
  var /= n;
  check(close(out[0], mean, 1e-3, 1e-4) && close(out[1], var, 1e-3, 1e-4),
        fmt("reduce: moments mean %.5f, variance %.5f", out[0], out[1]) +
            fmt(" (host %.5f, %.5f)", mean, var));

  launch(kernel("reduce:min_max"), {xs, qdrt::Arg(QDRT_DTYPE_F32, out.data(), {2})});
  check(out[0] == static_cast<float>(minv) && out[1] == static_cast<float>(maxv),
        fmt("reduce: min_max %.4f, %.4f (exact)", out[0], out[1]));

  std::vector<int32_t> bins(nbins, -1);
  launch(kernel("reduce:histogram"),
         {xs, static_cast<double>(lo), static_cast<double>(hi), qdrt::array(bins)});
  std::printf("reduce: histogram of %d values in [%.0f, %.0f):", n, lo, hi);
  for (int32_t b : bins) {
    std::printf(" %d", b);
  }
  std::printf("\n");
  check(bins == want_bins, "reduce: histogram matches the host exactly");

  std::vector<int32_t> vals(n);
  int64_t positive = 0;  // reduce.py's count_positive
  for (int i = 0; i < n; ++i) {
    vals[i] = static_cast<int32_t>(rng.next() * 2000.0f) - 1000;
    positive += vals[i] > 0;
  }
  qdrt_value c = launch(kernel("reduce:count_positive"), {qdrt::array(vals)});
  check(c.kind == QDRT_VALUE_INT && c.i == positive,
        fmt("reduce: count_positive %lld (host %lld)", static_cast<long long>(c.i),
            static_cast<long long>(positive)));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s STORE   (a store built by `qdbuild build examples/`)\n",
                 argv[0]);
    return 2;
  }
  App app(argv[1]);
  app.heat();
  app.particles();
  app.reductions();
  if (g_failures > 0) {
    std::printf("FAIL: %d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("PASS: every check\n");
  return 0;
}
