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

The package is three modules: _library (loading libqdrt, its C structures, its errors), _values
(Python values and arrays as qdrt_value) and _store (Store, Kernel, Prepared). The recorder
(qdrt.record), the bridge (qdrt.bridge) and what they share (qdrt.describe, qdrt.instances,
qdrt.objects, qdrt.fields) are modules of their own.
"""

from ._library import (LAUNCH_RANDOM, ArgumentError, CorruptStoreError, CudaError, Error,
                       LoadError, NoInstanceError, NotFoundError, StoreIOError, VersionError,
                       _DLTensor, _LaunchOptions, _library_path, _Value, cuda_init, version)
from ._store import Kernel, Prepared, Store, open  # noqa: A004 (the documented name)
from ._values import _PLAIN_BUFFERS, DeviceArray, HostArray

__all__ = ["open", "Store", "Kernel", "Error", "ArgumentError", "NoInstanceError",
           "NotFoundError", "CorruptStoreError", "VersionError", "LoadError", "StoreIOError",
           "CudaError", "cuda_init", "HostArray", "DeviceArray"]

# Also importable, for tests and tools: version, Prepared, LAUNCH_RANDOM; the C structures
# _Value, _LaunchOptions, _DLTensor; _PLAIN_BUFFERS; _library_path.
_EXPORTED_FOR_TOOLS = (version, Prepared, LAUNCH_RANDOM, _Value, _LaunchOptions, _DLTensor,
                       _PLAIN_BUFFERS, _library_path)
