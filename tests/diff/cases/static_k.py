"""qd.static if/for over module constants, qd.Template ints and bools with several instances,
compile-time folding of module constants."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]

WEIGHTS = (0.5, 0.25, 0.125, 0.125)
OFFSETS = (-1, 0, 1)
SCALE = 3
USE_SHIFT = True
HALF = 1 / 2


@qd.kernel
def stencil(x: F32_1, y: F32_1) -> None:
    for i in range(1, x.shape[0] - 1):
        acc = 0.0
        for k in qd.static(range(len(OFFSETS))):
            acc += x[i + OFFSETS[k]] * WEIGHTS[k]
        y[i] = acc * SCALE


@qd.kernel
def static_branches(x: I32_1, out: I32_1) -> None:
    for i in range(x.shape[0]):
        v = x[i]
        if qd.static(USE_SHIFT):
            v = v << 2
        else:
            v = v * 1000
        if qd.static(SCALE > 5):
            v = -v
        out[i] = v + qd.static(SCALE * 10)


@qd.kernel
def static_enumerate(x: F32_1, out: F32_1) -> None:
    for i in range(x.shape[0]):
        acc = x[i] * HALF
        for k, w in qd.static(enumerate(WEIGHTS)):
            if qd.static(k % 2 == 0):
                acc += w * k
            else:
                acc -= w
        out[i] = acc


@qd.kernel
def poly_template(x: F32_1, y: F32_1, degree: qd.Template, flip: qd.Template) -> None:
    for i in range(x.shape[0]):
        acc = 0.0
        for k in qd.static(range(degree + 1)):
            acc = acc * x[i] + (k + 1)
        if qd.static(flip):
            acc = -acc
        y[i] = acc


@qd.kernel
def unroll_tuple(out: I32_1, n: qd.template()) -> None:
    for i in range(out.shape[0]):
        s = 0
        for j in qd.static(range(n)):
            s += (i + 1) * (j + 1)
        for d in qd.static(OFFSETS):
            s += d * 100
        out[i] = s


def tile_caps(first, last):
    # Trace-time Python, as Genesis's island_tile_caps: a list grown with append in a while loop.
    caps = []
    cap = first
    while cap < last:
        caps.append(cap)
        cap *= 2
    caps.append(last)
    return tuple(caps)


@qd.kernel
def trace_time_list(x: I32_1, out: I32_1) -> None:
    CAPS = qd.static(tile_caps(4, 40))
    LOG2 = qd.static(CAPS[-2].bit_length() - 1)
    for i in range(x.shape[0]):
        k = len(CAPS) - 1
        for j in qd.static(range(len(CAPS) - 2, -1, -1)):
            if x[i] <= CAPS[j]:
                k = j
        out[i] = k * 100 + LOG2 * 10 + qd.static((-37).bit_length())
