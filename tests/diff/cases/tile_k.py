"""Register tiles (qd.simt.Tile16x16 / Tile32x32): an NxN matrix over N lanes of a warp, one row
per lane, exchanged by shuffles. The blocked left-looking Cholesky factorization and solve
Genesis's constraint solver runs on CUDA (solver.py func_island_assemble_factor_solve_tiled):
tiles loaded from and stored to a batch array and a shared array, `tile -= qd.outer(v, v)` over
columns, cholesky_, solve_triangular_; also eye and a tile of f64. Real Quadrants refuses tiles
on the CPU (`gpu_only`); the GPU bundle compares them on CUDA."""

import quadrants as qd

F32_3 = qd.types.NDArray[qd.f32, 3]
F32_2 = qd.types.NDArray[qd.f32, 2]
F64_2 = qd.types.NDArray[qd.f64, 2]


@qd.func
def factor(sh: qd.template(), n, tid, TileCls: qd.template(), T: qd.template()):
    # Genesis's blocked Cholesky in place in the shared array (lower triangle), one warp.
    n_blocks = (n + T - 1) // T
    for k_blk in range(n_blocks):
        k_lo = k_blk * T
        k_hi = qd.min(k_lo + T, n)
        L_kk = TileCls.eye(dtype=qd.f32)
        L_kk[:] = sh[k_lo:k_hi, k_lo:k_hi]
        for j_blk in range(k_blk):
            j_lo = j_blk * T
            for i_col in range(T):
                v = sh[k_lo:k_hi, j_lo + i_col]
                L_kk -= qd.outer(v, v)
        d_row = k_lo + tid
        diag = qd.f32(1.0)
        if d_row < k_hi:
            diag = sh[d_row, d_row]
        L_kk.cholesky_(1e-6 * qd.max(diag, 1e-6))
        for i_blk in range(k_blk + 1, n_blocks):
            i_lo = i_blk * T
            i_hi = qd.min(i_lo + T, n)
            L_ik = TileCls.zeros(dtype=qd.f32)
            L_ik[:] = sh[i_lo:i_hi, k_lo:k_hi]
            for j_blk in range(k_blk):
                j_lo = j_blk * T
                for i_col in range(T):
                    v_own = sh[i_lo:i_hi, j_lo + i_col]
                    v_diag = sh[k_lo:k_hi, j_lo + i_col]
                    L_ik -= qd.outer(v_own, v_diag)
            L_kk.solve_triangular_(L_ik)
            sh[i_lo:i_hi, k_lo:k_hi] = L_ik
        sh[k_lo:k_hi, k_lo:k_hi] = L_kk


@qd.kernel
def tiled_cholesky16(h: F32_3, n_of: qd.types.NDArray[qd.i32, 1], out: F32_3) -> None:
    # One warp of 16 lanes per matrix (blocks of 16): the batch's matrices staged into a shared
    # array by tiles, factored by 16x16 tiles, the factor written out (0 above the diagonal).
    qd.loop_config(block_dim=16)
    for i in range(h.shape[0] * 16):
        b = i // 16
        tid = i % 16
        n = n_of[b]
        sh = qd.simt.block.SharedArray((40, 41), qd.f32)
        n_blocks = (n + 15) // 16
        for k_blk in range(n_blocks):
            for i_blk in range(k_blk, n_blocks):
                H = qd.simt.Tile16x16.zeros(dtype=qd.f32)
                H[:] = h[b, i_blk * 16:qd.min(i_blk * 16 + 16, n), k_blk * 16:qd.min(k_blk * 16 + 16, n)]
                sh[i_blk * 16:i_blk * 16 + 16, k_blk * 16:k_blk * 16 + 16] = H
        qd.simt.block.sync()
        factor(sh, n, tid, qd.simt.Tile16x16, 16)
        qd.simt.block.sync()
        for k in range(3):
            row = tid + k * 16
            if row < n:
                for c in range(n):
                    out[b, row, c] = sh[row, c] if c <= row else 0.0


@qd.kernel
def tiled_cholesky32(h: F32_3, out: F32_3) -> None:
    # One 32-lane tile per matrix (n <= 32): load, factor, solve a second block against it; a
    # matrix smaller than the tile (the rows and columns past n keep the identity).
    qd.loop_config(block_dim=32)
    for i in range(h.shape[0] * 32):
        b = i // 32
        n = h.shape[1]
        L = qd.simt.Tile32x32.eye(dtype=qd.f32)
        L[:] = h[b, 0:n, 0:n]
        L.cholesky_(1e-7)
        B = qd.simt.Tile32x32.zeros(dtype=qd.f32)
        B[:] = h[b, 0:n, 0:n]
        L.solve_triangular_(B, lower=True)
        out[b, 0:n, 0:n] = L
        out[b, n:2 * n, 0:n] = B


@qd.kernel
def tile_f64(a: F64_2, out: F64_2) -> None:
    # A tile of f64 from a 2-D array; eye_ resets it; outer products of per-lane scalars.
    qd.loop_config(block_dim=16)
    for i in range(16):
        t = qd.simt.Tile16x16.zeros(dtype=qd.f64)
        t[:] = a[0:12, 2:14]
        x = a[i % 16, 0]
        t -= qd.outer(x, x * 2.0)
        out[0:16, 0:16] = t
        t.eye_()
        t -= qd.outer(a[i % 16, 1], 1.0)
        out[16:32, 0:16] = t
