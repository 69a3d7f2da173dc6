"""qdrt: run kernels from a qdbuild store (standard library + ctypes only).

    import qdrt
    store = qdrt.open("kernels.qdpack")          # a directory store or a pack; lazy=True to
    store.kernels()                              # load modules on first use
    advance = store.kernel("physics:advance")
    advance(pos, vel, 0.01)                      # C-contiguous buffers (numpy, array.array,
    advance.observations                         # memoryview with shape/format) and scalars
    advance(pos_gpu, vel_gpu, 0.01, stream=s)    # CUDA: torch/cupy/numba device arrays
                                                 # (__cuda_array_interface__ or __dlpack__)

Arrays: the buffer's format gives the dtype, its shape the ndarray's dims plus the element dims
of vector/matrix dtypes. Template parameters are passed like any argument (they select the
instance). A kernel returns its return value or None. Errors are qdrt.Error subclasses carrying
libqdrt's message. QDRT_LIBRARY names the libqdrt.so to use; otherwise the installed one next
to this package (PREFIX/lib/libqdrt.so.0 for PREFIX/lib/qdrt/python/qdrt), the in-tree
build/lib/libqdrt.so, then the system's. docs/runtime.md has the details.

CUDA: device arrays (objects with __cuda_array_interface__, or __dlpack__ on a CUDA device) run
the kernel's "cuda:sm_XX" instance on the GPU, queued on `stream` (a CUstream handle as an int,
or an object with .cuda_stream / .ptr / .handle; default: the stream the arrays' producer names,
else the default stream). The call returns once queued, unless the kernel returns a value.
"""

import ctypes
import numbers
import os

__all__ = ["open", "Store", "Kernel", "Error", "ArgumentError", "NoInstanceError",
           "NotFoundError", "CorruptStoreError", "VersionError", "LoadError", "StoreIOError",
           "CudaError", "cuda_init", "HostArray", "DeviceArray"]


class Error(Exception):
    """A libqdrt failure; `status` is the C status name, str() the runtime's message."""

    def __init__(self, message, status="QDRT_ERROR_INTERNAL"):
        super().__init__(message)
        self.status = status


class ArgumentError(Error, TypeError):
    """An argument does not fit the kernel (dtype, ndim, shape, contiguity, count)."""


class NoInstanceError(Error, TypeError):
    """No built instance matches the arguments; the message lists the built ones."""


class NotFoundError(Error, LookupError):
    """No such store, kernel (the message has a did-you-mean) or target."""


class CorruptStoreError(Error):
    """The index, a pack or an object is damaged."""


class VersionError(Error):
    """A format or ABI version this libqdrt does not read."""


class LoadError(Error):
    """A module could not be loaded or lacks a symbol."""


class StoreIOError(Error, OSError):
    """Reading a store file failed."""


class CudaError(Error):
    """No CUDA driver or device, or a driver call failed (the message names the call)."""


_ERRORS = {1: ("QDRT_ERROR_INVALID_ARGUMENT", Error), 2: ("QDRT_ERROR_NOT_FOUND", NotFoundError),
           3: ("QDRT_ERROR_IO", StoreIOError), 4: ("QDRT_ERROR_CORRUPT", CorruptStoreError),
           5: ("QDRT_ERROR_VERSION", VersionError), 6: ("QDRT_ERROR_LOAD", LoadError),
           7: ("QDRT_ERROR_NO_INSTANCE", NoInstanceError), 8: ("QDRT_ERROR_ARGUMENT", ArgumentError),
           9: ("QDRT_ERROR_OUT_OF_MEMORY", Error), 10: ("QDRT_ERROR_INTERNAL", Error),
           11: ("QDRT_ERROR_CUDA", CudaError)}

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



