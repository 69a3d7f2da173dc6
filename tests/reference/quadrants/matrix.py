"""qd.Vector / qd.Matrix constructors and the typed constructors qd.types.vector/matrix
(qd.math.vec3, ivec2, ...). Inside a kernel they build Tensor values; the element dtype of a
literal is the promotion of its entries (literals defaulted), a typed constructor casts and a
single scalar argument fills every element."""

from . import dtypes as dt
from .tensor_methods import as_scalar_list, make
from .values import Scalar, Tensor


def _rows(arg):
    rows = []
    for row in arg:
        if isinstance(row, Tensor):
            rows.append(row.elems())
        elif isinstance(row, (list, tuple)):
            rows.append([e for x in row for e in as_scalar_list(x)])
        else:
            return None
    return rows


class Matrix:
    """qd.Matrix([[...], ...]) (also a list of vectors as rows) or qd.Matrix([...]) (a vector)."""

    def __new__(cls, arr, dt=None):
        rows = _rows(arr)
        if rows is None:
            return Vector(arr, dt)
        return make([e for r in rows for e in r], (len(rows), len(rows[0])), dt)

    @staticmethod
    def identity(dtype, n):
        return Tensor(dtype, (n, n), [1 if i == j else 0 for i in range(n) for j in range(n)])

    @staticmethod
    def zero(dtype, n, m=None):
        shape = (n,) if m is None else (n, m)
        return Tensor(dtype, shape, [0] * (n * (m or 1)))

    @staticmethod
    def one(dtype, n, m=None):
        shape = (n,) if m is None else (n, m)
        return Tensor(dtype, shape, [1] * (n * (m or 1)))

    @staticmethod
    def diag(dim, val):
        entries = [val if i == j else 0 for i in range(dim) for j in range(dim)]
        return make(entries, (dim, dim))

    @staticmethod
    def rows(rows):
        """matrix_ops.rows: a list of vectors or lists of one length, row by row."""
        entries = []
        for r in rows:
            if isinstance(r, Tensor):
                if len(r.shape) != 1:
                    raise TypeError("Cols/rows must be a list of lists, or a list of vectors")
                entries.append(r.elems())
            elif isinstance(r, (list, tuple)):
                entries.append([e for x in r for e in as_scalar_list(x)])
            else:
                raise TypeError("Cols/rows must be a list of lists, or a list of vectors")
        if not entries or any(len(e) != len(entries[0]) for e in entries):
            raise TypeError("rows/cols of different lengths")
        return make([e for r in entries for e in r], (len(entries), len(entries[0])))

    @staticmethod
    def cols(cols):
        from .tensor_methods import transpose

        return transpose(Matrix.rows(cols))

    @staticmethod
    def unit(n, i, dtype=None):
        return Tensor(dtype or dt.DEFAULT_FP, (n,), [1 if k == i else 0 for k in range(n)])


class Vector(Matrix):
    def __new__(cls, arr, dt=None):
        entries = [e for x in arr for e in as_scalar_list(x)]
        return make(entries, (len(entries),), dt)

    @staticmethod
    def field(n, dtype, shape=(), **options):
        from .fields import vector_field

        return vector_field(n, dtype, shape, **options)


def _matrix_field(n, m, dtype, shape=(), **options):
    from .fields import matrix_field

    return matrix_field(n, m, dtype, shape, **options)


Matrix.field = staticmethod(_matrix_field)


class VectorType:
    """qd.types.vector(n, dtype): an annotation and a constructor."""

    def __init__(self, n, dtype):
        self.n = n
        self.dtype = dtype
        self.shape = (n,)

    def __repr__(self):
        return f"vector({self.n}, {self.dtype})"

    def __call__(self, *args):
        return construct(self, args)


class MatrixType:
    def __init__(self, n, m, dtype):
        self.n = n
        self.m = m
        self.dtype = dtype
        self.shape = (n, m)

    def __repr__(self):
        return f"matrix({self.n}, {self.m}, {self.dtype})"

    def __call__(self, *args):
        return construct(self, args)


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def construct(ttype, args):
    if ttype.dtype is None:
        raise TypeError(f"{ttype!r} without a dtype cannot construct a value")
    n = count(ttype.shape)
    entries = []
    for a in args:
        if isinstance(a, (list, tuple)):
            for x in a:
                entries.extend(as_scalar_list(x) if not isinstance(x, (list, tuple)) else
                               [e for y in x for e in as_scalar_list(y)])
        else:
            entries.extend(as_scalar_list(a))
    if len(entries) == 1 and n > 1:
        entries = entries * n
    if len(entries) != n:
        raise TypeError(f"{ttype!r} takes {n} values, got {len(entries)}")
    return make(entries, ttype.shape, ttype.dtype)


def as_tensor(value, ttype):
    """A by-value conversion (kernel argument, func parameter, store) to a vector/matrix type."""
    if isinstance(value, Tensor):
        if value.shape != ttype.shape:
            raise TypeError(f"expected shape {ttype.shape}, got {value.shape}")
        return make(value.elems(), ttype.shape, ttype.dtype)
    if isinstance(value, Scalar):
        return make([value] * count(ttype.shape), ttype.shape, ttype.dtype)
    return construct(ttype, [list(value)] if not isinstance(value, (int, float)) else [value])
