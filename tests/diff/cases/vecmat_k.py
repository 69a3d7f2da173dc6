"""Vectors and matrices in combination: identity/diag, determinant/inverse of 2x2 and 3x3,
augmented assignment on vector components and matrix elements (locals and ndarray elements),
swizzle writes, ternaries and qd.select with vectors, i32/u32 vectors, nested vector indexing
a[i][k], 2-D ndarrays of vec3, atomics on vector components returning old values."""

import quadrants as qd

I32_1 = qd.types.NDArray[qd.i32, 1]
F32_1 = qd.types.NDArray[qd.f32, 1]
vec2 = qd.types.vector(2, qd.f32)
vec3 = qd.types.vector(3, qd.f32)
vec4 = qd.types.vector(4, qd.f32)
mat2 = qd.types.matrix(2, 2, qd.f32)
mat3 = qd.types.matrix(3, 3, qd.f32)
ivec3 = qd.types.vector(3, qd.i32)
uvec3 = qd.types.vector(3, qd.u32)


@qd.kernel
def ident_diag(s: F32_1, out: qd.types.NDArray[mat3, 1], tr: F32_1) -> None:
    for i in range(s.shape[0]):
        eye = qd.Matrix.identity(qd.f32, 3)
        d = qd.Matrix.diag(3, s[i])
        m = eye * 2 + d @ d - eye @ d
        m[0, 2] = i
        out[i] = m
        tr[i] = m.trace() + qd.Matrix.identity(qd.i32, 2).sum()


@qd.kernel
def det_inv(m2: qd.types.NDArray[mat2, 1], m3: qd.types.NDArray[mat3, 1],
            i2: qd.types.NDArray[mat2, 1], i3: qd.types.NDArray[mat3, 1], det: F32_1,
            check: qd.types.NDArray[mat3, 1]) -> None:
    for i in range(m2.shape[0]):
        a = m2[i]
        b = m3[i]
        det[i * 2 + 0] = a.determinant()
        det[i * 2 + 1] = b.determinant()
        i2[i] = a.inverse()
        ib = b.inverse()
        i3[i] = ib
        check[i] = ib @ b                      # ~identity


@qd.kernel
def aug_components(v: qd.types.NDArray[vec3, 1], m: qd.types.NDArray[mat2, 1],
                   iv: qd.types.NDArray[ivec3, 1], out: qd.types.NDArray[vec4, 1]) -> None:
    for i in range(v.shape[0]):
        p = v[i]
        p[0] += 1.5
        p[1] -= 2.0
        p[2] *= -3.0
        p.x /= 2.0
        p.y **= 2
        q = m[i]
        q[0, 0] += p[0]
        q[0, 1] -= 1.0
        q[1, 0] *= 4.0
        q[1, 1] //= 0.5
        k = iv[i]
        k[0] //= -2
        k[1] %= -3
        k[2] <<= 2
        k.x ^= 5
        k.y |= 8
        k.z &= 0x2C
        k[2] >>= 1
        out[i] = qd.Vector([p.x + p.y + p.z, q.sum(), k[0] + k[1] * 10 + k[2] * 100, q[1, 1]])
        v[i][0] += 10.0                        # ndarray element components
        v[i].y -= 1.0
        v[i][2] *= 2.0
        m[i][1, 0] += 0.5
        m[i][0, 1] *= -1.0
        iv[i][1] += 100
        iv[i][2] ^= 3


@qd.kernel
def swizzle_writes(v: qd.types.NDArray[vec4, 1], out: qd.types.NDArray[vec4, 1],
                   o3: qd.types.NDArray[vec3, 1]) -> None:
    for i in range(v.shape[0]):
        a = v[i]
        a.xy = a.yx                            # swap through a swizzle write
        a.zw = qd.Vector([a.x + a.w, a.y * 2.0])
        a.w += 1.0
        a.x *= a.z
        b = qd.Vector([0.0, 0.0, 0.0])
        b.zx = a.xy
        b.y = a.w - a.z
        b.xyz = b.zyx
        out[i] = a
        o3[i] = b


