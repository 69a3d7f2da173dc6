"""The block-level GPU language (qd.simt): with qd.loop_config(block_dim=B) a parallel loop's
iterations [k*B, (k+1)*B) are thread block k. Shared arrays staged and read across
qd.simt.block.sync() (a block reversal, a tree reduction with the barrier in a while loop, a
Hillis-Steele scan over a 2-D double buffer with the barrier in a for loop, shared atomics), a
func taking a shared array, a vector-typed shared array, chunked staging with barriers under a
block-uniform `if` (the Genesis mass-matrix pattern), warp barriers with the lane id, a partial
last block, `continue` after the last barrier, and fences. Real Quadrants refuses qd.simt on the
CPU, so the oracle does not run these (`gpu_only`); the GPU bundle compares them on CUDA."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]
V3_1 = qd.types.NDArray[qd.types.vector(3, qd.f32), 1]


@qd.kernel
def block_reverse(x: I32_1, y: I32_1) -> None:
    qd.loop_config(block_dim=32)
    for i in range(x.shape[0]):
        sh = qd.simt.block.SharedArray((32,), qd.i32)
        t = qd.simt.block.thread_idx()
        sh[t] = x[i] * 3 + t
        qd.simt.block.sync()
        y[i] = sh[31 - t]


@qd.kernel
def block_tree_sum(x: F32_1, out: F32_1) -> None:
    qd.loop_config(block_dim=64)
    for i in range(x.shape[0]):
        sh = qd.simt.block.SharedArray(64, qd.f32)
        t = qd.simt.block.thread_idx()
        sh[t] = x[i]
        qd.simt.block.sync()
        stride = 32
        while stride > 0:
            if t < stride:
                sh[t] += sh[t + stride]
            qd.simt.block.sync()
            stride //= 2
        if t == 0:
            out[i // 64] = sh[0]


@qd.kernel
def block_scan(x: I32_1, y: I32_1) -> None:
    qd.loop_config(block_dim=32)
    for i in range(x.shape[0]):
        buf = qd.simt.block.SharedArray((2, 32), qd.i32)
        t = qd.simt.block.thread_idx()
        buf[0, t] = x[i]
        qd.simt.block.sync()
        src = 0
        for k in range(5):
            d = 1 << k
            v = buf[src, t]
            if t >= d:
                v += buf[src, t - d]
            buf[1 - src, t] = v
            qd.simt.block.sync()
            src = 1 - src
        y[i] = buf[src, t]


@qd.func
def stage(sh: qd.template(), t: int, value: qd.i32):
    sh[t] = value


@qd.func
def neighbour_sum(sh: qd.template(), t: int, n: qd.template()) -> qd.i32:
    return sh[t] + sh[(t + 1) % n]


@qd.kernel
def block_hist(x: I32_1, hist: I32_1, ring: I32_1) -> None:
    qd.loop_config(block_dim=16)
    for i in range(x.shape[0]):
        h = qd.simt.block.SharedArray((8,), qd.i32)
        r = qd.simt.block.SharedArray((16,), qd.i32)
        t = qd.simt.block.thread_idx()
        if t < 8:
            h[t] = 0
        stage(r, t, x[i])
        qd.simt.block.sync()
        qd.atomic_add(h[x[i] % 8], 1)
        qd.simt.block.sync()
        if t < 8:
            hist[(i // 16) * 8 + t] = h[t]
        ring[i] = neighbour_sum(r, t, 16)


@qd.kernel
def block_vectors(p: V3_1, q: V3_1) -> None:
    qd.loop_config(block_dim=8)
    for i in range(p.shape[0]):
        sv = qd.simt.block.SharedArray((8,), qd.types.vector(3, qd.f32))
        t = qd.simt.block.thread_idx()
        sv[t] = p[i] * 2.0
        qd.simt.block.sync()
        q[i] = sv[7 - t] + sv[t]


@qd.kernel
def chunked_staging(x: F32_1, n_valid: I32_1, out: F32_1) -> None:
    # One block per row of 16 values; n_valid[row] of them are staged chunk by chunk (4 threads,
    # a chunk of 4), with barriers inside a block-uniform `if` and loop.
    qd.loop_config(block_dim=4)
    for i in range(n_valid.shape[0] * 4):
        row = i // 4
        t = qd.simt.block.thread_idx()
        sh = qd.simt.block.SharedArray((16,), qd.f32)
        n = n_valid[row]
        if n > 0:
            for c in range((n + 3) // 4):
                k = c * 4 + t
                if k < n:
                    sh[k] = x[row * 16 + k]
            qd.simt.block.sync()
            acc = 0.0
            for k in range(n):
                acc += sh[k] * (t + 1)
            out[i] = acc
            qd.simt.block.sync()
        else:
            out[i] = -1.0


@qd.kernel
def warp_lanes(x: I32_1, y: I32_1) -> None:
    qd.loop_config(block_dim=64)
    for i in range(x.shape[0]):
        sh = qd.simt.block.SharedArray((64,), qd.i32)
        t = qd.simt.block.thread_idx()
        lane = qd.simt.subgroup.invocation_id()
        sh[t] = x[i]
        qd.simt.warp.sync(0xFFFFFFFF)
        a = sh[t ^ 1]
        qd.simt.subgroup.sync()
        sh[t] = a * 10
        qd.simt.subgroup.sync()
        y[i] = sh[(t & ~31) | ((t + 2) & 31)] + qd.cast(lane, qd.i32) * 1000  # in the warp


@qd.kernel
def partial_block(y: I32_1, z: I32_1) -> None:
    # 40 iterations in blocks of 16: the last block has 8 threads.
    qd.loop_config(block_dim=16)
    for i in range(y.shape[0]):
        sh = qd.simt.block.SharedArray((16,), qd.i32)
        t = qd.simt.block.thread_idx()
        sh[t] = i
        qd.simt.block.sync()
        if t % 2 == 1:
            continue
        y[i] = t
        z[i] = sh[t + 1] if (i // 16) * 16 + t + 1 < y.shape[0] else -7


@qd.kernel
def fences(x: I32_1) -> None:
    for i in range(x.shape[0]):
        x[i] = x[i] + 1
        qd.simt.block.mem_fence()
        qd.simt.grid.mem_fence()
        x[i] = x[i] * 2
    x[0] += qd.simt.block.thread_idx()   # a serial statement: a block of one thread
    qd.simt.block.sync()


U64_1 = qd.types.NDArray[qd.u64, 1]
I64_1 = qd.types.NDArray[qd.i64, 1]
F64_1 = qd.types.NDArray[qd.f64, 1]


@qd.kernel
def warp_shuffles(x: I32_1, f: F32_1, d: F64_1, w: I64_1, y: I32_1, g: F32_1, e: F64_1,
                  v: I64_1) -> None:
    # Two warps; sources inside the warp, and shuffle_up / shuffle_down past its ends (the lane
    # keeps its own value).
    qd.loop_config(block_dim=64)
    for i in range(x.shape[0]):
        lane = qd.simt.subgroup.invocation_id()
        a = qd.simt.subgroup.shuffle(x[i], qd.u32((lane * 7 + 3) & 31))
        b = qd.simt.subgroup.shuffle_up(x[i], qd.u32(3))
        y[i] = a * 1000 + b
        g[i] = qd.simt.subgroup.shuffle_down(f[i], qd.u32(5)) + qd.simt.subgroup.broadcast(f[i], qd.u32(2))
        e[i] = qd.simt.subgroup.shuffle_xor(d[i], qd.u32(6))
        v[i] = qd.simt.subgroup.shuffle(w[i], qd.u32(31 - lane))


@qd.kernel
def warp_votes(x: I32_1, ballots: U64_1, votes: I32_1) -> None:
    qd.loop_config(block_dim=64)
    for i in range(x.shape[0]):
        lane = qd.simt.subgroup.invocation_id()
        ballots[i] = qd.simt.subgroup.ballot(x[i] % 3 == 0)
        first = qd.simt.subgroup.ballot_first_n(qd.i32(x[i] > 4), 8)
        all3 = qd.simt.subgroup.all_true_tiled(x[i] >= 0, 3)
        any2 = qd.simt.subgroup.any_true_tiled(x[i] > 7, 2)
        all_w = qd.simt.subgroup.all_true(x[i] != 5)
        any_w = qd.simt.subgroup.any_true(x[i] == 9)
        mask = qd.simt.subgroup.lanemask_le(lane) & qd.u32(0xFF)
        votes[i] = (qd.i32(first) * 16 + all3 * 8 + any2 * 4 + all_w * 2 + any_w
                    + qd.simt.subgroup.elect() * 100000 + qd.i32(mask) * 1000)


@qd.kernel
def warp_reductions(x: I32_1, f: F32_1, r: I32_1, s: F32_1, m: I32_1, n: F32_1) -> None:
    qd.loop_config(block_dim=64)
    for i in range(x.shape[0]):
        r[i] = qd.simt.subgroup.reduce_add_tiled(x[i], 5) * 100 + qd.simt.subgroup.reduce_min_tiled(x[i], 2)
        s[i] = qd.simt.subgroup.reduce_all_add_tiled(f[i], 4) + qd.simt.subgroup.reduce_all_max_tiled(f[i], 5)
        m[i] = qd.simt.subgroup.reduce_all_min_tiled(x[i], 3) * 1000 + qd.simt.subgroup.reduce_max_tiled(x[i], 1)
        n[i] = qd.simt.subgroup.reduce_add(f[i])


@qd.kernel
def warp_scans(x: I32_1, f: F32_1, head: I32_1, a: I32_1, b: F32_1, c: I32_1, d: F32_1,
               e: I32_1) -> None:
    qd.loop_config(block_dim=32)
    for i in range(x.shape[0]):
        a[i] = qd.simt.subgroup.inclusive_add_tiled(x[i], 5)
        b[i] = qd.simt.subgroup.inclusive_max_tiled(f[i], 3)
        c[i] = qd.simt.subgroup.inclusive_xor(x[i]) + qd.simt.subgroup.inclusive_min_tiled(x[i], 4) * 1000
        d[i] = qd.simt.subgroup.segmented_reduce_add_tiled(f[i], head[i], 5)
        e[i] = qd.simt.subgroup.segmented_reduce_min_tiled(x[i], head[i], 4)


@qd.func
def block_sum(value):
    # Genesis's qd_block_sum: every lane gets its 32-lane group's total.
    value_sum = qd.simt.subgroup.reduce_all_add_tiled(value, 5)
    return qd.simt.subgroup.shuffle(value_sum, qd.u32(qd.simt.subgroup.invocation_id() >> 5 << 5))


@qd.kernel
def genesis_lane_helpers(f: F32_1, out: F32_1) -> None:
    qd.loop_config(block_dim=32)
    for i in range(f.shape[0]):
        tid = i % 32
        sh = qd.simt.block.SharedArray((32,), qd.f32)
        sh[tid] = block_sum(f[i])
        qd.simt.block.sync()
        out[i] = sh[(tid + 1) % 32] - f[i]


@qd.kernel
def block_votes(x: I32_1, out: I32_1) -> None:
    # Barriers that reduce a predicate over the block (CUDA's bar.red): two blocks of 64.
    qd.loop_config(block_dim=64)
    for i in range(x.shape[0]):
        c = qd.simt.block.sync_count_nonzero(x[i] % 3 == 0)
        a = qd.simt.block.sync_all_nonzero(x[i] >= 0)
        n = qd.simt.block.sync_any_nonzero(x[i] == 7)
        out[i] = c * 100 + a * 10 + n


@qd.kernel
def warp_exclusive(x: I32_1, f: F32_1, a: I32_1, b: I32_1, c: I32_1, d: F32_1, e: F32_1,
                   g: F32_1) -> None:
    # Exclusive scans: the input shifted up one lane, each group's first lane the identity.
    qd.loop_config(block_dim=64)
    for i in range(x.shape[0]):
        a[i] = qd.simt.subgroup.exclusive_add_tiled(x[i], 5) * 1000 + qd.simt.subgroup.exclusive_xor(x[i])
        b[i] = qd.simt.subgroup.exclusive_max_tiled(x[i], 2) * 100 + qd.simt.subgroup.exclusive_or_tiled(x[i], 4)
        c[i] = qd.simt.subgroup.exclusive_min(x[i]) + qd.simt.subgroup.exclusive_and_tiled(x[i], 3)
        d[i] = qd.simt.subgroup.exclusive_add(f[i]) + qd.simt.subgroup.exclusive_mul_tiled(f[i], 2)
        e[i] = qd.simt.subgroup.exclusive_min_tiled(f[i], 3)
        g[i] = qd.simt.subgroup.exclusive_max(f[i])


@qd.func
def absmax(a, b):
    return qd.max(qd.abs(a), qd.abs(b))


@qd.kernel
def block_reductions(x: I32_1, f: F32_1, r: I32_1, s: F32_1, t: F32_1, u: I32_1,
                     v: I32_1) -> None:
    # Blocks of 128 (4 warps): reduce_* valid in thread 0 (the others keep their warp's partial
    # value), reduce_all_* in every thread; a custom op (a @qd.func); then blocks of one warp.
    qd.loop_config(block_dim=128)
    for i in range(x.shape[0]):
        r[i] = qd.simt.block.reduce_add(x[i], 128, qd.i32)
        s[i] = qd.simt.block.reduce_all_add(f[i], 128, qd.f32)
        t[i] = qd.simt.block.reduce_all(f[i], 128, absmax, qd.f32)
        u[i] = qd.simt.block.reduce_min(x[i], 128, qd.i32) * 1000 + qd.simt.block.reduce_all_max(
            x[i], block_dim=128, dtype=qd.i32)
    qd.loop_config(block_dim=32)
    for i in range(x.shape[0]):
        v[i] = qd.simt.block.reduce_all_add(x[i], 32, qd.i32)


@qd.kernel
def block_scans(x: I32_1, f: F32_1, a: I32_1, b: F32_1, c: I32_1, d: I32_1, e: F32_1) -> None:
    # Blocks of 96 (3 warps): every thread gets its scan.
    qd.loop_config(block_dim=96)
    for i in range(x.shape[0]):
        a[i] = qd.simt.block.inclusive_add(x[i], 96, qd.i32)
        b[i] = qd.simt.block.exclusive_add(f[i], 96, qd.f32)
        c[i] = qd.simt.block.inclusive_max(x[i], 96, qd.i32) * 100 + qd.simt.block.inclusive_min(
            x[i], 96, qd.i32)
        d[i] = qd.simt.block.exclusive_min(x[i], 96, qd.i32) + qd.simt.block.exclusive_max(x[i], 96, qd.i32)
        e[i] = (qd.simt.block.exclusive_scan(f[i], 96, absmax, 0.0, qd.f32) * 1000.0
                + qd.simt.block.inclusive_scan(f[i], 96, absmax, qd.f32))


@qd.kernel
def warp_intrinsics(x: I32_1, f: F32_1, a: I32_1, b: F32_1, c: I32_1, d: I32_1) -> None:
    # qd.simt.warp's CUDA intrinsics over the whole warp; subgroup all_equal and broadcast_first.
    qd.loop_config(block_dim=64)
    for i in range(x.shape[0]):
        lane = qd.simt.subgroup.invocation_id()
        a[i] = (qd.simt.warp.shfl_sync_i32(0xFFFFFFFF, x[i], (lane + 3) % 32) * 1000
                + qd.simt.warp.shfl_xor_i32(0xFFFFFFFF, x[i], 5) * 10
                + qd.simt.warp.all_nonzero(0xFFFFFFFF, x[i] > -12) + qd.simt.warp.any_nonzero(0xFFFFFFFF, x[i] == 7) * 2
                + qd.simt.warp.unique(0xFFFFFFFF, x[i] > 100) * 4)
        b[i] = (qd.simt.warp.shfl_up_f32(0xFFFFFFFF, f[i], 2) + qd.simt.warp.shfl_down_f32(0xFFFFFFFF, f[i], 3) * 10.0
                + qd.simt.warp.shfl_sync_f32(qd.u32(0xFFFFFFFF), f[i], 0) * 100.0)
        c[i] = qd.simt.warp.ballot(x[i] % 4 == 0) ^ qd.simt.warp.active_mask()
        d[i] = (qd.simt.subgroup.all_equal_tiled(x[i] // 8, 2) * 7 + qd.simt.subgroup.all_equal(qd.i32(1)) * 11
                + qd.simt.subgroup.broadcast_first(x[i]) * 13 + qd.simt.warp.shfl_up_i32(0xFFFFFFFF, x[i], 1) * 17
                + qd.simt.warp.shfl_down_i32(0xFFFFFFFF, x[i], 31) * 19)


@qd.kernel
def warp_match(x: I32_1, a: I32_1, b: I32_1, c: I32_1) -> None:
    # qd.simt.warp.match_any / match_all (CUDA's match.sync, sm_70+): the lanes holding this
    # lane's value; every lane when all hold one value, else 0; the value converted to i32.
    qd.loop_config(block_dim=64)
    for i in range(x.shape[0]):
        a[i] = qd.simt.warp.match_any(0xFFFFFFFF, x[i])
        b[i] = qd.simt.warp.match_all(0xFFFFFFFF, x[i])
        c[i] = qd.simt.warp.match_all(0xFFFFFFFF, x[i] // 10) + qd.simt.warp.match_any(
            0xFFFFFFFF, qd.u32(x[i] % 2)) * 3


@qd.kernel
def warp_sort(k: I32_1, v: F32_1, ko: I32_1, vo: F32_1, k8: F32_1, v8: I32_1) -> None:
    # Bitonic key/value sorts: the whole warp (i32 keys, ties broken by the f32 values) and
    # groups of 8 lanes (f32 keys, i32 values).
    qd.loop_config(block_dim=64)
    for i in range(k.shape[0]):
        a, b = qd.simt.subgroup.bitonic_sort_kv(k[i], v[i])
        ko[i] = a
        vo[i] = b
        c, d = qd.simt.subgroup.bitonic_sort_kv_tiled(v[i], k[i], 3)
        k8[i] = c
        v8[i] = d
