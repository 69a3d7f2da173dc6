#!/usr/bin/env python3
"""The examples' Python application: opens the store `qdbuild build examples/` wrote and runs
the kernels of heat.py, particles.py and reduce.py through the qdrt binding on real data,
checking every result against the same computation done here in plain Python.

    python3 examples/app.py build/examples_store

No numpy needed: arrays are array.array buffers, shaped with memoryview.cast (numpy arrays work
the same way when you have them). `import qdrt` finds the binding on sys.path (an installed
PREFIX/lib/qdrt/python, or the checkout's runtime/python, which this script adds as a fallback).
Prints values and a PASS/FAIL line per check; exits 1 on any mismatch or error.
"""
import array
import math
import os
import sys

try:
    import qdrt
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime",
                                    "python"))
    import qdrt

failures = 0


def check(ok, what):
    global failures
    print("%s %s" % ("PASS" if ok else "FAIL", what))
    if not ok:
        failures += 1


def close(got, want, rel=1e-4, abs_=1e-4):
    return abs(got - want) <= abs_ + rel * abs(want)


def f32(x):
    """Rounds to single precision (what a kernel stores)."""
    return array.array("f", [x])[0]


class Lcg:
    """Deterministic pseudo-random numbers in [0, 1): a 32-bit LCG (the C++ app's too)."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 8) / 16777216.0


def shaped(buf, shape):
    """A writable, C-contiguous view of an array.array with the given shape."""
    return memoryview(buf).cast("B").cast(buf.typecode, shape)


def heat(store):
    """heat.py: fill, a hot spot, 60 explicit steps, the last step's largest change."""
    n, m, steps, alpha = 48, 32, 60, f32(0.2)
    fill, hot = store.kernel("heat:fill"), store.kernel("heat:set_hot_spot")
    step, max_change = store.kernel("heat:step"), store.kernel("heat:max_change")
    u, u_next = array.array("f", [0.0] * (n * m)), array.array("f", [0.0] * (n * m))
    fill(shaped(u, (n, m)), 10.0)
    fill(shaped(u_next, (n, m)), 0.0)
    hot(shaped(u, (n, m)), 20, 12, 4, 100.0)
    h = [10.0] * (n * m)
    for i in range(20 - 4, 20 + 5):
        for j in range(12 - 4, 12 + 5):
            if (i - 20) ** 2 + (j - 12) ** 2 <= 16:
                h[i * m + j] = 100.0
    check(list(u) == h, "heat: fill + set_hot_spot match the host exactly")

    for s in range(steps):
        step(shaped(u, (n, m)), shaped(u_next, (n, m)))
        h_next = list(h)
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                c = h[i * m + j]
                lap = h[(i - 1) * m + j] + h[(i + 1) * m + j] + h[i * m + j - 1] + h[i * m + j + 1] - 4 * c
                h_next[i * m + j] = c + alpha * lap
        if s + 1 < steps:
            u, u_next = u_next, u
            h = h_next
    worst = max(abs(a - b) for a, b in zip(u_next, h_next))
    print("heat: %dx%d grid, %d steps: center %.4f, total heat %.2f (host %.2f)"
          % (n, m, steps, u_next[20 * m + 12], sum(u_next), sum(h_next)))
    check(worst <= 1e-3, "heat: %d steps match the host (largest difference %.2g)" % (steps, worst))

    out = array.array("f", [0.0])
    max_change(shaped(u, (n, m)), shaped(u_next, (n, m)), out)
    want = max(abs(a - b) for a, b in zip(h_next, h))
    check(close(out[0], want, 1e-3, 1e-5), "heat: max_change %.6f (host %.6f)" % (out[0], want))


