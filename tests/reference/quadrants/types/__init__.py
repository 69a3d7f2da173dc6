"""qd.types: NDArray / ndarray, vector / matrix type constructors, primitive types, Template."""

from ..dtypes import f16, f32, f64, i8, i16, i32, i64, u1, u8, u16, u32, u64  # noqa: F401
from ..kernel import Template, template  # noqa: F401
from ..matrix import MatrixType, VectorType
from ..ndarray import NDArray, ndarray  # noqa: F401


def vector(n, dtype=None):
    from ..dtypes import DEFAULT_FP

    return VectorType(n, dtype or DEFAULT_FP)


def matrix(n, m, dtype=None):
    from ..dtypes import DEFAULT_FP

    return MatrixType(n, m, dtype or DEFAULT_FP)
