"""Control flow: if/elif/else, while, inner loops with break/continue, continue in the parallel
loop, range(a, b) with runtime bounds, 3-D ndrange with (begin, end) axes, grouped, block scopes."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]


@qd.kernel
def classify(x: qd.types.NDArray[qd.f32, 1], out: I32_1) -> None:
    for i in range(x.shape[0]):
        c = 0
        if x[i] < -1.0:
            c = -2
        elif x[i] < 0.0:
            c = -1
        elif x[i] == 0.0:
            c = 0
        elif x[i] <= 1.0:
            c = 1
        else:
            c = 2
            if x[i] > 100.0:
                c = 3
        out[i] = c


@qd.kernel
def skip_odd(x: I32_1, out: I32_1) -> None:
    for i in range(x.shape[0]):
        if x[i] % 2 == 1:
            continue                      # continue in the parallel loop
        out[i] = x[i] * 10


@qd.kernel
def gcd_loop(a: I32_1, b: I32_1, g: I32_1, iters: I32_1) -> None:
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        n = 0
        while y != 0:
            x, y = y, x % y
            n += 1
        g[i] = x
        iters[i] = n


@qd.kernel
def inner_break_continue(n: I32_1, sums: I32_1, first_big: I32_1) -> None:
    for i in range(n.shape[0]):
        s = 0
        fb = -1
        for k in range(n[i]):
            if k % 3 == 0:
                continue
            s += k
            if s > 20:
                fb = k
                break
        sums[i] = s
        first_big[i] = fb


@qd.kernel
def dynamic_range(lo: qd.i32, hi: qd.i32, x: I32_1, out: I32_1) -> None:
    for i in range(lo, hi):               # runtime bounds; end <= begin gives nothing
        out[i] = x[i] + i
    for j in range(hi, lo):
        out[j] = -999


@qd.kernel
def nested_while(limit: qd.i32, out: I32_1) -> None:
    for i in range(out.shape[0]):
        total = 0
        a = 0
        while a < i:
            b = 0
            while True:
                if b >= limit:
                    break
                total += a * b
                b += 1
            a += 1
        out[i] = total


@qd.kernel
def ndrange3(a: qd.types.NDArray[qd.i32, 3], lo: qd.i32) -> None:
    for i, j, k in qd.ndrange((lo, a.shape[0]), (1, a.shape[1] - 1), a.shape[2]):
        a[i, j, k] = i * 100 + j * 10 + k


@qd.kernel
def grouped3(a: qd.types.NDArray[qd.i32, 3]) -> None:
    for I in qd.grouped(qd.ndrange(a.shape[0], (0, 2), (1, 3))):
        a[I] = I[0] + I.sum() * 2 + I[2] * 7


@qd.kernel
def ndrange_empty(a: I32_1, n: qd.i32) -> None:
    for i, j in qd.ndrange((2, n), 3):    # n < 2: end clamped to begin, zero iterations
        a[i * 3 + j] += 1
    for i in range(a.shape[0]):
        a[i] += 100


@qd.kernel
def scopes(x: I32_1, out: I32_1) -> None:
    for i in range(x.shape[0]):
        acc = 0
        for k in range(3):
            t = x[i] * k                  # t is local to the loop body
            acc += t
        if acc > 10:
            t = 1                         # a new variable, unrelated to the loop's t
            acc += t
        else:
            u = 2
            acc -= u
        out[i] = acc
