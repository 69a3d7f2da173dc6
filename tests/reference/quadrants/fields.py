"""qd.field / qd.Vector.field / qd.Matrix.field and struct fields (qd.types.struct(...).field):
zero-initialised dense arrays that kernels reach through data_oriented objects (docs/language.md
§1.11). In a kernel a field is the same view as an ndarray argument, except that its shape is a
tuple of Python ints (compile-time, as in Quadrants). A struct field is one field per member;
sf[i, j] is an element whose members read and write those fields."""

import array

from . import dtypes as dt
from .matrix import MatrixType, VectorType
from .ndarray import ArrayArg, NdarrayType


class Layout:
    AOS = "aos"
    SOA = "soa"


def _shape(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(n) for n in shape)


class Field(ArrayArg):
    def __init__(self, dtype, shape):
        shape = _shape(shape)
        elem = dtype.shape if isinstance(dtype, (VectorType, MatrixType)) else ()
        base = dtype.dtype if elem else dtype
        n = 1
        for d in shape + tuple(elem):
            n *= d
        fmt = dt.format_of(base)
        if fmt == "?":
            buf = memoryview(array.array("B", [0] * n)).cast("?")
        else:
            buf = memoryview(array.array(fmt, [0] * n))
        full = shape + tuple(elem)
        view = buf.cast("B").cast(fmt, full) if full else buf.cast("B").cast(fmt, ())
        super().__init__(view, NdarrayType(dtype, len(shape)), "field")
        self.shape = shape  # Python ints: compile-time in a kernel
        if elem:
            self.n = elem[0]
            self.m = elem[1] if len(elem) > 1 else 1
            self.ndim = len(elem)

    def fill(self, value):
        """Every element (Quadrants: `for I in grouped(F): F[I] = value`)."""
        count = 1
        for d in self.array_shape:
            count *= d
        for flat in range(count):
            idx, rest = [], flat
            for d in reversed(self.array_shape):
                idx.append(rest % d)
                rest //= d
            self.store(list(reversed(idx)), value)

    # Host side (the differential tests): the flat values in C order, and back.
    def flat_values(self):
        return [self._get(k) for k in range(len(self.flat))]

    def set_flat_values(self, values):
        if len(values) != len(self.flat):
            raise ValueError(f"{len(values)} values for a field of {len(self.flat)}")
        for k, v in enumerate(values):
            self._set(k, v)


def field(dtype, shape=(), **_options):
    return Field(dtype, shape)


def vector_field(n, dtype, shape=(), **_options):
    return Field(VectorType(n, dtype), shape)


def matrix_field(n, m, dtype, shape=(), **_options):
    return Field(MatrixType(n, m, dtype), shape)


class StructType:
    """qd.types.struct(name=dtype, ...)."""

    def __init__(self, **members):
        self.members = members

    def field(self, shape=(), needs_grad=False, layout=None, **_options):
        return StructField({k: (t.field(shape) if isinstance(t, StructType) else Field(t, shape))
                            for k, t in self.members.items()})


class StructField:
    def __init__(self, members):
        self.__dict__["_members"] = members

    @property
    def keys(self):
        return list(self._members)

    def __getattr__(self, name):
        members = self.__dict__["_members"]
        if name in members:
            return members[name]
        raise AttributeError(f"the struct field has no member '{name}'")

    def __getitem__(self, index):
        return StructElement(self, index)


class StructElement:
    """sf[i, j]: its members are the elements of the member fields at that index (read when
    read: the stand-in keeps no copy)."""

    def __init__(self, sf, index):
        self.__dict__["_sf"] = sf
        self.__dict__["_index"] = index

    def member_lvalue(self, name, ctx):
        from .lvalues import ArrayLV

        m = getattr(self._sf, name)
        if isinstance(m, StructField):
            raise TypeError("assigning a nested struct member as a whole")
        return ArrayLV(m, self._index, ctx)

    def __getattr__(self, name):
        m = getattr(self.__dict__["_sf"], name)
        if isinstance(m, StructField):
            return StructElement(m, self._index)
        return m.load(self.__dict__["_index"])


class StructElementLV:
    """sf[i] = sf2[j]: every member, read first, then written."""

    def __init__(self, sf, index, ctx):
        self.sf = sf
        self.index = index
        self.ctx = ctx

    def get(self):
        return StructElement(self.sf, self.index)

    def set(self, value):
        if not isinstance(value, StructElement) or value._sf.keys != self.sf.keys:
            raise TypeError("a struct field element takes an element of the same members")
        values = {k: getattr(value, k) for k in self.sf.keys}
        if self.ctx.dry:
            return
        for k, v in values.items():
            getattr(self.sf, k).store(self.index, v)
