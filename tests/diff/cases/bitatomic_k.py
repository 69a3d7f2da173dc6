"""qd.math.ffs (the 1-based lowest set bit, 0 for 0, an i32 for every integer width),
qd.atomic_exchange (old value back; ndarray elements, locals, vector elements, floats, u1) and
qd.atomic_cas (integers; old value back, the swap only on a match; a CAS retry loop in a
parallel loop)."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]


@qd.kernel
def ffs_widths(a: I32_1, b: qd.types.NDArray[qd.u64, 1], c: qd.types.NDArray[qd.i8, 1],
               d: qd.types.NDArray[qd.u16, 1], out: I32_1) -> None:
    for i in range(a.shape[0]):
        out[i * 5 + 0] = qd.math.ffs(a[i])
        out[i * 5 + 1] = qd.math.ffs(b[i])
        out[i * 5 + 2] = qd.math.ffs(c[i])
        out[i * 5 + 3] = qd.math.ffs(d[i]) + qd.math.ffs(qd.i64(1) << (i + 40))
        v = qd.math.ffs(qd.Vector([a[i], 8]))
        out[i * 5 + 4] = v[0] * 100 + v[1]


@qd.kernel
def exchange(a: I32_1, f: qd.types.NDArray[qd.f64, 1], u: qd.types.NDArray[qd.u8, 1],
             flags: qd.types.NDArray[qd.u1, 1], vv: qd.types.NDArray[qd.types.vector(2, qd.i32), 1],
             out: I32_1) -> None:
    old = qd.atomic_exchange(a[0], 42)
    out[0] = old
    x = 7
    z = qd.atomic_exchange(x, 9)
    out[1] = x * 100 + z
    fo = qd.atomic_exchange(f[0], 1)                 # the operand is cast to f64
    f[1] = fo
    uo = qd.atomic_exchange(u[0], 300)               # ... and to u8 (44)
    u[1] = uo
    bo = qd.atomic_exchange(flags[0], True)
    flags[1] = bo
    vo = qd.atomic_exchange(vv[0], qd.Vector([7, 8]))
    vv[1] = vo
    w = qd.Vector([1, 2, 3])
    wo = qd.atomic_exchange(w[2], -1)
    out[2] = wo * 10 + w[2]


@qd.kernel
def exchange_parallel(slot: I32_1, got: I32_1) -> qd.i32:
    for i in range(got.shape[0]):
        got[i] = qd.atomic_exchange(slot[0], i + 1)   # every value handed over exactly once
    last = slot[0]
    total = last + last * last * 1000
    qd.loop_config(serialize=True)
    for i in range(got.shape[0]):
        total += got[i] + got[i] * got[i] * 1000      # the same sums whichever order it ran in
    return total


@qd.kernel
def cas(a: I32_1, b: qd.types.NDArray[qd.i64, 1], c: qd.types.NDArray[qd.u8, 1], out: I32_1) -> None:
    old = qd.atomic_cas(a[0], 5, 42)
    out[0] = old
    old2 = qd.atomic_cas(a[0], 5, 43)                # no match: unchanged
    out[1] = old2
    x = 3
    o3 = qd.atomic_cas(x, 3, 8)
    out[2] = x * 10 + o3
    o4 = qd.atomic_cas(b[0], 5, 1 << 20)
    b[1] = o4
    o5 = qd.atomic_cas(c[0], 200, 7)
    c[1] = o5
    v = qd.Vector([1, 2])
    o6 = qd.atomic_cas(v[1], 2, 9)
    out[3] = v[1] * 10 + o6


@qd.kernel
def cas_loop(acc: I32_1, n: qd.i32) -> None:
    for i in range(n):
        done = False
        while not done:
            cur = acc[0]
            if qd.atomic_cas(acc[0], cur, cur + i) == cur:
                done = True
        qd.atomic_cas(acc[1], 0, 1)                   # only the first one sets it
