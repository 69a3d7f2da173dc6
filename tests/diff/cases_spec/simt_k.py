"""Cases for cases/simt_k.py: thread blocks in lockstep between barriers (see its docstring).
Real Quadrants refuses qd.simt on the CPU (gpu_only); the expected values are computed here."""
import struct

GPU_ONLY = "real Quadrants runs qd.simt only on GPUs (the oracle runs on the CPU)"


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


def _f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def _lanes(vals, fn):
    """fn(warp values, lane) for every lane of every 32-lane warp of vals."""
    out = []
    for w in range(0, len(vals), 32):
        warp = vals[w:w + 32]
        out += [fn(warp, lane) for lane in range(len(warp))]
    return out


def _down(vals, log2, op):
    """Quadrants' reduce_<op>_tiled: shuffle_down by 2**(log2-1) .. 1 (the own value past the
    warp's end), op(value, partner) each step."""
    for i in range(log2):
        off = 1 << (log2 - 1 - i)
        vals = _lanes(vals, lambda w, l: op(w[l], w[l + off] if l + off < len(w) else w[l]))
    return vals


def _butterfly(vals, log2, op):
    """Quadrants' reduce_all_<op>_tiled: shuffle(lane ^ 2**i) for i = 0 .. log2-1."""
    for i in range(log2):
        vals = _lanes(vals, lambda w, l: op(w[l], w[l ^ (1 << i)]))
    return vals


def _fsum_order(block):
    """qd.simt.block.reduce_all_add over one block of f32 values, in Quadrants' order: each
    warp's shuffle_down tree (lane 0), then the warps' sums folded in warp order."""
    fadd = lambda a, b: _f32(a + b)  # noqa: E731
    warps = [_down(block[w:w + 32], 5, fadd)[0] for w in range(0, len(block), 32)]
    total = warps[0]
    for v in warps[1:]:
        total = fadd(total, v)
    return total


def _warp_reductions(n):
    # f32 values whose sums round differently in another order (catches the shuffle order).
    x = [(5 * i) % 17 - 8 for i in range(n)]
    f = [_f32(((3 * i) % 7) * 0.1 - 0.3 + i * 1e-3) for i in range(n)]
    fadd = lambda a, b: _f32(a + b)  # noqa: E731
    iadd = lambda a, b: a + b  # noqa: E731
    r = [a * 100 + b for a, b in zip(_down(x, 5, iadd), _down(x, 2, min))]
    s_ = [_f32(a + b) for a, b in zip(_butterfly(f, 4, fadd), _butterfly(f, 5, max))]
    m = [a * 1000 + b for a, b in zip(_butterfly(x, 3, min), _down(x, 1, max))]
    return x, f, r, s_, m, _down(f, 5, fadd)


