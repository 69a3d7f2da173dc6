"""qd.random: Quadrants' generator drawn in serial code (one thread, state 0), so every run
draws the same numbers: each dtype, the default float type, draws in a func, in a vector
comprehension (evaluation order) and in a branch (the branch taken decides how many are drawn);
draws nothing reads are not drawn (Quadrants' dead-code elimination drops them).
One kernel only: the stand-in, the store and Quadrants each start from the seed's states, and
no other case draws."""

import quadrants as qd


@qd.func
def jitter(scale: qd.f32) -> qd.f32:
    return (qd.random(qd.f32) - 0.5) * scale


@qd.kernel
def draws(f: qd.types.NDArray[qd.f32, 1], d: qd.types.NDArray[qd.f64, 1],
          u: qd.types.NDArray[qd.u32, 1], i: qd.types.NDArray[qd.i32, 1],
          l: qd.types.NDArray[qd.i64, 1], ul: qd.types.NDArray[qd.u64, 1],
          v: qd.types.NDArray[qd.f32, 2], b: qd.types.NDArray[qd.i32, 1]) -> None:
    qd.loop_config(serialize=True)
    for k in range(f.shape[0]):
        unused = qd.random(qd.u32)  # nothing reads it: Quadrants does not draw it
        qd.random()  # nor this one
        f[k] = qd.random()
        d[k] = qd.random(qd.f64)
        u[k] = qd.random(qd.u32)
        i[k] = qd.random(dtype=int)
        l[k] = qd.random(qd.i64)
        ul[k] = qd.random(qd.u64)
        w = qd.Vector([qd.random(qd.f32) * (c + 1) for c in range(3)])
        w[1] += jitter(2.0)
        for c in qd.static(range(3)):
            v[k, c] = w[c]
        b[k] = 0
        if qd.random() < 0.5:
            b[k] = qd.random(qd.i32) % 100
