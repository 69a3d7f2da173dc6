"""Python values as qdrt_value: host and device arrays (the buffer protocol, HostArray /
DeviceArray, __cuda_array_interface__, DLPack), integers, floats, strings. Internal to qdrt: the
package re-exports HostArray and DeviceArray."""

import ctypes

from ._library import (_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED, _VALUE_ARRAY,
                       _VALUE_CUDA_ARRAY, _VALUE_INT, _VALUE_UNSIGNED, ArgumentError, _DLTensor,
                       _Value)

# QDRT_DTYPE_* codes (qdrt/store_format.h) by struct-module format character.
_DTYPES = {"b": 1, "h": 2, "i": 3, "q": 4, "B": 5, "H": 6, "I": 7, "Q": 8, "e": 9, "f": 10,
           "d": 11, "?": 12}
_LONG = {"l": "q" if ctypes.sizeof(ctypes.c_long) == 8 else "i",
         "L": "Q" if ctypes.sizeof(ctypes.c_long) == 8 else "I"}
_NAMES = {1: "i8", 2: "i16", 3: "i32", 4: "i64", 5: "u8", 6: "u16", 7: "u32", 8: "u64",
          9: "f16", 10: "f32", 11: "f64", 12: "u1"}

_CODES = {name: code for code, name in _NAMES.items()}


class HostArray:
    """An array in host memory given by address: `data` (an int), `dtype` (a qdrt dtype name:
    'f32', 'i32', 'u1', ...) and `shape` (the ndarray's dims, then the element dims of a vector /
    matrix dtype); `strides` (bytes per dim, default C-contiguous) only for a kernel's field
    arguments, which take the layout they were built for (a qd.field in Quadrants' memory). For
    memory no buffer protocol exposes (a Quadrants ndarray: its runtime's data pointer); the
    caller keeps the memory alive during the call."""

    __slots__ = ("data", "dtype", "shape", "strides", "_code", "_shape", "_strides")

    def __init__(self, data, dtype, shape, strides=None):
        if dtype not in _CODES:
            raise ArgumentError("HostArray: unknown dtype %r (expected one of %s)" %
                                (dtype, " ".join(sorted(_CODES))), "QDRT_ERROR_ARGUMENT")
        self.data, self.dtype, self.shape = int(data), dtype, tuple(int(d) for d in shape)
        self._code = _CODES[dtype]
        self._shape = _shape_type(len(self.shape))(*self.shape)
        self.strides, self._strides = None, None
        if strides is not None:
            self.strides = tuple(int(s) for s in strides)
            if len(self.strides) != len(self.shape):
                raise ArgumentError("HostArray: %d strides for %d dims" %
                                    (len(self.strides), len(self.shape)), "QDRT_ERROR_ARGUMENT")
            self._strides = _shape_type(len(self.strides))(*self.strides)

    def __repr__(self):
        return "%s(0x%x, %r, %r%s)" % (type(self).__name__, self.data, self.dtype, self.shape,
                                       "" if self.strides is None else ", %r" % (self.strides,))


class DeviceArray(HostArray):
    """An array in CUDA device memory given by address: `data` (a CUdeviceptr as an int),
    `dtype`, `shape` and `strides` as for HostArray. For device memory that no
    __cuda_array_interface__ describes (a Quadrants ndarray on CUDA: its runtime's data pointer);
    the call runs the kernel's CUDA instance, on the stream given to it (default: the default
    stream). The caller keeps the memory alive until the kernel has run."""

    __slots__ = ()

# __cuda_array_interface__ typestr (kind, bytes) and DLPack (code, bits) -> QDRT_DTYPE_*
_TYPESTR = {("i", 1): 1, ("i", 2): 2, ("i", 4): 3, ("i", 8): 4, ("u", 1): 5, ("u", 2): 6,
            ("u", 4): 7, ("u", 8): 8, ("f", 2): 9, ("f", 4): 10, ("f", 8): 11, ("b", 1): 12}
