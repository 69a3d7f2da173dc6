import quadrants as qd

N = 4
M = 1


@qd.kernel(fastcache=True)
def k(x: qd.types.NDArray[qd.f32, 1]):
    for i in range(N):
        x[i] = 0.0
