"""Dataclass parameters (nested, members pruned, ClassVar / cache-value members, passed to
funcs whole and by member), IntEnum members, and the trace-time Python Genesis kernels use:
x = qd.static(v), plain Python helpers inside qd.static, [x] * n, tuple-valued conditional
indices, a, b = x.shape, qd.lang.impl.get_runtime().default_fp."""

import dataclasses
import enum
from typing import ClassVar, Final

import quadrants as qd


class Mode(enum.IntEnum):
    SLOW = 1
    FAST = 2


@dataclasses.dataclass(frozen=True)
class Inner:
    u: qd.types.NDArray[qd.f32, 1]
    w: qd.types.NDArray[qd.i32, 1]


@dataclasses.dataclass(frozen=True)
class Base:
    a: qd.types.NDArray[qd.f32, 1]


@dataclasses.dataclass(frozen=True)
class State(Base):
    kind: ClassVar[int] = 3
    unused: qd.types.NDArray[qd.f64, 2]
    inner: Inner
    n: qd.i32
    m: qd.types.NDArray[qd.f32, 2]


@qd.func
def bump_inner(inner: Inner, i):
    inner.u[i] += qd.cast(inner.w[i], qd.f32)


@qd.func
def row_sum(s: State, i) -> qd.f32:
    acc = 0.0
    for j in range(s.m.shape[1]):
        acc += s.m[i, j]
    return acc


@qd.kernel
def dataclass_members(s: State, out: qd.types.NDArray[qd.f32, 1]):
    for i in range(out.shape[0]):
        bump_inner(s.inner, i)
        out[i] = s.a[i] * s.n + s.inner.u[i] + State.kind + Mode.FAST + row_sum(s, i)


@qd.kernel
def dataclass_atomic(s: State) -> qd.i32:
    total = 0
    for i in range(s.inner.w.shape[0]):
        qd.atomic_add(s.inner.u[i % 2], 1.0)
        total += s.inner.w[i]
    return total


def _tri(i, n):
    # Plain Python, run at trace time: the row-major packed index of (i, i).
    k = i * n
    k -= i * (i - 1) // 2
    return k


@qd.kernel
def trace_python(out: qd.types.NDArray[qd.i32, 1], m: qd.types.NDArray[qd.i32, 2]):
    for j in qd.static(range(4)):
        out[qd.static(_tri(j, 4))] = j + 1
    flag = qd.static(Mode.FAST == 2)
    if qd.static(flag):
        out[10] = 7
    v = qd.Vector([2] * 3, dt=qd.i32)
    out[11] = v.sum()
    rows, cols = m.shape
    out[12] = rows * 10 + cols
    for i in range(rows):
        for j in range(cols):
            m[(i, j) if i > j else (j, i)] += 1
    if qd.static(qd.lang.impl.get_runtime().default_fp == qd.f32):
        out[13] = 32
    else:
        out[13] = 64


@dataclasses.dataclass(frozen=True)
class Laid:
    a: qd.types.NDArray[qd.f32, 2]
    b: qd.types.NDArray[qd.i32, 3]


@qd.kernel
def laid_out(s: Laid, x: qd.types.NDArray[qd.f32, 2], out: qd.types.NDArray[qd.i32, 1]):
    # Permuted layouts (from the instance, as Quadrants' qd.tensor(..., layout=...)): indices and
    # shapes are canonical, the buffers are in memory order.
    n, m = s.a.shape
    for i, j in s.a:
        s.a[i, j] = s.a[i, j] * 2.0 + i * 10 + j
    for I in qd.grouped(s.b):
        s.b[I] += I[0] * 100 + I[1] * 10 + I[2]
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            x[i, j] += s.a[i, j % m] + j
    out[0] = n * 10 + m
    out[1] = s.b.shape[0] * 100 + s.b.shape[1] * 10 + s.b.shape[2]
    out[2] = x.shape[0] * 10 + x.shape[1]


@dataclasses.dataclass(frozen=True)
class Scaled:
    x: qd.types.NDArray[qd.f32, 1]
    scale: Final[float] = 2.0  # baked into the instance (Quadrants: final_scalar_key)
    n: qd.i32 = 1


@qd.kernel
def final_member(s: Scaled):
    for i in range(s.x.shape[0]):
        if qd.static(s.scale > 2.5):
            s.x[i] = s.x[i] * s.scale + s.n
        else:
            s.x[i] = -1.0


@qd.data_oriented
class Config:
    """A config object passed as a qd.template() value (Genesis's RigidSimStaticConfig style):
    its members and properties are compile-time values."""

    def __init__(self, flag, n):
        self.flag = flag
        self.n = n

    @property
    def twice(self):
        return self.n * 2


@qd.kernel
def config_object(cfg: qd.template(), x: qd.types.NDArray[qd.i32, 1]):
    for i in range(x.shape[0]):
        if qd.static(cfg.flag):
            x[i] = i * cfg.n + cfg.twice
        else:
            x[i] = -1
