"""qd.svd(A, dt) of a 3x3 matrix, as Quadrants computes it (quadrants/_funcs.py _svd3d): the
McAdams-Selle-Tamstorf-Teran-Sifakis method (2011) in the order of its operations, every result
rounded to dt, then the singular values sorted in descending order with U's and V's columns
(docs/language.md §5). Returns (U, S, V) as Tensors."""

import math

from . import dtypes as dt
from .matrix import as_tensor
from .values import Tensor


def svd(A, dtype=None):
    t = dtype if dtype is not None else dt.DEFAULT_FP
    A = as_tensor(A, None) if not isinstance(A, Tensor) else A
    if A.shape != (3, 3):
        raise TypeError(f"qd.svd: only 3x3 matrices are implemented here, got {A.shape}")
    r = t.normalize
    mul = lambda a, b: r(a * b)  # noqa: E731
    add = lambda a, b: r(a + b)  # noqa: E731
    sub = lambda a, b: r(a - b)  # noqa: E731
    rsqrt = lambda x: r(1.0 / math.sqrt(x)) if x > 0 else math.inf  # noqa: E731
    a = [[r(float(A.data[i * 3 + j])) for j in range(3)] for i in range(3)]

    def refined(x):
        y = rsqrt(x)
        half = mul(y, 0.5)
        z = mul(x, mul(y, mul(y, half)))
        return sub(add(y, half), z)

    s = {}
    for i in range(3):
        for j in range(i + 1):
            acc = mul(a[0][i], a[0][j])
            for k in (1, 2):
                acc = add(mul(a[k][i], a[k][j]), acc)
            s[i, j] = acc

    def S(i, j):
        return (i, j) if i >= j else (j, i)

    q = [0.0, 0.0, 0.0]
    qs = 1.0

    def conjugate(p, qq, o, axis):
        nonlocal qs
        sh = mul(s[S(qq, p)], 0.5)
        d = sub(s[S(p, p)], s[S(qq, qq)])
        big = mul(sh, sh) >= 1e-20
        sh, ch = (sh, d) if big else (0.0, 1.0)
        sh_sq, ch_sq = mul(sh, sh), mul(ch, ch)
        w = rsqrt(add(sh_sq, ch_sq))
        sh, ch = mul(w, sh), mul(w, ch)
        if ch_sq <= mul(r(5.82842712474619), sh_sq):
            sh, ch = r(0.3826834323650897), r(0.9238795325112867)
        sh_sq, ch_sq = mul(sh, sh), mul(ch, ch)
        cc = sub(ch_sq, sh_sq)
        ss = mul(ch, sh)
        ss = add(ss, ss)
        scale = add(sh_sq, ch_sq)
        s[S(o, o)] = mul(s[S(o, o)], scale)
        s[S(o, p)] = mul(s[S(o, p)], scale)
        s[S(o, qq)] = mul(s[S(o, qq)], scale)
        s[S(o, o)] = mul(s[S(o, o)], scale)
        t1, t2 = mul(ss, s[S(o, p)]), mul(ss, s[S(o, qq)])
        s[S(o, p)] = add(t2, mul(cc, s[S(o, p)]))
        s[S(o, qq)] = sub(mul(cc, s[S(o, qq)]), t1)
        t2 = mul(ss, ss)
        t1, t3 = mul(s[S(qq, qq)], t2), mul(s[S(p, p)], t2)
        t4 = mul(cc, cc)
        s[S(p, p)] = add(mul(s[S(p, p)], t4), t1)
        s[S(qq, qq)] = add(mul(s[S(qq, qq)], t4), t3)
        t4 = sub(t4, t2)
        t2 = add(s[S(qq, p)], s[S(qq, p)])
        s[S(qq, p)] = mul(s[S(qq, p)], t4)
        t4 = mul(cc, ss)
        t2, d = mul(t2, t4), mul(d, t4)
        s[S(p, p)] = add(s[S(p, p)], t2)
        s[S(qq, p)] = sub(s[S(qq, p)], d)
        s[S(qq, qq)] = sub(s[S(qq, qq)], t2)
        tq = [mul(sh, x) for x in q]
        sh = mul(sh, qs)
        qs = mul(ch, qs)
        for k in range(3):
            q[k] = mul(ch, q[k])
        a1, a2 = (axis + 1) % 3, (axis + 2) % 3
        q[axis] = add(q[axis], sh)
        qs = sub(qs, tq[axis])
        q[a1] = add(q[a1], tq[a2])
        q[a2] = sub(q[a2], tq[a1])

    for _ in range(5 if t is dt.f32 else 8):
        conjugate(0, 1, 2, 2)
        conjugate(1, 2, 0, 0)
        conjugate(2, 0, 1, 1)
    n2 = mul(qs, qs)
    for k in range(3):
        n2 = add(mul(q[k], q[k]), n2)
    w = refined(n2)
    qs = mul(qs, w)
    q = [mul(x, w) for x in q]
    x2, y2, z2, w2 = mul(q[0], q[0]), mul(q[1], q[1]), mul(q[2], q[2]), mul(qs, qs)
    v = [[0.0] * 3 for _ in range(3)]
    v22 = sub(w2, x2)
    v[2][2] = add(sub(v22, y2), z2)
    v[1][1] = sub(add(v22, y2), z2)
    v[0][0] = sub(sub(add(w2, x2), y2), z2)
    x_2, y_2, z_2 = add(q[0], q[0]), add(q[1], q[1]), add(q[2], q[2])
    sx, sy, sz = mul(qs, x_2), mul(qs, y_2), mul(qs, z_2)
    xy, yz, zx = mul(q[1], x_2), mul(q[2], y_2), mul(q[0], z_2)
    v[0][1], v[1][2], v[2][0] = sub(xy, sz), sub(yz, sx), sub(zx, sy)
    v[1][0], v[2][1], v[0][2] = add(xy, sz), add(yz, sx), add(zx, sy)
    for i in range(3):
        row = a[i][:]
        for j in range(3):
            acc = add(mul(v[0][j], row[0]), mul(v[1][j], row[1]))
            a[i][j] = add(acc, mul(v[2][j], row[2]))
    n = []
    for j in range(3):
        acc = add(mul(a[0][j], a[0][j]), mul(a[1][j], a[1][j]))
        n.append(add(acc, mul(a[2][j], a[2][j])))
    for i, j, neg in ((0, 1, 1), (0, 2, 0), (1, 2, 2)):
        sign = 1.0
        if n[i] < n[j]:
            for m in (a, v):
                for row in m:
                    row[i], row[j] = row[j], row[i]
            n[i], n[j] = n[j], n[i]
            sign = -1.0
        for m in (a, v):
            for row in m:
                row[neg] = mul(row[neg], sign)
    u = [[1.0 if i == j else 0.0 for j in range(3)] for i in range(3)]
    for p, qq, col in ((0, 1, 0), (0, 2, 0), (1, 2, 1)):
        sh = a[qq][col] if mul(a[qq][col], a[qq][col]) >= 1e-12 else 0.0
        ch = max(max(sub(0.0, a[p][col]), a[p][col]), r(1e-12))
        positive = a[p][col] >= 0.0
        n2 = add(mul(ch, ch), mul(sh, sh))
        ch = add(ch, mul(refined(n2), n2))
        if not positive:
            ch, sh = sh, ch
        n2 = add(mul(ch, ch), mul(sh, sh))
        w = refined(n2)
        ch, sh = mul(ch, w), mul(sh, w)
        cc = sub(mul(ch, ch), mul(sh, sh))
        ss = mul(sh, ch)
        ss = add(ss, ss)
        for j in range(3):
            t1, t2 = mul(ss, a[p][j]), mul(ss, a[qq][j])
            a[p][j], a[qq][j] = add(mul(cc, a[p][j]), t2), sub(mul(cc, a[qq][j]), t1)
        for row in u:
            t1, t2 = mul(ss, row[p]), mul(ss, row[qq])
            row[p], row[qq] = add(mul(cc, row[p]), t2), sub(mul(cc, row[qq]), t1)
    sig = [a[0][0], a[1][1], a[2][2]]
    parity = 0
    for i in range(3):
        best, value = i, sig[i]
        for j in range(i + 1, 3):
            if sig[j] > value:
                best, value = j, sig[j]
        if best != i:
            sig[best] = sig[i]
            sig[i] = value
            for m in (u, v):
                for row in m:
                    row[i], row[best] = row[best], row[i]
            parity = 1 - parity
    if parity:
        for m in (u, v):
            for row in m:
                row[0] = -row[0]
    flat = lambda m: [x for row in m for x in row]  # noqa: E731
    diag = [sig[i] if i == j else 0.0 for i in range(3) for j in range(3)]
    return Tensor(t, (3, 3), flat(u)), Tensor(t, (3, 3), diag), Tensor(t, (3, 3), flat(v))
