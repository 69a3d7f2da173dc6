"""Integer and float arithmetic across dtypes: every augmented operator on locals and array
elements, wraparound in i8/i16/u8/u16/i64/u64, shifts per width, // and % with negative operands
for every integer width, float // and % with negative operands, ** with negative exponents, f64
math, mixed-type ternaries and boolean operators."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]
F64_1 = qd.types.NDArray[qd.f64, 1]


@qd.kernel
def aug_locals(x: I32_1, f: F32_1, out: I32_1, of: F32_1) -> None:
    for i in range(x.shape[0]):
        a = x[i]
        a += 7
        a -= 3
        a *= -5
        a //= 3
        a %= 11
        a <<= 2
        a >>= 1
        a &= 0x3D
        a |= 0x40
        a ^= 0x15
        a **= 2
        out[i * 3 + 0] = a
        b = x[i]
        b //= -4                               # floor towards -inf
        b %= -3                                # sign of the divisor
        out[i * 3 + 1] = b
        c = x[i]
        c /= 2                                 # f32 result cast back to i32 (truncation)
        out[i * 3 + 2] = c
        g = f[i]
        g += 1.5
        g -= 0.25
        g *= -2.0
        g /= 4.0
        g //= 0.5
        g %= 3.0
        g **= 2
        of[i * 2 + 0] = g
        h = f[i]
        h %= -1.5
        of[i * 2 + 1] = h


@qd.kernel
def aug_elements(a: I32_1, b: qd.types.NDArray[qd.i16, 1], f: F32_1) -> None:
    for i in range(1):                         # one thread: the order of the updates is fixed
        a[0] += 9
        a[1] -= 20
        a[2] *= -3
        a[3] //= -4
        a[4] %= -5
        a[5] <<= 3
        a[6] >>= 2
        a[7] &= 12
        a[8] |= 5
        a[9] ^= -1
        a[10] **= 3
        a[11] /= 4
        b[0] += 30000                          # i16 wraps
        b[1] -= 30000
        b[2] *= 300
        b[3] //= -7
        b[4] %= 7
        b[5] <<= 4
        b[6] >>= 1
        f[0] += 0.5
        f[1] -= 2.25
        f[2] *= -1.5
        f[3] /= 8.0
        f[4] //= 0.75
        f[5] %= -0.75
        f[6] **= -2
    for i in range(a.shape[0]):                # parallel, loop-unique elements
        a[i] += i


@qd.kernel
def wrap_small(a8: qd.types.NDArray[qd.i8, 1], u8: qd.types.NDArray[qd.u8, 1],
               a16: qd.types.NDArray[qd.i16, 1], u16: qd.types.NDArray[qd.u16, 1],
               o8: qd.types.NDArray[qd.i8, 1], ou8: qd.types.NDArray[qd.u8, 1],
               o16: qd.types.NDArray[qd.i16, 1], ou16: qd.types.NDArray[qd.u16, 1]) -> None:
    for i in range(a8.shape[0]):
        x = a8[i]
        x += qd.i8(100)                        # i8 + i8: wraps in i8
        o8[i * 3 + 0] = x
        o8[i * 3 + 1] = a8[i] * qd.i8(3) - qd.i8(7)
        o8[i * 3 + 2] = -a8[i]                 # -(-128) wraps to -128
        y = u8[i]
        y -= qd.u8(200)
        ou8[i * 3 + 0] = y
        ou8[i * 3 + 1] = u8[i] * qd.u8(7)
        ou8[i * 3 + 2] = u8[i] + 300           # promoted to i32, truncated on store
        z = a16[i]
        z *= qd.i16(1000)
        o16[i * 2 + 0] = z
        o16[i * 2 + 1] = a16[i] - qd.i16(30000) - qd.i16(30000)
        w = u16[i]
        w += qd.u16(60000)
        ou16[i * 2 + 0] = w
        ou16[i * 2 + 1] = u16[i] * u16[i]


@qd.kernel
def wrap_wide(a: qd.types.NDArray[qd.i64, 1], u: qd.types.NDArray[qd.u64, 1],
              o: qd.types.NDArray[qd.i64, 1], ou: qd.types.NDArray[qd.u64, 1]) -> qd.i64:
    h = qd.i64(0)
    for i in range(a.shape[0]):
        s = a[i]
        for k in range(4):                     # an LCG: wraps in i64
            s = s * qd.i64(6364136223846793005) + qd.i64(1442695040888963407)
        o[i * 2 + 0] = s
        o[i * 2 + 1] = a[i] * qd.i64(4611686018427387904)
        t = u[i]
        t = t * qd.u64(2862933555777941757) + qd.u64(3037000493)
        ou[i * 2 + 0] = t
        ou[i * 2 + 1] = u[i] - qd.u64(1)       # 0 - 1 wraps to 2^64 - 1
        h ^= s
    return h


@qd.kernel
def shifts_widths(a8: qd.types.NDArray[qd.i8, 1], u8: qd.types.NDArray[qd.u8, 1],
                  a16: qd.types.NDArray[qd.i16, 1], u16: qd.types.NDArray[qd.u16, 1],
                  a64: qd.types.NDArray[qd.i64, 1], u64: qd.types.NDArray[qd.u64, 1],
                  out: qd.types.NDArray[qd.i64, 1]) -> None:
    for i in range(a8.shape[0]):
        s = i + 1                              # shift counts 1..n, below every width
        out[i * 8 + 0] = a8[i] >> s            # arithmetic
        out[i * 8 + 1] = u8[i] >> s            # logical
        out[i * 8 + 2] = a16[i] >> s
        out[i * 8 + 3] = u16[i] >> s
        out[i * 8 + 4] = a64[i] >> (s * 9)
        out[i * 8 + 5] = qd.cast(u64[i] >> (s * 9), qd.i64)
        out[i * 8 + 6] = a8[i] << s            # i8 result: wraps
        out[i * 8 + 7] = a64[i] << (s * 7)


@qd.kernel
def divmod_widths(a16: qd.types.NDArray[qd.i16, 1], b16: qd.types.NDArray[qd.i16, 1],
                  a32: I32_1, b32: I32_1,
                  a64: qd.types.NDArray[qd.i64, 1], b64: qd.types.NDArray[qd.i64, 1],
                  ua: qd.types.NDArray[qd.u32, 1], ub: qd.types.NDArray[qd.u8, 1],
                  u16a: qd.types.NDArray[qd.u16, 1], out: qd.types.NDArray[qd.i64, 1]) -> None:
    for i in range(a16.shape[0]):
        out[i * 12 + 0] = a16[i] // b16[i]
        out[i * 12 + 1] = a16[i] % b16[i]
        out[i * 12 + 2] = a32[i] // b32[i]
        out[i * 12 + 3] = a32[i] % b32[i]
        out[i * 12 + 4] = a64[i] // b64[i]
        out[i * 12 + 5] = a64[i] % b64[i]
        out[i * 12 + 6] = ua[i] // ub[i]       # u32 // u8: unsigned
        out[i * 12 + 7] = ua[i] % ub[i]
        out[i * 12 + 8] = u16a[i] // ub[i]     # u16 // u8: unsigned u16
        out[i * 12 + 9] = u16a[i] % b16[i]     # u16 % i16: u16 (unsigned wins at equal width)
        out[i * 12 + 10] = qd.raw_div(a32[i], b32[i])   # C semantics
        out[i * 12 + 11] = qd.raw_mod(a32[i], b32[i])


@qd.kernel
def divmod_i8(a: qd.types.NDArray[qd.i8, 1], b: qd.types.NDArray[qd.i8, 1],
              o: qd.types.NDArray[qd.i8, 1], o32: I32_1) -> None:
    # Real Quadrants 1.3.3 computes i8 // and % wrongly (README); the expected values are
    # docs/language.md's Python semantics.
    for i in range(a.shape[0]):
        o[i * 2 + 0] = a[i] // b[i]
        o[i * 2 + 1] = a[i] % b[i]
        o32[i * 3 + 0] = a[i] // qd.i8(-3)
        o32[i * 3 + 1] = a[i] % qd.i8(-3)
        o32[i * 3 + 2] = qd.raw_div(a[i], b[i])


@qd.kernel
def float_floor_mod(a: F32_1, b: F32_1, c: F64_1, d: F64_1, o: F32_1, o64: F64_1) -> None:
    for i in range(a.shape[0]):
        o[i * 2 + 0] = a[i] // b[i]
        o[i * 2 + 1] = a[i] % b[i]
        o64[i * 3 + 0] = c[i] // d[i]
        o64[i * 3 + 1] = c[i] % d[i]
        o64[i * 3 + 2] = c[i] // 2 + a[i] % 3  # f64 with i32 and f32 operands


@qd.kernel
def neg_pow(a: F32_1, c: F64_1, o: F32_1, o64: F64_1) -> None:
    for i in range(a.shape[0]):
        o[i * 4 + 0] = a[i] ** -2              # integer exponent: 1 / (a*a)
        o[i * 4 + 1] = a[i] ** -3
        o[i * 4 + 2] = qd.abs(a[i]) ** -0.5   # float exponent: pow
        o[i * 4 + 3] = qd.abs(a[i]) ** 1.5
        o64[i * 3 + 0] = c[i] ** -1
        o64[i * 3 + 1] = c[i] ** -4
        o64[i * 3 + 2] = qd.abs(c[i]) ** qd.f64(-1.25)


@qd.kernel
def f64_math(x: F64_1, o: F64_1) -> None:
    for i in range(x.shape[0]):
        v = x[i]
        o[i * 10 + 0] = qd.sqrt(qd.abs(v))
        o[i * 10 + 1] = qd.exp(v / 4)
        o[i * 10 + 2] = qd.log(qd.abs(v) + qd.f64(1.0))
        o[i * 10 + 3] = qd.sin(v) * qd.cos(v)
        o[i * 10 + 4] = qd.atan2(v, qd.f64(2.0))
        o[i * 10 + 5] = qd.floor(v) + qd.ceil(v)
        o[i * 10 + 6] = qd.round(v)
        o[i * 10 + 7] = qd.tanh(v)
        o[i * 10 + 8] = qd.max(v, qd.f64(0.5)) - qd.min(v, qd.f64(-0.5))
        o[i * 10 + 9] = v * qd.f64(0.1) + qd.f64(1e-10)


@qd.kernel
def bool_ops(x: I32_1, f: F32_1, out: I32_1) -> None:
    for i in range(x.shape[0]):
        a = x[i]
        out[i * 6 + 0] = a and 7               # returns 7 when a != 0, else a
        out[i * 6 + 1] = a or -3
        out[i * 6 + 2] = not a
        out[i * 6 + 3] = (a > 0 and f[i] > 0) or (a < -5)
        out[i * 6 + 4] = (a if a > f[i] else -a) * 2            # i32 ternary
        out[i * 6 + 5] = qd.cast((f[i] if a > 0 else a) * 4, qd.i32)  # i32/f32 ternary: f32
