import dataclasses

import quadrants as qd

from app import config


@dataclasses.dataclass(frozen=True)
class State:
    pos: qd.types.ndarray()
    vel: qd.types.ndarray()


class Solver:
    """A config object passed through qd.template(): its fields and properties are read."""

    def __init__(self, iterations, mode):
        self.iterations = iterations
        self.mode = mode

    @property
    def tolerance(self):
        return 1e-3 if self.mode == config.Mode.FAST else 1e-6


@qd.func
def damp(v):
    return v * 0.5


@qd.func
def boost(v):
    return v * 2.0


@qd.kernel
def k_arrays(a: qd.types.ndarray(), b: qd.types.ndarray(dtype=qd.math.vec3, ndim=1), s: qd.f32) -> None:
    for i in range(a.shape[0]):
        a[i] = a[i] * s
    for i in b:
        b[i] = b[i] * s


@qd.kernel(fastcache=True)
def k_eps(x: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in x:
        x[i] = qd.cast(x[i] + config.EPS, config.real)


@qd.kernel
def k_state(st: State, mode: qd.template()) -> None:
    for i in st.pos:
        if qd.static(mode == config.Mode.FAST):
            st.pos[i] = st.pos[i] + st.vel[i]
        else:
            st.pos[i] = st.pos[i] + 0.5 * st.vel[i]


@qd.kernel
def k_solver(x: qd.types.ndarray(), solver: qd.template(), op: qd.template()) -> None:
    for i in x:
        for _ in qd.static(range(solver.iterations)):
            x[i] = op(x[i]) + solver.tolerance
