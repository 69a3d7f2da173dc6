"""Every dtype i8..u64, f32, f64 in arguments, arithmetic (wraparound per type) and casts."""

import quadrants as qd

I64_1 = qd.types.NDArray[qd.i64, 1]
F64_1 = qd.types.NDArray[qd.f64, 1]


@qd.kernel
def small_ints(a8: qd.types.NDArray[qd.i8, 1], a16: qd.types.NDArray[qd.i16, 1],
               b8: qd.types.NDArray[qd.u8, 1], b16: qd.types.NDArray[qd.u16, 1],
               o8: qd.types.NDArray[qd.i8, 1], o16: qd.types.NDArray[qd.i16, 1],
               p8: qd.types.NDArray[qd.u8, 1], p16: qd.types.NDArray[qd.u16, 1], wide: I64_1) -> None:
    for i in range(a8.shape[0]):
        x = a8[i]
        o8[i] = x + x            # i8 + i8 stays i8: wraps
        o16[i] = a16[i] * a16[i]  # i16 wraps
        p8[i] = b8[i] + b8[i]     # u8 wraps modulo 256
        p16[i] = b16[i] - b16[i] - b16[i]  # u16 wraps below zero
        wide[i] = x + 1           # i8 + i32 literal -> i32: no wrap at 8 bits


@qd.kernel
def big_ints(a32: qd.types.NDArray[qd.i32, 1], a64: I64_1, b32: qd.types.NDArray[qd.u32, 1],
             b64: qd.types.NDArray[qd.u64, 1], o32: qd.types.NDArray[qd.i32, 1], o64: I64_1,
             p32: qd.types.NDArray[qd.u32, 1], p64: qd.types.NDArray[qd.u64, 1]) -> None:
    for i in range(a32.shape[0]):
        o32[i] = a32[i] * 65537 + 2147483647    # i32 wraparound
        o64[i] = a64[i] * a64[i] - a64[i]        # i64
        p32[i] = b32[i] * qd.u32(3) + qd.u32(7)  # u32 wraps
        p64[i] = b64[i] * b64[i] + b64[i]        # u64 wraps


@qd.kernel
def scalar_args(a: qd.i8, b: qd.i16, c: qd.i32, d: qd.i64, e: qd.u8, f: qd.u16, g: qd.u32, h: qd.u64,
                x: qd.f32, y: qd.f64, oi: I64_1, of: F64_1) -> None:
    oi[0] = a
    oi[1] = b
    oi[2] = c
    oi[3] = d
    oi[4] = e
    oi[5] = f
    oi[6] = g
    oi[7] = h
    oi[8] = a + b + c        # promoted to i32
    oi[9] = d + e            # i64
    oi[10] = g + c           # i32 + u32 -> u32 (wraps when negative)
    of[0] = x
    of[1] = y
    of[2] = x + y            # f32 + f64 -> f64
    of[3] = x * 3            # f32


@qd.kernel
def casts(f: F64_1, oi: qd.types.NDArray[qd.i32, 1], ou8: qd.types.NDArray[qd.u8, 1],
          oi8: qd.types.NDArray[qd.i8, 1], ob: qd.types.NDArray[qd.i32, 1], of32: qd.types.NDArray[qd.f32, 1],
          ou: qd.types.NDArray[qd.u32, 1]) -> None:
    for i in range(f.shape[0]):
        v = f[i]
        oi[i] = qd.cast(v, qd.i32)            # truncation toward zero
        w = qd.i32(v) * 37
        ou8[i] = qd.cast(w, qd.u8)            # wraps modulo 256
        oi8[i] = qd.i8(w)                      # wraps into [-128, 127]
        ob[i] = qd.cast(w, qd.u1) + bool(w - 37)  # u1 is != 0
        of32[i] = qd.f32(v) * 0.1              # f32 arithmetic after the cast
        ou[i] = qd.cast(qd.cast(v, qd.i32), qd.u32)  # negative i32 -> u32 reinterprets modulo 2^32


@qd.kernel
def int_float_conv(a: qd.types.NDArray[qd.i64, 1], u: qd.types.NDArray[qd.u32, 1], of: F64_1,
                   og: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in range(a.shape[0]):
        of[i] = qd.f64(a[i]) + qd.cast(u[i], qd.f64)  # SIToFP / UIToFP by source signedness
        og[i] = float(a[i] % 1000) + int(2.75)         # float() -> f32; int(python float) folds


@qd.kernel
def f64_precision(x: qd.f64, out: F64_1) -> None:
    a = qd.f64(0.1)       # keeps double precision
    b: qd.f64 = 0.1       # the f32 literal 0.1 converted to f64
    c = x * 0.1           # literal rounded to f32, product in f64
    out[0] = a
    out[1] = b
    out[2] = c
    out[3] = a * x + qd.f64(1.0) / 3
    out[4] = 1 / 3        # folded in Python, stored as f32 constant then converted
