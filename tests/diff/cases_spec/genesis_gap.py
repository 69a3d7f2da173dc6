"""Cases for cases/vecops_k.py, cases/ndarr0_k.py and cases/bitatomic_k.py: constructs Genesis
kernels use (fill, slices, rows/cols, 4x4 determinant/inverse, vector func parameters without a
dtype, 0-d ndarrays, ndrange(axes=...), ffs, atomic_exchange, atomic_cas)."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


def mat4(i):  # well-conditioned 4x4 entries: a diagonally dominant pattern of halves
    k, r, c = i // 16, (i % 16) // 4, i % 4
    return (4.0 + k) if r == c else ((r * 3 + c * 5 + k) % 7 - 3) * 0.5


CHAIN = {"rtol": 1e-5, "atol": 1e-5}

CASES = [
    # --- vecops_k ---------------------------------------------------------------------------------
    {"name": "vecops_fill_locals", "kernel": "vecops_k:fill_locals",
     "args": [arr("f32", (4,), [0.5, 2.75, -1.25, 3.0]), arr("f32", (12,)), arr("i32", (4,))],
     "outputs": [1, 2]},
    {"name": "vecops_fill_elements", "kernel": "vecops_k:fill_elements",
     "args": [arr("f32", (3, 3)), arr("f32", (3, 3, 3), lambda i: 9.0), arr("f32", (3,), [1.5, -2.0, 4.25])],
     "outputs": [0, 1]},
    {"name": "vecops_vector_slices", "kernel": "vecops_k:vector_slices",
     "args": [arr("f32", (3, 4), lambda i: i * 0.5 - 2), arr("f32", (24,))], "outputs": [0, 1]},
    {"name": "vecops_matrix_slices", "kernel": "vecops_k:matrix_slices",
     "args": [arr("f32", (3, 3, 3), lambda i: (i * 5) % 11 - 4.5), arr("i32", (3,), [2, 0, 1]),
              arr("f32", (24,)), arr("f32", (3, 3, 3))], "outputs": [2, 3]},
    {"name": "vecops_broadcast_places", "kernel": "vecops_k:broadcast_places",
     "args": [arr("f32", (3, 3)), arr("f32", (3,))], "outputs": [0, 1]},
    {"name": "vecops_rows_cols_shape", "kernel": "vecops_k:rows_cols_shape",
     "args": [arr("f32", (24,)), arr("i32", (3,))], "outputs": [0, 1]},
    {"name": "vecops_det_inv4", "kernel": "vecops_k:det_inv4",
     "args": [arr("f32", (3, 4, 4), mat4), arr("f32", (3,)), arr("f32", (3, 4, 4)),
              arr("f32", (3, 4, 4))], "outputs": [1, 2, 3], "tol": CHAIN},
    {"name": "vecops_det_inv4_f64", "kernel": "vecops_k:det_inv4_f64",
     "args": [arr("f64", (2, 4, 4), mat4), arr("f64", (2,)), arr("f64", (2, 4, 4))],
     "outputs": [1, 2], "tol": {"rtol": 1e-12, "atol": 1e-12}},
    {"name": "vecops_det_inv_int", "kernel": "vecops_k:det_inv_int",
     "args": [arr("f32", (6,)), arr("i32", (3,))], "outputs": [0, 1], "tol": CHAIN},
    {"name": "vecops_func_vector_params", "kernel": "vecops_k:func_vector_params",
     "args": [arr("f32", (3,), [0.25, -1.5, 6.0]), arr("f32", (21,))], "outputs": [1]},
    # --- ndarr0_k ---------------------------------------------------------------------------------
    {"name": "ndarr0_scalar0", "kernel": "ndarr0_k:scalar0",
     "args": [arr("f32", (), [2.0]), arr("i32", (), [1]), arr("f32", (5,))],
     "outputs": [0, 1, 2]},
    {"name": "ndarr0_forms", "kernel": "ndarr0_k:ndarray0_forms",
     "args": [arr("i32", (), [4]), arr("i32", (), [-100]), arr("i32", (6,), [3, -2, 9, 0, 7, 1])],
     "outputs": [0, 1]},
    {"name": "ndarr0_vector0", "kernel": "ndarr0_k:vector0",
     "args": [arr("f32", (3,), [0.5, 1.0, -2.0]), arr("f32", (2,))], "outputs": [0, 1]},
    {"name": "ndarr0_axes_order", "kernel": "ndarr0_k:axes_order",
     "args": [4, arr("i32", (3, 4), lambda i: -1), arr("i32", (9,))], "outputs": [1, 2]},
    {"name": "ndarr0_axes_3d", "kernel": "ndarr0_k:axes_3d",
     "args": [arr("i32", (2, 3, 4)), arr("i32", ())], "outputs": [0, 1]},
    {"name": "ndarr0_axes_grouped", "kernel": "ndarr0_k:axes_grouped",
     "args": [arr("i32", (2, 3), lambda i: -1), arr("i32", (14,))], "outputs": [0, 1]},
    # --- bitatomic_k ------------------------------------------------------------------------------
    {"name": "bitatomic_ffs_widths", "kernel": "bitatomic_k:ffs_widths",
     "args": [arr("i32", (5,), [0, 1, 12, -8, -2147483648]),
              arr("u64", (5,), [0, 1 << 40, 6, 2 ** 64 - 1, 1 << 63]),
              arr("i8", (5,), [0, -1, 64, -128, 3]), arr("u16", (5,), [0, 32768, 5, 1024, 65535]),
              arr("i32", (25,))], "outputs": [4]},
    {"name": "bitatomic_exchange", "kernel": "bitatomic_k:exchange",
     "args": [arr("i32", (1,), [5]), arr("f64", (2,), [0.5, 0.0]), arr("u8", (2,), [9, 0]),
              arr("u1", (2,), [False, True]), arr("i32", (2, 2), [1, 2, 0, 0]), arr("i32", (3,))],
     "outputs": [0, 1, 2, 3, 4, 5]},
    {"name": "bitatomic_exchange_parallel", "kernel": "bitatomic_k:exchange_parallel",
     "args": [arr("i32", (1,)), arr("i32", (64,))], "outputs": [],
     "expected": {"return": sum(k + 1000 * k * k for k in range(65))}},
    {"name": "bitatomic_cas", "kernel": "bitatomic_k:cas",
     "args": [arr("i32", (1,), [5]), arr("i64", (2,), [5, 0]), arr("u8", (2,), [200, 0]),
              arr("i32", (4,))], "outputs": [0, 1, 2, 3]},
    {"name": "bitatomic_cas_loop", "kernel": "bitatomic_k:cas_loop",
     "args": [arr("i32", (2,)), 500], "outputs": [0], "expected": {"0": [124750, 1]}},
]
