"""Vectors and matrices: literals and typed constructors, vector ndarray elements, indexing,
swizzles, element-wise ops, @, dot, cross, norm, normalized, transpose, outer_product, reductions,
trace, determinant, identity/diag/zero, unpacking."""

import quadrants as qd

vec3 = qd.types.vector(3, qd.f32)
mat3 = qd.types.matrix(3, 3, qd.f32)
F32_1 = qd.types.NDArray[qd.f32, 1]


@qd.kernel
def mat3_ops(m: qd.types.NDArray[mat3, 1], v: qd.types.NDArray[vec3, 1], mv: qd.types.NDArray[vec3, 1],
             mm: qd.types.NDArray[mat3, 1], s: qd.types.NDArray[qd.f32, 2]) -> None:
    for i in range(m.shape[0]):
        a = m[i]
        x = v[i]
        mv[i] = a @ x
        mm[i] = a @ a.transpose() + qd.Matrix.identity(qd.f32, 3) * 2.0
        s[i, 0] = a.determinant()
        s[i, 1] = a.trace()
        s[i, 2] = (x @ a).sum()           # vec @ mat uses the transpose
        s[i, 3] = a.max() - a.min()
        s[i, 4] = a[1, 2] + a[2, 1] * 10


@qd.kernel
def vec_methods(v: qd.types.NDArray[vec3, 1], w: qd.types.NDArray[vec3, 1], out: qd.types.NDArray[qd.f32, 2],
                cr: qd.types.NDArray[vec3, 1], nz: qd.types.NDArray[vec3, 1]) -> None:
    for i in range(v.shape[0]):
        a = v[i]
        b = w[i]
        out[i, 0] = a.dot(b)
        out[i, 1] = a.norm()
        out[i, 2] = a.norm_sqr()
        out[i, 3] = a @ b
        out[i, 4] = qd.math.dot(a, b) - qd.math.length(b)
        cr[i] = a.cross(b)
        nz[i] = a.normalized()


@qd.kernel
def swizzles(v: qd.types.NDArray[qd.types.vector(4, qd.f32), 1], out: qd.types.NDArray[qd.types.vector(4, qd.f32), 1],
             xy: qd.types.NDArray[qd.types.vector(2, qd.f32), 1]) -> None:
    for i in range(v.shape[0]):
        a = v[i]
        b = a.wzyx
        b.x = a.y + 100.0
        b[3] = a.z * 2
        xy[i] = a.xy + a.zw
        c = qd.Vector([a.x, a.y, a.z, a.w])
        c.yz = qd.Vector([-1.0, -2.0])
        out[i] = b + c * 0.5 + qd.Vector([a.r, a.g, a.b, a.a])


@qd.kernel
def outer_transpose(u: qd.types.NDArray[vec3, 1], w: qd.types.NDArray[qd.types.vector(2, qd.f32), 1],
                    o: qd.types.NDArray[qd.types.matrix(3, 2, qd.f32), 1],
                    t: qd.types.NDArray[qd.types.matrix(2, 3, qd.f32), 1],
                    p: qd.types.NDArray[qd.types.matrix(2, 2, qd.f32), 1]) -> None:
    for i in range(u.shape[0]):
        m = u[i].outer_product(w[i])      # 3x2
        o[i] = m
        t[i] = m.transpose()
        p[i] = m.transpose() @ m


@qd.kernel
def constructors(out: qd.types.NDArray[qd.f32, 2], oi: qd.types.NDArray[qd.i32, 2]) -> None:
    for i in range(out.shape[0]):
        f = qd.cast(i, qd.f32)
        a = qd.types.vector(3, qd.f32)(f, 2, 3.5)      # typed constructor casts
        b = qd.math.vec3(f)                          # a scalar fills every element
        c = qd.Vector([1, 2, 3])                     # i32 vector (literals default)
        d = qd.Vector([1, 2.5, i])                   # promoted to f32
        e = qd.Matrix.diag(3, f) + qd.Matrix.zero(qd.f32, 3, 3)
        g = qd.math.ivec3(i, -i, 7) // 2
        out[i, 0] = a.sum()
        out[i, 1] = b.sum()
        out[i, 2] = c.sum() / 2          # i32 vector: integer sum, then / -> f32
        out[i, 3] = d.sum()
        out[i, 4] = e.trace() + e[0, 1]
        oi[i, 0] = g[0] * 100 + g[1] * 10 + g[2]
        oi[i, 1] = (c * 3 - c // 2).max()
        oi[i, 2] = len(c)
        x, y, z = c                                  # unpacking
        oi[i, 3] = x * 100 + y * 10 + z


@qd.kernel
def dynamic_index(m: qd.types.NDArray[mat3, 1], out: F32_1, col: qd.types.NDArray[vec3, 1]) -> None:
    for i in range(m.shape[0]):
        a = m[i]
        k = i % 3
        acc = 0.0
        for j in range(3):
            acc += a[k, j] * (j + 1)      # runtime indices into a matrix
        out[i] = acc
        c = qd.Vector([0.0, 0.0, 0.0])
        for j in range(3):
            c[j] = a[j, k]
        col[i] = c


@qd.kernel
def elementwise(a: qd.types.NDArray[vec3, 1], b: qd.types.NDArray[vec3, 1], o: qd.types.NDArray[vec3, 1],
                oi: qd.types.NDArray[qd.types.vector(3, qd.i32), 1]) -> None:
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        r = (x + y) * (x - y) / 2.0 - abs(-x) + qd.max(x, y) - qd.min(x, 0.5)
        r += y * 0.5
        o[i] = -r
        oi[i] = qd.cast(x, qd.i32) % 3 + (x < y) + (x > y) * 10


@qd.func
def spring_force(p: vec3, q: vec3, rest: qd.f32) -> vec3:
    d = q - p
    n = d.norm()
    return d * ((n - rest) / n)


@qd.kernel
def particles(pos: qd.types.NDArray[vec3, 1], force: qd.types.NDArray[vec3, 1], energy: F32_1) -> qd.f32:
    e = 0.0
    for i in range(pos.shape[0]):
        f = qd.Vector([0.0, 0.0, 0.0])
        for j in range(pos.shape[0]):
            if j != i:
                f += spring_force(pos[i], pos[j], 1.0)
        force[i] = f
        energy[i] = 0.5 * f.norm_sqr()
        e += f.x * 0.0 + qd.floor(f.norm_sqr() * 16.0) / 16.0
    return e
