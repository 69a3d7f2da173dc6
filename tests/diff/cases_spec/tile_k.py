"""Cases for cases/tile_k.py (register tiles). Real Quadrants refuses tiles on the CPU (gpu_only);
the Cholesky factors are checked against a plain-Python factorization in f64 (expected_tol: the
tiles run in f32, in another order); the f64 tile exactly."""

GPU_ONLY = "real Quadrants runs qd.simt tiles only on GPUs (the oracle runs on the CPU)"


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


def _spd(b, n, size):
    """Matrix b of the batch: symmetric positive definite, n x n in a size x size array."""
    out = [0.0] * (size * size)
    for r in range(n):
        for c in range(n):
            v = ((r * 7 + c * 3 + b * 5) % 11) * 0.01 + (((r + 2 * c + b) % 5) - 2) * 0.002
            if r == c:
                v = float(n) * 0.1 + 1.0 + (r % 3) * 0.25
            out[r * size + c] = v
    for r in range(n):  # symmetric
        for c in range(r):
            out[c * size + r] = out[r * size + c]
    return out


def _batch(sizes, size):
    vals = []
    for b, n in enumerate(sizes):
        vals += _spd(b, n, size)
    return vals


SIZES16 = [35, 9]
H16 = _batch(SIZES16, 40)
H32 = _batch([20], 20)
# Against a plain-Python factorization in f64 (the tiles run in f32, in another order).
TOL = {"rtol": 1e-4, "atol": 3e-5}


def _cholesky(a, n, size):
    """Lower factor of the n x n matrix at a (row stride `size`), f64, 0 above the diagonal."""
    lo = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i * size + j] - sum(lo[i][k] * lo[j][k] for k in range(j))
            lo[i][j] = s ** 0.5 if i == j else s / lo[j][j]
    return lo


def _expected16():
    out = [0.0] * (2 * 40 * 40)
    for b, n in enumerate(SIZES16):
        lo = _cholesky(H16[b * 1600:(b + 1) * 1600], n, 40)
        for r in range(n):
            for c in range(n):
                out[b * 1600 + r * 40 + c] = lo[r][c]
    return out


def _expected32():
    """out[b, 0:n] = L (the input above the diagonal: cholesky_ keeps it), out[b, n:2n] = H L^-T
    = L (0 above the diagonal)."""
    n, out = 20, []
    for b in range(1):
        h = H32[b * n * n:(b + 1) * n * n]
        lo = _cholesky(h, n, n)
        out += [lo[r][c] if c <= r else h[r * n + c] for r in range(n) for c in range(n)]
        out += [lo[r][c] for r in range(n) for c in range(n)]
    return out


def _expected_f64():
    a = [(i % 17) * 0.125 - 1.0 for i in range(256)]
    out = []
    for lane in range(16):
        row = [a[lane * 16 + 2 + j] if lane < 12 and j < 12 else 0.0 for j in range(16)]
        out += [row[j] - a[lane * 16] * (a[j * 16] * 2.0) for j in range(16)]
    for lane in range(16):
        out += [(1.0 if lane == j else 0.0) - a[lane * 16 + 1] * 1.0 for j in range(16)]
    return out

CASES = [
    {"name": "tile_cholesky16", "kernel": "tile_k:tiled_cholesky16",
     "args": [arr("f32", (2, 40, 40), H16), arr("i32", (2,), SIZES16),
              arr("f32", (2, 40, 40))],
     "outputs": [2], "expected": {2: _expected16()}, "expected_tol": TOL,
     "gpu_only": GPU_ONLY},
    {"name": "tile_cholesky32", "kernel": "tile_k:tiled_cholesky32",
     "args": [arr("f32", (1, 20, 20), H32), arr("f32", (1, 40, 20))],
     "outputs": [1], "expected": {1: _expected32()}, "expected_tol": TOL,
     "gpu_only": GPU_ONLY},
    {"name": "tile_f64", "kernel": "tile_k:tile_f64",
     "args": [arr("f64", (16, 16), lambda i: (i % 17) * 0.125 - 1.0), arr("f64", (32, 16))],
     "outputs": [1], "expected": {1: _expected_f64()}, "gpu_only": GPU_ONLY},
]
