"""libqdrt through ctypes: finding and loading the library, its C structures and constants
(qdrt.h, store_format.h, task_abi.h), and its status codes as exceptions. Internal to qdrt: the
package re-exports the public names."""

import ctypes
import os


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

_VALUE_NONE, _VALUE_ARRAY, _VALUE_INT, _VALUE_FLOAT, _VALUE_BOOL, _VALUE_TEXT = range(6)
_VALUE_CUDA_ARRAY = 6
_VALUE_UNSIGNED = 1  # qdrt_value.flags: `i` holds a uint64 bit pattern
_DEVICE_AUTO, _DEVICE_CPU, _DEVICE_CUDA = 0, 1, 2
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_OPEN_LAZY = 1
_OPEN_WATCH = 2
# qdrt_task_launch.flags (task_abi.h): the instance draws qd.random.
LAUNCH_RANDOM = 4


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
        "qdrt_instance_text": (st, [ctypes.c_char_p, sz, ctypes.POINTER(ctypes.c_char_p)]),
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