def particles(store):
    """particles.py: wind, 60 integration steps in a box, kinetic energy."""
    count, steps = 400, 60
    dt, gravity, drag, restitution, half = f32(0.01), f32(-9.81), f32(0.02), f32(0.6), 4.0
    integrate, wind = store.kernel("particles:integrate"), store.kernel("particles:apply_wind")
    energy = store.kernel("particles:kinetic_energy")
    rng = Lcg(12345)
    pos, vel, mass = array.array("f"), array.array("f"), array.array("f")
    for i in range(count):
        pos.extend([-3 + 6 * rng.next(), 0.5 + 3 * rng.next(), -3 + 6 * rng.next()])
        vel.extend([-2 + 4 * rng.next() for _ in range(3)])
        mass.append(0.0 if i % 50 == 0 else 0.5 + rng.next())  # every 50th pinned

    hv = list(vel)
    wind(shaped(vel, (count, 3)), mass, 1.5, -0.5, 0.1)
    for i in range(count):
        if mass[i] > 0:
            hv[i * 3] += 0.1 * 1.5 / mass[i]
            hv[i * 3 + 2] += 0.1 * -0.5 / mass[i]
    worst = max(abs(a - b) for a, b in zip(vel, hv))
    check(worst <= 1e-5, "particles: apply_wind matches the host (largest difference %.2g)" % worst)

    # Each step against the host stepping from the same state (no accumulated rounding); a
    # particle within rounding of a wall may bounce on one side only and is not compared.
    worst, at_wall = 0.0, 0
    for _ in range(steps):
        hp, hv = list(pos), list(vel)
        integrate(shaped(pos, (count, 3)), shaped(vel, (count, 3)), dt)
        for i in range(count):
            v = hv[i * 3:i * 3 + 3]
            norm = math.sqrt(sum(c * c for c in v))
            ambiguous, np_, nv = False, [], []
            for k in range(3):
                a = -drag * norm * v[k] + (gravity if k == 1 else 0.0)
                vk = v[k] + dt * a
                pk = hp[i * 3 + k] + dt * vk
                lo = 0.0 if k == 1 else -half
                ambiguous |= abs(pk - lo) < 1e-5 or abs(pk - half) < 1e-5
                if pk < lo:
                    pk, vk = lo, -vk * restitution
                if pk > half:
                    pk, vk = half, -vk * restitution
                np_.append(pk)
                nv.append(vk)
            if ambiguous:
                at_wall += 1
                continue
            for k in range(3):
                worst = max(worst, abs(pos[i * 3 + k] - np_[k]), abs(vel[i * 3 + k] - nv[k]))
    lowest = min(pos[1::3])
    print("particles: %d particles, %d steps: particle 1 at (%.4f, %.4f, %.4f), lowest y %.4f"
          % (count, steps, pos[3], pos[4], pos[5], lowest))
    check(worst <= 1e-4, "particles: every integrate step matches the host (largest difference "
          "%.2g; %d particle-steps at a wall not compared)" % (worst, at_wall))
    check(lowest >= 0.0, "particles: nobody fell through the ground")

    e = energy(shaped(vel, (count, 3)), mass)
    want = sum(0.5 * mass[i] * sum(c * c for c in vel[i * 3:i * 3 + 3]) for i in range(count))
    check(isinstance(e, float) and close(e, want, 1e-3, 1e-3),
          "particles: kinetic_energy %.4f (host %.4f)" % (e, want))


def reductions(store):
    """reduce.py: sum, mean/variance, min/max, a histogram, a count."""
    n, nbins, lo, hi = 20000, 16, -2.0, 6.0
    rng = Lcg(2024)
    x = array.array("f")
    for _ in range(n):
        # Inside a bin, away from its edges (fast math may round a quotient at an edge).
        b = int(rng.next() * nbins)
        x.append(lo + (hi - lo) * (b + 0.2 + 0.6 * rng.next()) / nbins)
    x[777], x[778] = -7.5, 11.0  # outside the range: the first and the last bin

    total = store.kernel("reduce:sum_f32")(x)
    want = math.fsum(x)
    check(close(total, want, 1e-4, 1e-2), "reduce: sum_f32 %.3f (host %.3f)" % (total, want))

    out = array.array("f", [0.0, 0.0])
    store.kernel("reduce:moments")(x, out)
    mean = want / n
    var = math.fsum((v - mean) ** 2 for v in x) / n
    check(close(out[0], mean, 1e-3, 1e-4) and close(out[1], var, 1e-3, 1e-4),
          "reduce: moments mean %.5f, variance %.5f (host %.5f, %.5f)" % (out[0], out[1], mean, var))

    store.kernel("reduce:min_max")(x, out)
    check(out[0] == min(x) and out[1] == max(x),
          "reduce: min_max %.4f, %.4f (exact)" % (out[0], out[1]))

    bins = array.array("i", [-1] * nbins)
    store.kernel("reduce:histogram")(x, lo, hi, bins)
    want_bins = [0] * nbins
    for v in x:
        want_bins[max(0, min(nbins - 1, int((v - lo) / (hi - lo) * nbins)))] += 1
    print("reduce: histogram of %d values in [%g, %g): %s" % (n, lo, hi, " ".join(map(str, bins))))
    check(list(bins) == want_bins, "reduce: histogram matches the host exactly")

    vals = array.array("i", [int(rng.next() * 2000) - 1000 for _ in range(n)])
    c = store.kernel("reduce:count_positive")(vals)
    want = sum(1 for v in vals if v > 0)
    check(c == want, "reduce: count_positive %d (host %d)" % (c, want))


def main():
    if len(sys.argv) != 2:
        print("usage: %s STORE   (a store built by `qdbuild build examples/`)" % sys.argv[0],
              file=sys.stderr)
        return 2
    try:
        store = qdrt.open(sys.argv[1])
    except qdrt.Error as e:
        print("cannot open the store '%s': %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    print("store %s: %d kernels (libqdrt %s, via %s)" % (sys.argv[1], len(store.kernels()),
          ".".join(map(str, qdrt.version())), os.path.dirname(qdrt.__file__)))
    try:
        heat(store)
        particles(store)
        reductions(store)
    except qdrt.Error as e:
        print("FAIL: %s: %s" % (type(e).__name__, e))
        return 1
    if failures:
        print("FAIL: %d check(s) failed" % failures)
        return 1
    print("PASS: every check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
