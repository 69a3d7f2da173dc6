"""docs/language.md §6: the ten tier-1 differential kernels K1..K10, verbatim."""

import quadrants as qd


@qd.kernel
def saxpy(a: qd.f32, x: qd.types.NDArray[qd.f32, 1], y: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def int_sem(a: qd.types.NDArray[qd.i32, 1], b: qd.types.NDArray[qd.i32, 1], q: qd.types.NDArray[qd.i32, 1],
            r: qd.types.NDArray[qd.i32, 1], t: qd.types.NDArray[qd.f32, 1], c: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        t[i] = a[i] / b[i]          # i32 / i32 -> f32
        c[i] = int(a[i] / b[i])     # trunc toward zero


@qd.kernel
def histogram(vals: qd.types.NDArray[qd.i32, 1], bins: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(vals.shape[0]):
        bins[vals[i] % bins.shape[0]] += 1


@qd.kernel
def reduce_stats(x: qd.types.NDArray[qd.f32, 1], out: qd.types.NDArray[qd.i32, 1]) -> qd.f32:
    total = 0.0
    npos = 0
    for i in range(x.shape[0]):
        total += x[i]
        if x[i] > 0:
            npos += 1
    out[0] = npos
    return total


vec3 = qd.types.vector(3, qd.f32)


@qd.func
def rotate_z90(v: vec3) -> vec3:
    m = qd.Matrix([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return m @ v


@qd.kernel
def vec_ops(p: qd.types.NDArray[vec3, 1], q: qd.types.NDArray[vec3, 1], out: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in range(p.shape[0]):
        v = p[i]
        r = rotate_z90(v)
        q[i] = r + qd.Vector([0.0, 0.0, 1.0])
        out[i] = v.dot(r) + v.cross(r).norm_sqr() + v.norm()


@qd.kernel
def fill2d(a: qd.types.NDArray[qd.i32, 2], mode: qd.Template) -> None:
    for i, j in qd.ndrange(a.shape[0], a.shape[1]):
        if qd.static(mode == 0):
            a[i, j] = i * 10 + j
        else:
            a[i, j] = i - j


@qd.kernel
def collatz(n0: qd.types.NDArray[qd.i32, 1], steps: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(n0.shape[0]):
        n = n0[i]
        s = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            s += 1
        steps[i] = s


@qd.kernel
def factors(out: qd.types.NDArray[qd.i32, 1], g: qd.types.NDArray[qd.i32, 2]) -> None:
    for i in range(out.shape[0]):
        n = i + 2
        f = n
        for d in range(2, n):
            if n % d != 0:
                continue
            f = d
            break
        out[i] = f
    for I in qd.grouped(qd.ndrange((1, g.shape[0]), g.shape[1])):
        g[I] = 100 * I[0] + I[1]


COEFFS = (1.0, 2.0, 3.0, 4.0)


@qd.kernel
def poly_bits(x: qd.types.NDArray[qd.f32, 1], y: qd.types.NDArray[qd.f32, 1], a: qd.types.NDArray[qd.u32, 1],
              ou: qd.types.NDArray[qd.u32, 1], oi: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(x.shape[0]):
        acc = 0.0
        for k in qd.static(range(4)):
            acc = acc * x[i] + COEFFS[k]
        y[i] = acc
    for i in range(a.shape[0]):
        v = a[i]
        ou[i] = (v >> 1) ^ (v << 3)                     # u32: logical shift, wraps
        oi[i] = qd.math.popcnt(v) + qd.cast(v & 0xFF, qd.i32)


@qd.kernel
def compact(x: qd.types.NDArray[qd.f32, 1], out: qd.types.NDArray[qd.f32, 1], count: qd.types.NDArray[qd.i32, 1]) -> None:
    count[0] = 0                          # serial task
    for i in range(x.shape[0]):           # parallel task 1
        if x[i] > 0.0:
            slot = qd.atomic_add(count[0], 1)
            out[slot] = x[i]
    n = count[0]                          # serial: bound goes through a global temporary
    for j in range(n):                    # parallel task 2, dynamic bound
        out[j] = out[j] * 2.0