_VALUE_NONE, _VALUE_ARRAY, _VALUE_INT, _VALUE_FLOAT, _VALUE_BOOL, _VALUE_TEXT = range(6)
_VALUE_CUDA_ARRAY = 6
_VALUE_UNSIGNED = 1  # qdrt_value.flags: `i` holds a uint64 bit pattern
_DEVICE_AUTO, _DEVICE_CPU, _DEVICE_CUDA = 0, 1, 2
# __cuda_array_interface__ typestr (kind, bytes) and DLPack (code, bits) -> QDRT_DTYPE_*
_TYPESTR = {("i", 1): 1, ("i", 2): 2, ("i", 4): 3, ("i", 8): 4, ("u", 1): 5, ("u", 2): 6,
            ("u", 4): 7, ("u", 8): 8, ("f", 2): 9, ("f", 4): 10, ("f", 8): 11, ("b", 1): 12}
_DLPACK = {(0, 8): 1, (0, 16): 2, (0, 32): 3, (0, 64): 4, (1, 8): 5, (1, 16): 6, (1, 32): 7,
           (1, 64): 8, (2, 16): 9, (2, 32): 10, (2, 64): 11, (6, 8): 12}
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_OPEN_LAZY = 1
_OPEN_WATCH = 2
# qdrt_task_launch.flags (task_abi.h): the instance draws qd.random.
LAUNCH_RANDOM = 4
_MAX_NDIM = 12  # array dims + element dims accepted from a buffer


class _Value(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_uint32), ("dtype", ctypes.c_uint32), ("ndim", ctypes.c_int32),
                ("flags", ctypes.c_uint32), ("data", ctypes.c_void_p),
                # int64_t* in C; addresses here (the arrays live in the launch's `keep`): an
                # int store costs a tenth of ctypes' pointer-field assignment.
                ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p), ("i", ctypes.c_int64),
                ("f", ctypes.c_double), ("text", ctypes.c_char_p)]


class _LaunchOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("device", ctypes.c_uint32),
                ("cuda_stream", ctypes.c_void_p)]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _OpenOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("num_threads", ctypes.c_int32), ("reserved", ctypes.c_uint32)]


class _Observations(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("loaded", ctypes.c_uint32),
                ("launches", ctypes.c_uint64), ("fallbacks", ctypes.c_uint64),
                ("instance", ctypes.c_char_p), ("object", ctypes.c_char_p),
                ("target", ctypes.c_char_p)]


