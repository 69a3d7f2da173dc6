"""QDRT_STORE=PATH: an unchanged Quadrants app runs its kernel calls from a qdbuild store.

  QDRT_STORE=build/qdstore [QDRT_STORE_STATS=stats.json] python app.py
      (with runtime/python on PYTHONPATH: its sitecustomize installs the bridge)

A hook on Quadrants' Kernel class (its __call__, the one place every kernel call passes before
Quadrants parses or compiles anything) looks each call up in the store: the call's parameters are
described as `python -m qdrt.record` describes them, qdrt.instances selects the built instance
they are, and the instance runs through libqdrt on the caller's own memory (a Quadrants ndarray
by its runtime's data pointer, in memory order; numpy arrays and CPU torch tensors as they are;
on CUDA device pointers and CUDA torch tensors, on the default stream and the primary context
Quadrants launches on; qd.fields in place, with the layout qdrt.fields reads from their SNode
tree; a data_oriented `self` described as each built instance reads it, qdrt.objects). libqdrt
runs CPU kernels on Quadrants' cpu_max_num_threads.
A call the store cannot serve runs on Quadrants unchanged, with one warning per kernel saying
why: a kernel or instance not in the store (naming the call's first difference from the closest
built instance), keyword arguments Quadrants' fuse_args refuses, autodiff, an arch other than
the CPU and CUDA, a host array in a CUDA call (Quadrants copies it), a field that is not one
strided array, an argument the bridge does not know. QDRT_STORE_STATS=FILE writes at exit
{"served": {kernel_id: calls}, "fallback": {kernel_id: {"calls": n, "reason": text}}}.

What is looked up once per kernel and argument set (the argument objects' identities, values of
primitive types by value) is cached: the selected instance and how to read each of its
arguments, or the reason the store cannot serve the call; a second cache holds the same per what
selects the instance (arrays by description), for calls that pass fresh arrays. A plan keeps its
argument objects and the Quadrants Kernel alive, so an id cannot be reused by another object
while the plan exists; each cache holds at most 4,096 plans (the oldest are dropped first). A
call that passes the very objects a plan was made from (a simulation step) finds it by their
ids alone, before any key is built.
"""

import atexit
import enum
import json
import os
import sys
import threading

import qdrt
from qdrt import describe, fields, instances, objects, quadrants_random, record

__all__ = ["install"]

_state = None
_MAX_PLANS = 4096
_VALUE_TYPES = {bool, int, float, str}  # argument types keyed by value (grows: see plan())
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


def _frozen_members(obj, guards, depth=0):
    """Whether obj is a frozen dataclass whose members are, all the way down, frozen
    dataclasses, Quadrants ndarrays or fields or qd.Tensors over them, primitive values, enum
    members or None; appends to `guards` what their description reads that can change. False:
    not cacheable."""
    import dataclasses

    if depth > 16 or not (dataclasses.is_dataclass(obj) and not isinstance(obj, type) and
                          type(obj).__dataclass_params__.frozen):
        return False
    for f in dataclasses.fields(obj):  # (ClassVars are not fields: not described either)
        m = getattr(obj, f.name, None)
        if m is None or type(m) in (bool, int, float, str) or isinstance(m, enum.Enum):
            continue  # immutable values (Genesis's array classes carry a DataKind member)
        if dataclasses.is_dataclass(m):
            if not _frozen_members(m, guards, depth + 1):
                return False
            continue
        impl = m
        if type(m).__module__ == "quadrants._tensor_wrapper":
            impl = getattr(m, "_impl", None)
            guards.append((m, "_impl", impl))
        if _is_field(impl) or type(impl).__name__ == "StructField":
            continue  # a field's dtype, shape and layout are fixed when it is placed
        if type(impl).__name__ not in ("ScalarNdarray", "VectorNdarray", "MatrixNdarray"):
            return False
        guards.append((impl, "grad", impl.grad is not None))
        guards.append((impl, "_qd_layout", getattr(impl, "_qd_layout", None)))
    return True


def _guards_hold(guards):
    for obj, attr, seen in guards:
        if attr == "grad":
            if (obj.grad is not None) != seen:
                return False
        elif attr == "_impl":
            if getattr(obj, "_impl", None) is not seen:
                return False
        elif getattr(obj, attr, None) != seen:
            return False
    return True


