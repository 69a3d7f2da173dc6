"""Fields of data_oriented objects (docs/language.md §1.11), as Genesis's particle solvers use
them: a struct field (Layout.SOA) with vector and scalar members, vector and scalar fields, a
nested data_oriented object with fields of its own, @qd.func methods called on self and passed
to a template parameter, fill(), shapes as compile-time values, struct-for over a field, a
Python-scope qd.Vector member, element copies between struct fields."""

import quadrants as qd


@qd.data_oriented
class Grid:
    """A spatial hasher in the style of genesis.utils.geom.SpatialHasher."""

    def __init__(self, n_slots, n_batch):
        self.n_slots = n_slots
        self._B = n_batch
        self.slot_size = qd.field(qd.i32, shape=(n_slots, n_batch))
        self.slot_start = qd.field(qd.i32, shape=(n_slots, n_batch))

    @qd.func
    def slot_of(self, x):
        return qd.min(qd.max(qd.cast(qd.floor(x * self.n_slots), qd.i32), 0), self.n_slots - 1)

    @qd.func
    def count(self, n, pos, active):
        self.slot_size.fill(0)
        for i, b in qd.ndrange(n, self._B):
            if active[i, b]:
                qd.atomic_add(self.slot_size[self.slot_of(pos[i, b][0]), b], 1)
        for b in range(self._B):
            start = 0
            for s in range(self.n_slots):
                self.slot_start[s, b] = start
                start += self.slot_size[s, b]

    @qd.func
    def for_all(self, i, b, ret: qd.template(), task: qd.template()):
        for s in range(self.slot_size.shape[0]):
            if self.slot_size[s, b] > 0:
                task(i, s, ret, b)


@qd.func
def settle(sf: qd.template(), i, b, floor):
    """A struct field passed to a func and assigned through it."""
    if sf[i, b].pos[2] < floor:
        sf[i, b].pos[2] = floor
        sf[i, b].vel *= 0.5


@qd.data_oriented
class Particles:
    def __init__(self, n, n_batch):
        self.n = n
        self._B = n_batch
        self.dt = 0.25
        self.upper = qd.Vector([1.0, 1.0, 0.75], dt=qd.f32)
        state = qd.types.struct(pos=qd.types.vector(3, qd.f32), vel=qd.types.vector(3, qd.f32),
                                rho=qd.f32)
        ng = qd.types.struct(active=qd.u1, idx=qd.i32)
        self.particles = state.field(shape=(n, n_batch), layout=qd.Layout.SOA)
        self.reordered = state.field(shape=(n, n_batch), layout=qd.Layout.SOA)
        self.ng = ng.field(shape=(n, n_batch), layout=qd.Layout.SOA)
        self.gravity = qd.Vector.field(3, qd.f32, shape=(n_batch,))
        self.mass = qd.field(qd.f32, shape=(n,))
        self.grid = Grid(4, n_batch)

    @qd.func
    def weight(self, i):
        return self.mass[i] * 0.5 + 1.0

    @qd.func
    def _task_rho(self, i, s, ret: qd.template(), b):
        ret += self.grid.slot_size[s, b] * self.weight(i) + s

    @qd.kernel
    def step(self, f: qd.i32):
        self.grid.count(self.n, self.particles.pos, self.ng.active)
        for i, b in qd.ndrange(self.n, self._B):
            if self.ng[i, b].active:
                acc = self.gravity[b] * self.weight(i)
                self.particles[i, b].vel += self.dt * acc
                p = self.particles[i, b].pos + self.dt * self.particles[i, b].vel
                self.particles[i, b].pos = qd.min(p, self.upper)
                rho = qd.cast(f, qd.f32)
                self.grid.for_all(i, b, rho, self._task_rho)
                self.particles[i, b].rho = rho

    @qd.kernel
    def reorder(self):
        for i, b in self.ng.idx:
            self.ng[i, b].idx = self.n - 1 - i
        for i, b in qd.ndrange(self.n, self._B):
            self.reordered[self.ng[i, b].idx, b] = self.particles[i, b]
        for I in qd.grouped(self.mass):
            self.mass[I] += qd.static(self.particles.pos.shape[0] * 10 + len(self.mass.shape))

    @qd.kernel
    def floor(self, height: qd.f32):
        for i, b in qd.ndrange(self.particles.pos.shape[0], self.particles.pos.shape[1]):
            settle(self.particles, i, b, height)

    @qd.kernel
    def stats(self, out: qd.types.NDArray[qd.f32, 1]):
        for i in range(qd.static(self.particles.rho.shape[0])):
            for b in qd.static(range(self._B)):
                qd.atomic_max(out[0], self.reordered[i, b].rho)
                out[1] += self.reordered[i, b].pos.sum()
        out[2] = getattr(self.gravity, "n", 0) * 10 + getattr(self.mass, "n", 7)


@qd.data_oriented
class Scale:
    def __init__(self, k):
        self.k = k

    @qd.func
    def apply(self, x):
        return x * self.k + 1.0


@qd.data_oriented
class Chain:
    """A list of @qd.func methods bound to other objects, called in a static loop (Genesis's
    MPMSolver._materials_update_F_S_Jp: each material's update function)."""

    def __init__(self):
        self.ops = [Scale(2.0).apply, Scale(-0.5).apply]
        self.out = qd.field(qd.f32, shape=(4,))

    @qd.kernel
    def run(self):
        for i in range(self.out.shape[0]):
            v = self.out[i] + i
            for k in qd.static(range(len(self.ops))):
                v = self.ops[k](v)
            self.out[i] = v


@qd.func
def gather(i, ret: qd.template(), w):
    ret.total += w * i
    ret.count += 1
    ret.dv[i % 3] += w
    ret.dv += qd.Vector([0.0, 0.0, 0.5])


@qd.func
def visit(n, ret: qd.template(), task: qd.template()):
    for j in range(n):
        task(j, ret, 0.25 * j)


@qd.kernel
def local_struct(out: qd.types.NDArray[qd.f32, 1], counts: qd.types.NDArray[qd.i32, 1]):
    """qd.Struct values passed by reference through funcs (Genesis's DFSPH solver: a neighbour
    loop accumulating several quantities into one struct)."""
    for i in range(counts.shape[0]):
        ret = qd.Struct(total=0.0, count=0, dv=qd.Vector.zero(qd.f32, 3))
        visit(i + 2, ret, gather)
        out[4 * i] = ret.total
        out[4 * i + 1] = ret.dv[0]
        out[4 * i + 2] = ret.dv[1] + ret.dv[2]
        out[4 * i + 3] = ret.dv.sum()
        counts[i] = ret.count
