"""Feature combinations (issue 5: tier-1 features "in any combination"): nested qd.func calls
with qd.template() parameters mutating the caller's locals, qd.static for over enumerate/zip of
module tuples, qd.static if on template bools inside funcs, ndrange/grouped with runtime
(begin, end) bounds in 3 dims, while/break/continue inside parallel loops, continue with
reductions, walrus, chained mixed-type comparisons, many tasks carrying values, small returns."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]
I32_3 = qd.types.NDArray[qd.i32, 3]

COEFFS = (3, -2, 5)
OFFSETS = (1, 4, -7)
WEIGHTS = (0.5, 0.25, -1.0, 2.0)
DOUBLE_IT = True


# --- nested funcs, template (by-reference) parameters -------------------------------------------

@qd.func
def add_into(acc: qd.template(), d: qd.i32):
    acc += d                                   # writes the caller's local


@qd.func
def twice_into(acc: qd.template(), d):
    add_into(acc, d)                           # passes the reference on
    add_into(acc, d * 10)


@qd.func
def mutate_pair(a: qd.template(), b: qd.template(), by_value: qd.i32) -> qd.i32:
    twice_into(a, by_value)
    b *= 2                                     # non-atomic op through the reference
    by_value += 1000                           # a copy: the caller's variable is untouched
    return a + b + by_value


@qd.func
def bump_vec(v: qd.template(), k: qd.i32):
    v[0] += k                                  # a component of the caller's vector local
    v[2] -= k


@qd.kernel
def nested_ref(x: I32_1, out: I32_1) -> None:
    for i in range(x.shape[0]):
        a = x[i]
        b = i + 1
        c = 5
        r = mutate_pair(a, b, c)
        v = qd.Vector([a, b, c])
        bump_vec(v, i)
        out[i * 7 + 0] = a                     # x[i] + 11 * c
        out[i * 7 + 1] = b                     # 2 * (i + 1)
        out[i * 7 + 2] = c                     # 5
        out[i * 7 + 3] = r
        out[i * 7 + 4] = v[0]
        out[i * 7 + 5] = v[1]
        out[i * 7 + 6] = v[2]


# --- qd.static for over enumerate / zip of module tuples ------------------------------------------

@qd.kernel
def static_zip_enum(x: I32_1, out: I32_1, of: F32_1) -> None:
    for i in range(x.shape[0]):
        acc = 0
        for k, co in qd.static(enumerate(zip(COEFFS, OFFSETS))):
            acc += (k + 1) * (co[0] * x[i] + co[1])
        for c, o in qd.static(zip(COEFFS, OFFSETS)):
            if qd.static(c > 0):
                acc = acc * c - o
        out[i] = acc
        w = 0.0
        for j, wt in qd.static(enumerate(WEIGHTS)):
            if qd.static(j % 2 == 0):
                w += wt * x[i]
            else:
                w -= wt
        of[i] = w


# --- qd.static if on template bools inside funcs -----------------------------------------------------

@qd.func
def shaped(x: qd.i32, neg: qd.template(), dbl: qd.template()) -> qd.i32:
    y = x
    if qd.static(neg):
        y = -y
    if qd.static(dbl and DOUBLE_IT):
        y = y * 2
    else:
        y = y + 1
    return y


@qd.kernel
def static_if_funcs(x: I32_1, out: I32_1) -> None:
    for i in range(x.shape[0]):
        out[i * 4 + 0] = shaped(x[i], False, False)
        out[i * 4 + 1] = shaped(x[i], True, False)
        out[i * 4 + 2] = shaped(x[i], False, True)
        out[i * 4 + 3] = shaped(x[i], True, True)


# --- ndrange / grouped with runtime (begin, end) bounds in 3 dims -------------------------------------

@qd.kernel
def ndrange_bounds3(a: I32_3, b0: qd.i32, e0: qd.i32, b1: qd.i32, e1: qd.i32, b2: qd.i32,
                    e2: qd.i32) -> qd.i32:
    n = 0
    for i, j, k in qd.ndrange((b0, e0), (b1, e1), (b2, e2)):
        a[i, j, k] = i * 100 + j * 10 + k
        n += 1
    return n


@qd.kernel
def grouped_bounds3(a: I32_3, s: I32_1, lo: qd.i32) -> qd.i32:
    total = 0
    for I in qd.grouped(qd.ndrange((lo, a.shape[0]), a.shape[1], (1, a.shape[2]))):
        a[I] = I[0] * 100 + I[1] * 10 + I[2] + I.sum()
        total += I[0] * I[1] - I[2]
        qd.atomic_add(s[I[2]], 1)
    return total


# --- while / break / continue inside parallel loops ----------------------------------------------------

@qd.kernel
def while_in_parallel(x: I32_1, steps: I32_1, odd_seen: I32_1) -> None:
    for i in range(x.shape[0]):
        v = x[i]
        n = 0
        odd = 0
        while True:
            if v <= 1:
                break
            n += 1
            if v % 2 == 0:
                v //= 2
                continue
            odd += 1
            v = 3 * v + 1
            if n > 50:
                break
        steps[i] = n
        odd_seen[i] = odd


@qd.kernel
def continue_reduce(x: I32_1, marks: I32_1) -> qd.i32:
    total = 0
    count = 0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue                           # continue in the parallel loop
        if x[i] % 3 == 0:
            marks[i] = -1
            continue
        for k in range(4):                     # inner loop with continue and break
            if k == 1:
                continue
            if k == 3 and x[i] > 10:
                break
            total += x[i] * k
        count += 1
        marks[i] = 1
    return total * 100 + count


# --- walrus, chained comparisons with mixed types ---------------------------------------------------------

@qd.kernel
def walrus_chain(x: I32_1, f: F32_1, u: qd.types.NDArray[qd.u8, 1], out: I32_1) -> None:
    for i in range(x.shape[0]):
        r = 0
        if (y := x[i] * 2) > 5:
            r += y
        k = x[i]
        m = 0
        while (k := k - 3) > 0:
            m += 1
        out[i * 5 + 0] = r
        out[i * 5 + 1] = m
        out[i * 5 + 2] = -2 < x[i] <= f[i] < 7.5          # i32 vs f32 chained
        out[i * 5 + 3] = u[i] >= 200 > x[i] != -1          # u8, literal, i32
        out[i * 5 + 4] = (0 <= x[i] < 4) + (f[i] > x[i] > u[i]) * 2


# --- many tasks carrying values -----------------------------------------------------------------------------

@qd.kernel
def five_tasks(x: I32_1, out: I32_1, hist: I32_1) -> qd.i32:
    total = 0
    big = 0
    for i in range(x.shape[0]):                # task 1: two reductions
        total += x[i]
        if x[i] > 5:
            big += 1
    m = total % 7 + 3                          # task 2 (serial): bound for task 3
    base = big * 100
    for j in range(m):                         # task 3: dynamic bound
        out[j] = base + j
    acc = 0
    for j in range(big, m + big):              # task 4: runtime (begin, end)
        acc += out[j - big] % 10
        hist[j % hist.shape[0]] += 1
    extra = 0
    for i, j in qd.ndrange(big, (1, m)):       # task 5: ndrange with carried bounds
        extra += i + j
    return acc * 10000 + extra * 10 + m


# --- small return types ------------------------------------------------------------------------------------

@qd.kernel
def ret_bool(x: I32_1, t: qd.i32) -> qd.u1:
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    return s > t


@qd.kernel
def ret_i8(a: qd.i32, b: qd.i32) -> qd.i8:
    return a * b                               # wraps to i8 on return


@qd.kernel
def ret_u16(a: qd.i32) -> qd.u16:
    return a - 3                               # -1 -> 65535


@qd.kernel
def ret_f64_mix(a: qd.f64, n: qd.i32) -> qd.f64:
    s = qd.f64(0.0)
    for i in range(n):
        s += a / (i + 1)
    return s