def _quadrants_threads():
    """Quadrants' cpu_max_num_threads once it is initialized, else 0 (libqdrt's default: every
    core)."""
    qd = sys.modules.get("quadrants")
    try:
        n = int(qd.lang.impl.current_cfg().cpu_max_num_threads) if qd is not None else 0
    except Exception:  # noqa: BLE001 - an older or uninitialized Quadrants: libqdrt's default
        return 0
    return max(n, 0)


def _arch():
    """'cpu', 'cuda', or Quadrants' name of another arch."""
    qd = sys.modules.get("quadrants")
    arch = str(qd.lang.impl.current_cfg().arch) if qd is not None else "?"
    name = arch.split(".")[-1]
    return "cpu" if name in ("x64", "arm64") else name


def _member(obj, path):
    for part in path.split(".") if path else []:
        obj = getattr(obj, part)
    return obj


class _Plan:
    """How to run one kernel for one argument set: the libqdrt kernel and, per argument of the
    selected instance, its value: computed once where nothing can move it (a field, a template's
    text, a member of a frozen dataclass, a Quadrants ndarray or numpy array passed as itself:
    the key holds those objects' identities), else a function of the call's positional
    arguments (`dynamic`: the arrays of a plan shared by calls with fresh arrays, torch tensors,
    members of mutable objects). When every value is fixed, the launch is prepared once
    (Kernel.prepare). The plan keeps the objects whose identities are in its key alive, so an id
    cannot be reused while it exists."""

    __slots__ = ("kernel", "values", "dynamic", "kid", "prepared", "args", "owner", "calls",
                 "guards")

    def __init__(self, kid, kernel, entries, args, owner=None, guards=(), fresh=(), prepare=True):
        """entries: per libqdrt argument (getter, position of the call argument it reads or
        None, fixed); fresh: the positions whose objects may differ at every call."""
        self.kid, self.kernel = kid, kernel
        self.owner = owner  # the Quadrants Kernel: its id is in the key
        self.calls = 0
        # What the selection read of mutable objects (a data_oriented self's members): checked
        # before every use (objects.guards_hold); a plan whose guards fail is made again.
        self.guards = guards
        self.values, self.dynamic = [], []
        for k, (getter, pos, fixed) in enumerate(entries):
            if fixed and pos not in fresh:
                self.values.append(getter(args))
            else:
                self.values.append(None)
                self.dynamic.append((k, getter))
        self.prepared = kernel.prepare(*self.values) if prepare and not self.dynamic else None
        self.args = tuple(a for i, a in enumerate(args) if i not in fresh)

    def arguments(self, args):
        """libqdrt's arguments for a call with positional arguments `args`."""
        if not self.dynamic:
            return self.values
        values = list(self.values)
        for k, getter in self.dynamic:
            values[k] = getter(args)
        return values

    def run(self, args):
        if self.prepared is not None:
            return self.prepared()
        return self.kernel(*self.arguments(args))


def _closest_difference(built, desc, texts):
    """": PARAM... is X here, Y in the built instance" for the built instance that differs from
    the call in the fewest parameters (the first differing member of a dataclass or template
    object, a field's shape), or "" when there is none to compare."""
    best = None
    for inst in built:
        segments = instances.split_instance(inst)
        differing = []
        for name, d in desc.items():
            seg, text = segments.get(name), texts.get(name)
            if seg is None or text is None:
                continue
            same = instances._array_matches(seg, d) if isinstance(d, str) else \
                (seg == text or seg.endswith(" " + text))
            if not same:
                differing.append((name, seg, text))
        if differing and (best is None or len(differing) < len(best)):
            best = differing
    if not best:
        return ""
    name, seg, text = best[0]
    if "{" in seg and text.startswith("{"):
        return ": " + objects.difference(seg, text, name)
    return f": {name} is {text} here, {seg} in the built instance"


def _is_field(v):
    return type(v).__name__ in ("ScalarField", "MatrixField") and \
        type(v).__module__.startswith("quadrants")


class _Refusal:
    """A cached 'the store does not serve this call': the reason, and the objects whose
    identities are in the key (kept alive, as a plan keeps them)."""

    __slots__ = ("reason", "args", "owner", "kid", "calls", "guards")

    def __init__(self, reason, args, owner):
        self.reason, self.args, self.owner = reason, args, owner
        self.kid, self.calls, self.guards = None, 0, ()


