"""Literals, promotion, Python-semantics // and %, / on integers, shifts by signedness, **,
bit operations, u1 comparisons, chained comparisons, and/or values, ternaries, walrus, swaps."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]


@qd.kernel
def div_mod_signed(a: I32_1, b: I32_1, q: I32_1, r: I32_1, t: F32_1, rq: I32_1, rr: I32_1) -> None:
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        t[i] = a[i] / b[i]
        rq[i] = qd.raw_div(a[i], b[i])   # C division
        rr[i] = qd.raw_mod(a[i], b[i])   # C remainder


@qd.kernel
def div_mod_unsigned(a: qd.types.NDArray[qd.u32, 1], b: qd.types.NDArray[qd.u32, 1],
                     q: qd.types.NDArray[qd.u32, 1], r: qd.types.NDArray[qd.u32, 1],
                     s: qd.types.NDArray[qd.i64, 1]) -> None:
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        s[i] = (a[i] - b[i]) % 7      # u32 wraps first, then the unsigned remainder


@qd.kernel
def div_mod_float(x: F32_1, y: F32_1, q: F32_1, r: F32_1, t: F32_1) -> None:
    for i in range(x.shape[0]):
        q[i] = x[i] // y[i]           # floor(x / y)
        r[i] = x[i] % y[i]            # sign of the divisor
        t[i] = x[i] / y[i]


@qd.kernel
def shifts(a: I32_1, u: qd.types.NDArray[qd.u32, 1], s8: qd.types.NDArray[qd.i8, 1], oa: I32_1,
           ob: I32_1, ou: qd.types.NDArray[qd.u32, 1], ov: qd.types.NDArray[qd.u32, 1],
           o8: qd.types.NDArray[qd.i8, 1], ol: I32_1) -> None:
    for i in range(a.shape[0]):
        oa[i] = a[i] >> 3             # arithmetic for signed
        ob[i] = a[i] << 4             # wraps at 32 bits
        ou[i] = u[i] >> 3             # logical for unsigned
        ov[i] = u[i] << (i + 1)
        o8[i] = s8[i] >> 2            # i8 arithmetic shift
        ol[i] = qd.bit_shr(a[i], 28) if qd.static(False) else (a[i] >> 28) & 0xF


@qd.kernel
def powers(a: I32_1, x: F32_1, oi: I32_1, of: F32_1, og: F32_1, ou: qd.types.NDArray[qd.u8, 1]) -> None:
    for i in range(a.shape[0]):
        oi[i] = a[i] ** 3             # integer power: i32, wraps
        of[i] = x[i] ** 2             # f32 base, int exponent: repeated squaring
        og[i] = x[i] ** -2            # negative exponent: 1 / (x*x)
        ou[i] = qd.cast(a[i] + 3, qd.u8) ** 5   # u8 ** i32 -> u8 (wraps mod 256)


@qd.kernel
def float_pow(x: F32_1, y: F32_1, out: F32_1, fi: F32_1) -> None:
    for i in range(x.shape[0]):
        out[i] = x[i] ** y[i]
        fi[i] = 2 ** x[i]             # i32 base, f32 exponent -> f32 pow


@qd.kernel
def bits(a: I32_1, b: I32_1, o_and: I32_1, o_or: I32_1, o_xor: I32_1, o_not: I32_1,
         u: qd.types.NDArray[qd.u16, 1], o_u: qd.types.NDArray[qd.u16, 1]) -> None:
    for i in range(a.shape[0]):
        o_and[i] = a[i] & b[i]
        o_or[i] = a[i] | b[i]
        o_xor[i] = a[i] ^ b[i]
        o_not[i] = ~a[i]
        o_u[i] = ~u[i] ^ qd.u16(0x0F0F)


@qd.kernel
def promotion(a: qd.types.NDArray[qd.i8, 1], u: qd.types.NDArray[qd.u8, 1], w: qd.types.NDArray[qd.u32, 1],
              o: qd.types.NDArray[qd.f64, 1]) -> None:
    # Stores into f64 show the promoted computation types.
    o[0] = a[0] * 100              # i8 * i32 literal -> i32 (no 8-bit wrap)
    o[1] = a[0] * a[0]             # i8 * i8 wraps at 8 bits
    o[2] = u[0] + a[0]             # u8 + i8: equal width, unsigned wins: u8
    o[3] = w[0] + a[0]             # u32 + i8 -> u32
    o[4] = w[0] > -1               # u32 vs i32 literal compared as u32: False
    o[5] = a[0] / 8                # i8 / i32 -> f32
    o[6] = 7 / 2 + a[0]            # 7/2 folds to 3.5 in Python
    o[7] = 1 / 3 * 3.0             # all compile-time
    o[8] = 16777217 + 0.0          # Python int + float folds to 16777217.0, then f32
    o[9] = a[0] + 0.1              # i8 + f32 literal -> f32
    o[10] = qd.f64(0.1) + a[0]     # f64
    o[11] = (a[0] > 0) + (a[0] < 0) + 5   # u1 + u1 + i32


@qd.kernel
def compare_logic(x: I32_1, y: I32_1, lt: I32_1, chain: I32_1, a_and: I32_1, a_or: I32_1,
                  nots: I32_1, tern: F32_1) -> None:
    for i in range(x.shape[0]):
        lt[i] = (x[i] < y[i]) + (x[i] == y[i]) * 2 + (x[i] != y[i]) * 4
        chain[i] = 0 <= x[i] < y[i] <= 10
        a_and[i] = x[i] and y[i]       # returns y when x is true, else x
        a_or[i] = x[i] or y[i] * 10    # returns x when true, else y*10
        nots[i] = (not x[i]) + (not (x[i] > 2)) * 2
        tern[i] = 1.5 if x[i] > y[i] else x[i] - y[i]   # ternary: promoted type f32


@qd.kernel
def walrus_swap(x: I32_1, a: I32_1, b: I32_1, w: I32_1) -> None:
    for i in range(x.shape[0]):
        p = x[i]
        q = p * 2 + 1
        p, q = q, p                   # the RHS is copied first
        a[i] = p
        b[i] = q
        c = d = p - q                 # chained assignment, evaluated once
        if (t := c * d) > 10:
            w[i] = t
        else:
            w[i] = -t


@qd.kernel
def aug_assign(x: I32_1, f: F32_1, oi: I32_1, of: F32_1) -> None:
    for i in range(x.shape[0]):
        v = x[i]
        v += 3
        v -= 1
        v *= 5
        v //= 2
        v %= 1000
        v <<= 2
        v >>= 1
        v |= 1
        v &= 0xFFF
        v ^= 0x55
        v **= 2
        oi[i] = v
        g = f[i]
        g += 1                        # i32 literal: f32 + i32 -> f32
        g *= 1.5
        g /= 4
        g //= 0.5
        g -= 0.25
        g %= 3.0
        of[i] = g


@qd.kernel
def aug_cast(x: F32_1, oi: I32_1, ou: qd.types.NDArray[qd.u8, 1]) -> None:
    for i in range(x.shape[0]):
        n = 10
        n *= x[i]                     # i32 * f32 -> f32, cast back to i32 (truncates)
        n /= 3                        # i32 / i32 -> f32, cast back to i32
        oi[i] = n
        k = qd.u8(250)
        k += qd.cast(i, qd.u8) * qd.u8(3)   # u8 wraps
        ou[i] = k
