"""Reductions and a histogram: sum, mean/variance in two passes, min/max, and binned counts."""
import quadrants as qd


@qd.kernel(fastcache=True)
def sum_f32(x: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> qd.f32:
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
    return total


@qd.kernel(fastcache=True)
def moments(x: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    """out[0] = mean, out[1] = population variance (two passes, two parallel tasks)."""
    n = x.shape[0]
    total = 0.0
    for i in range(n):
        total += x[i]
    mean = total / n
    sq = 0.0
    for i in range(n):
        d = x[i] - mean
        sq += d * d
    out[0] = mean
    out[1] = sq / n


@qd.kernel(fastcache=True)
def min_max(x: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    out[0] = x[0]
    out[1] = x[0]
    for i in range(x.shape[0]):
        qd.atomic_min(out[0], x[i])
        qd.atomic_max(out[1], x[i])


@qd.func
def bin_of(v: qd.f32, lo: qd.f32, hi: qd.f32, nbins: qd.i32) -> qd.i32:
    b = qd.i32((v - lo) / (hi - lo) * nbins)
    return qd.max(0, qd.min(nbins - 1, b))


@qd.kernel(fastcache=True)
def histogram(x: qd.types.ndarray(dtype=qd.f32, ndim=1), lo: qd.f32, hi: qd.f32,
              bins: qd.types.ndarray(dtype=qd.i32, ndim=1)):
    for b in range(bins.shape[0]):
        bins[b] = 0
    for i in range(x.shape[0]):
        bins[bin_of(x[i], lo, hi, bins.shape[0])] += 1


@qd.kernel(fastcache=True)
def count_positive(vals: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.i32:
    n = 0
    for i in range(vals.shape[0]):
        if vals[i] > 0:
            n += 1
    return n