_DLPACK = {(0, 8): 1, (0, 16): 2, (0, 32): 3, (0, 64): 4, (1, 8): 5, (1, 16): 6, (1, 32): 7,
           (1, 64): 8, (2, 16): 9, (2, 32): 10, (2, 64): 11, (6, 8): 12}
_MAX_NDIM = 12  # array dims + element dims accepted from a buffer


_VALUE_ARRAYS = {}   # n -> _Value * n
_SHAPES = {}         # ndim -> c_int64 * max(ndim, 1)
_FORMAT_CODES = {}   # (buffer format, itemsize) -> dtype code
# Types whose instances are plain host buffers: memoryview() works, and neither the type nor an
# instance (no __dict__) can carry __cuda_array_interface__. Learned per type (numpy.ndarray is
# added on first use); subclasses that add the interface (numba mapped arrays) never qualify.
_PLAIN_BUFFERS = {memoryview, bytearray}
_DTYPE_SIZES = {1: 1, 2: 2, 3: 4, 4: 8, 5: 1, 6: 2, 7: 4, 8: 8, 9: 2, 10: 4, 11: 8, 12: 1}


def _values_type(n):
    t = _VALUE_ARRAYS.get(n)
    if t is None:
        t = _VALUE_ARRAYS[n] = _Value * max(n, 1)
    return t


def _shape_type(ndim):
    t = _SHAPES.get(ndim)
    if t is None:
        t = _SHAPES[ndim] = ctypes.c_int64 * max(ndim, 1)
    return t


def _buffer_dtype(fmt, itemsize):
    """The dtype code of a buffer format (struct syntax), checked against the item size."""
    code = _FORMAT_CODES.get((fmt, itemsize))
    if code is None:
        f = fmt.lstrip("@=<")
        if f in ("l", "L"):  # native long, or 4 bytes with a standard-size prefix ('<l')
            f = ("q" if itemsize == 8 else "i") if f == "l" else ("Q" if itemsize == 8 else "I")
        if fmt[:1] in (">", "!") or f not in _DTYPES or _DTYPE_SIZES[_DTYPES[f]] != itemsize:
            raise ArgumentError("unsupported buffer format '%s' (expected one of %s, native byte "
                                "order)" % (fmt, " ".join(sorted(_DTYPES))), "QDRT_ERROR_ARGUMENT")
        code = _FORMAT_CODES[(fmt, itemsize)] = _DTYPES[f]
    return code


def _array_into(obj, v, keep):
    """Fills the qdrt_value `v` from a buffer-protocol object; False if `obj` is not one."""
    try:
        mv = memoryview(obj)
    except TypeError:
        return False
    code = _buffer_dtype(mv.format, mv.itemsize)
    if not mv.c_contiguous:
        raise ArgumentError("the array is not C-contiguous (shape %s, strides %s); pass a "
                            "contiguous copy" % (mv.shape, mv.strides), "QDRT_ERROR_ARGUMENT")
    if mv.readonly:
        # Kernels may store to any array argument: a read-only buffer is refused, not copied.
        raise ArgumentError("the array is read-only (kernels may write their array "
                            "arguments); pass a writable buffer", "QDRT_ERROR_ARGUMENT")
    ndim = mv.ndim
    v.kind, v.dtype, v.ndim = _VALUE_ARRAY, code, ndim
    if mv.nbytes:
        v.data = ctypes.addressof(ctypes.c_char.from_buffer(mv))
    shape = _shape_type(ndim)(*mv.shape)
    v.shape = ctypes.addressof(shape)
    keep.append(mv)
    keep.append(shape)
    return True


def _set_int(v, x, i):
    """An integer value: i64, or a u64 beyond it passed as its bit pattern."""
    if -(1 << 63) <= x < (1 << 63):
        v.kind, v.i = _VALUE_INT, x
    elif (1 << 63) <= x < (1 << 64):
        v.kind, v.i, v.flags = _VALUE_INT, x - (1 << 64), _VALUE_UNSIGNED
    else:
        raise ArgumentError("argument %d: %d does not fit in 64 bits" % (i, x),
                            "QDRT_ERROR_ARGUMENT")


