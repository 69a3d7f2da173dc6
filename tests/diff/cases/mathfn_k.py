"""Math builtins with the int-to-float rules: trig/exp/log/sqrt/rsqrt, floor/ceil/round, abs,
min/max (n-ary, builtins and qd.*), pow, atan2, clamp and friends."""

import quadrants as qd

F32_1 = qd.types.NDArray[qd.f32, 1]
F64_1 = qd.types.NDArray[qd.f64, 1]
I32_1 = qd.types.NDArray[qd.i32, 1]


@qd.kernel
def transcendental(x: F32_1, out: qd.types.NDArray[qd.f32, 2]) -> None:
    for i in range(x.shape[0]):
        v = x[i]
        out[i, 0] = qd.sin(v)
        out[i, 1] = qd.cos(v)
        out[i, 2] = qd.tan(v * 0.5)
        out[i, 3] = qd.tanh(v)
        out[i, 4] = qd.exp(v)
        out[i, 5] = qd.log(v * v + 1.0)
        out[i, 6] = qd.sqrt(v * v + 2.0)
        out[i, 7] = qd.rsqrt(v * v + 0.5)
        out[i, 8] = qd.asin(v / 4.0)
        out[i, 9] = qd.acos(v / 4.0)
        out[i, 10] = qd.atan2(v, 1.5)
        out[i, 11] = qd.pow(qd.abs(v) + 1.0, 1.5)


@qd.kernel
def int_to_float_rules(n: I32_1, out: qd.types.NDArray[qd.f32, 2]) -> None:
    for i in range(n.shape[0]):
        k = n[i]
        out[i, 0] = qd.sqrt(k)             # i32 -> default_fp
        out[i, 1] = qd.exp(k / 8)
        out[i, 2] = qd.log(k + 1)
        out[i, 3] = qd.atan2(k, 2)         # two ints -> f32
        out[i, 4] = k ** 0.5               # float exponent: pow in f32
        out[i, 5] = qd.abs(k) + qd.max(k, 3) * 100 + qd.min(k, -2, 5) * 10000


@qd.kernel
def rounding(x: F32_1, o: qd.types.NDArray[qd.f32, 2], oi: qd.types.NDArray[qd.i32, 2]) -> None:
    for i in range(x.shape[0]):
        v = x[i]
        o[i, 0] = qd.floor(v)
        o[i, 1] = qd.ceil(v)
        o[i, 2] = qd.round(v)              # half away from zero
        o[i, 3] = qd.math.fract(v)
        oi[i, 0] = qd.floor(v, qd.i32)
        oi[i, 1] = qd.round(v, dtype=qd.i32)
        oi[i, 2] = int(v)                  # truncation
        oi[i, 3] = qd.cast(qd.ceil(v), qd.i32)


@qd.kernel
def minmax_builtins(a: F32_1, b: I32_1, o: F32_1, oi: I32_1) -> None:
    for i in range(a.shape[0]):
        o[i] = max(a[i], 0.5) + min(a[i], b[i], 1)   # builtins in a kernel are the n-ary qd ones
        oi[i] = max(b[i], -b[i]) + abs(b[i] - 3) * 100


@qd.kernel
def helpers(x: F32_1, o: qd.types.NDArray[qd.f32, 2]) -> None:
    for i in range(x.shape[0]):
        v = x[i]
        o[i, 0] = qd.math.clamp(v, -1.0, 2.0)
        o[i, 1] = qd.math.mix(1.0, 3.0, qd.math.clamp(v, 0.0, 1.0))
        o[i, 2] = qd.math.step(0.5, v)
        o[i, 3] = qd.math.sign(v)
        o[i, 4] = qd.math.clamp(qd.cast(v * 4, qd.i32), -3, 3)
        o[i, 5] = qd.select(v > 0, v, -v * 2)
        o[i, 6] = qd.math.pi * v


@qd.kernel
def f64_math(x: F64_1, o: qd.types.NDArray[qd.f64, 2]) -> None:
    for i in range(x.shape[0]):
        v = x[i]
        o[i, 0] = qd.sqrt(v * v + 1)
        o[i, 1] = qd.sin(v) * qd.cos(v)
        o[i, 2] = qd.exp(-v * v)
        o[i, 3] = qd.atan2(v, qd.f64(2.0))
        o[i, 4] = qd.floor(v * 3.0) + qd.round(v)