def _reverse(n):
    x = [(7 * i) % 23 - 5 for i in range(n)]
    return [x[(i // 32) * 32 + 31 - i % 32] * 3 + 31 - i % 32 for i in range(n)]


def _scan(n):
    x = [(5 * i) % 11 - 3 for i in range(n)]
    out = []
    for b in range(0, n, 32):
        s = 0
        for v in x[b:b + 32]:
            s += v
            out.append(s)
    return out


def _hist(n):
    x = [(3 * i + i // 5) % 13 for i in range(n)]
    hist, ring = [], []
    for b in range(0, n, 16):
        blk = x[b:b + 16]
        hist += [sum(1 for v in blk if v % 8 == k) for k in range(8)]
        ring += [blk[t] + blk[(t + 1) % 16] for t in range(16)]
    return hist, ring


def _staging():
    x = [float((k * 3) % 7) - 2.0 for k in range(4 * 16)]
    n_valid = [5, 0, 16, 3]
    out = []
    for row, n in enumerate(n_valid):
        for t in range(4):
            out.append(sum(x[row * 16 + k] for k in range(n)) * (t + 1) if n > 0 else -1.0)
    return x, n_valid, out


def _warp(n):
    x = [(11 * i) % 17 for i in range(n)]
    out = []
    for i in range(n):
        b, t = (i // 64) * 64, i % 64
        s = (t & ~31) | ((t + 2) & 31)
        out.append(x[b + (s ^ 1)] * 10 + (t % 32) * 1000)
    return out


def _partial(n):
    y, z = [], []
    for i in range(n):
        t = i % 16
        if t % 2 == 1:
            y.append(0)
            z.append(0)
        else:
            y.append(t)
            z.append(i + 1 if i + 1 < n else -7)
    return y, z


_X, _NV, _OUT = _staging()

_WR = _warp_reductions(128)
CASES = [
    {"name": "simt_block_reverse", "kernel": "simt_k:block_reverse",
     "args": [arr("i32", (96,), lambda i: (7 * i) % 23 - 5), arr("i32", (96,))],
     "outputs": [1], "expected": {1: _reverse(96)}, "gpu_only": GPU_ONLY},
    {"name": "simt_block_tree_sum", "kernel": "simt_k:block_tree_sum",
     "args": [arr("f32", (192,), lambda i: float(i % 9) - 3.5), arr("f32", (3,))],
     "outputs": [1],
     "expected": {1: [sum(float(i % 9) - 3.5 for i in range(b, b + 64)) for b in (0, 64, 128)]},
     "gpu_only": GPU_ONLY},
    {"name": "simt_block_scan", "kernel": "simt_k:block_scan",
     "args": [arr("i32", (64,), lambda i: (5 * i) % 11 - 3), arr("i32", (64,))],
     "outputs": [1], "expected": {1: _scan(64)}, "gpu_only": GPU_ONLY},
    {"name": "simt_block_hist", "kernel": "simt_k:block_hist",
     "args": [arr("i32", (48,), lambda i: (3 * i + i // 5) % 13), arr("i32", (24,)),
              arr("i32", (48,))],
     "outputs": [1, 2], "expected": {1: _hist(48)[0], 2: _hist(48)[1]}, "gpu_only": GPU_ONLY},
    {"name": "simt_block_vectors", "kernel": "simt_k:block_vectors",
     "args": [arr("f32", (16, 3), lambda k: float(k % 5) - 1.5), arr("f32", (16, 3))],
     "outputs": [1],
     "expected": {1: [2.0 * (float(((i // 8) * 8 + 7 - i % 8) * 3 + c) % 5 - 1.5) +
                      2.0 * (float((i * 3 + c) % 5) - 1.5)
                      for i in range(16) for c in range(3)]},
     "gpu_only": GPU_ONLY},
    {"name": "simt_chunked_staging", "kernel": "simt_k:chunked_staging",
     "args": [arr("f32", (64,), _X), arr("i32", (4,), _NV), arr("f32", (16,))],
     "outputs": [2], "expected": {2: _OUT}, "gpu_only": GPU_ONLY},
    {"name": "simt_warp_lanes", "kernel": "simt_k:warp_lanes",
     "args": [arr("i32", (128,), lambda i: (11 * i) % 17), arr("i32", (128,))],
     "outputs": [1], "expected": {1: _warp(128)}, "gpu_only": GPU_ONLY},
    {"name": "simt_partial_block", "kernel": "simt_k:partial_block",
     "args": [arr("i32", (40,)), arr("i32", (40,))],
     "outputs": [0, 1], "expected": {0: _partial(40)[0], 1: _partial(40)[1]},
     "gpu_only": GPU_ONLY},
    {"name": "simt_fences", "kernel": "simt_k:fences",
     "args": [arr("i32", (5,), lambda i: i * 3)], "outputs": [0],
     "expected": {0: [(i * 3 + 1) * 2 for i in range(5)]}, "gpu_only": GPU_ONLY},
]


def _shuffles(n):
    x = [(13 * i) % 29 - 9 for i in range(n)]
    y = []
    for i in range(n):
        w, lane = (i // 32) * 32, i % 32
        a = x[w + ((lane * 7 + 3) & 31)]
        b = x[i - 3] if lane >= 3 else x[i]
        y.append(a * 1000 + b)
    return x, y


def _votes(n):
    x = [(7 * i + i // 9) % 11 for i in range(n)]
    ballots, votes = [], []
    for i in range(n):
        w, lane = (i // 32) * 32, i % 32
        ballots.append(sum(1 << k for k in range(32) if x[w + k] % 3 == 0))
        first = sum(1 << k for k in range(8) if x[w + k] > 4)
        g8 = (lane // 8) * 8
        all3 = int(all(x[w + g8 + k] >= 0 for k in range(8)))
        g4 = (lane // 4) * 4
        any2 = int(any(x[w + g4 + k] > 7 for k in range(4)))
        all_w = int(all(x[w + k] != 5 for k in range(32)))
        any_w = int(any(x[w + k] == 9 for k in range(32)))
        mask = ((1 << (lane + 1)) - 1) & 0xFF
        votes.append(first * 16 + all3 * 8 + any2 * 4 + all_w * 2 + any_w
                     + (100000 if lane == 0 else 0) + mask * 1000)
    return x, ballots, votes


def _scan_add(n):
    x = [(3 * i) % 10 - 4 for i in range(n)]
    out, s = [], 0
    for i in range(n):
        s = x[i] if i % 32 == 0 else s + x[i]
        out.append(s)
    return x, out


_SX, _SY = _shuffles(128)
_VX, _VB, _VV = _votes(128)
_AX, _AY = _scan_add(64)

CASES += [
    {"name": "simt_warp_shuffles", "kernel": "simt_k:warp_shuffles",
     "args": [arr("i32", (128,), _SX), arr("f32", (128,), lambda i: float(i % 13) * 0.25 - 1.0),
              arr("f64", (128,), lambda i: i * 1.5 - 40.0),
              arr("i64", (128,), lambda i: (i - 60) * 3000000000), arr("i32", (128,)),
              arr("f32", (128,)), arr("f64", (128,)), arr("i64", (128,))],
     "outputs": [4, 5, 6, 7], "expected": {4: _SY}, "gpu_only": GPU_ONLY},
    {"name": "simt_warp_votes", "kernel": "simt_k:warp_votes",
     "args": [arr("i32", (128,), _VX), arr("u64", (128,)), arr("i32", (128,))],
     "outputs": [1, 2], "expected": {1: _VB, 2: _VV}, "gpu_only": GPU_ONLY},
    {"name": "simt_warp_reductions", "kernel": "simt_k:warp_reductions",
     "args": [arr("i32", (128,), _WR[0]), arr("f32", (128,), _WR[1]),
              arr("i32", (128,)), arr("f32", (128,)), arr("i32", (128,)), arr("f32", (128,))],
     "outputs": [2, 3, 4, 5], "expected": {2: _WR[2], 3: _WR[3], 4: _WR[4], 5: _WR[5]},
     "gpu_only": GPU_ONLY},
    {"name": "simt_warp_scans", "kernel": "simt_k:warp_scans",
     "args": [arr("i32", (64,), _AX), arr("f32", (64,), lambda i: float((5 * i) % 9) - 4.0),
              arr("i32", (64,), lambda i: int(i % 7 == 0 or i % 11 == 3)),
              arr("i32", (64,)), arr("f32", (64,)), arr("i32", (64,)), arr("f32", (64,)),
              arr("i32", (64,))],
     "outputs": [3, 4, 5, 6, 7], "expected": {3: _AY}, "gpu_only": GPU_ONLY},
    {"name": "simt_genesis_lane_helpers", "kernel": "simt_k:genesis_lane_helpers",
     "args": [arr("f32", (64,), lambda i: float(i % 5) - 2.0), arr("f32", (64,))],
     "outputs": [1],
     "expected": {1: [sum(float(k % 5) - 2.0 for k in range((i // 32) * 32, (i // 32) * 32 + 32))
                      - (float(i % 5) - 2.0) for i in range(64)]},
     "gpu_only": GPU_ONLY},
]


def _block_votes(n):
    x = [(5 * i + i // 7) % 13 - 1 for i in range(n)]
    out = []
    for i in range(n):
        blk = x[(i // 64) * 64:(i // 64) * 64 + 64]
        out.append(sum(1 for v in blk if v % 3 == 0) * 100 + int(all(v >= 0 for v in blk)) * 10
                   + int(any(v == 7 for v in blk)))
    return x, out


_BX, _BO = _block_votes(128)
CASES += [
    {"name": "simt_block_votes", "kernel": "simt_k:block_votes",
     "args": [arr("i32", (128,), _BX), arr("i32", (128,))],
     "outputs": [1], "expected": {1: _BO}, "gpu_only": GPU_ONLY},
]


def _scans(n, b):
    """Plain-Python prefix scans within blocks of b: inclusive add, exclusive min + max (thread 0
    of a block: INT_MAX + INT_MIN = -1)."""
    x = [(7 * i) % 19 - 9 for i in range(n)]
    inc, exc = [], []
    for i in range(n):
        blk = x[(i // b) * b:i + 1]
        inc.append(sum(blk))
        before = blk[:-1]
        exc.append((min(before) if before else 2**31 - 1) + (max(before) if before else -2**31))
    return x, inc, exc


def _warp_exclusive(n):
    x = [(5 * i) % 23 - 11 for i in range(n)]
    out = []
    for i in range(n):
        w = (i // 32) * 32
        before = x[w:i]
        out.append(sum(before) * 1000 + _xor(before))
    return x, out


def _xor(vals):
    r = 0
    for v in vals:
        r ^= v
    return r


_SC = _scans(96, 96)
_WX = _warp_exclusive(64)
CASES += [
    {"name": "simt_warp_exclusive", "kernel": "simt_k:warp_exclusive",
     "args": [arr("i32", (64,), _WX[0]),
              arr("f32", (64,), lambda i: _f32(((7 * i) % 11) * 0.1 - 0.5 + i * 1e-3)),
              arr("i32", (64,)), arr("i32", (64,)), arr("i32", (64,)), arr("f32", (64,)),
              arr("f32", (64,)), arr("f32", (64,))],
     "outputs": [2, 3, 4, 5, 6, 7], "expected": {2: _WX[1]}, "gpu_only": GPU_ONLY},
    {"name": "simt_block_reductions", "kernel": "simt_k:block_reductions",
     "args": [arr("i32", (128,), lambda i: (13 * i) % 29 - 14),
              arr("f32", (128,), lambda i: _f32(((3 * i) % 13) * 0.1 - 0.6 + i * 1e-3)),
              arr("i32", (128,)), arr("f32", (128,)), arr("f32", (128,)), arr("i32", (128,)),
              arr("i32", (128,))],
     "outputs": [2, 3, 4, 5, 6],
     "expected": {3: [_fsum_order([_f32(((3 * k) % 13) * 0.1 - 0.6 + k * 1e-3)
                                   for k in range((i // 128) * 128, (i // 128) * 128 + 128)])
                      for i in range(128)]},
     "gpu_only": GPU_ONLY},
    {"name": "simt_block_scans", "kernel": "simt_k:block_scans",
     "args": [arr("i32", (96,), _SC[0]),
              arr("f32", (96,), lambda i: _f32(((5 * i) % 17) * 0.1 - 0.8 + i * 1e-3)),
              arr("i32", (96,)), arr("f32", (96,)), arr("i32", (96,)), arr("i32", (96,)),
              arr("f32", (96,))],
     "outputs": [2, 3, 4, 5, 6], "expected": {2: _SC[1], 5: _SC[2]}, "gpu_only": GPU_ONLY},
]


def _warp_intrinsics(n):
    """Plain-Python values of warp_intrinsics' a (shuffles and votes over each warp)."""
    x = [(5 * i) % 23 - 11 for i in range(n)]
    a = []
    for i in range(n):
        w, lane = (i // 32) * 32, i % 32
        warp = x[w:w + 32]
        a.append(warp[(lane + 3) % 32] * 1000 + warp[lane ^ 5] * 10
                 + int(all(v > -12 for v in warp)) + int(any(v == 7 for v in warp)) * 2
                 + int(all(v <= 100 for v in warp)) * 4)
    return x, a


_WI = _warp_intrinsics(128)
CASES += [
    {"name": "simt_warp_intrinsics", "kernel": "simt_k:warp_intrinsics",
     "args": [arr("i32", (128,), _WI[0]), arr("f32", (128,), lambda i: ((3 * i) % 13) * 0.25 - 1.0),
              arr("i32", (128,)), arr("f32", (128,)), arr("i32", (128,)), arr("i32", (128,))],
     "outputs": [2, 3, 4, 5], "expected": {2: _WI[1]}, "gpu_only": GPU_ONLY},
]


def _warp_match(n):
    """Plain-Python values of warp_match: match_any's lanes holding the value, match_all's whole
    warp when its values are all equal (else 0), as i32."""
    x = [(7 * i) % 5 if i < 64 else 42 if i < 96 else i % 2 + 3 for i in range(n)]

    def i32(v):
        v &= 0xFFFFFFFF
        return v - (1 << 32) if v >= 1 << 31 else v

    def match_any(vals):
        return _lanes(vals, lambda w, l: i32(sum(1 << u for u, v in enumerate(w) if v == w[l])))

    def match_all(vals):
        return _lanes(vals, lambda w, l: i32((1 << len(w)) - 1 if len(set(w)) == 1 else 0))

    a, b = match_any(x), match_all(x)
    c = [i32(p + q * 3) for p, q in zip(match_all([v // 10 for v in x]),
                                        match_any([v % 2 for v in x]))]
    return x, a, b, c


_WM = _warp_match(128)
CASES += [
    {"name": "simt_warp_match", "kernel": "simt_k:warp_match",
     "args": [arr("i32", (128,), _WM[0]), arr("i32", (128,)), arr("i32", (128,)),
              arr("i32", (128,))],
     "outputs": [1, 2, 3], "expected": {1: _WM[1], 2: _WM[2], 3: _WM[3]},
     "gpu_only": GPU_ONLY},
]


def _warp_sort(n):
    k = [(7 * i) % 11 - 5 for i in range(n)]
    v = [((5 * i) % 13) * 0.5 - 2.0 for i in range(n)]
    ko, vo, k8, v8 = [], [], [], []
    for w in range(0, n, 32):
        pairs = sorted(zip(k[w:w + 32], v[w:w + 32]))
        ko += [p[0] for p in pairs]
        vo += [p[1] for p in pairs]
    for g in range(0, n, 8):
        pairs = sorted(zip(v[g:g + 8], k[g:g + 8]))
        k8 += [p[0] for p in pairs]
        v8 += [p[1] for p in pairs]
    return k, v, ko, vo, k8, v8


_WS = _warp_sort(64)
CASES += [
    {"name": "simt_warp_sort", "kernel": "simt_k:warp_sort",
     "args": [arr("i32", (64,), _WS[0]), arr("f32", (64,), _WS[1]), arr("i32", (64,)),
              arr("f32", (64,)), arr("f32", (64,)), arr("i32", (64,))],
     "outputs": [2, 3, 4, 5], "expected": {2: _WS[2], 3: _WS[3], 4: _WS[4], 5: _WS[5]},
     "gpu_only": GPU_ONLY},
]
