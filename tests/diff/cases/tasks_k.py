"""Several top-level loops: kernel-scope locals carried across tasks, the += reduction idiom, a
serial task reading a reduction, a dynamic bound computed by an earlier task, scalar returns."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]


@qd.kernel
def sum_then_scale(x: F32_1, y: F32_1) -> qd.f32:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]                      # reduction into a kernel-scope local
    mean = s / x.shape[0]              # serial task reads it
    for i in range(x.shape[0]):
        y[i] = x[i] - mean             # the next parallel task uses it
    return mean


@qd.kernel
def count_then_fill(x: I32_1, out: I32_1) -> qd.i32:
    n = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            n += 1
    m = n * 2 - 1                      # dynamic bound from the previous task
    for j in range(m):
        out[j] = j + n
    k = 0
    for j in range(m, out.shape[0]):
        k += 1
    return k * 1000 + n


@qd.kernel
def ret_i64(x: qd.types.NDArray[qd.i64, 1]) -> qd.i64:
    total = qd.i64(0)
    for i in range(x.shape[0]):
        total += x[i] * x[i]
    return total


@qd.kernel
def ret_f64(x: qd.types.NDArray[qd.f64, 1]) -> qd.f64:
    acc = qd.f64(0.0)
    for i in range(x.shape[0]):
        acc += x[i]
    return acc * 0.5


@qd.kernel
def ret_cast(a: qd.i32, b: qd.i32) -> qd.i32:
    return a / b * 10                  # f32 result cast to i32 on return


@qd.kernel
def ret_u8(a: qd.i32) -> qd.u8:
    return a * 3                       # wraps on return


@qd.kernel
def ret_float_of_int(a: qd.i32) -> qd.f32:
    return a // 3                      # i32 cast to f32 on return


@qd.kernel
def serial_only(a: qd.i32, out: I32_1) -> qd.i32:
    x = a
    y = 1
    while x > 1:
        y *= x                         # *= is a plain multiply (serial task)
        x -= 1
    out[0] = y
    return x + y


@qd.kernel
def minmax_reduce(x: I32_1) -> qd.i32:
    lo = 1 << 30
    hi = -(1 << 30)
    for i in range(x.shape[0]):
        qd.atomic_min(lo, x[i])
        qd.atomic_max(hi, x[i])
    return hi - lo


@qd.kernel
def multi_reduce(x: F32_1, stats: F32_1) -> qd.i32:
    total = 0.0
    sq = 0.0
    cnt = 0
    for i in range(x.shape[0]):
        total += x[i]
        sq += x[i] * x[i]
        cnt += 1
    stats[0] = total
    stats[1] = sq
    neg = 0
    for i in range(x.shape[0]):
        if x[i] < total / cnt:
            neg -= 1
    stats[2] = neg
    return cnt
