"""qd.random: Quadrants' generator (its runtime's rand_u32 .. rand_f64), one state per thread,
state i seeded from random_seed * 1048391 + i. The stand-in runs every loop on one thread, so it
draws from state 0 only: a compiled kernel matches it where it draws on one thread (serial code,
qd.loop_config(serialize=True), or a store run with one thread)."""

from . import dtypes as dt
from .values import Scalar

_M = 0xFFFFFFFF


class Generator:
    def __init__(self, seed=0, index=0):
        n = (seed * 1048391 + index) & _M
        self.x = (123456789 * n * 1000000007) & _M
        self.y, self.z, self.w = 362436069, 521288629, 88675123

    def u32(self):
        t = (self.x ^ (self.x << 11)) & _M
        self.x, self.y, self.z = self.y, self.z, self.w
        self.w = (self.w ^ (self.w >> 19)) ^ (t ^ (t >> 8))
        return (self.w * 1000000007) & _M

    def u64(self):
        high = self.u32()
        return (high << 32) + self.u32()


_state = Generator()


def seed(value):
    global _state
    _state = Generator(int(value))


def random(dtype=float):
    t = dt.dtype_of_annotation(getattr(dtype, "builtin", dtype))
    if t is dt.f32:
        return Scalar(t, (_state.u32() >> 8) * (1.0 / 16777216.0))
    if t is dt.f64:
        return Scalar(t, (_state.u64() >> 11) * (1.0 / 9007199254740992.0))
    if t in (dt.i32, dt.u32):
        return Scalar(t, t.normalize(_state.u32()))
    if t in (dt.i64, dt.u64):
        return Scalar(t, t.normalize(_state.u64()))
    raise TypeError(f"qd.random({t or dtype!r}): Quadrants draws f32, f64, i32, i64, u32 and u64 only")
