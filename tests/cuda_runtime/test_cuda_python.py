#!/usr/bin/env python3
"""The qdrt binding's CUDA side without a GPU: __cuda_array_interface__, DLPack and
qdrt.DeviceArray arguments are validated and routed to the CUDA instance; with QDRT_CUDA_LIBRARY=/nonexistent the launch
then fails with CudaError "no CUDA driver". Env: QDRT_LIBRARY, QDRT_CUDA_STORE (from
make_cuda_store.py), QDRT_CUDA_LIBRARY."""
import ctypes
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "runtime", "python"))
import qdrt  # noqa: E402

STORE = os.environ.get("QDRT_CUDA_STORE")
if not STORE:  # ctest sets it (tests/cuda_runtime/CMakeLists.txt): not a reason to skip
    sys.exit("test_cuda_python.py: set QDRT_CUDA_STORE to the store make_cuda_store.py wrote")


class FakeCuda:
    """A device array as numba/cupy describe one (the pointer is never dereferenced)."""

    def __init__(self, ptr, shape, typestr="<f4", strides=None, readonly=False, stream=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "data": (ptr, readonly), "strides": strides,
                                         "version": 3, "stream": stream}


class DLManaged(ctypes.Structure):
    _fields_ = [("dl_tensor", qdrt._DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class FakeDLPack:
    """A CUDA tensor exported through DLPack (a hand-made capsule, as torch makes one)."""

    def __init__(self, ptr, shape, code=2, bits=32, device_type=2):
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.managed = DLManaged()
        t = self.managed.dl_tensor
        t.data, t.device.device_type, t.ndim = ptr, device_type, len(shape)
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        self.streams = []

    def __dlpack_device__(self):
        return (self.managed.dl_tensor.device.device_type, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p,
                                                        ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


class CudaBinding(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.store = qdrt.open(STORE)
        cls.saxpy = cls.store.kernel("rt.cuda:saxpy")

    def test_cai_reaches_the_driver(self):
        x, y = FakeCuda(0x10000, (1000,)), FakeCuda(0x20000, (1000,), stream=0x5555)
        with self.assertRaises(qdrt.CudaError) as c:
            self.saxpy(2.0, x, y)
        self.assertIn("no CUDA driver", str(c.exception))
        self.assertEqual(c.exception.status, "QDRT_ERROR_CUDA")
        with self.assertRaises(qdrt.CudaError):
            self.saxpy(2.0, x, y, stream=ctypes.c_void_p(0x1234))

    def test_cai_checked_before_the_driver(self):
        y = FakeCuda(0x20000, (1000,))
        with self.assertRaisesRegex(qdrt.ArgumentError, "expected dtype f32, got f64"):
            self.saxpy(2.0, FakeCuda(0x10000, (1000,), "<f8"), y)
        with self.assertRaisesRegex(qdrt.ArgumentError, "not aligned for f32"):
            self.saxpy(2.0, FakeCuda(0x10002, (1000,)), y)
        with self.assertRaisesRegex(qdrt.ArgumentError, "not C-contiguous"):
            self.saxpy(2.0, FakeCuda(0x10000, (1000,), strides=(8,)), y)
        with self.assertRaisesRegex(qdrt.ArgumentError, "read-only"):
            self.saxpy(2.0, FakeCuda(0x10000, (1000,), readonly=True), y)
        with self.assertRaisesRegex(qdrt.ArgumentError, "typestr"):
            self.saxpy(2.0, FakeCuda(0x10000, (1000,), "<c8"), y)
        with self.assertRaisesRegex(qdrt.ArgumentError, "host array, but the launch runs on CUDA"):
            import array
            self.saxpy(2.0, y, array.array("f", [0.0] * 1000))
        with self.assertRaisesRegex(qdrt.ArgumentError, "CUDA device array, but the launch runs "
                                                        "on the CPU"):
            self.saxpy(2.0, y, y, device="cpu")

    def test_dlpack(self):
        x, y = FakeDLPack(0x10000, (1000,)), FakeDLPack(0x20000, (1000,))
        with self.assertRaisesRegex(qdrt.CudaError, "no CUDA driver"):
            self.saxpy(2.0, x, y)
        self.assertEqual(x.streams, [1])  # the default stream: the producer orders its work
        with self.assertRaisesRegex(qdrt.CudaError, "no CUDA driver"):
            self.saxpy(2.0, x, y, stream=0x777)
        self.assertEqual(x.streams[-1], 0x777)
        with self.assertRaisesRegex(qdrt.ArgumentError, "expected dtype f32, got i32"):
            self.saxpy(2.0, FakeDLPack(0x10000, (1000,), code=0), y)
        with self.assertRaisesRegex(qdrt.ArgumentError, "unsupported DLPack dtype"):
            self.saxpy(2.0, FakeDLPack(0x10000, (1000,), code=5, bits=64), y)

    def test_device_array(self):
        # qdrt.DeviceArray: a bare device pointer (the bridge's Quadrants ndarrays on CUDA),
        # routed to the CUDA instance, checked as a CAI array is, prepared launches refused.
        x, y = qdrt.DeviceArray(0x10000, "f32", (1000,)), qdrt.DeviceArray(0x20000, "f32", (1000,))
        self.assertEqual(repr(x), "DeviceArray(0x10000, 'f32', (1000,))")
        with self.assertRaisesRegex(qdrt.CudaError, "no CUDA driver"):
            self.saxpy(2.0, x, y)
        with self.assertRaisesRegex(qdrt.ArgumentError, "expected dtype f32, got f64"):
            self.saxpy(2.0, qdrt.DeviceArray(0x10000, "f64", (1000,)), y)
        with self.assertRaisesRegex(qdrt.ArgumentError, "not aligned for f32"):
            self.saxpy(2.0, qdrt.DeviceArray(0x10002, "f32", (1000,)), y)
        with self.assertRaisesRegex(qdrt.ArgumentError, "host array, but the launch runs on CUDA"):
            self.saxpy(2.0, x, qdrt.HostArray(0x30000, "f32", (1000,)))
        with self.assertRaisesRegex(qdrt.ArgumentError, "CUDA device array, but the launch runs "
                                                        "on the CPU"):
            self.saxpy(2.0, x, y, device="cpu")
        with self.assertRaisesRegex(qdrt.ArgumentError, "unknown dtype"):
            qdrt.DeviceArray(0x10000, "f128", (4,))

    def test_damaged_bundle(self):
        k = self.store.kernel("rt.cuda:bad_bad_magic")
        with self.assertRaisesRegex(qdrt.CorruptStoreError, "bad magic"):
            k(2.0, FakeCuda(0x10000, (4,)), FakeCuda(0x20000, (4,)))

    def test_cuda_init(self):
        with self.assertRaisesRegex(qdrt.CudaError, "no CUDA driver"):
            qdrt.cuda_init()

    def test_empty_kernel_on_cuda(self):
        k = self.store.kernel("rt.cuda:empty")
        with self.assertRaises(qdrt.NotFoundError):
            k()  # no device array: the CPU, which has no instance
        with self.assertRaisesRegex(qdrt.CudaError, "no CUDA driver"):
            k(device="cuda")


if __name__ == "__main__":
    unittest.main()
