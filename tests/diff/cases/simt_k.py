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
