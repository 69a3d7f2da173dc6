"""qd.types: NDArray / ndarray, vector / matrix type constructors, primitive types, Template."""

from ..dtypes import f16, f32, f64, i8, i16, i32, i64, u1, u8, u16, u32, u64  # noqa: F401
from ..kernel import Template, template  # noqa: F401
from ..matrix import MatrixType, VectorType
from ..ndarray import NDArray, ndarray  # noqa: F401


def struct(**members):
    """qd.types.struct(name=dtype, ...): its .field(shape, layout=...) makes a struct field."""
    from ..fields import StructType

    return StructType(**members)


def vector(n, dtype=None):
    """qd.types.vector(n, dtype); without a dtype only a func parameter annotation (the
    parameter keeps the argument's dtype)."""
    return VectorType(n, dtype)


def matrix(n, m, dtype=None):
    return MatrixType(n, m, dtype)