def _library_path():
    env = os.environ.get("QDRT_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    try:  # installed (cmake --install): _installed.py names P/lib/libqdrt.so.0 relative to here
        from . import _installed
        return os.path.normpath(os.path.join(here, _installed.LIBRARY))
    except ImportError:
        pass
    in_tree = os.path.normpath(os.path.join(here, "..", "..", "..", "build", "lib", "libqdrt.so"))
    if os.path.exists(in_tree):
        return in_tree
    return "libqdrt.so.0"  # the installed one, through the dynamic linker's search


_lib = None
_launch_unchecked = None
_prepared_launch = None  # qdrt_prepared_launch, untyped as _launch_unchecked
_SIZE_ARGS = {}  # n -> c_size_t(n), passed by value to _launch_unchecked


def _load():
    global _lib
    if _lib is not None:
        return _lib
    path = _library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise Error("cannot load libqdrt from '%s': %s (set QDRT_LIBRARY)" % (path, e),
                    "QDRT_ERROR_LOAD") from None
    vp, sz, st = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    sigs = {
        "qdrt_version": (ctypes.c_uint32, []),
        "qdrt_last_error": (ctypes.c_char_p, []),
        "qdrt_open": (st, [ctypes.c_char_p, ctypes.POINTER(_OpenOptions), ctypes.POINTER(vp)]),
        "qdrt_close": (None, [vp]),
        "qdrt_kernel_count": (sz, [vp]),
        "qdrt_kernel_id": (ctypes.c_char_p, [vp, sz]),
        "qdrt_get_kernel": (st, [vp, ctypes.c_char_p, ctypes.POINTER(vp)]),
        "qdrt_kernel_instance_count": (sz, [vp]),
        "qdrt_kernel_instance": (ctypes.c_char_p, [vp, sz]),
        "qdrt_kernel_argument_count": (sz, [vp, sz]),
        "qdrt_kernel_instance_flags": (ctypes.c_uint32, [vp, sz]),
        "qdrt_kernel_argument_name": (ctypes.c_char_p, [vp, sz, sz]),
        "qdrt_launch": (st, [vp, ctypes.POINTER(_Value), sz, ctypes.POINTER(_Value)]),
        "qdrt_kernel_observations": (st, [vp, ctypes.POINTER(_Observations)]),
        "qdrt_launch_ex": (st, [vp, ctypes.POINTER(_Value), sz, ctypes.POINTER(_Value),
                                ctypes.POINTER(_LaunchOptions)]),
        "qdrt_cuda_init": (st, []),
        "qdrt_prepare": (st, [vp, ctypes.POINTER(_Value), sz, ctypes.POINTER(_LaunchOptions),
                              ctypes.POINTER(vp)]),
        "qdrt_prepared_free": (None, [vp]),
        "qdrt_bind_random_states": (st, [vp, vp, ctypes.c_uint32]),
        "qdrt_seed_random": (st, [vp, ctypes.c_uint32]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    # The launch path's own function object without argtypes (their per-call conversion is half
    # of ctypes' call cost); Kernel.__call__ passes exactly typed values: a c_void_p handle, a
    # _Value array, a c_size_t and a byref.
    global _launch_unchecked
    _launch_unchecked = lib._FuncPtr(("qdrt_launch", lib))
    _launch_unchecked.restype = st
    global _prepared_launch
    _prepared_launch = lib._FuncPtr(("qdrt_prepared_launch", lib))
    _prepared_launch.restype = st
    _lib = lib
    return lib


def _raise(status):
    name, cls = _ERRORS.get(status, ("QDRT_ERROR_UNKNOWN", Error))
    raise cls(_lib.qdrt_last_error().decode("utf-8", "replace"), name)


def version():
    """libqdrt's version as (major, minor, patch)."""
    v = _load().qdrt_version()
    return (v >> 16, (v >> 8) & 0xFF, v & 0xFF)


def cuda_init():
    """Loads and initializes the CUDA driver; CudaError says why it cannot (no driver, the
    toolkit's stub library, no device)."""
    st = _load().qdrt_cuda_init()
    if st != 0:
        _raise(st)


def open(path, lazy=False, num_threads=0, watch=False):  # noqa: A001 (the documented name)
    """Opens a directory store or a pack. lazy=False loads every CPU module now. watch=True:
    hot reload (QDRT_OPEN_WATCH): a kernel rebuilt by `qdbuild build --watch` runs its new code
    from its next call."""
    return Store(path, lazy, num_threads, watch)


class Store:
    def __init__(self, path, lazy=False, num_threads=0, watch=False):
        lib = _load()
        self._handle = None
        opts = _OpenOptions(ctypes.sizeof(_OpenOptions),
                            (_OPEN_LAZY if lazy else 0) | (_OPEN_WATCH if watch else 0),
                            int(num_threads), 0)
        h = ctypes.c_void_p()
        st = lib.qdrt_open(os.fsencode(path), ctypes.byref(opts), ctypes.byref(h))
        if st != 0:
            _raise(st)
        self._handle = h
        self._kernels = {}
        self.path = path

    def close(self):
        """Unloads everything; the store's kernels must not be called afterwards."""
        if self._handle is not None:
            _lib.qdrt_close(self._handle)
            self._handle = None
            self._kernels = {}

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if self._handle is None:
            raise Error("the store is closed", "QDRT_ERROR_INVALID_ARGUMENT")
        return self._handle

    def bind_random_states(self, address, count):
        """Makes kernels that call qd.random draw from `count` generator states at `address`
        (20 bytes each, laid out as Quadrants' RandState: Quadrants' own array, so a served call
        continues Quadrants' sequence); (0, 0) goes back to the store's own states."""
        st = _lib.qdrt_bind_random_states(self._live(), address or None, int(count))
        if st != 0:
            _raise(st)

    def seed_random(self, seed):
        """Re-seeds the store's own generator states as qd.init(random_seed=seed) seeds
        Quadrants'."""
        st = _lib.qdrt_seed_random(self._live(), int(seed) & 0xFFFFFFFF)
        if st != 0:
            _raise(st)

    def kernels(self):
        """The kernel ids (module:qualname), sorted."""
        h = self._live()
        return [_lib.qdrt_kernel_id(h, i).decode() for i in range(_lib.qdrt_kernel_count(h))]

    def kernel(self, kernel_id):
        """The callable kernel; NotFoundError (with a did-you-mean) for unknown ids."""
        k = self._kernels.get(kernel_id)
        if k is None:
            out = ctypes.c_void_p()
            st = _lib.qdrt_get_kernel(self._live(), kernel_id.encode(), ctypes.byref(out))
            if st != 0:
                _raise(st)
            k = self._kernels[kernel_id] = Kernel(self, kernel_id, out)
        return k


# Launch-path caches (the binding's per-call cost is ctypes object creation; docs/runtime.md).
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


class Kernel:
    """A kernel of an open store; call it with the kernel's arguments in parameter order."""

    def __init__(self, store, kernel_id, handle):
        self._store = store
        self._handle = handle
        self.id = kernel_id

    @property
    def instances(self):
        """The built CPU instances (canonical instance strings)."""
        h = self._handle
        return [_lib.qdrt_kernel_instance(h, i).decode()
                for i in range(_lib.qdrt_kernel_instance_count(h))]

    @property
    def instance_count(self):
        """How many CPU instances are built (len(instances) without reading their texts)."""
        return _lib.qdrt_kernel_instance_count(self._handle)

    def arguments(self, instance=0):
        """The argument names built instance `instance` takes, in call order: parameters, and
        the member paths ("state.links.pos") of the dataclass members it reads."""
        h = self._handle
        return [_lib.qdrt_kernel_argument_name(h, instance, i).decode()
                for i in range(_lib.qdrt_kernel_argument_count(h, instance))]

    def draws_random(self, instance=0):
        """Whether built instance `instance` calls qd.random (its tasks carry
        QDRT_LAUNCH_RANDOM): it draws from the store's generator states."""
        return bool(_lib.qdrt_kernel_instance_flags(self._handle, instance) & LAUNCH_RANDOM)

    @property
    def observations(self):
        """{'loaded', 'launches', 'fallbacks', 'instance', 'object', 'target'}."""
        self._store._live()
        o = _Observations()
        o.struct_size = ctypes.sizeof(_Observations)
        st = _lib.qdrt_kernel_observations(self._handle, ctypes.byref(o))
        if st != 0:
            _raise(st)
        return {"loaded": bool(o.loaded), "launches": o.launches, "fallbacks": o.fallbacks,
                "instance": o.instance.decode(), "object": o.object.decode(),
                "target": o.target.decode()}

    def _other_value(self, i, a, v, keep, user_stream):
        """Fills `v` from argument i when it is not an exact int, float or known plain buffer;
        returns the producer's CUDA stream of a __cuda_array_interface__ array, else None."""
        t = type(a)
        if t is HostArray or t is DeviceArray:
            v.kind = _VALUE_ARRAY if t is HostArray else _VALUE_CUDA_ARRAY
            v.dtype, v.ndim = a._code, len(a.shape)
            v.data = a.data or None
            v.shape = ctypes.addressof(a._shape)
            v.strides = ctypes.addressof(a._strides) if a._strides is not None else None
            keep.append(a)
            return None
        cai = None
        if not isinstance(a, (bool, int, float, str)):
            try:
                cai = a.__cuda_array_interface__
            except Exception:  # noqa: BLE001 (torch raises for CPU tensors)
                cai = None
        if cai is not None:
            try:
                s = _cai_value(cai, v, keep)
            except (KeyError, TypeError, ValueError) as e:
                raise ArgumentError("kernel '%s': argument %d: bad __cuda_array_interface__ "
                                    "(%s)" % (self.id, i, e), "QDRT_ERROR_ARGUMENT") from None
            except ArgumentError as e:
                raise ArgumentError("kernel '%s': argument %d: %s" % (self.id, i, e),
                                    e.status) from None
            return int(s) if s not in (None, 1, 2) else None
        if isinstance(a, bool):
            v.kind, v.i = _VALUE_BOOL, int(a)
        elif isinstance(a, int):
            _set_int(v, int(a), i)
        elif isinstance(a, float):
            v.kind, v.f = _VALUE_FLOAT, float(a)
        elif isinstance(a, str):
            b = a.encode()
            keep.append(b)
            v.kind, v.text = _VALUE_TEXT, b
        elif isinstance(a, numbers.Number) and not hasattr(a, "__len__"):
            # numpy scalars (read-only 0-d buffers too, but values): by __index__ / __float__
            if isinstance(a, numbers.Integral) or (hasattr(a, "__index__") and
                                                   not isinstance(a, numbers.Real)):
                _set_int(v, a.__index__(), i)
            elif isinstance(a, numbers.Complex) and not isinstance(a, numbers.Real):
                raise ArgumentError("argument %d: cannot pass a complex number (%s)" %
                                    (i, t.__name__), "QDRT_ERROR_ARGUMENT")
            else:
                v.kind, v.f = _VALUE_FLOAT, float(a)
        elif t.__module__ == "numpy" and t.__name__ in ("bool_", "bool"):
            v.kind, v.i = _VALUE_BOOL, int(bool(a))  # numpy.bool_ (not a numbers.Number)
        else:
            try:
                if _array_into(a, v, keep):
                    if t.__dictoffset__ == 0 and not hasattr(t, "__cuda_array_interface__"):
                        _PLAIN_BUFFERS.add(t)  # e.g. numpy.ndarray: the fast path next time
                    return None
                if hasattr(a, "__dlpack__") and hasattr(a, "__dlpack_device__"):
                    _dlpack_value(a, v, keep, user_stream)
                    return None
            except ArgumentError as e:
                raise ArgumentError("kernel '%s': argument %d: %s" % (self.id, i, e),
                                    e.status) from None
            if hasattr(a, "__index__"):  # other number-likes
                _set_int(v, a.__index__(), i)
            elif hasattr(a, "__float__"):
                v.kind, v.f = _VALUE_FLOAT, float(a)
            else:
                raise ArgumentError("argument %d: cannot pass a %s (expected a buffer, int, "
                                    "float, bool or str)" % (i, t.__name__),
                                    "QDRT_ERROR_ARGUMENT")
        return None

    def prepare(self, *args):
        """The launch prepared once (qdrt_prepare: instance selected, every argument checked
        and bound), for launching many times on the CPU: call the result with no arguments.
        Valid while the memory the arguments name stays where it is (the prepared launch keeps
        the argument objects alive, not their buffers' addresses). Errors are the launch's."""
        if self._store._handle is None:
            raise Error("the store is closed", "QDRT_ERROR_INVALID_ARGUMENT")
        values, keep, producer_stream = self._values(args, None)
        if producer_stream is not None or any(v.kind == _VALUE_CUDA_ARRAY for v in values):
            raise ArgumentError("prepare(): CUDA arrays are launched with the kernel itself",
                                "QDRT_ERROR_ARGUMENT")
        handle = ctypes.c_void_p()
        st = _lib.qdrt_prepare(self._handle, values, len(args), None, ctypes.byref(handle))
        if st != 0:
            _raise(st)
        return Prepared(self, handle, keep + list(args))

    def __call__(self, *args, stream=None, device=None):
        """Launches. stream: a CUstream (int or stream object) for CUDA launches; device:
        None (CUDA when an argument is a device array), "cpu" or "cuda"."""
        if self._store._handle is None:
            raise Error("the store is closed", "QDRT_ERROR_INVALID_ARGUMENT")
        n = len(args)
        user_stream = None if stream is None else _stream_handle(stream)
        values, keep, producer_stream = self._values(args, user_stream)
        result = _Value()
        if device is None and user_stream is None and producer_stream is None:
            size = _SIZE_ARGS.get(n)
            if size is None:
                size = _SIZE_ARGS[n] = ctypes.c_size_t(n)
            st = _launch_unchecked(self._handle, values, size, ctypes.byref(result))
        else:
            if device not in (None, "cpu", "cuda"):
                raise ValueError("device must be None, 'cpu' or 'cuda'")
            opts = _LaunchOptions(ctypes.sizeof(_LaunchOptions),
                                  {None: _DEVICE_AUTO, "cpu": _DEVICE_CPU,
                                   "cuda": _DEVICE_CUDA}[device],
                                  user_stream if user_stream is not None else producer_stream)
            st = _lib.qdrt_launch_ex(self._handle, values, n, ctypes.byref(result),
                                     ctypes.byref(opts))
        del keep
        if st != 0:
            _raise(st)
        return _result(result)

    def _values(self, args, user_stream):
        """The qdrt_value array for `args`, the objects to keep alive during the launch, and
        the producer stream of a CUDA array argument (or None)."""
        n = len(args)
        values = _values_type(n)()
        keep = []
        producer_stream = None
        for i, a in enumerate(args):
            v = values[i]
            t = type(a)
            # The common cases first (exact types: no isinstance chains, no exceptions).
            if t is int:
                _set_int(v, a, i)
            elif t is float:
                v.kind, v.f = _VALUE_FLOAT, a
            elif t in _PLAIN_BUFFERS:
                try:
                    _array_into(a, v, keep)
                except ArgumentError as e:
                    raise ArgumentError("kernel '%s': argument %d: %s" % (self.id, i, e),
                                        e.status) from None
            else:
                s = self._other_value(i, a, v, keep, user_stream)
                if s is not None and producer_stream is None:
                    producer_stream = s
        return values, keep, producer_stream

    def __repr__(self):
        return "<qdrt.Kernel %s>" % self.id


def _result(result):
    if result.kind == _VALUE_INT:
        if result.dtype == 8 and result.i < 0:  # u64: `i` holds the bit pattern
            return result.i + (1 << 64)
        return result.i
    if result.kind == _VALUE_FLOAT:
        return result.f
    if result.kind == _VALUE_BOOL:
        return bool(result.i)
    return None


class Prepared:
    """A prepared launch (Kernel.prepare): call it to launch on the CPU."""

    __slots__ = ("_kernel", "_handle", "_keep", "_store", "_result", "_result_ref")

    def __init__(self, kernel, handle, keep):
        self._kernel, self._handle, self._keep = kernel, handle, keep
        self._store = kernel._store
        # One result value for every launch: a prepared launch is used by one thread at a time
        # (qdrt.h), and each launch sets the value anew.
        self._result = _Value()
        self._result_ref = ctypes.byref(self._result)

    def __call__(self):
        if self._handle is None or self._store._handle is None:
            raise Error("the store is closed", "QDRT_ERROR_INVALID_ARGUMENT")
        st = _prepared_launch(self._handle, self._result_ref)
        if st != 0:
            _raise(st)
        return _result(self._result)

    def _free(self):
        if self._handle is not None:
            _lib.qdrt_prepared_free(self._handle)
            self._handle = None

    def __del__(self):
        try:
            self._free()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
