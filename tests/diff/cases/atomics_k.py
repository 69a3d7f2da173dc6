"""Atomics: qd.atomic_* on ndarray elements and on locals, returning the old value; += -= &= |= ^=
are atomic on any target."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]


@qd.kernel
def atomic_ops_array(x: I32_1, acc: I32_1) -> None:
    for i in range(x.shape[0]):
        qd.atomic_add(acc[0], x[i])
        qd.atomic_sub(acc[1], x[i])
        qd.atomic_min(acc[2], x[i])
        qd.atomic_max(acc[3], x[i])
        qd.atomic_and(acc[4], x[i] | 0x100)
        qd.atomic_or(acc[5], x[i])
        qd.atomic_xor(acc[6], x[i])


@qd.kernel
def aug_atomic_array(x: I32_1, acc: I32_1, f: qd.types.NDArray[qd.f32, 1], facc: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in range(x.shape[0]):
        acc[0] += x[i]
        acc[1] -= x[i] * 2
        acc[2] &= ~(1 << (i % 8))
        acc[3] |= 1 << (x[i] % 16)
        acc[4] ^= x[i]
        facc[0] += f[i]
        facc[1] -= f[i] * 0.5


@qd.kernel
def atomic_old_values(x: I32_1, olds: I32_1, counter: I32_1) -> qd.i32:
    # A single sequential-consistent counter: the old values are a permutation of 0..n-1
    # (compared after sorting).
    for i in range(x.shape[0]):
        olds[i] = qd.atomic_add(counter[0], 1)
    total = 0
    for i in range(x.shape[0]):
        old = qd.atomic_add(total, x[i])   # old value of a local (a global temporary here)
        if old < 0:
            counter[1] = 1
    return total


@qd.kernel
def atomic_serial_returns(a: qd.i32, out: I32_1) -> None:
    v = a
    out[0] = qd.atomic_add(v, 5)       # serial: old values are deterministic
    out[1] = qd.atomic_sub(v, 2)
    out[2] = qd.atomic_max(v, 100)
    out[3] = qd.atomic_min(v, 50)
    out[4] = qd.atomic_and(v, 0x3C)
    out[5] = qd.atomic_or(v, 0x101)
    out[6] = qd.atomic_xor(v, 0xFF)
    out[7] = v


@qd.kernel
def atomic_float(x: qd.types.NDArray[qd.f32, 1], out: qd.types.NDArray[qd.f32, 1]) -> qd.f32:
    s = 0.0
    for i in range(x.shape[0]):
        qd.atomic_add(out[i % 3], x[i])
        qd.atomic_max(out[3], x[i])
        qd.atomic_min(out[4], x[i])
        s += x[i] * 0.25
    return s


@qd.kernel
def atomic_scatter(idx: I32_1, val: qd.types.NDArray[qd.i64, 1], bins: qd.types.NDArray[qd.i64, 1]) -> None:
    for i in range(idx.shape[0]):
        bins[idx[i]] += val[i]
        qd.atomic_max(bins[bins.shape[0] - 1], val[i])


@qd.kernel
def atomic_local_in_loop(n: I32_1, out: I32_1) -> None:
    for i in range(n.shape[0]):
        c = 0
        for k in range(n[i]):
            c += k                     # a thread-private local: atomic semantics, plain result
            c ^= 1
        out[i] = c
