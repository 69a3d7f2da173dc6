import quadrants as qd

@qd.kernel(fastcache=True)
def k(x: qd.types.NDArray[qd.f32, 2]):
    for i, j in x:
        x[i, j] = x[i, j] + 1.0