class _Bridge:
    def __init__(self, path, stats_path):
        self.path = path
        self.stats_path = stats_path
        self.lock = threading.Lock()
        self.store = None
        self.kernels = None
        self.plans = {}     # (id(kernel), key of the arguments) -> _Plan
        self.selections = {}  # (id(kernel), arrays by description, the rest as in plans) -> _Plan
        self.fast = {}  # (id(kernel), id of each argument) -> the _Plan made from those objects
        self.descriptions = {}  # (id(annotation), id(object)) -> see describe()
        self.field_arrays = {}  # (id(field), arch) -> (field, qdrt array over its memory)
        self.served_before = {}  # kernel id -> calls served by plans no longer cached
        self.fallback = {}  # kernel id -> {"calls": n, "reason": text}
        self.patched = False
        self.random_program = None  # the Quadrants program whose generator states are bound
        self.random_failure = None  # (program, reason) when its states could not be found
        self.random_pending = True  # prepare_random() has not run yet

    # --- the store ----------------------------------------------------------------------------
    def open(self):
        if self.store is None:
            # As many CPU threads as Quadrants runs its kernels on (Genesis sets 1 unless
            # QD_NUM_THREADS says otherwise): the same work split the same way.
            self.store = qdrt.open(self.path, num_threads=_quadrants_threads())
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

        fast = bridge.fast

        def __call__(self, *args, **kwargs):
            # The common call first: the same argument objects as the call that made its plan.
            plan = None if kwargs else fast.get((id(self), *map(id, args)))
            if plan is not None and (not plan.guards or objects.guards_hold(plan.guards)):
                try:
                    result = plan.run(args)
                except qdrt.Error as e:
                    bridge.fell_back(self, f"libqdrt refused the call: {e}")
                    return original(self, *args, **kwargs)
                plan.calls += 1
                return result
            if bridge.random_pending:
                bridge.prepare_random()
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
            plan.calls += 1  # (the GIL's word: statistics, not worth a lock per call)
            return result

        kernel_cls.__call__ = __call__

    # --- one call -----------------------------------------------------------------------------
    def fell_back(self, kernel, why):
        kid = describe.kernel_id(kernel.func)
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
        # Values of primitive types by value, everything else by identity (the plan keeps the
        # objects alive, so an identity is not reused while the plan exists).
        key = (id(kernel), *[(type(a), a) if type(a) in _VALUE_TYPES else id(a) for a in args])
        plan = self.plans.get(key)
        if plan is not None and plan.guards and not objects.guards_hold(plan.guards):
            plan = None  # a member the selection read has changed: select again
        if plan is None:
            # (A Quadrants Kernel's autodiff mode is fixed when it is made: its adjoint is
            # another Kernel; the plan keeps this one alive.)
            for a in args:
                if isinstance(a, (bool, int, float, str)) and type(a) not in _VALUE_TYPES:
                    _VALUE_TYPES.add(type(a))  # numpy.float64, an IntEnum: by value next time
            # Calls with fresh arrays (a new torch tensor each call: Genesis's envs_idx, an RL
            # reset) share one plan per what selects the instance: the arrays' descriptions
            # (dtype, dims, layout, device), the other arguments as in the key.
            fresh, skey = self.selection_key(kernel, args)
            if skey is not None:
                shared = self.selections.get(skey)
                if shared is not None and (not shared.guards or objects.guards_hold(
                        shared.guards)):
                    if shared.__class__ is _Refusal:
                        raise _Fallback(shared.reason)
                    return shared, args
            try:
                mode = str(getattr(kernel, "autodiff_mode", "")).split(".")[-1]
                if mode and mode.upper() != "NONE":
                    raise _Fallback(f"autodiff ({mode.lower()})")
                kid, k, entries, guards = self.make_plan(kernel, args)
                plan = _Plan(kid, k, entries, args, kernel, guards,
                             prepare=_arch() == "cpu")
                if skey is not None:
                    self.remember(self.selections, skey,
                                  _Plan(kid, k, entries, args, kernel, guards, fresh, False))
            except _Fallback as why:
                plan = _Refusal(str(why), args, kernel)  # the next such call falls back at once
                if skey is not None:
                    self.remember(self.selections, skey, _Refusal(plan.reason, tuple(
                        a for i, a in enumerate(args) if i not in fresh), kernel))
            self.remember(self.plans, key, plan)
        if plan.__class__ is _Refusal:
            raise _Fallback(plan.reason)
        if not kwargs and len(plan.args) == len(args) and \
                all(a is b for a, b in zip(args, plan.args)):
            # The objects this plan was made from (it keeps them alive, so their ids name
            # them): later calls with these very objects find it by their ids alone. A call
            # with equal values in other objects (a new float) uses the key above and adds
            # nothing here, so this cache holds at most one entry per plan.
            self.fast[(id(kernel), *map(id, args))] = plan
        return plan, args

    def remember(self, cache, key, plan):
        with self.lock:
            if len(cache) >= _MAX_PLANS:
                # An app passing new objects at every call: forget the oldest plans (and with
                # them the argument objects they keep).
                self.fast.clear()  # (it may hold the plans dropped below)
                for old in list(cache)[:_MAX_PLANS // 4]:
                    gone = cache.pop(old)
                    if gone.calls:
                        self.served_before[gone.kid] = \
                            self.served_before.get(gone.kid, 0) + gone.calls
            cache[key] = plan

    def selection_key(self, kernel, args):
        """(positions of the arrays, key) where the call passes arrays that a later call may
        replace by others of the same description (torch tensors, numpy arrays, Quadrants
        ndarrays at the top level), else ((), None)."""
        fresh, parts = [], [id(kernel)]
        metas = None
        for i, a in enumerate(args):
            t = type(a)
            if t in _VALUE_TYPES:
                parts.append((t, a))
                continue
            mod = t.__module__
            if mod.startswith("torch") and hasattr(a, "data_ptr"):
                parts.append(("torch", str(a.dtype), a.dim(), a.device.type, a.is_contiguous(),
                              bool(a.requires_grad)))
            elif mod == "numpy" and t.__name__ == "ndarray":
                parts.append(("numpy", a.dtype.str, a.ndim, a.flags.c_contiguous,
                              a.flags.writeable))
            elif t.__name__ in ("ScalarNdarray", "VectorNdarray", "MatrixNdarray"):
                if metas is None:
                    metas = kernel.arg_metas
                parts.append(("qd", describe.describe_array(a, metas[i].annotation)))
            else:
                parts.append(id(a))
                continue
            fresh.append(i)
        if not fresh:
            return (), None
        return frozenset(fresh), tuple(parts)

    def make_plan(self, kernel, args):
        arch = _arch()
        if arch not in ("cpu", "cuda"):
            raise _Fallback(f"arch {arch} (the bridge serves the CPU and CUDA)")
        kid = describe.kernel_id(kernel.func)
        store = self.open()
        metas = list(kernel.arg_metas)
        if len(args) != len(metas):
            raise _Fallback(f"called with {len(args)} arguments for {len(metas)} parameters")
        if kid not in self.kernels:
            # An argument qdbuild cannot take at all is the better reason (and why no build
            # has the kernel: its record's instances were refused).
            for m, v in zip(metas, args):
                if not (m is metas[0] and m.name == "self" and describe.app_object(v)):
                    self.describe(m.annotation, v, m.name)
            raise _Fallback("not in the store")
        # A data_oriented solver's method kernel: `self` is described as each built instance
        # reads it (qdrt.objects), the other parameters as the recorder describes them.
        is_self = bool(metas) and metas[0].name == "self" and describe.app_object(args[0])
        desc, texts = {}, {}
        for m, v in zip(metas, args):
            if is_self and m is metas[0]:
                continue
            desc[m.name], texts[m.name] = self.describe(m.annotation, v, m.name)
        k = store.kernel(kid)
        built = k.instances
        guards = ()
        if is_self:
            desc["self"], texts["self"], guards = self.describe_self(kernel, built, args[0])
        idx, segments = instances.select_segments(built, desc, texts)
        if idx is None:
            raise _Fallback("no built instance is this call" + _closest_difference(
                built, desc, texts) + " (record it and build again)")
        if arch == "cpu" and k.draws_random(idx):
            self.bind_random()
        elif k.draws_random(idx):
            # The store's device states would restart Quadrants' sequence: the same numbers
            # again in the kernels Quadrants still runs.
            raise _Fallback("qd.random on CUDA: Quadrants keeps its generator states in device "
                            "memory it does not expose, so a served call cannot continue "
                            "Quadrants' sequence")
        position = {m.name: i for i, m in enumerate(metas)}
        templates = {m.name for m in metas if describe.annotation_kind(m.annotation) == "template"}
        entries = []  # (getter, position read or None, fixed)
        guards = list(guards)
        for name in k.arguments(idx):
            root, _, path = name.partition(".")
            i = position[root]
            value = _member(args[i], path)
            if type(value).__module__ == "quadrants._tensor_wrapper" and \
                    _is_field(getattr(value, "_impl", None)):
                value = value._impl  # a qd.Tensor over a field (its _impl is set when made)
            if _is_field(value):
                # A qd.field (a template argument, or a member of a template object or of self):
                # its memory in place, as the layout the instance was built for. Fixed while
                # the objects on its path are (the key's identities; guards for self's members).
                arr = self.field_array(value, name, arch)
                entries.append((lambda a, v=arr: v, None, True))
                continue
            if root in templates and not path:
                text = segments[name]
                entries.append((lambda a, t=text: t, None, True))
                continue
            entries.append((self.getter(i, path, value, name, arch), i,
                            _fixed(args[i], path) and not type(value).__module__.startswith(
                                "torch")))
        # (CUDA launches are not prepared: Kernel.prepare is the CPU's.)
        return kid, k, entries, guards

    def prepare_random(self):
        """At the first kernel call: when the store holds a kernel that draws qd.random, finds
        Quadrants' generator states now, before any kernel (served or not) has drawn from them
        (quadrants_random finds them by their initial values)."""
        self.random_pending = False
        try:
            if _arch() != "cpu":
                return
            store = self.open()
            draws = False
            for kid in self.kernels:
                k = store.kernel(kid)
                if any(k.draws_random(i) for i in range(k.instance_count)):
                    draws = True
                    break
            if draws:
                self.bind_random()
        except (_Fallback, qdrt.Error):
            pass  # each kernel that draws falls back with the reason (bind_random), or the
            # call itself reports the store's error

    def bind_random(self):
        """Makes the store's kernels draw qd.random from Quadrants' own generator states (once
        per Quadrants program), so a served call draws what Quadrants would have drawn and leaves
        the states where Quadrants continues from."""
        qd = sys.modules.get("quadrants")
        try:
            prog = qd.lang.impl.get_runtime().prog
            cfg = qd.lang.impl.current_cfg()
            count, seed = int(cfg.cpu_max_num_threads), int(cfg.random_seed)
        except Exception as e:  # noqa: BLE001 - another Quadrants: its kernels stay its own
            raise _Fallback(f"qd.random: cannot read Quadrants' random_seed and threads: "
                            f"{type(e).__name__}: {e}") from None
        if self.random_program is prog:
            return
        if self.random_failure is not None and self.random_failure[0] is prog:
            raise _Fallback(self.random_failure[1])
        try:
            address = quadrants_random.locate(count, seed)
        except (quadrants_random.NotFound, OSError) as e:
            self.random_failure = (prog, f"qd.random: Quadrants' generator states not found: {e}")
            raise _Fallback(self.random_failure[1]) from None
        self.store.bind_random_states(address, count)
        self.random_program = prog

    def describe_self(self, kernel, built, obj):
        """(description, text, guards) of a data_oriented `self` as the built instance that is
        this object reads it (qdrt.objects); _Fallback naming the first differing member (a
        field's shape, a count) when no built instance is."""
        segments = []
        for inst in built:
            seg = instances.split_instance(inst).get("self")
            if seg is not None and seg not in segments:
                segments.append(seg)
        first = None
        for seg in segments:
            got = objects.describe(obj, seg)
            if got is None:
                continue
            desc, text, guards = got
            if seg == text or seg.endswith(" " + text):
                return desc, text, guards
            if first is None:
                first = objects.difference(seg, text)
        if first is None:
            raise _Fallback("self: no built instance reads this object's members (record it and "
                            "build again)")
        raise _Fallback(f"no built instance is this call: {first} (record it and build again)")

    def field_array(self, field, name, arch):
        """A qdrt.HostArray (DeviceArray on CUDA) over a qd.field's own memory, with the
        layout's strides (qdrt.fields): one per field object, kept with it."""
        key = (id(field), arch)
        hit = self.field_arrays.get(key)
        if hit is not None and hit[0] is field:
            return hit[1]
        try:
            lay = fields.layout(field, f"'{name}'")
            data = fields.address(lay)
        except fields.NotStrided as e:
            raise _Fallback(f"argument {e}") from None
        except ModuleNotFoundError as e:
            raise _Fallback(f"argument '{name}': a qd.field's address comes from Quadrants' "
                            f"to_dlpack, which needs torch ({e})") from None
        except Exception as e:  # noqa: BLE001 - Quadrants refused to export it
            raise _Fallback(f"argument '{name}': Quadrants gives no address for the field "
                            f"({type(e).__name__}: {e})") from None
        wrap = qdrt.HostArray if arch == "cpu" else qdrt.DeviceArray
        arr = wrap(data, lay.dtype, lay.shape, lay.strides)
        with self.lock:
            if len(self.field_arrays) >= _MAX_PLANS:
                self.field_arrays.clear()
            self.field_arrays[key] = (field, arr)  # (keeps the field alive: its id stays its)
        return arr

    def describe(self, ann, value, name="?"):
        """The recorder's description of one argument and its canonical text. A frozen
        dataclass (frozen all the way down, holding Quadrants ndarrays, qd.Tensors, primitive
        values and None) is described once per object: what its description depends on that
        can still change (an ndarray's grad and layout, a Tensor's ndarray) is checked at every
        later use. Genesis passes its 15 state dataclasses 74 times in the Franka scene's first
        calls."""
        key = (id(ann), id(value))
        hit = self.descriptions.get(key)
        if hit is not None and hit[0] is value and hit[1] is ann and _guards_hold(hit[4]):
            return hit[2], hit[3]
        desc = describe.describe_param(ann, value)
        try:
            text = instances.param_text(desc)
        except ValueError as e:  # a field, an object the recorder cannot describe, ...
            raise _Fallback(f"argument '{name}': {e} (qdbuild cannot take it)") from None
        guards = []
        if _frozen_members(value, guards):
            with self.lock:
                if len(self.descriptions) >= _MAX_PLANS:
                    self.descriptions.clear()
                self.descriptions[key] = (value, ann, desc, text, guards)
        return desc, text

    def getter(self, i, path, value, name, arch="cpu"):
        """A function of the call's arguments giving libqdrt's value for one argument: on the
        CPU a Quadrants ndarray is a qdrt.HostArray over its data pointer, on CUDA a
        qdrt.DeviceArray over its device pointer (Quadrants' LLVM backends give the physical
        address, a CUdeviceptr on CUDA); torch tensors go as they are (CUDA ones by their
        __cuda_array_interface__)."""
        impl = getattr(value, "_impl", value)  # qd.Tensor -> its ndarray
        if hasattr(impl, "arr") and hasattr(impl, "dtype") and hasattr(impl.arr, "total_shape"):
            prog = sys.modules["quadrants"].lang.impl.get_runtime().prog
            dtype = str(impl.dtype)
            if dtype not in _DTYPES:
                raise _Fallback(f"argument '{name}': ndarray dtype {dtype}")
            wrap = qdrt.HostArray if arch == "cpu" else qdrt.DeviceArray

            def ndarray(a):
                v = getattr(_member(a[i], path), "_impl", None) or _member(a[i], path)
                return wrap(prog.get_ndarray_data_ptr_as_int(v.arr), dtype,
                            tuple(v.arr.total_shape()))
            return ndarray
        if type(value).__module__.startswith("torch"):
            if value.device.type != arch or not value.is_contiguous():
                raise _Fallback(f"argument '{name}': a torch tensor that is not {arch} and "
                                "contiguous (Quadrants would copy it)")
            if arch == "cuda":
                return lambda a: _member(a[i], path)  # __cuda_array_interface__
            dtype = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64",
                     "int8": "i8", "int16": "i16", "uint8": "u8", "bool": "u1"}.get(
                         str(value.dtype).split(".")[-1])
            if dtype is None:
                raise _Fallback(f"argument '{name}': torch dtype {value.dtype}")

            def tensor(a):
                t = _member(a[i], path)
                return qdrt.HostArray(t.data_ptr(), dtype, tuple(t.shape))
            return tensor
        if isinstance(value, (bool, int, float)):
            return lambda a: _member(a[i], path)
        if hasattr(value, "__array_interface__") or isinstance(value, memoryview):
            if arch != "cpu":
                raise _Fallback(f"argument '{name}': a host array in a {arch} call (Quadrants "
                                "would copy it to the device and back)")
            return lambda a: _member(a[i], path)
        raise _Fallback(f"argument '{name}': a {type(value).__name__}")

    # --- exit ---------------------------------------------------------------------------------
    def document(self):
        with self.lock:
            served = dict(self.served_before)
            for plan in [*self.plans.values(), *self.selections.values()]:
                if plan.calls and plan.kid is not None:
                    served[plan.kid] = served.get(plan.kid, 0) + plan.calls
        return {"served": dict(sorted(served.items())),
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
        sys.meta_path.insert(0, record.ImportWatch(_state))
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
