import quadrants as qd

@qd.func
def f2(v: qd.f32) -> qd.f32:
    return v * 2.0


@qd.func
def f1(v: qd.f32) -> qd.f32:
    return f2(v) + 1.0


@qd.func
def unrelated(v: qd.f32) -> qd.f32:
    return v - 1.0


@qd.kernel(fastcache=True)
def k(x: qd.types.NDArray[qd.f32, 1]):
    for i in range(x.shape[0]):
        x[i] = f1(x[i])
