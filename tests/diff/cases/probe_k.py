"""Probes a user would try: an empty kernel, a template func mutating the caller's local inside a
parallel loop, vector augmented assignment and swizzle writes, a while-True loop with break, a
static-if return in a func, a ternary mixing int and float, statements after a top-level return."""
import quadrants as qd

vec3 = qd.types.vector(3, qd.f32)
N = 4


@qd.kernel
def empty(a: qd.types.NDArray[qd.f32, 1]) -> None:
    """Nothing."""
    pass


@qd.func
def bump(v: qd.template(), k: qd.i32):
    v += k


@qd.func
def norm2(p: vec3) -> qd.f32:
    if qd.static(N > 3):
        return p.dot(p)
    else:
        return 0.0


@qd.kernel
def mix(a: qd.types.NDArray[qd.f32, 1], v: qd.types.NDArray[vec3, 1], out: qd.types.NDArray[qd.f32, 1]) -> qd.i32:
    total = 0
    for i in range(a.shape[0]):
        c = 0
        bump(c, i)
        w = v[i]
        w += 1.0
        w.x = w.y * 2
        s = 0.0
        for k in qd.static(range(3)):
            s += w[k]
        j = 0
        while True:
            j += 1
            if j >= 3:
                break
        out[i] = norm2(w) + s + c + j + (1.5 if a[i] > 0 else -2)
        total += c
    return total
    out[0] = 99.0
