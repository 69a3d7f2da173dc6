"""qd.svd of 3x3 matrices (Genesis's MPM solver: U, S, V of each particle's deformation
gradient), written into matrix ndarrays."""

import quadrants as qd

M3 = qd.types.NDArray[qd.types.matrix(3, 3, qd.f32), 1]


@qd.kernel
def svd3(a: M3, u: M3, s: M3, v: M3):
    for i in range(a.shape[0]):
        U, S, V = qd.svd(a[i], qd.f32)
        u[i] = U
        s[i] = S
        v[i] = V


@qd.kernel
def svd_reconstruct(a: M3, out: M3):
    for i in range(a.shape[0]):
        U, S, V = qd.svd(a[i])
        out[i] = U @ S @ V.transpose()
