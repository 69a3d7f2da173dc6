"""0-d ndarrays (qd.types.NDArray[T, 0], qd.types.ndarray(ndim=0)) indexed x[None] / x[()]:
reads, writes, atomics and += from a parallel loop, a vector element, a struct-for
`for I in qd.grouped(x)` (one iteration); and qd.ndrange(..., axes=...) (the iteration order,
outermost first; the loop variables stay the canonical axes), also grouped and static."""

import quadrants as qd

F32_0 = qd.types.NDArray[qd.f32, 0]
I32_0 = qd.types.NDArray[qd.i32, 0]
I32_1 = qd.types.NDArray[qd.i32, 1]
I32_2 = qd.types.NDArray[qd.i32, 2]
F32_1 = qd.types.NDArray[qd.f32, 1]


@qd.kernel
def scalar0(x: F32_0, c: I32_0, out: F32_1) -> None:
    for i in range(out.shape[0]):
        out[i] = x[None] * i
        qd.atomic_add(c[None], 1)
        c[None] += i
    x[None] = x[None] + 5.5
    c[()] *= 2


@qd.kernel
def ndarray0_forms(x: qd.types.ndarray(dtype=qd.i32, ndim=0), m: qd.types.NDArray[qd.i32, 0],
                   out: I32_1) -> qd.i32:
    for I in qd.grouped(x):              # a 0-d struct-for: one iteration, I has no components
        x[I] += 3
    total = 0
    for i in range(out.shape[0]):
        old = qd.atomic_max(m[None], out[i])
        total += old * 0 + 1
    return x[None] * 100 + total + len(out.shape) * 1000 + len(x.shape) * 10000


@qd.kernel
def vector0(v: qd.types.NDArray[qd.types.vector(3, qd.f32), 0], out: F32_1) -> None:
    v[None] += qd.Vector([1.0, 2.0, 3.0])
    v[None][1] *= 2
    w = v[None]
    out[0] = w.sum()
    out[1] = v[None].x


@qd.kernel
def axes_order(n: qd.i32, order: I32_2, seq: I32_1) -> None:
    k = 0
    qd.loop_config(serialize=True)
    for i, j in qd.ndrange(3, (1, n), axes=(1, 0)):     # j outermost, i fastest
        order[i, j] = k
        seq[k] = i * 10 + j
        k += 1


@qd.kernel
def axes_3d(a: qd.types.NDArray[qd.i32, 3], count: I32_0) -> None:
    for i, j, k in qd.ndrange(2, 3, 4, axes=(2, 0, 1)):   # parallel: every cell once
        a[i, j, k] = i * 100 + j * 10 + k
        count[None] += 1


@qd.kernel
def axes_grouped(order: I32_2, seq: I32_1) -> None:
    k = 0
    qd.loop_config(serialize=True)
    for I in qd.grouped(qd.ndrange(2, 3, axes=[1, 0])):
        order[I] = k
        seq[k] = I[0] * 10 + I[1]
        k += 1
    k2 = 6
    for i, j in qd.static(qd.ndrange(2, 2, axes=(1, 0))):
        seq[k2] = i * 10 + j
        k2 += 1
    for i, j in qd.ndrange(2, 2, axes=None):              # None is the default order
        seq[10 + i * 2 + j] = i * 10 + j + 1
