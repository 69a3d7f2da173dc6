"""Stores, kernels and launches: qdrt.open, Store, Kernel, Prepared. Internal to qdrt: the
package re-exports them."""

import ctypes
import numbers
import os

from . import _library
from ._library import (_DEVICE_AUTO, _DEVICE_CPU, _DEVICE_CUDA, _OPEN_LAZY, _OPEN_WATCH,
                       _VALUE_ARRAY, _VALUE_BOOL, _VALUE_CUDA_ARRAY, _VALUE_FLOAT, _VALUE_INT,
                       _VALUE_TEXT, LAUNCH_RANDOM, ArgumentError, Error, _LaunchOptions,
                       _Observations, _OpenOptions, _raise, _Value)
from ._values import (_PLAIN_BUFFERS, DeviceArray, HostArray, _array_into, _cai_value,
                      _dlpack_value, _set_int, _stream_handle, _values_type)

# libqdrt and the launch path's function objects, bound by _load() (module globals: the launch
# path reads them once per call).
_lib = None
_launch_unchecked = None
_prepared_launch = None
_SIZE_ARGS = {}  # n -> c_size_t(n), passed by value to _launch_unchecked


def _load():
    global _lib, _launch_unchecked, _prepared_launch
    if _lib is None:
        lib = _library._load()
        _launch_unchecked = _library._launch_unchecked
        _prepared_launch = _library._prepared_launch
        _lib = lib
    return _lib


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
