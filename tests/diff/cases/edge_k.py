"""Edge cases of the typing rules: implicit casts in atomic augmented assignment, ternaries and
and/or across dtypes, popcnt's type, u1 arithmetic, float-to-int on store."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]


@qd.kernel
def aug_int_float(x: F32_1, o: I32_1) -> None:
    for i in range(x.shape[0]):
        n = -3 + i
        n += x[i]                         # i32 += f32 (an atomic add on a local)
        m = 10
        m -= x[i] * 3
        k = 7
        k *= x[i]                         # not atomic: i32 * f32 -> f32, then cast
        o[i * 3 + 0] = n
        o[i * 3 + 1] = m
        o[i * 3 + 2] = k


@qd.kernel
def mixed_select(a: I32_1, f: F32_1, o: F32_1, oi: I32_1) -> None:
    for i in range(a.shape[0]):
        o[i] = a[i] if a[i] > 0 else f[i]          # i32 / f32 ternary -> f32
        oi[i] = (a[i] and 7) + (a[i] or 100) * 10  # and/or with literals
        u = qd.u8(200) if a[i] > 0 else qd.u8(100)
        u += qd.u8(100)                             # u8 wraps
        oi[i] += u * 1000


@qd.kernel
def bool_arith(a: I32_1, o: I32_1) -> None:
    for i in range(a.shape[0]):
        p = a[i] > 0
        q = a[i] % 2 == 0
        o[i * 4 + 0] = p + q              # u1 + u1 -> u1 (wraps: 1 + 1 == 0)
        o[i * 4 + 1] = p * 1 + q          # i32
        o[i * 4 + 2] = p & q
        o[i * 4 + 3] = qd.math.popcnt(qd.u32(a[i] * 255)) + 0


@qd.kernel
def store_truncation(x: qd.types.NDArray[qd.f64, 1], o8: qd.types.NDArray[qd.i8, 1],
                     o16: qd.types.NDArray[qd.u16, 1], o64: qd.types.NDArray[qd.i64, 1]) -> None:
    for i in range(x.shape[0]):
        o8[i] = x[i]                      # f64 -> i8 on store (truncates; values in range)
        o16[i] = x[i] * 2 + 300           # f64 -> u16
        o64[i] = x[i] * 1e9               # f32 literal 1e9 then f64 multiply, then i64
