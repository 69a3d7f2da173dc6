"""What the kernel generator knows about a value: its dtype and shape, bounds, and for floats
whether it is exact (so it may decide control flow) or how far two correct implementations may
drift apart (so outputs get a tolerance).

Quadrants' semantics decide the dtypes (docs/language.md §3): strongly typed literals (int ->
i32, float -> f32 rounded, bool -> u1), promotion (real beats integral, more bits win, unsigned
wins at equal width), integers wrap.

Floats: a value is *exact* when it is a multiple of 2^-g with |v| <= M and M * 2^g fits the
mantissa with room to spare: then every +, -, * of exact values is exact in f32/f64, whatever the
compiler contracts (FMA), reassociates (fast math) or rounds, and such values may be compared,
floored, cast to integers and used in conditions. Any other float is *inexact*: it may only flow
into float arithmetic and float outputs, and `err` bounds how much two correct implementations
(qdbuild's IEEE code with FMA contraction, the reference's round-after-every-op, Quadrants' fast
math) may differ on it."""

import math
import struct

INTS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
FLOATS = ("f32", "f64")
ALL = INTS + FLOATS + ("u1",)
BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
        "u1": 1, "f32": 32, "f64": 64}
MANT = {"f32": 24, "f64": 53}


def is_float(dt):
    return dt in FLOATS


def is_signed(dt):
    return dt.startswith("i")


def int_range(dt):
    b = BITS[dt]
    if dt == "u1":
        return 0, 1
    if is_signed(dt):
        return -(1 << (b - 1)), (1 << (b - 1)) - 1
    return 0, (1 << b) - 1


def promote(a, b):
    """Quadrants' promoted_type: u1 counts as 8 bits; a full tie goes to the second operand."""
    if a == b:
        return a
    if is_float(a) != is_float(b):
        return a if is_float(a) else b
    wa, wb = (8 if a == "u1" else BITS[a]), (8 if b == "u1" else BITS[b])
    if wa != wb:
        return a if wa > wb else b
    if a.startswith("u") and not b.startswith("u"):
        return a
    return b


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def round_to(dt, x):
    return f32(x) if dt == "f32" else float(x)


def granularity(x):
    """The smallest g >= 0 with x a multiple of 2^-g (x finite)."""
    if x == 0:
        return 0
    m, e = math.frexp(abs(x))  # x = m * 2^e, 0.5 <= m < 1
    g = 0
    while m != int(m):
        m *= 2
        g += 1
    return max(0, g - e)


class PyAny:
    """The py of a compile-time Python value that is not one known number (a qd.static loop
    variable over a tuple or a range: a different value in every iteration)."""

    def __repr__(self):
        return "PyAny"


PYANY = PyAny()


class Info:
    """dt; shape () / (n,) / (n, m); lo, hi: bounds of every component; floats: g (None:
    inexact), err (>= 0); py: the compile-time Python value of a literal-level expression."""

    __slots__ = ("dt", "shape", "lo", "hi", "g", "err", "py")

    def __init__(self, dt, lo, hi, g=0, err=0.0, shape=(), py=None):
        self.dt = dt
        self.shape = tuple(shape)
        self.lo = lo
        self.hi = hi
        self.g = g if is_float(dt) else 0
        self.err = err if is_float(dt) else 0.0
        self.py = py

    def __repr__(self):
        return (f"Info({self.dt}{list(self.shape) if self.shape else ''} [{self.lo}, {self.hi}]"
                f"{'' if not is_float(self.dt) else f' g={self.g} err={self.err:.3g}'})")

    @property
    def is_float(self):
        return is_float(self.dt)

    @property
    def is_int(self):
        return not is_float(self.dt)

    @property
    def exact(self):
        return not is_float(self.dt) or (self.g is not None and self.err == 0)

    @property
    def mag(self):
        return max(abs(self.lo), abs(self.hi))

    def with_shape(self, shape):
        return Info(self.dt, self.lo, self.hi, self.g, self.err, shape)

    def scalar(self):
        return Info(self.dt, self.lo, self.hi, self.g, self.err)

    def fits(self, env):
        """Whether every value this may hold is one that the storage envelope `env` admits."""
        if self.dt != env.dt and not (self.is_int and env.is_int):
            return False
        if self.lo < env.lo or self.hi > env.hi:
            return False
        if env.is_float:
            if env.g is not None:
                return self.g is not None and self.g <= env.g and self.err == 0
            return self.err <= env.err
        return True


def full(dt, shape=()):
    lo, hi = int_range(dt) if not is_float(dt) else (-1e30, 1e30)
    return Info(dt, lo, hi, None if is_float(dt) else 0, 0.0, shape)


def of_literal(v):
    """A Python literal as a typed constant (int -> i32, float -> f32, bool -> u1)."""
    if isinstance(v, bool):
        return Info("u1", int(v), int(v), py=v)
    if isinstance(v, int):
        return Info("i32", v, v, py=v)
    fv = f32(v)
    return Info("f32", fv, fv, granularity(fv), 0.0, py=v)


def union(a, b):
    """An envelope holding both (same dtype and shape)."""
    g = None if (a.g is None or b.g is None) else max(a.g, b.g)
    return Info(a.dt, min(a.lo, b.lo), max(a.hi, b.hi), g, max(a.err, b.err), a.shape)


# --- results of operations --------------------------------------------------------------------

def int_result(dt, lo, hi, shape=()):
    rlo, rhi = int_range(dt)
    if lo < rlo or hi > rhi:
        return Info(dt, rlo, rhi, shape=shape)  # wraps: anything
    return Info(dt, lo, hi, shape=shape)


def float_result(dt, lo, hi, g, err, shape=(), worst=None):
    """A float result: exact if g says the value set fits the mantissa with room, else inexact
    with err grown by a few ulps of the largest magnitude involved (`worst`)."""
    mag = max(abs(lo), abs(hi))
    worst = max(mag, worst or 0.0)
    mant = MANT[dt]
    if g is not None and err == 0 and mag * (2.0 ** g) <= 2.0 ** (mant - 3):
        return Info(dt, lo, hi, g, 0.0, shape)
    return Info(dt, lo, hi, None, err + 8 * worst * 2.0 ** -mant, shape)


def convert(a, dt):
    """a's value converted to dt (a cast or the implicit conversion of promotion). None when the
    conversion would be undefined or would depend on inexact rounding (a float to an integer
    from an inexact value, out of range, or negative to unsigned)."""
    shape = a.shape
    if a.dt == dt:
        return a
    if is_float(dt):
        mant = MANT[dt]
        if a.is_int:
            if a.mag <= 2 ** (mant - 3):
                return Info(dt, float(a.lo), float(a.hi), 0, 0.0, shape)
            return Info(dt, float(a.lo), float(a.hi), None, 0.0, shape)  # rounded, deterministic
        if dt == "f64":
            return Info(dt, a.lo, a.hi, a.g, a.err, shape)
        r = float_result("f32", f32(a.lo), f32(a.hi), a.g, a.err, shape)
        return r
    if dt == "u1":
        if a.is_float:
            return None  # float -> u1 aborts real Quadrants (LLVM assertion)
        return Info("u1", 0, 1, shape=shape)
    if a.is_float:
        if not a.exact:
            return None
        lo, hi = math.trunc(a.lo), math.trunc(a.hi)
        rlo, rhi = int_range(dt)
        if lo < rlo or hi > rhi:
            return None
        return Info(dt, lo, hi, shape=shape)
    return int_result(dt, a.lo, a.hi, shape)


def corners(f, a, b):
    vals = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return min(vals), max(vals)
