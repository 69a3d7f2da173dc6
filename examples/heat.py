"""2-D heat equation on a grid: a 5-point stencil with fixed (Dirichlet) boundaries.

`step` reads `u` and writes `u_next`; the host swaps them between steps. `max_change` gives the
largest per-cell change of the last step, for a convergence test.
"""
import quadrants as qd

ALPHA = 0.2  # diffusion number; the explicit scheme is stable for ALPHA <= 0.25


@qd.func
def laplacian(u: qd.types.ndarray(dtype=qd.f32, ndim=2), i: qd.i32, j: qd.i32) -> qd.f32:
    return u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@qd.kernel(fastcache=True)
def fill(u: qd.types.ndarray(dtype=qd.f32, ndim=2), value: qd.f32):
    for i, j in qd.ndrange(u.shape[0], u.shape[1]):
        u[i, j] = value


@qd.kernel(fastcache=True)
def set_hot_spot(u: qd.types.ndarray(dtype=qd.f32, ndim=2), ci: qd.i32, cj: qd.i32, radius: qd.i32,
                 temperature: qd.f32):
    for i, j in qd.ndrange((ci - radius, ci + radius + 1), (cj - radius, cj + radius + 1)):
        di = i - ci
        dj = j - cj
        if di * di + dj * dj <= radius * radius:
            u[i, j] = temperature


@qd.kernel(fastcache=True)
def step(u: qd.types.ndarray(dtype=qd.f32, ndim=2), u_next: qd.types.ndarray(dtype=qd.f32, ndim=2)):
    n = u.shape[0]
    m = u.shape[1]
    for i, j in qd.ndrange((1, n - 1), (1, m - 1)):
        u_next[i, j] = u[i, j] + ALPHA * laplacian(u, i, j)
    # Boundaries keep their values.
    for i in range(n):
        u_next[i, 0] = u[i, 0]
        u_next[i, m - 1] = u[i, m - 1]
    for j in range(m):
        u_next[0, j] = u[0, j]
        u_next[n - 1, j] = u[n - 1, j]


@qd.kernel(fastcache=True)
def max_change(u: qd.types.ndarray(dtype=qd.f32, ndim=2), u_next: qd.types.ndarray(dtype=qd.f32, ndim=2),
               out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    out[0] = 0.0
    for i, j in qd.ndrange(u.shape[0], u.shape[1]):
        qd.atomic_max(out[0], abs(u_next[i, j] - u[i, j]))
