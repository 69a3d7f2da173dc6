import quadrants as qd

use_fast = False


@qd.kernel(fastcache=True)
def k(x: qd.types.NDArray[qd.f32, 1]):
    if qd.static(use_fast):
        x[0] = 1.0
