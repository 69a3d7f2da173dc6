"""ndarray kernel arguments: NDArray[dtype, ndim] / ndarray(dtype=, ndim=) annotations, and the
view a kernel works on. Any C-contiguous buffer-protocol object works (numpy arrays, array.array,
shaped memoryviews); vector/matrix dtypes have trailing element dims in the buffer's shape."""

from . import dtypes as dt
from .matrix import MatrixType, VectorType, as_tensor
from .ops import cast, is_typed
from .values import Scalar, Tensor


class NdarrayType:
    def __init__(self, dtype=None, ndim=None):
        self.dtype = dtype
        self.ndim = ndim

    def __repr__(self):
        return f"ndarray({self.dtype}, {self.ndim})"


class NDArray:
    """qd.types.NDArray[dtype, ndim] (bare NDArray or NDArray[dtype] infer the rest)."""

    def __class_getitem__(cls, item):
        if not isinstance(item, tuple):
            item = (item,)
        return NdarrayType(*item)


def ndarray(dtype=None, ndim=None, **_ignored):
    return NdarrayType(dtype, ndim)


class ArrayArg:
    """A kernel's view of an ndarray argument."""

    def __init__(self, obj, ann, name="array"):
        mv = memoryview(obj)
        if not mv.c_contiguous:
            raise TypeError(f"argument '{name}': array must be C-contiguous")
        self.obj = obj
        buf_dtype = dt.from_format(mv.format)
        elem = ann.dtype
        if isinstance(elem, (VectorType, MatrixType)):
            self.elem_type = elem
            self.dtype = elem.dtype
            self.elem_shape = elem.shape
        else:
            self.elem_type = None
            self.dtype = elem if elem is not None else buf_dtype
            self.elem_shape = ()
        if buf_dtype is not self.dtype and not (buf_dtype.kind == self.dtype.kind and
                                                buf_dtype.bits == self.dtype.bits):
            raise TypeError(f"argument '{name}': expected dtype {self.dtype}, got {buf_dtype}")
        full = tuple(mv.shape)  # () for a 0-d array
        ndim = ann.ndim if ann.ndim is not None else len(full) - len(self.elem_shape)
        if len(full) != ndim + len(self.elem_shape) or full[ndim:] != self.elem_shape:
            raise TypeError(f"argument '{name}': shape {full} does not fit {ann!r} with element "
                            f"shape {self.elem_shape}")
        self.array_shape = full[:ndim]
        self.shape = tuple(Scalar(dt.i32, n) for n in self.array_shape)
        self.flat = mv.cast("B").cast(mv.format.lstrip("@=<"))
        self.elem_count = 1
        for n in self.elem_shape:
            self.elem_count *= n

    def _offset(self, idx):
        if len(idx) != len(self.array_shape):
            raise IndexError(f"ndarray of {len(self.array_shape)} dims indexed with {len(idx)}")
        k = 0
        for i, n in zip(idx, self.array_shape):
            i = i.v if isinstance(i, Scalar) else int(i)
            if not 0 <= i < n:
                raise IndexError(f"index {i} out of range for ndarray shape {self.array_shape}")
            k = k * n + i
        return k * self.elem_count

    def in_bounds(self, idx):
        try:
            self._offset(idx)
            return True
        except IndexError:
            return False

    def load(self, idx):
        k = self._offset(idx)
        if self.elem_type is None:
            return Scalar(self.dtype, self._get(k))
        return Tensor(self.dtype, self.elem_shape, [self._get(k + j) for j in range(self.elem_count)])

    def store(self, idx, value):
        k = self._offset(idx)
        if self.elem_type is None:
            if isinstance(value, Tensor):
                raise TypeError("storing a vector into a scalar ndarray element")
            self._set(k, cast(value, self.dtype).v)
            return
        t = as_tensor(value if is_typed(value) else cast(value, self.dtype), self.elem_type)
        for j, v in enumerate(t.data):
            self._set(k + j, v)

    def _get(self, k):
        v = self.flat[k]
        return int(v) if self.dtype.is_int else float(v)

    def _set(self, k, v):
        self.flat[k] = bool(v) if self.dtype is dt.u1 else v
