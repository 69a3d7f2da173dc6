"""More combinations: reductions of every atomic operator into kernel-scope locals of several
dtypes (incl. a vector local), atomic min/max on locals, ndrange loops nested in serial code,
funcs returning vectors chosen by qd.static, a negative i32 return; `mix`: plain assignment to
template parameters, ndrange with negative begins, a reduction in an inner loop, a local rescaled
in a serial task between loops, u1 outputs, a u64 range bound."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]
vec3 = qd.types.vector(3, qd.f32)
SCALES = (1.0, -2.0, 0.5)


@qd.kernel
def ret_i32_neg(a: qd.i32) -> qd.i32:
    return a - 10


@qd.kernel
def local_reductions(x: I32_1, f: F32_1, out: qd.types.NDArray[qd.i64, 1]) -> qd.i32:
    s = 0
    d = 100
    band = -1
    bor = 0
    bxor = 0
    wide = qd.i64(0)
    lo = 1 << 30
    hi = -(1 << 30)
    fs = 0.0
    acc = qd.Vector([0.0, 0.0, 0.0])
    for i in range(x.shape[0]):
        s += x[i]
        d -= x[i]
        band &= x[i] | 0x100
        bor |= x[i] & 0xF0
        bxor ^= x[i]
        wide += qd.i64(x[i]) * qd.i64(1 << 20) * qd.i64(1 << 20)
        qd.atomic_min(lo, x[i])
        qd.atomic_max(hi, x[i])
        fs += f[i]
        acc += qd.Vector([f[i], -f[i], 2.0 * f[i]])
    out[0] = s
    out[1] = d
    out[2] = band
    out[3] = bor
    out[4] = bxor
    out[5] = wide
    out[6] = lo
    out[7] = hi
    out[8] = qd.cast(fs * 4, qd.i64)
    out[9] = qd.cast(acc.sum() * 4 + acc[1] * 1000, qd.i64)
    return s - d


@qd.kernel
def serial_ndrange(a: qd.types.NDArray[qd.i32, 2], flag: qd.i32) -> qd.i32:
    n = 0
    if flag > 0:                               # not top level: runs serially
        for i, j in qd.ndrange(a.shape[0], (1, a.shape[1])):
            a[i, j] = a[i, j - 1] + i + j      # sequential order: reads the previous column
            n += 1
    else:
        for I in qd.grouped(qd.ndrange(a.shape[0], a.shape[1])):
            a[I] = -1
    k = 0
    while k < a.shape[0]:
        for j in range(k, a.shape[1]):         # range(begin, end) in a while, may be empty
            n += a[k, j] % 3
        k += 1
    return n


@qd.func
def pick(v: vec3, mode: qd.template()) -> vec3:
    r = v
    if qd.static(mode == 0):
        r = v * SCALES[0]
    elif qd.static(mode == 1):
        r = qd.Vector([v.z, v.x, v.y]) * SCALES[1]
    else:
        r = v.cross(qd.Vector([SCALES[0], SCALES[1], SCALES[2]]))
    return r


@qd.kernel
def static_func_vectors(p: qd.types.NDArray[vec3, 1], out: qd.types.NDArray[vec3, 2]) -> None:
    for i in range(p.shape[0]):
        for m in qd.static(range(3)):
            out[i, m] = pick(p[i], m)


@qd.kernel
def casts_neg(f: F32_1, o: I32_1, ou: qd.types.NDArray[qd.u8, 1],
              o64: qd.types.NDArray[qd.i64, 1]) -> None:
    for i in range(f.shape[0]):
        o[i * 4 + 0] = int(f[i])               # truncation toward zero
        o[i * 4 + 1] = qd.cast(f[i] * 3, qd.i32)
        o[i * 4 + 2] = qd.floor(f[i], qd.i32)
        o[i * 4 + 3] = qd.round(f[i], qd.i32)
        ou[i] = qd.cast(qd.cast(f[i] * 10, qd.i32), qd.u8)     # i32 -> u8 wraps
        o64[i] = qd.cast(f[i], qd.i64) * qd.i64(3000000000)


@qd.func
def assign_ref(a: qd.template(), b: qd.template()):
    t = a
    a = b                                      # rebinding assignment through the reference
    b = t


@qd.kernel
def mix(x: I32_1, out: I32_1, flags: qd.types.NDArray[qd.u1, 1], lo: qd.i32,
              n: qd.u64) -> qd.i32:
    for i in range(x.shape[0]):
        p = x[i]
        q = -i
        assign_ref(p, q)
        out[i * 2 + 0] = p
        out[i * 2 + 1] = q
        flags[i] = p > q
    total = 0
    for i, j in qd.ndrange((lo, 0), (lo, lo + 2)):
        out[20 + (i - lo) * 2 + (j - lo)] = i * j
    for i in range(x.shape[0]):
        for k in range(i):
            total += k * x[i]
    total *= 3
    cnt = 0
    for i in range(n):
        cnt += i
    return total * 1000 + cnt
