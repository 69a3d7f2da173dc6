"""A small app over qd.fields (tests/record/test_bridge_fields.py): a data_oriented solver whose
state is fields of every layout the bridge passes in place (an AOS struct field, an SOA vector
field, a matrix field, a 0-d field, a plain scalar field), kernels that read them through
`self`, a free kernel taking a field as a template, and Quadrants' own field helpers
(fill, to_numpy, from_numpy)."""
import quadrants as qd


@qd.data_oriented
class Particles:
    def __init__(self, n, substeps=2):
        self.n = n
        self.substeps = substeps
        state = qd.types.struct(pos=qd.types.vector(3, qd.f32), vel=qd.types.vector(3, qd.f32),
                                rho=qd.f32, cell=qd.i32)
        self.p = state.field(shape=(n,), layout=qd.Layout.AOS)
        self.force = qd.Vector.field(3, qd.f32, shape=(n,), layout=qd.Layout.SOA)
        self.frame = qd.Matrix.field(2, 3, qd.f64, shape=(n, 2))
        self.gravity = qd.Vector.field(3, qd.f32, shape=())
        self.energy = qd.field(qd.f64, shape=())
        self.hist = qd.field(qd.i32, shape=(8,))

    @qd.func
    def weight(self, i):
        return 1.0 + 0.25 * (i % 4)

    @qd.kernel
    def init(self, seed: qd.f32):
        self.gravity[None] = qd.Vector([0.0, -9.8, 0.5])
        for i in range(self.n):
            x = qd.f32(i) * 0.37 + seed
            self.p[i].pos = qd.Vector([qd.sin(x), qd.cos(x * 1.3), x * 0.01])
            self.p[i].vel = qd.Vector([0.0, 0.1 * x, -0.2])
            self.p[i].rho = 1.0 + 0.1 * i
            self.p[i].cell = 0
        for i, j in self.frame:
            for r, c in qd.static(qd.ndrange(2, 3)):
                self.frame[i, j][r, c] = qd.f64(i * 0.5 + j + r * 0.25 - c)

    @qd.kernel
    def step(self, dt: qd.f32):
        self.hist.fill(0)
        self.energy[None] = 0.0
        for s in qd.static(range(self.substeps)):
            for i in range(self.n):
                self.force[i] = self.weight(i) * self.gravity[None] - 0.1 * self.p[i].vel
                self.p[i].vel += dt * self.force[i] / self.p[i].rho
                self.p[i].pos += dt * self.p[i].vel
        for i in range(self.n):
            c = qd.i32(qd.floor((self.p[i].pos[0] + 1.0) * 4.0)) % 8
            self.p[i].cell = c
            qd.atomic_add(self.hist[c], 1)
            v = self.p[i].vel
            self.energy[None] += qd.f64(0.5 * self.p[i].rho * v.dot(v))
        for i, j in self.frame:
            self.frame[i, j][1, 2] += qd.f64(self.p[i].pos[1]) * (j + 1)


@qd.kernel
def scale(f: qd.template(), k: qd.f32):
    for I in qd.grouped(f):
        f[I] = f[I] * k


@qd.kernel
def shifted_scale(f: qd.template(), k: qd.f32):
    for I in qd.grouped(f):
        f[I] = f[I] * k


@qd.kernel
def sparse_scale(f: qd.template(), k: qd.f32):
    for I in qd.grouped(f):
        f[I] = f[I] * k


@qd.kernel
def nested_scale(f: qd.template(), k: qd.f32):
    for I in qd.grouped(f):
        f[I] = f[I] * k


@qd.kernel
def square_sum(x: qd.template(), loss: qd.template()):
    for i in x:
        loss[None] += x[i] * x[i]
