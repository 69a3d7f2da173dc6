"""The kernels of random_app (main.py runs them)."""

import quadrants as qd


@qd.func
def step(x: qd.f64, scale: qd.f64) -> qd.f64:
    return x + (qd.random(qd.f64) - 0.5) * scale


@qd.kernel
def sample(out: qd.types.ndarray(qd.f32, 2), lo: qd.template(), hi: qd.template()):
    for i in range(out.shape[0]):
        for k in range(out.shape[1]):
            out[i, k] = lo + qd.random() * (hi - lo)


@qd.kernel
def walk(path: qd.types.ndarray(qd.f64, 1), scale: qd.f64) -> qd.i32:
    qd.loop_config(serialize=True)
    turns = 0
    x = qd.f64(0.0)
    for s in range(path.shape[0]):
        x = step(x, scale)
        if qd.random(qd.u32) % 2 == 1:
            turns += 1
        path[s] = x
    return turns


@qd.data_oriented
class Jitter:
    def __init__(self, n):
        self.pos = qd.Vector.field(3, dtype=qd.f32, shape=n)
        self.hits = qd.field(qd.i64, shape=n)

    @qd.kernel
    def shake(self, amount: qd.f32):
        for i in self.pos:
            self.pos[i] += qd.Vector([qd.random(qd.f32) - 0.5 for _ in range(3)]) * amount
            self.hits[i] += qd.random(qd.i64) % 1000
