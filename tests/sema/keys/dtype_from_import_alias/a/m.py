import quadrants as qd
from quadrants import f32 as T


@qd.kernel
def k(x: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in x:
        x[i] = qd.cast(x[i] * 3.3, T)
