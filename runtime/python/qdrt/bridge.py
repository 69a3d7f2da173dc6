"""QDRT_STORE=PATH: an unchanged Quadrants app runs its kernel calls from a qdbuild store.

  QDRT_STORE=build/qdstore [QDRT_STORE_STATS=stats.json] python app.py
      (with runtime/python on PYTHONPATH: its sitecustomize installs the bridge)

A hook on Quadrants' Kernel class (its __call__, the one place every kernel call passes before
Quadrants parses or compiles anything) looks each call up in the store: the call's parameters are
described as `python -m qdrt.record` describes them, qdrt.instances selects the built instance
they are, and the instance runs through libqdrt on the caller's own memory (a Quadrants ndarray
by its runtime's data pointer, in memory order; numpy arrays and CPU torch tensors as they are).
A call the store cannot serve runs on Quadrants unchanged, with one warning per kernel saying
why: a kernel or instance not in the store, keyword arguments, autodiff, a non-CPU arch, an
argument the bridge does not know. QDRT_STORE_STATS=FILE writes at exit
{"served": {kernel_id: calls}, "fallback": {kernel_id: {"calls": n, "reason": text}}}.

What is looked up once per kernel and argument set (the argument objects' identities, template
values by value) is cached: the selected instance and how to read each of its arguments. A plan
keeps its argument objects alive, so an id cannot be reused by another object while the plan
exists; the cache holds at most 4,096 plans (the oldest are dropped first).
"""

import atexit
import json
import os
import sys
import threading

import qdrt
from qdrt import instances, record

__all__ = ["install"]

_state = None
_MAX_PLANS = 4096
_DTYPES = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "u1"}


class _Fallback(Exception):
    """A call the store does not serve; the message says why."""


def _fixed(obj, path):
    """Whether obj.path names the same object for as long as obj lives: every object along the
    path is a frozen dataclass (a non-frozen one may have a member reassigned)."""
    import dataclasses

    for part in path.split(".") if path else []:
        if not (dataclasses.is_dataclass(obj) and type(obj).__dataclass_params__.frozen):
            return False
        obj = getattr(obj, part)
    return True


def _member(obj, path):
    for part in path.split(".") if path else []:
        obj = getattr(obj, part)
    return obj


class _Plan:
    """How to run one kernel for one argument set: the libqdrt kernel and, per argument of the
    selected instance, a function of the call's positional arguments. When nothing the
    arguments hold can move (frozen dataclasses, Quadrants ndarrays, numpy arrays, template
    and scalar values: the key), the converted arguments are prepared once (Kernel.prepare)
    and the plan keeps the argument objects alive, so their identities cannot be reused."""

    __slots__ = ("kernel", "getters", "kid", "prepared", "args")

    def __init__(self, kid, kernel, getters, args, stable):
        self.kid, self.kernel, self.getters = kid, kernel, getters
        self.prepared = kernel.prepare(*[g(args) for g in getters]) if stable else None
        # Always kept: the cache is keyed by the arguments' ids, which a new object could reuse
        # once these died (a new config object with other values would select this instance).
        self.args = args

    def run(self, args):
        if self.prepared is not None:
            return self.prepared()
        return self.kernel(*[g(args) for g in self.getters])


