import quadrants as qd
from cfg import SCALE


@qd.kernel(fastcache=True)
def k(x: qd.types.NDArray[qd.f32, 1]):
    x[0] = SCALE
