"""Shared by run_diff.py and oracle_worker.py (stdlib only; numpy when importable).

Loads the case descriptions (cases_spec/*.py, see README.md), builds fresh argument objects for a
case, snapshots the outputs after a run and compares two snapshots."""

import array
import fnmatch
import importlib.util
import math
import os

try:
    import numpy
except ImportError:  # the stand-in and the qdrt binding both take array.array / memoryview
    numpy = None

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")
SPEC_DIR = os.path.join(HERE, "cases_spec")

FORMATS = {"i8": "b", "i16": "h", "i32": "i", "i64": "q", "u8": "B", "u16": "H", "u32": "I",
           "u64": "Q", "f32": "f", "f64": "d", "u1": "?"}
NUMPY_NAMES = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
               "u16": "uint16", "u32": "uint32", "u64": "uint64", "f32": "float32",
               "f64": "float64", "u1": "bool"}


def load_cases(pattern=None):
    cases = []
    for fname in sorted(os.listdir(SPEC_DIR)):
        if not fname.endswith(".py") or fname.startswith("_"):
            continue
        path = os.path.join(SPEC_DIR, fname)
        spec = importlib.util.spec_from_file_location("cases_spec_" + fname[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for case in mod.CASES:
            case = dict(case)
            case.setdefault("outputs", [])
            case["spec_file"] = fname
            if pattern and not (fnmatch.fnmatch(case["name"], f"*{pattern}*") or
                                fnmatch.fnmatch(case["kernel"], f"*{pattern}*")):
                continue
            cases.append(case)
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"duplicate case names: {sorted(dup)}")
    return cases


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def initial_values(desc):
    n = _count(desc["shape"])
    init = desc.get("init")
    if init is None:
        values = [0] * n
    elif callable(init):
        values = [init(i) for i in range(n)]
    else:
        values = list(init)
    if len(values) != n:
        raise ValueError(f"init has {len(values)} values for shape {desc['shape']}")
    if desc["array"] in ("f32", "f64"):
        return [float(v) for v in values]
    if desc["array"] == "u1":
        return [bool(v) for v in values]
    return [int(v) for v in values]


# How an array with a permuted layout ({"array": ..., "shape": canonical shape, "layout": axes})
# is made (make_args' layout_mode): "canonical" (the stand-in: layouts only move memory),
# "physical" (the compiled runs: the buffer in memory order, as Quadrants allocates it),
# "quadrants" (the oracle: a qd.tensor(..., layout=...) filled from the canonical values).
_CANONICAL = {}  # id(memory-order array) -> (the array, canonical flat index per physical one)


def physical_shape(desc):
    shape = tuple(desc["shape"])
    layout = desc.get("layout")
    if not layout:
        return shape
    return tuple(shape[a] for a in layout) + shape[len(layout):]


def _physical_order(desc):
    """For each flat index of the physical (memory-order) buffer, the flat canonical index."""
    shape = tuple(desc["shape"])
    layout = tuple(desc["layout"])
    axes = layout + tuple(range(len(layout), len(shape)))  # physical axis k holds axes[k]
    pshape = [shape[a] for a in axes]
    strides = [1] * len(shape)  # canonical C strides
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    order = []
    for flat in range(_count(shape)):
        rest, idx = flat, [0] * len(pshape)
        for k in range(len(pshape) - 1, -1, -1):
            idx[k] = rest % pshape[k]
            rest //= pshape[k]
        order.append(sum(idx[k] * strides[axes[k]] for k in range(len(axes))))
    return order


def _laid_out(desc, values, layout_mode):
    shape = tuple(desc["shape"])
    if layout_mode == "quadrants":
        import quadrants as qd
        t = qd.tensor(getattr(qd, desc["array"]), shape=shape, layout=tuple(desc["layout"]),
                      backend=qd.Backend.NDARRAY)
        t.from_numpy(numpy.array(values, dtype=NUMPY_NAMES[desc["array"]]).reshape(shape))
        return t
    order = _physical_order(desc)
    physical = make_array({**desc, "layout": None, "shape": physical_shape(desc),
                           "init": [values[c] for c in order]}, numpy is not None)
    _CANONICAL[id(physical)] = (physical, order)
    return physical


def make_array(desc, use_numpy, layout_mode="canonical"):
    values = initial_values(desc)
    shape = tuple(desc["shape"])
    if desc.get("layout") and layout_mode != "canonical":
        return _laid_out(desc, values, layout_mode)
    if use_numpy and numpy is not None:
        return numpy.array(values, dtype=NUMPY_NAMES[desc["array"]]).reshape(shape)
    fmt = FORMATS[desc["array"]]
    if fmt == "?":
        buf = array.array("B", [int(v) for v in values])
        return memoryview(buf).cast("?", shape) if len(shape) != 1 else memoryview(buf).cast("?")
    buf = array.array(fmt, values)
    return buf if len(shape) == 1 else memoryview(buf).cast("B").cast(fmt, shape)


def _make_value(desc, use_numpy, module, layout_mode):
    if isinstance(desc, dict) and "object" in desc:
        # A template object: the case module's class, constructed; the compiled runs pass the
        # built instance's text for it (flat_args). Its fields ("fields": {member path: array
        # description}, every field its kernels read) start with the given values; the compiled
        # runs pass them as the arrays the store lists by member path.
        fields = desc.get("fields", {})
        if module is None:
            obj = {"__object__": desc["object"]}
            for path, fd in fields.items():
                *head, last = path.split(".")
                node = obj
                for part in head:
                    node = node.setdefault(part, {})
                node[last] = make_array(fd, use_numpy)
            return obj
        obj = getattr(module, desc["object"])(**desc.get("args", {}))
        for path, fd in fields.items():
            f = member(obj, path)
            values = initial_values(fd)
            if hasattr(f, "set_flat_values"):  # the stand-in's field
                f.set_flat_values(values)
            else:  # a Quadrants field
                f.from_numpy(numpy.array(values, dtype=NUMPY_NAMES[fd["array"]]).reshape(
                    tuple(fd["shape"])))
        return obj
    if isinstance(desc, dict) and "dataclass" in desc:
        members = {k: _make_value(v, use_numpy, module, layout_mode)
                   for k, v in desc["members"].items()}
        if module is None:
            return {"__dataclass__": desc["dataclass"], **members}  # flattened by name later
        return getattr(module, desc["dataclass"])(**members)
    return make_array(desc, use_numpy, layout_mode) if isinstance(desc, dict) else desc


def make_args(case, use_numpy=True, module=None, layout_mode="canonical"):
    """The case's arguments. A dataclass argument ({"dataclass": "Cls", "members": {...}}) is an
    instance of the case module's class when `module` is given (the stand-in, Quadrants), else
    a dict of its members (the compiled runs flatten it with flat_args)."""
    return [_make_value(a, use_numpy, module, layout_mode) for a in case["args"]]


def member(obj, path):
    """obj.a.b for a dataclass instance or a dict made by make_args (path "a.b")."""
    for part in path.split(".") if path else []:
        obj = obj[part] if isinstance(obj, dict) else getattr(obj, part)
    return obj


def output(case, args, key):
    """An output: an argument index, or "INDEX.member.path" into a dataclass argument."""
    if isinstance(key, int):
        return args[key]
    index, _, path = key.partition(".")
    return member(args[int(index)], path)


def flat_descs(case, names):
    """The argument descriptions in the order of `names` (see flat_args); an object passed as
    its instance text is "object"."""
    by_name = dict(zip(case["params"], [_desc_tree(d) for d in case["args"]]))
    out = []
    for name in names:
        root, _, path = name.partition(".")
        value = member(by_name[root], path)
        out.append("object" if isinstance(value, dict) and "__object__" in value else value)
    return out


def _desc_tree(desc):
    if isinstance(desc, dict) and "dataclass" in desc:
        return {k: _desc_tree(v) for k, v in desc["members"].items()}
    if isinstance(desc, dict) and "object" in desc:
        if desc.get("fields"):
            # Its fields are arrays by member path; the object itself is passed as text.
            tree = {"__object__": "object"}
            for path, fd in desc["fields"].items():
                *head, last = path.split(".")
                node = tree
                for part in head:
                    node = node.setdefault(part, {})
                node[last] = fd
            return tree
        return "object"  # passed as text, not an array
    return desc


def set_flat(case, args, names, values):
    """Puts flat values (in the order of `names`) back into make_args(module=None) values."""
    for k, (name, value) in enumerate(zip(names, values)):
        root, _, path = name.partition(".")
        i = case["params"].index(root)
        if not path:
            if not (isinstance(args[i], dict) and "__object__" in args[i]):
                args[i] = value  # (an object passed as its text keeps its fields' arrays)
            continue
        *head, last = path.split(".")
        member(args[i], ".".join(head))[last] = value


def flat_args(case, args, names, instance=None):
    """The arguments in the order a built instance takes them (`names`: qdrt's
    Kernel.arguments(), parameter names and dataclass member paths), from make_args(module=None)
    values; case["params"] names the kernel's parameters in order."""
    by_name = dict(zip(case["params"], args))
    segments = None
    out = []
    for name in names:
        root, _, path = name.partition(".")
        value = member(by_name[root], path)
        if isinstance(value, dict) and "__object__" in value:
            # A template object selects the instance by its text (QDRT_VALUE_TEXT).
            if segments is None:
                import qdrt.instances
                segments = qdrt.instances.split_instance(instance or "")
            value = segments[name]
        out.append(value)
    return out


def to_bytes(obj):
    """The raw C-contiguous bytes of an array made by make_array (u1: one byte 0/1 each)."""
    if numpy is not None and isinstance(obj, numpy.ndarray):
        return numpy.ascontiguousarray(obj).tobytes()
    return memoryview(obj).tobytes()


def from_bytes(desc, data):
    """The inverse of to_bytes for an array described by `desc` (numpy when importable); an
    array with a layout comes back in memory order and is viewed canonically."""
    shape = tuple(desc["shape"])
    if desc.get("layout"):
        physical = from_bytes({**desc, "layout": None, "shape": physical_shape(desc)}, data)
        _CANONICAL[id(physical)] = (physical, _physical_order(desc))
        return physical
    if numpy is not None:
        return numpy.frombuffer(data, dtype=NUMPY_NAMES[desc["array"]]).reshape(shape).copy()
    fmt = FORMATS[desc["array"]]
    buf = array.array("B" if fmt == "?" else fmt)
    buf.frombytes(data)
    mv = memoryview(buf).cast("B").cast(fmt)
    return mv.cast("B").cast(fmt, shape) if len(shape) != 1 else mv


def flat_list(obj):
    if id(obj) in _CANONICAL and _CANONICAL[id(obj)][0] is obj:
        # A laid-out array in memory order: compared canonically.
        physical = flat_list_plain(obj)
        out = [None] * len(physical)
        for p, c in enumerate(_CANONICAL[id(obj)][1]):
            out[c] = physical[p]
        return out
    return flat_list_plain(obj)


def flat_list_plain(obj):
    if hasattr(obj, "flat_values"):  # the stand-in's field
        return obj.flat_values()
    if hasattr(obj, "to_numpy"):  # a Quadrants ndarray or field (canonical view)
        return obj.to_numpy().reshape(-1).tolist()
    if numpy is not None and isinstance(obj, numpy.ndarray):
        return obj.reshape(-1).tolist()
    mv = memoryview(obj)
    return mv.cast("B").cast(mv.format).tolist()


def snapshot(case, args, ret):
    """{'return': value, '<arg index>': flat list} (string keys: it round-trips through JSON)."""
    snap = {"return": _plain(ret)}
    for i in case["outputs"]:
        values = flat_list(output(case, args, i))
        prefix = case.get("sort", {}).get(i)
        if prefix:
            values = sorted(values[:prefix]) + values[prefix:]
        snap[str(i)] = values
    return snap


def _plain(v):
    if v is None or isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "item"):  # numpy scalars
        return v.item()
    return float(v)