def _stream_handle(stream):
    """A CUstream as an int from an int, None, or torch/cupy/numba stream objects."""
    if stream is None:
        return None
    for attr in ("cuda_stream", "ptr", "handle"):
        v = getattr(stream, attr, None)
        if v is not None and not callable(v):
            stream = v
            break
    if hasattr(stream, "value"):  # ctypes.c_void_p
        stream = stream.value or 0
    return int(stream)


def _device_value(v, keep, dtype, data, shape, strides, readonly, what):
    if readonly:
        raise ArgumentError("the %s array is read-only (kernels may write their array "
                            "arguments)" % what, "QDRT_ERROR_ARGUMENT")
    cshape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    keep.append(cshape)
    v.kind, v.dtype, v.ndim, v.data = _VALUE_CUDA_ARRAY, dtype, len(shape), data or None
    v.shape = ctypes.addressof(cshape)
    if strides is not None:
        cstrides = (ctypes.c_int64 * max(len(strides), 1))(*strides)
        keep.append(cstrides)
        v.strides = ctypes.addressof(cstrides)


def _cai_value(cai, v, keep):
    """__cuda_array_interface__ (v2/v3) -> a CUDA array value; returns the producer's stream."""
    typestr = cai["typestr"]
    if typestr[:1] == ">" or (typestr[1:2], int(typestr[2:] or 0)) not in _TYPESTR:
        raise ArgumentError("unsupported __cuda_array_interface__ typestr '%s'" % typestr,
                            "QDRT_ERROR_ARGUMENT")
    if cai.get("mask") is not None:
        raise ArgumentError("masked CUDA arrays are not supported", "QDRT_ERROR_ARGUMENT")
    data, readonly = cai["data"]
    _device_value(v, keep, _TYPESTR[(typestr[1], int(typestr[2:]))], data, tuple(cai["shape"]),
                  cai.get("strides"), readonly, "__cuda_array_interface__")
    return cai.get("stream")


_capsule_api = None


def _capsule_pointer(capsule, name):
    global _capsule_api
    if _capsule_api is None:
        f = ctypes.pythonapi.PyCapsule_GetPointer
        f.restype, f.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        _capsule_api = f
    return _capsule_api(capsule, name)


def _dlpack_value(obj, v, keep, stream):
    """An object with __dlpack__ / __dlpack_device__ -> a host or CUDA array value. The capsule
    is borrowed (kept alive until the launch returns; its destructor releases the tensor)."""
    dev_type = obj.__dlpack_device__()[0]
    if dev_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        # the consumer's stream (1: the legacy default stream), so the producer orders its work
        capsule = obj.__dlpack__(stream=1 if not stream else stream)
    elif dev_type in (_DL_CPU, _DL_CUDA_HOST):
        capsule = obj.__dlpack__()
    else:
        raise ArgumentError("DLPack device type %d is neither the CPU nor CUDA" % dev_type,
                            "QDRT_ERROR_ARGUMENT")
    keep.append(capsule)
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    key = (t.dtype.code, t.dtype.bits)
    if t.dtype.lanes != 1 or key not in _DLPACK:
        raise ArgumentError("unsupported DLPack dtype (code %d, bits %d, lanes %d)"
                            % (t.dtype.code, t.dtype.bits, t.dtype.lanes), "QDRT_ERROR_ARGUMENT")
    dtype = _DLPACK[key]
    shape = tuple(t.shape[i] for i in range(t.ndim))
    itemsize = max(t.dtype.bits // 8, 1)
    strides = None
    if t.strides:  # in elements
        strides = tuple(t.strides[i] * itemsize for i in range(t.ndim))
    data = (t.data or 0) + t.byte_offset
    _device_value(v, keep, dtype, data, shape, strides, False, "DLPack")
    if dev_type in (_DL_CPU, _DL_CUDA_HOST):
        v.kind = _VALUE_ARRAY
    return dev_type in (_DL_CUDA, _DL_CUDA_MANAGED)