@qd.kernel
def vec_ternary(a: qd.types.NDArray[vec3, 1], b: qd.types.NDArray[vec3, 1], c: I32_1,
                out: qd.types.NDArray[vec3, 1], o2: qd.types.NDArray[vec3, 1]) -> None:
    for i in range(a.shape[0]):
        v = a[i] if c[i] > 0 else b[i]         # scalar condition, vector operands
        w = qd.select(a[i] > b[i], a[i], b[i] * 2.0)
        u = (a[i] + 1.0) if c[i] % 2 == 0 else -a[i]
        out[i] = v + u
        o2[i] = w


@qd.kernel
def int_vectors(a: qd.types.NDArray[ivec3, 1], u: qd.types.NDArray[uvec3, 1],
                oi: qd.types.NDArray[ivec3, 1], ou: qd.types.NDArray[uvec3, 1],
                s: qd.types.NDArray[qd.i64, 1]) -> None:
    for i in range(a.shape[0]):
        x = a[i]
        y = u[i]
        oi[i] = x // 3 + (x % -4) * 100 + qd.max(x, -x) * 10000
        ou[i] = (y >> 1) + (y & 7) * qd.u32(1000) - qd.u32(5)   # wraps in u32
        z = ivec3(1, -2, 3)
        t = uvec3(7, 8, 9)
        s[i * 4 + 0] = (x * z).sum()
        s[i * 4 + 1] = (y ^ t).sum()
        s[i * 4 + 2] = x.dot(z) + x.max() * 1000 - x.min()
        s[i * 4 + 3] = qd.cast((y * t).sum(), qd.i64)


@qd.kernel
def nested_index(a: qd.types.NDArray[vec3, 1], m: qd.types.NDArray[mat3, 1], out: F32_1) -> None:
    for i in range(a.shape[0]):
        s = 0.0
        for k in range(3):                     # runtime component index
            s += a[i][k] * (k + 1)
            a[i][k] = a[i][k] + m[i][k, k]
        for k in qd.static(range(3)):
            m[i][k, 2 - k] = s + k
        out[i] = s + a[i][1] * m[i][1, 1]


@qd.kernel
def vec3_grid(p: qd.types.NDArray[vec3, 2], n: qd.types.NDArray[vec3, 2],
              area: qd.types.NDArray[qd.f32, 2]) -> qd.f32:
    total = 0.0
    for i, j in qd.ndrange(p.shape[0] - 1, p.shape[1] - 1):
        e1 = p[i + 1, j] - p[i, j]
        e2 = p[i, j + 1] - p[i, j]
        c = e1.cross(e2)
        n[i, j] = c
        area[i, j] = c.norm_sqr()
        total += c.z
    for I in qd.grouped(qd.ndrange(p.shape[0], p.shape[1])):
        p[I] = p[I] * 2.0 + qd.Vector([I[0], I[1], 0.0])
    return total


@qd.kernel
def atomic_vec_old(acc: qd.types.NDArray[vec3, 1], iacc: qd.types.NDArray[ivec3, 1],
                   x: I32_1, olds: qd.types.NDArray[ivec3, 1], fo: F32_1) -> None:
    # Serial task: the old values are deterministic.
    o0 = qd.atomic_add(iacc[0][1], 5)
    o1 = qd.atomic_max(iacc[0][2], 40)
    o2 = qd.atomic_min(iacc[0][0], -3)
    o3 = qd.atomic_sub(iacc[1], ivec3(1, 2, 3))    # a whole vector element: old vector
    o4 = qd.atomic_add(acc[0], qd.Vector([0.5, 1.0, -2.0]))
    o5 = qd.atomic_xor(iacc[1][0], 6)
    olds[0] = ivec3(o0, o1, o2)
    olds[1] = o3
    olds[2] = ivec3(o5, 0, 0)
    fo[0] = o4[0]
    fo[1] = o4[1]
    fo[2] = o4[2]
    loc = qd.Vector([1, 2, 3])
    o6 = qd.atomic_add(loc[1], 10)             # a local vector component
    fo[3] = o6 + loc[1] * 100
    # Parallel: many threads on the same components (sums are order-independent).
    for i in range(x.shape[0]):
        qd.atomic_add(acc[1][i % 3], 0.25 * x[i])
        qd.atomic_max(iacc[2][i % 3], x[i])
        iacc[3][i % 3] += 1