def _close(got, exp, tol):
    if isinstance(exp, bool) or isinstance(got, bool):
        return bool(got) == bool(exp)
    if isinstance(exp, int) and isinstance(got, int):
        return got == exp
    got, exp = float(got), float(exp)
    if math.isnan(exp) or math.isnan(got):
        return math.isnan(exp) and math.isnan(got)
    if math.isinf(exp) or math.isinf(got):
        return got == exp
    rtol, atol = (tol.get("rtol", 0.0), tol.get("atol", 0.0)) if tol else (0.0, 0.0)
    return abs(got - exp) <= atol + rtol * abs(exp)


def _flatten(v):
    if isinstance(v, (list, tuple)):
        return [x for e in v for x in _flatten(e)]
    return [v]


def compare(case, got, expected, keys=None, tol=None):
    """None when equal (within `tol`, else the case's tolerance), else 'where: got X, expected
    Y'."""
    tol = tol if tol is not None else case.get("tol")
    for key in keys or expected.keys():
        e, g = expected.get(key), got.get(key)
        where = "return" if key == "return" else f"arg {key}"
        if e is None or g is None:
            if e is not g:
                return f"{where}: got {g!r}, expected {e!r}"
            continue
        ef, gf = _flatten(e), _flatten(g)
        if len(ef) != len(gf):
            return f"{where}: got {len(gf)} values, expected {len(ef)}"
        for k, (x, y) in enumerate(zip(gf, ef)):
            if not _close(x, y, tol):
                return f"{where}[{k}]: got {x!r}, expected {y!r}"
    return None
