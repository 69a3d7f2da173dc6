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


# A dataclass of 60 ndarray members: 61 arguments, past the 51 that fit a 4 KiB CUDA kernel
# parameter (task_abi.h "CUDA modules", ABI 3; Genesis passes up to ~150).
@dataclasses.dataclass(frozen=True)
class Wide:
    a00: qd.types.NDArray[qd.f32, 1]
    a01: qd.types.NDArray[qd.f32, 1]
    a02: qd.types.NDArray[qd.f32, 1]
    a03: qd.types.NDArray[qd.f32, 1]
    a04: qd.types.NDArray[qd.f32, 1]
    a05: qd.types.NDArray[qd.f32, 1]
    a06: qd.types.NDArray[qd.f32, 1]
    a07: qd.types.NDArray[qd.f32, 1]
    a08: qd.types.NDArray[qd.f32, 1]
    a09: qd.types.NDArray[qd.f32, 1]
    a10: qd.types.NDArray[qd.f32, 1]
    a11: qd.types.NDArray[qd.f32, 1]
    a12: qd.types.NDArray[qd.f32, 1]
    a13: qd.types.NDArray[qd.f32, 1]
    a14: qd.types.NDArray[qd.f32, 1]
    a15: qd.types.NDArray[qd.f32, 1]
    a16: qd.types.NDArray[qd.f32, 1]
    a17: qd.types.NDArray[qd.f32, 1]
    a18: qd.types.NDArray[qd.f32, 1]
    a19: qd.types.NDArray[qd.f32, 1]
    a20: qd.types.NDArray[qd.f32, 1]
    a21: qd.types.NDArray[qd.f32, 1]
    a22: qd.types.NDArray[qd.f32, 1]
    a23: qd.types.NDArray[qd.f32, 1]
    a24: qd.types.NDArray[qd.f32, 1]
    a25: qd.types.NDArray[qd.f32, 1]
    a26: qd.types.NDArray[qd.f32, 1]
    a27: qd.types.NDArray[qd.f32, 1]
    a28: qd.types.NDArray[qd.f32, 1]
    a29: qd.types.NDArray[qd.f32, 1]
    a30: qd.types.NDArray[qd.f32, 1]
    a31: qd.types.NDArray[qd.f32, 1]
    a32: qd.types.NDArray[qd.f32, 1]
    a33: qd.types.NDArray[qd.f32, 1]
    a34: qd.types.NDArray[qd.f32, 1]
    a35: qd.types.NDArray[qd.f32, 1]
    a36: qd.types.NDArray[qd.f32, 1]
    a37: qd.types.NDArray[qd.f32, 1]
    a38: qd.types.NDArray[qd.f32, 1]
    a39: qd.types.NDArray[qd.f32, 1]
    a40: qd.types.NDArray[qd.f32, 1]
    a41: qd.types.NDArray[qd.f32, 1]
    a42: qd.types.NDArray[qd.f32, 1]
    a43: qd.types.NDArray[qd.f32, 1]
    a44: qd.types.NDArray[qd.f32, 1]
    a45: qd.types.NDArray[qd.f32, 1]
    a46: qd.types.NDArray[qd.f32, 1]
    a47: qd.types.NDArray[qd.f32, 1]
    a48: qd.types.NDArray[qd.f32, 1]
    a49: qd.types.NDArray[qd.f32, 1]
    a50: qd.types.NDArray[qd.f32, 1]
    a51: qd.types.NDArray[qd.f32, 1]
    a52: qd.types.NDArray[qd.f32, 1]
    a53: qd.types.NDArray[qd.f32, 1]
    a54: qd.types.NDArray[qd.f32, 1]
    a55: qd.types.NDArray[qd.f32, 1]
    a56: qd.types.NDArray[qd.f32, 1]
    a57: qd.types.NDArray[qd.f32, 1]
    a58: qd.types.NDArray[qd.f32, 1]
    a59: qd.types.NDArray[qd.f32, 1]


@qd.kernel
def wide_dataclass(w: Wide, out: qd.types.NDArray[qd.f32, 1]):
    for i in range(out.shape[0]):
        acc = 0.0
        acc += w.a00[i] * 1.0
        acc += w.a01[i] * 2.0
        acc += w.a02[i] * 3.0
        acc += w.a03[i] * 4.0
        acc += w.a04[i] * 5.0
        acc += w.a05[i] * 6.0
        acc += w.a06[i] * 7.0
        acc += w.a07[i] * 8.0
        acc += w.a08[i] * 9.0
        acc += w.a09[i] * 10.0
        acc += w.a10[i] * 11.0
        acc += w.a11[i] * 12.0
        acc += w.a12[i] * 13.0
        acc += w.a13[i] * 14.0
        acc += w.a14[i] * 15.0
        acc += w.a15[i] * 16.0
        acc += w.a16[i] * 17.0
        acc += w.a17[i] * 18.0
        acc += w.a18[i] * 19.0
        acc += w.a19[i] * 20.0
        acc += w.a20[i] * 21.0
        acc += w.a21[i] * 22.0
        acc += w.a22[i] * 23.0
        acc += w.a23[i] * 24.0
        acc += w.a24[i] * 25.0
        acc += w.a25[i] * 26.0
        acc += w.a26[i] * 27.0
        acc += w.a27[i] * 28.0
        acc += w.a28[i] * 29.0
        acc += w.a29[i] * 30.0
        acc += w.a30[i] * 31.0
        acc += w.a31[i] * 32.0
        acc += w.a32[i] * 33.0
        acc += w.a33[i] * 34.0
        acc += w.a34[i] * 35.0
        acc += w.a35[i] * 36.0
        acc += w.a36[i] * 37.0
        acc += w.a37[i] * 38.0
        acc += w.a38[i] * 39.0
        acc += w.a39[i] * 40.0
        acc += w.a40[i] * 41.0
        acc += w.a41[i] * 42.0
        acc += w.a42[i] * 43.0
        acc += w.a43[i] * 44.0
        acc += w.a44[i] * 45.0
        acc += w.a45[i] * 46.0
        acc += w.a46[i] * 47.0
        acc += w.a47[i] * 48.0
        acc += w.a48[i] * 49.0
        acc += w.a49[i] * 50.0
        acc += w.a50[i] * 51.0
        acc += w.a51[i] * 52.0
        acc += w.a52[i] * 53.0
        acc += w.a53[i] * 54.0
        acc += w.a54[i] * 55.0
        acc += w.a55[i] * 56.0
        acc += w.a56[i] * 57.0
        acc += w.a57[i] * 58.0
        acc += w.a58[i] * 59.0
        acc += w.a59[i] * 60.0
        out[i] = acc
