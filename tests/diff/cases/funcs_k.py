"""qd.func inlining: nested funcs, by-value parameters (mutation invisible to the caller),
qd.template() parameters by reference, return casts, tuple returns, vector parameters/returns,
defaults and unannotated parameters."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]
vec2 = qd.types.vector(2, qd.f32)


@qd.func
def square(x: qd.i32) -> qd.i32:
    return x * x


@qd.func
def sum_sq(a: qd.i32, b: qd.i32) -> qd.i32:
    return square(a) + square(b)          # nested funcs


@qd.func
def bump_copy(x: qd.i32) -> qd.i32:
    x += 100                              # a by-value copy: the caller's variable is untouched
    return x


@qd.func
def bump_ref(x: qd.template()):
    x += 7                                # by reference: writes the caller's local


@qd.func
def half(x: qd.f32) -> qd.i32:
    return x / 2                          # f32 result cast to i32 on return


@qd.func
def as_f32(x: qd.f32) -> qd.f32:
    return x                              # an i32 argument is cast to f32 on entry


@qd.func
def divmod_py(a: qd.i32, b: qd.i32) -> tuple[qd.i32, qd.i32]:
    # A list display: real Quadrants 1.3.3 fails on `return a // b, a % b` in a func with a
    # tuple annotation (it assigns into the returned tuple; see tests/diff/README.md).
    return [a // b, a % b]


@qd.func
def scale_add(v: vec2, s: qd.f32, bias=1.0) -> vec2:
    return v * s + bias


@qd.func
def write_slot(arr: qd.types.NDArray[qd.i32, 1], i: qd.i32, value):
    arr[i] = value                        # ndarray parameters are references


@qd.kernel
def func_calls(x: I32_1, y: I32_1, o: I32_1, of: F32_1) -> None:
    for i in range(x.shape[0]):
        a = x[i]
        b = y[i]
        s = sum_sq(a, b)
        c = bump_copy(a)
        bump_ref(b)
        q, r = divmod_py(a, b)
        o[i * 6 + 0] = s
        o[i * 6 + 1] = c
        o[i * 6 + 2] = a                  # unchanged by bump_copy
        o[i * 6 + 3] = b                  # y[i] + 7
        o[i * 6 + 4] = q * 100 + r
        o[i * 6 + 5] = half(qd.cast(a, qd.f32) + 0.5)
        of[i] = as_f32(a) / 4


@qd.kernel
def func_vectors(p: qd.types.NDArray[vec2, 1], s: F32_1, out: qd.types.NDArray[vec2, 1], o2: qd.types.NDArray[vec2, 1]) -> None:
    for i in range(p.shape[0]):
        out[i] = scale_add(p[i], s[i])
        o2[i] = scale_add(p[i], 2, bias=-0.5)


@qd.func
def accumulate(total: qd.template(), arr: qd.template(), k: qd.i32):
    for j in range(k):
        total += arr[j]


@qd.func
def clamp_to(x: qd.template(), lo, hi):
    if x < lo:
        x = lo
    if x > hi:
        x = hi


@qd.kernel
def func_templates(x: I32_1, out: I32_1) -> qd.i32:
    t = 0
    accumulate(t, x, x.shape[0])          # serial: a template local and an ndarray
    for i in range(x.shape[0]):
        v = x[i] * 3
        clamp_to(v, -5, 10)
        out[i] = v
        write_slot(out, i, out[i] + 1000)
    return t


@qd.func
def top_level_fill(a: qd.template(), value: qd.i32):
    for i in range(a.shape[0]):           # a loop of an inlined func at the kernel root: parallel
        a[i] = value + i


@qd.kernel
def func_top_level_loop(a: I32_1, b: I32_1) -> None:
    top_level_fill(a, 10)
    top_level_fill(b, 20)
    for i in range(a.shape[0]):
        a[i] += b[i]
