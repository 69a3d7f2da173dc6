"""Primitive dtypes: i8..u64, u1, f32, f64 (f16 exists as a name only).

A DType knows how to bring a Python number into its value set: integers wrap (two's complement),
f32 values are rounded to the nearest f32 (struct.pack), u1 is 0 or 1. promote() is the
promotion table of docs/language.md §3: real beats integral, then more bits win, then at equal
width unsigned wins.
"""

import math
import struct


class DType:
    def __init__(self, name, kind, bits):
        self.name = name
        self.kind = kind  # 'i' signed, 'u' unsigned (u1 included), 'f' real
        self.bits = bits

    @property
    def is_float(self):
        return self.kind == "f"

    @property
    def is_int(self):
        return self.kind in "iu"

    @property
    def is_signed(self):
        return self.kind == "i"

    def __repr__(self):
        return self.name

    def __call__(self, x):
        """T(x): a cast of a runtime value; a compile-time number becomes a constant of T, whose
        kind must match (qd.f64(1) is an error: "Integer literals must be annotated with a
        integer type")."""
        from .ops import cast, constant, is_typed

        if not is_typed(x) and not isinstance(x, bool):
            if isinstance(x, int) and self.is_float:
                raise TypeError("Integer literals must be annotated with a integer type")
            if isinstance(x, float) and not self.is_float:
                raise TypeError("Floating-point literals must be annotated with a floating-point type")
            return constant(x, self)
        return cast(x, self)

    def normalize(self, v):
        """The nearest value of this dtype's value set (wrap / round)."""
        if self.kind == "f":
            return round_f32(float(v)) if self.bits == 32 else float(v)
        if self.bits == 1:
            return int(v) & 1  # u1 arithmetic wraps like any unsigned type (1 + 1 == 0)
        v = int(v)
        mask = (1 << self.bits) - 1
        v &= mask
        if self.kind == "i" and v >> (self.bits - 1):
            v -= 1 << self.bits
        return v

    def in_range(self, v):
        if self.kind == "i":
            return -(1 << (self.bits - 1)) <= v < (1 << (self.bits - 1))
        return 0 <= v < (1 << self.bits)


def round_f32(x):
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


i8 = DType("i8", "i", 8)
i16 = DType("i16", "i", 16)
i32 = DType("i32", "i", 32)
i64 = DType("i64", "i", 64)
u1 = DType("u1", "u", 1)
u8 = DType("u8", "u", 8)
u16 = DType("u16", "u", 16)
u32 = DType("u32", "u", 32)
u64 = DType("u64", "u", 64)
f16 = DType("f16", "f", 16)
f32 = DType("f32", "f", 32)
f64 = DType("f64", "f", 64)

ALL = (i8, i16, i32, i64, u1, u8, u16, u32, u64, f16, f32, f64)
BY_NAME = {d.name: d for d in ALL}
BY_NAME.update(int8=i8, int16=i16, int32=i32, int64=i64, uint8=u8, uint16=u16, uint32=u32,
               uint64=u64, float32=f32, float64=f64)

DEFAULT_IP = i32
DEFAULT_FP = f32

# Buffer-protocol format characters (native byte order) of each dtype, and back.
_FORMATS = {i8: "b", i16: "h", i32: "i", i64: "q", u1: "?", u8: "B", u16: "H", u32: "I", u64: "Q",
            f32: "f", f64: "d"}


def format_of(dtype):
    return _FORMATS[dtype]


def from_format(fmt):
    fmt = fmt.lstrip("@=<")
    size = struct.calcsize(fmt)
    if fmt in "fd":
        return f32 if fmt == "f" else f64
    if fmt == "?":
        return u1
    signed = fmt.islower()
    return {(True, 1): i8, (True, 2): i16, (True, 4): i32, (True, 8): i64, (False, 1): u8,
            (False, 2): u16, (False, 4): u32, (False, 8): u64}[(signed, size)]


def promote(a, b):
    """Quadrants' promoted_type (quadrants/ir/type_factory.cpp, compare_types): real beats
    integral, more bits win, at equal width unsigned beats signed, and at a full tie the second
    operand's type wins. u1 is stored in a byte and counts as 8 bits there: u1 op i8 is u1,
    u1 op u8 is u8 but u8 op u1 is u1."""
    if a.is_float != b.is_float:
        return a if a.is_float else b
    wa, wb = (8 if a is u1 else a.bits), (8 if b is u1 else b.bits)
    if wa != wb:
        return a if wa > wb else b
    if a.kind == "u" and b.kind != "u":
        return a
    return b


def dtype_of_annotation(ann):
    """int/float/bool Python types and DType objects as scalar annotations."""
    if isinstance(ann, DType):
        return ann
    if ann is int:
        return DEFAULT_IP
    if ann is float:
        return DEFAULT_FP
    if ann is bool:
        return u1
    return None
