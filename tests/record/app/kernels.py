import dataclasses

import numpy as np
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


@qd.data_oriented
class Material:
    def __init__(self, k):
        self.k = k

    @qd.func
    def update(self, x):
        return x * self.k


@qd.data_oriented
class Particles:
    """A data_oriented solver over fields (Genesis's particle solvers): the record describes
    `self` by what the kernel's trace read of it, so `scene` (everything else the app holds)
    and `unread` stay out, and so do the offset and sparse fields it never reads."""

    def __init__(self, n, scene):
        self.n = n
        self.scene = scene
        self.res = np.array([n, 2], dtype=np.int32)
        self.upper = qd.Vector([1.0, 2.0, 0.5], dt=qd.f32)
        st = qd.types.struct(pos=qd.math.vec3, m=qd.f32)
        self.p = st.field(shape=(n,), layout=qd.Layout.SOA)
        self.g = qd.Vector.field(3, qd.f32, shape=(2,))
        self.updates = [Material(2.0).update, Material(0.5).update]
        self.unread = qd.field(qd.f32, shape=(3,))
        self.shifted = qd.field(qd.f32, shape=(4,), offset=(-2,))
        self.sparse = qd.field(qd.f32)
        qd.root.pointer(qd.i, 2).dense(qd.i, 2).place(self.sparse)

    @qd.kernel
    def step(self, dt: qd.f32):
        self.g.fill(0.0)
        for i, _ in qd.ndrange(*self.res):
            v = self.p[i].pos + dt * self.g[0]
            for k in qd.static(range(len(self.updates))):
                v = self.updates[k](v)
            self.p[i].pos = qd.min(v, self.upper)
            self.p[i].m += 1.0
