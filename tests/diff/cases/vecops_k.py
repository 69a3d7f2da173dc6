"""Vector and matrix constructs Genesis kernels use: .fill() on locals and ndarray elements,
constant-bound slices (v[a:b], m[i, :], m[:, j], m[a:b, c:d], read and write, a runtime row
index next to a slice), scalar broadcast into vector places, qd.Matrix.rows / cols, .n / .m /
get_shape(), 4x4 determinant() and inverse() (matrix_ops.py's operation order), and func
parameters annotated qd.types.vector(n) / matrix(n, m) with or without a dtype (the copy keeps
the argument's dtype, as in Quadrants)."""

import quadrants as qd

F32_1 = qd.types.NDArray[qd.f32, 1]
I32_1 = qd.types.NDArray[qd.i32, 1]
vec3 = qd.types.vector(3, qd.f32)
vec4 = qd.types.vector(4, qd.f32)
mat3 = qd.types.matrix(3, 3, qd.f32)
mat4 = qd.types.matrix(4, 4, qd.f32)
mat4d = qd.types.matrix(4, 4, qd.f64)
ivec2 = qd.types.vector(2, qd.i32)


@qd.kernel
def fill_locals(x: F32_1, out: F32_1, iout: I32_1) -> None:
    for i in range(x.shape[0]):
        v = qd.Vector([1.0, 2.0, 3.0])
        v.fill(x[i] * 2)
        m = qd.Matrix([[1, 2], [3, 4]])
        m.fill(x[i])                     # i32 elements: the value is truncated
        iv = qd.Vector([1, 2, 3])
        iv.fill(7)
        (v + 1).fill(100.0)              # a temporary: nothing happens, as in Quadrants
        out[i * 3 + 0] = v[0] + v[2]
        out[i * 3 + 1] = m[1, 1] + m[0, 1]
        out[i * 3 + 2] = iv.sum()
        iout[i] = m.sum()


@qd.kernel
def fill_elements(a: qd.types.NDArray[vec3, 1], m: qd.types.NDArray[mat3, 1], s: F32_1) -> None:
    for i in range(a.shape[0]):
        a[i].fill(s[i])
        m[i].fill(s[i] * 0.5)
        m[i][1, 1] = -1.0


@qd.kernel
def vector_slices(a: qd.types.NDArray[vec4, 1], out: F32_1) -> None:
    for i in range(a.shape[0]):
        v = a[i]
        head = v[:2]
        mid = v[1:3]
        even = v[::2]
        tail = v[2:]
        out[i * 8 + 0] = head[0] + head[1]
        out[i * 8 + 1] = mid[0] * mid[1]
        out[i * 8 + 2] = even[1] - even[0]
        out[i * 8 + 3] = tail.sum()
        out[i * 8 + 4] = a[i][1:4].sum()            # a slice of an ndarray element
        out[i * 8 + 5] = mid.n + head.norm_sqr()
        w = v
        w[1:3] = qd.Vector([10.0, 20.0])            # slice writes
        w[0:1] += qd.Vector([0.5])
        out[i * 8 + 6] = w.sum()
        a[i][2:] = qd.Vector([-1.0, -2.0])          # into the ndarray element
        out[i * 8 + 7] = v[0:0].sum()               # `stop or n`: a 0 stop is the whole vector


@qd.kernel
def matrix_slices(m: qd.types.NDArray[mat3, 1], r: I32_1, out: F32_1,
                  mo: qd.types.NDArray[mat3, 1]) -> None:
    for i in range(m.shape[0]):
        a = m[i]
        row = a[1, :]
        col = a[:, 2]
        sub = a[1:, :2]
        part = a[0, 1:]
        dyn = a[r[i], :]                 # a runtime row index next to a slice
        out[i * 8 + 0] = row.sum()
        out[i * 8 + 1] = col[0] - col[2]
        out[i * 8 + 2] = sub[1, 0] * 10 + sub[0, 1]
        out[i * 8 + 3] = sub.n * 10 + sub.m
        out[i * 8 + 4] = part.dot(qd.Vector([1.0, -1.0]))
        out[i * 8 + 5] = dyn.sum()
        b = a
        b[0, :] = qd.Vector([7.0, 8.0, 9.0])   # row write
        b[:, 1] = 0.5                          # a scalar fills the column
        b[2, 1:] += qd.Vector([100.0, 200.0])
        b[r[i], :2] = qd.Vector([-3.0, -4.0])  # runtime row, constant columns
        out[i * 8 + 6] = b.sum()
        out[i * 8 + 7] = b[1, 1]
        mo[i] = b


