"""Cases for cases/svd_k.py: well-separated singular values, a scaled rotation, a reflection
(negative determinant), a rank-2 matrix, a zero matrix and the identity (Genesis's MPM starts every
particle with F = I). Matrices with repeated singular values other than I are left out: any
rotation of their repeated subspace is a valid U and V, and Quadrants' JIT fuses multiply-adds
that qdbuild's tasks do not, so the two pick different ones (their products agree:
svd_reconstruct)."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


MATRICES = [
    [2.0, 0.5, -1.0, 0.25, 3.0, 0.75, -0.5, 1.5, 1.0],
    [0.0, -2.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 1.0],       # a rotation about z times diag(3, 2, 1)
    [1.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.5],       # a reflection, distinct values
    [1.0, 2.0, 0.0, 0.0, 1.0, 0.0, 0.5, 0.25, 0.0],       # rank 2
    [0.0] * 9,
    [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],        # I
    [1.1, 0.05, 0.0, -0.02, 0.97, 0.01, 0.03, 0.0, 1.02],  # near I, a deformed particle
    [0.3, -1.7, 2.2, 0.9, 0.4, -0.6, -1.1, 0.8, 0.05],
]
FLAT = [x for m in MATRICES for x in m]
N = len(MATRICES)

CASES = [
    {"name": "svd_3x3", "kernel": "svd_k:svd3", "params": ["a", "u", "s", "v"],
     "args": [arr("f32", (N, 3, 3), FLAT), arr("f32", (N, 3, 3)), arr("f32", (N, 3, 3)),
              arr("f32", (N, 3, 3))],
     "outputs": [1, 2, 3], "tol": {"rtol": 1e-5, "atol": 2e-6}},
    {"name": "svd_reconstruct", "kernel": "svd_k:svd_reconstruct", "params": ["a", "out"],
     "args": [arr("f32", (N, 3, 3), FLAT), arr("f32", (N, 3, 3))],
     "outputs": [1], "tol": {"rtol": 1e-5, "atol": 1e-5}},
]
