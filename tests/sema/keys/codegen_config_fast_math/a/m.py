import quadrants as qd

@qd.kernel(fastcache=True)
def k(x: qd.types.NDArray[qd.f32, 1]):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0