@qd.kernel
def broadcast_places(a: qd.types.NDArray[vec3, 1], out: F32_1) -> None:
    for i in range(a.shape[0]):
        a[i] = 2.5 * i                   # a scalar stored into a vector ndarray element
        v = qd.Vector([1.0, 2.0, 3.0])
        v = 4.0                          # ... into a vector variable
        m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
        m[1, :] = -1.0
        out[i] = v.sum() + m.sum()


@qd.kernel
def rows_cols_shape(out: F32_1, iout: I32_1) -> None:
    for i in range(out.shape[0] // 8):
        v1 = qd.Vector([1, 2, 3])
        v2 = qd.Vector([4.5, 5.0, 6.0 + i])
        m = qd.Matrix.rows([v1, v2])
        c = qd.Matrix.cols([v1, v2])
        l = qd.Matrix.rows([[i, 2], [3, 4]])
        s = m.get_shape()
        t = v1.get_shape()
        out[i * 8 + 0] = m[1, 2]
        out[i * 8 + 1] = c[2, 1]
        out[i * 8 + 2] = c.n * 10 + c.m
        out[i * 8 + 3] = l.sum()
        out[i * 8 + 4] = s[0] * 10 + s[1]
        out[i * 8 + 5] = len(t) * 100 + t[0]
        out[i * 8 + 6] = m.n + v1.n
        out[i * 8 + 7] = (m @ c).trace()
        iout[i] = l[1, 0] + l.n


@qd.kernel
def det_inv4(m: qd.types.NDArray[mat4, 1], det: F32_1, inv: qd.types.NDArray[mat4, 1],
             check: qd.types.NDArray[mat4, 1]) -> None:
    for i in range(m.shape[0]):
        a = m[i]
        det[i] = a.determinant()
        b = a.inverse()
        inv[i] = b
        check[i] = b @ a


@qd.kernel
def det_inv4_f64(m: qd.types.NDArray[mat4d, 1], det: qd.types.NDArray[qd.f64, 1],
                 inv: qd.types.NDArray[mat4d, 1]) -> None:
    for i in range(m.shape[0]):
        a = m[i]
        det[i] = a.determinant()
        inv[i] = a.inverse()


@qd.kernel
def det_inv_int(out: F32_1, iout: I32_1) -> None:
    for i in range(iout.shape[0]):
        a = qd.Matrix([[2, 0, 0, 1], [0, 3, i, 0], [1, 0, 1, 0], [0, 0, 0, 1]])
        iout[i] = a.determinant()                  # an integer determinant
        b = a.inverse()                            # f32 (1.0 / det)
        out[i * 2 + 0] = b[0, 0] + b[3, 3]
        out[i * 2 + 1] = (b @ a).trace()


@qd.func
def scale_first(v: qd.types.vector(3)) -> qd.f32:
    v[0] = 2.75                          # the copy keeps the argument's dtype
    return v[0] + v[1]


@qd.func
def scale_typed(v: qd.types.vector(3, qd.f32)) -> qd.f32:
    v[0] = 2.75                          # the annotation's dtype does not cast the copy
    return v[0] + v[1]


@qd.func
def mat_any(m: qd.types.matrix(2, 2)) -> qd.f32:
    m[0, 0] = 0.5
    return m[0, 0] + m[1, 1]


@qd.func
def twice(v: qd.types.vector(2)) -> qd.types.vector(2, qd.f32):
    return v * 2                         # a vector return is not cast either


@qd.kernel
def func_vector_params(x: F32_1, out: F32_1) -> None:
    for i in range(x.shape[0]):
        a = qd.Vector([1, 2, 3 + i])
        b = qd.Vector([x[i], 2.5, 3.0])
        out[i * 7 + 0] = scale_first(a)
        out[i * 7 + 1] = scale_first(b)
        out[i * 7 + 2] = scale_typed(a)
        out[i * 7 + 3] = scale_typed(b)
        out[i * 7 + 4] = mat_any(qd.Matrix([[1, 2], [3, 4]]))
        out[i * 7 + 5] = mat_any(qd.Matrix([[x[i], 2.0], [3.0, 4.0]]))
        w = twice(qd.Vector([i, 3]))
        w[0] = 1.5                       # an i32 vector: 1.5 is stored as 1
        out[i * 7 + 6] = w[0] + w[1]
        a[1] = 9                         # the caller's vector is not changed by the calls
        out[i * 7 + 0] += a[0] * 0