class _Bridge:
    def __init__(self, path, stats_path):
        self.path = path
        self.stats_path = stats_path
        self.lock = threading.Lock()
        self.store = None
        self.kernels = None
        self.plans = {}     # (id(kernel), key of the arguments) -> _Plan
        self.served = {}    # kernel id -> calls
        self.fallback = {}  # kernel id -> {"calls": n, "reason": text}
        self.patched = False

    # --- the store ----------------------------------------------------------------------------
    def open(self):
        if self.store is None:
            self.store = qdrt.open(self.path)
            self.kernels = set(self.store.kernels())
        return self.store

    # --- installing the hook ------------------------------------------------------------------
    def imported(self, module):
        if getattr(module, "__name__", "") == "quadrants.lang.kernel":
            self.patch(module)

    def patch(self, kernel_module):
        if self.patched:
            return
        kernel_cls = getattr(kernel_module, "Kernel", None)
        if kernel_cls is None:
            return
        self.patched = True
        original = kernel_cls.__call__
        bridge = self

        def __call__(self, *args, **kwargs):
            try:
                plan, fused = bridge.plan(self, args, kwargs)
            except _Fallback as why:
                bridge.fell_back(self, str(why))
                return original(self, *args, **kwargs)
            try:
                result = plan.run(fused)
            except qdrt.Error as e:
                # libqdrt checks every argument before it runs anything: a call it refuses
                # (an array of another dtype than the cached instance's) runs on Quadrants.
                bridge.fell_back(self, f"libqdrt refused the call: {e}")
                return original(self, *args, **kwargs)
            with bridge.lock:
                bridge.served[plan.kid] = bridge.served.get(plan.kid, 0) + 1
            return result

        kernel_cls.__call__ = __call__

    # --- one call -----------------------------------------------------------------------------
    def fell_back(self, kernel, why):
        kid = record.kernel_id(kernel.func)
        with self.lock:
            entry = self.fallback.get(kid)
            if entry is None:
                self.fallback[kid] = {"calls": 1, "reason": why}
                print(f"qdrt.bridge: {kid} runs on Quadrants: {why}", file=sys.stderr)
            else:
                entry["calls"] += 1

    def plan(self, kernel, args, kwargs):
        if kwargs:
            # Keyword arguments fused into positional ones, as Quadrants' own call does.
            try:
                args = tuple(kernel.fuse_args(global_context=None, is_pyfunc=False, is_func=False,
                                              py_args=args, kwargs=kwargs))
            except Exception as e:  # noqa: BLE001
                raise _Fallback(f"keyword arguments Quadrants' fuse_args refuses: {e}") from None
        mode = str(getattr(kernel, "autodiff_mode", "")).split(".")[-1]
        if mode and mode.upper() != "NONE":
            raise _Fallback(f"autodiff ({mode.lower()})")
        key = (id(kernel), tuple(id(a) if not isinstance(a, (bool, int, float, str)) else
                                 (type(a), a) for a in args))
        plan = self.plans.get(key)
        if plan is None:
            plan = self.make_plan(kernel, args)
            with self.lock:
                if len(self.plans) >= _MAX_PLANS:
                    # An app passing new objects at every call: forget the oldest plans (and
                    # with them the argument objects they keep).
                    for old in list(self.plans)[:_MAX_PLANS // 4]:
                        del self.plans[old]
                self.plans[key] = plan
        return plan, args

    def make_plan(self, kernel, args):
        qd = sys.modules.get("quadrants")
        arch = str(qd.lang.impl.current_cfg().arch) if qd is not None else "?"
        if "x64" not in arch and "arm64" not in arch:
            raise _Fallback(f"arch {arch} (the bridge serves the CPU)")
        kid = record.kernel_id(kernel.func)
        store = self.open()
        if kid not in self.kernels:
            raise _Fallback("not in the store")
        metas = list(kernel.arg_metas)
        if len(args) != len(metas):
            raise _Fallback(f"called with {len(args)} arguments for {len(metas)} parameters")
        desc = {m.name: record.describe_param(m.annotation, v) for m, v in zip(metas, args)}
        k = store.kernel(kid)
        built = k.instances
        idx = instances.select(built, desc)
        if idx is None:
            raise _Fallback("no built instance is this call (record it and build again)")
        segments = instances.split_instance(built[idx])
        position = {m.name: i for i, m in enumerate(metas)}
        templates = {m.name for m in metas if record._annotation_kind(m.annotation) == "template"}
        getters = []
        stable = True
        for name in k.arguments(idx):
            root, _, path = name.partition(".")
            if root in templates and not path:
                text = segments[name]
                getters.append(lambda a, t=text: t)
                continue
            i = position[root]
            value = _member(args[i], path)
            getters.append(self.getter(i, path, value, name))
            stable = stable and _fixed(args[i], path) and not type(value).__module__.startswith(
                "torch")
        return _Plan(kid, k, getters, args, stable)

    def getter(self, i, path, value, name):
        """A function of the call's arguments giving libqdrt's value for one argument."""
        impl = getattr(value, "_impl", value)  # qd.Tensor -> its ndarray
        if hasattr(impl, "arr") and hasattr(impl, "dtype") and hasattr(impl.arr, "total_shape"):
            prog = sys.modules["quadrants"].lang.impl.get_runtime().prog
            dtype = str(impl.dtype)
            if dtype not in _DTYPES:
                raise _Fallback(f"argument '{name}': ndarray dtype {dtype}")

            def host(a):
                v = getattr(_member(a[i], path), "_impl", None) or _member(a[i], path)
                return qdrt.HostArray(prog.get_ndarray_data_ptr_as_int(v.arr), dtype,
                                      tuple(v.arr.total_shape()))
            return host
        if type(value).__module__.startswith("torch"):
            if value.device.type != "cpu" or not value.is_contiguous():
                raise _Fallback(f"argument '{name}': a torch tensor that is not CPU and "
                                "contiguous")
            dtype = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64",
                     "int8": "i8", "int16": "i16", "uint8": "u8", "bool": "u1"}.get(
                         str(value.dtype).split(".")[-1])
            if dtype is None:
                raise _Fallback(f"argument '{name}': torch dtype {value.dtype}")

            def tensor(a):
                t = _member(a[i], path)
                return qdrt.HostArray(t.data_ptr(), dtype, tuple(t.shape))
            return tensor
        if isinstance(value, (bool, int, float)) or hasattr(value, "__array_interface__") or \
                isinstance(value, memoryview):
            return lambda a: _member(a[i], path)
        raise _Fallback(f"argument '{name}': a {type(value).__name__}")

    # --- exit ---------------------------------------------------------------------------------
    def document(self):
        return {"served": dict(sorted(self.served.items())),
                "fallback": dict(sorted(self.fallback.items()))}


def install(path, stats_path=None):
    """Serves the app's kernel calls from the store at `path` from now on (idempotent)."""
    global _state
    if _state is not None:
        return _state
    _state = _Bridge(os.path.abspath(path), stats_path)
    if "quadrants.lang.kernel" in sys.modules:
        _state.patch(sys.modules["quadrants.lang.kernel"])
    else:
        sys.meta_path.insert(0, record._Watch(_state))
    if stats_path:
        def at_exit():
            try:
                with open(stats_path, "w") as f:
                    json.dump(_state.document(), f, indent=1)
                    f.write("\n")
            except OSError as e:
                print(f"qdrt.bridge: could not write {stats_path}: {e}", file=sys.stderr)

        atexit.register(at_exit)
    return _state
