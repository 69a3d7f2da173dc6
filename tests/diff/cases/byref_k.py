"""qd.template() func parameters bound to assignable places of the caller (docs/language.md
§1.8): ndarray elements, vector / matrix components and swizzles of locals, vector elements of
ndarrays, passed on through further funcs. Assignment stores into the place, augmented
assignment updates it (atomically for += -= &= |= ^=, also inside parallel loops), and the
place's index is evaluated again at every use."""

import quadrants as qd


@qd.func
def order_pair(a: qd.template(), b: qd.template()):
    if a > b:
        a, b = b, a


@qd.kernel
def sort_rows(x: qd.types.NDArray[qd.i32, 2]) -> None:
    for r in range(x.shape[0]):
        order_pair(x[r, 0], x[r, 1])
        order_pair(x[r, 1], x[r, 2])
        order_pair(x[r, 0], x[r, 1])


@qd.func
def accumulate(acc: qd.template(), v: qd.f32, w: qd.f32):
    acc += v * w


@qd.kernel
def scatter_add(out: qd.types.NDArray[qd.f32, 1], v: qd.types.NDArray[qd.f32, 1]) -> None:
    n = out.shape[0]
    for i in range(v.shape[0]):
        accumulate(out[i % n], v[i], 2.0)


@qd.func
def bump_then_set(a: qd.template(), j: qd.template()):
    j += 1
    a = 5


@qd.func
def set_to(a: qd.template(), v: qd.template()):
    a = v


@qd.func
def add3(a: qd.template()):
    a += 3


@qd.func
def scale(a: qd.template(), k: qd.i32):
    a *= k
    a -= 1


@qd.func
def forward(a: qd.template(), b: qd.template()):
    scale(a, 3)
    set_to(b[1], a)


@qd.kernel
def places(x: qd.types.NDArray[qd.i32, 1], out: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(1):
        j = 0
        bump_then_set(x[j], j)  # writes x[1]: the index is evaluated when the func stores
        v = qd.Vector([1, 2, 3, 4])
        set_to(v[0], 7)
        add3(v.y)
        set_to(v.zw, qd.Vector([10, 20]))
        m = qd.Matrix([[1, 2], [3, 4]])
        set_to(m[1, 0], -5)
        scale(m[0, 1], 4)
        forward(x[2], v)
        out[0] = v[0]
        out[1] = v[1]
        out[2] = v[2]
        out[3] = v[3]
        out[4] = m[0, 0]
        out[5] = m[0, 1]
        out[6] = m[1, 0]
        out[7] = m[1, 1]
        out[8] = j


@qd.func
def axpy_into(y: qd.template(), a: qd.f32, x: qd.template()):
    y += a * x


@qd.kernel
def vector_elements(p: qd.types.NDArray[qd.types.vector(3, qd.f32), 1],
                    q: qd.types.NDArray[qd.types.vector(3, qd.f32), 1]) -> None:
    for i in range(p.shape[0]):
        axpy_into(p[i], 0.5, q[i])
        set_to(p[i][2], -1.0)
        add3(q[i].x)


@qd.func
def read_after_write(a: qd.template(), x: qd.template()):
    x[0] = 100
    return a


@qd.kernel
def lazy_argument(x: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(1):
        x[1] = read_after_write(x[0] + 1, x)


@qd.func
def count_into(slot: qd.template()):
    qd.atomic_add(slot, 1)
    slot |= 16


@qd.kernel
def atomics_through_refs(vals: qd.types.NDArray[qd.i32, 1], bins: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(vals.shape[0]):
        count_into(bins[vals[i] % bins.shape[0]])


@qd.kernel
def serial_dynamic(x: qd.types.NDArray[qd.i32, 1], out: qd.types.NDArray[qd.i32, 1]) -> None:
    v = qd.Vector([0, 0, 0])
    k = x[0]
    set_to(v[k], 9)  # a runtime index into a local vector
    add3(v[x[1]])
    for t in range(3):
        out[t] = v[t]


@qd.kernel
def static_display_places(x: qd.types.NDArray[qd.i32, 1], out: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(1):
        s = 1
        t = 2
        for a in qd.static((s, t)):  # the loop variable is each element itself
            a += 10
        for b in qd.static([x[0], x[1]]):
            b = s + t
        v = qd.Vector([1, 2, 3])
        for c in qd.static((v[0], v.z)):
            c *= 5
        for d in qd.static((s * 2, t)):  # s * 2 is evaluated where d is used
            s += 1
            out[3] += d
        out[0] = s
        out[1] = t
        out[2] = v[0] + v[1] * 10 + v[2] * 100
