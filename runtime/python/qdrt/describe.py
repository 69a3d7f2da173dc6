"""Describing a kernel call's arguments as qdbuild reads them (docs/record.md "The format"):
Quadrants types, ndarrays, fields, dataclasses, template values and app objects, as the canonical
texts and tables an instance is made of; kernel ids; where a kernel's module was loaded from; and
the capture of the attributes Quadrants' tracer reads of app objects (`self.sh.slot_size`).

The recorder (qdrt.record) writes these descriptions; the bridge (qdrt.bridge, qdrt.objects)
describes a live call the same way to find its instance. Nothing here imports Quadrants: its
types are recognised once the app has imported it."""

import dataclasses
import enum
import math
import os
import sys
import threading
import types

from qdrt import fields

def _qualname(obj):
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}"


_PRIMITIVES = ("i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64", "f16", "f32", "f64")
_primitive_ids = {}  # id(Quadrants' type object) -> name, once quadrants.types is imported


def dtype_name(dt):
    """'f32', 'i32', ... for a Quadrants primitive type, else None."""
    if not _primitive_ids:
        primitive_types = sys.modules.get("quadrants.types.primitive_types")
        if primitive_types is None:
            return None  # (never import Quadrants from here: an app that does not use it stays so)
        for name in _PRIMITIVES:
            t = getattr(primitive_types, name, None)
            if t is not None:
                _primitive_ids.setdefault(id(t), (name, t))  # (t kept: its id stays its own)
    hit = _primitive_ids.get(id(dt))
    if hit is not None:
        return hit[0]
    if isinstance(dt, (bool, int, float)) or dt is None or "DataType" not in type(dt).__name__:
        return None  # (never str() an app's object: a field's str() runs a kernel)
    text = str(dt)
    return text if text in ("i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64", "f16",
                            "f32", "f64") else None


_NUMPY_NAMES = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
                "uint16": "u16", "uint32": "u32", "uint64": "u64", "float16": "f16",
                "float32": "f32", "float64": "f64", "bool": "u1"}


def _float(v):
    if math.isnan(v) or math.isinf(v):
        return {"float": repr(v)}
    return v


def describe_type(t):
    """A Quadrants type object (a dtype, a vector/matrix type) as JSON, else None."""
    name = dtype_name(t)
    if name is not None:
        return {"dtype": name}
    cls = type(t).__name__
    if cls == "VectorType":
        return {"vector": [t.n, dtype_name(t.dtype)]}
    if cls == "MatrixType":
        return {"matrix": [t.n, t.m, dtype_name(t.dtype)]}
    return None


def array_text(dtype, ndim, element=(), layout=None, grad=False, source="qd"):
    """The canonical one-line description of an ndarray argument (docs/record.md):
    ndarray(f32, 2), ndarray(f32, 1, element=(3,)), ndarray(i32, 2, layout=(1, 0)), ...,
    with grad and source=numpy|torch when they apply."""
    text = f"ndarray({dtype}, {ndim}"
    if element:
        text += f", element=({', '.join(str(n) for n in element)}{',' if len(element) == 1 else ''})"
    if layout:
        text += f", layout=({', '.join(str(n) for n in layout)}{',' if len(layout) == 1 else ''})"
    if grad:
        text += ", grad"
    if source != "qd":
        text += f", source={source}"
    return text + ")"


def _method_of(obj, name, x):
    """Whether obj.name, read as x, is a method of obj's class (qdbuild reads those from the
    class), not a func the object holds as data (`self._func_vel_at_point =
    func_vel_at_point`, described as the func it is)."""
    if isinstance(x, types.MethodType):
        return x.__self__ is obj or name not in getattr(obj, "__dict__", {})
    if type(x).__name__ == "BoundQuadrantsCallable":
        # Bound to obj under its own name (obj.method): the class's. Bound to obj but held under
        # another name (a pydantic material's `self.pre_compute = self._pre_compute_linear`):
        # data, described as {"method": ..., "self": "owner"}.
        own = getattr(getattr(type(obj), name, None), "fn", None)
        fn = getattr(getattr(x, "quadrants_callable", None), "fn", None)
        return getattr(x, "instance", None) is obj and own is not None and own is fn
    if _is_quadrants_func(x):
        return name not in getattr(obj, "__dict__", {})
    return False


def _numpy_array(v):
    """Whether v is a numpy array, a subclass's included (trimesh's TrackedArray), as Quadrants
    takes it."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(v, np.ndarray)


def describe_array(v, ann=None):
    """An ndarray argument: a qd.ndarray (also inside a qd.Tensor), a numpy array or a torch
    tensor. `ann`: the annotation, whose element type decides the trailing element dims of an
    external array."""
    impl = getattr(v, "_impl", None)
    if impl is not None and type(v).__module__ == "quadrants._tensor_wrapper":
        v = impl  # a qd.Tensor (Tensor, VectorTensor, MatrixTensor) over an ndarray or a field
    mod = type(v).__module__
    if type(v).__name__ in ("ScalarNdarray", "VectorNdarray", "MatrixNdarray"):
        shape = []
        if type(v).__name__ == "VectorNdarray":
            shape = [v.n]
        elif type(v).__name__ == "MatrixNdarray":
            shape = [v.n, v.m]
        layout = getattr(v, "_qd_layout", None)
        return array_text(dtype_name(v.dtype), len(v.shape), shape, layout, v.grad is not None)
    elem = []
    dt = getattr(ann, "dtype", None) if ann is not None else None
    if dt is not None and type(dt).__name__ in ("VectorType", "MatrixType"):
        elem = [dt.n] if type(dt).__name__ == "VectorType" else [dt.n, dt.m]
    elif ann is not None and getattr(ann, "element_dim", None):
        elem = [None] * int(ann.element_dim)  # ndarray(element_dim=k): the array's last k dims
    if None in elem:
        shape = tuple(v.shape)
        if len(shape) < len(elem):
            return {"unsupported": f"an array of shape {shape} for element_dim={len(elem)}"}
        elem = [int(n) for n in shape[len(shape) - len(elem):]]
    if _numpy_array(v):
        return array_text(_NUMPY_NAMES.get(v.dtype.name, v.dtype.name), v.ndim - len(elem), elem,
                          source="numpy")
    if mod.startswith("torch"):
        name = str(v.dtype).replace("torch.", "")
        return array_text(_NUMPY_NAMES.get(name, name), v.dim() - len(elem), elem,
                          grad=bool(getattr(v, "requires_grad", False)), source="torch")
    if type(v).__name__ in ("ScalarField", "MatrixField", "StructField"):
        return describe_field(v)
    return {"unsupported": _qualname(type(v))}


def describe_field(v, depth=0):
    """A qd.field (ScalarField, MatrixField) as {"field": dtype, "shape": [...]} with
    "element": [n] / [n, m] for a vector / matrix field, "grad": true when it was made with
    needs_grad and "strides": [bytes per axis, then per element dim] when its elements are not
    C-contiguous in Quadrants' memory (qdrt.fields); a struct field (qd.types.struct(...).field(...)) as {"struct_field": {member:
    description}} (docs/record.md)."""
    name = type(v).__name__
    if name == "StructField":
        if depth > 8:
            return {"unsupported": "a struct field nested too deeply"}
        return {"struct_field": {k: describe_field(x, depth + 1)
                                 for k, x in v.field_dict.items()}}
    try:
        shape = [int(n) for n in v.shape]
    except Exception:  # noqa: BLE001 - a field not placed yet has no shape
        return {"unsupported": "a qd.field that is not placed (no shape yet)"}
    dtype = dtype_name(v.dtype)
    if dtype is None:
        return {"unsupported": f"a qd.field of dtype {v.dtype}"}
    try:
        offset = list(v.snode.ptr.offset or [])
    except Exception:  # noqa: BLE001 - no SNode to ask: described as it is
        offset = []
    if any(offset):
        # (indices shift by it in Quadrants; qdbuild's fields start at 0)
        return {"unsupported": f"a qd.field with offset={tuple(offset)}"}
    try:
        lay = fields.layout(v)  # (a layout is read only under dense SNodes up to the root)
    except fields.NotStrided:
        lay = None  # (not one strided array: built for a copy; the bridge refuses it, saying why)
    except Exception:  # noqa: BLE001 - an SNode tree Quadrants cannot materialize yet
        lay = None
    if lay is None and not _dense_only(v):
        # (inactive cells read as 0 and deactivation is state: not an array)
        return {"unsupported": "a qd.field under a sparse SNode (pointer, bitmasked, dynamic)"}
    out = {"field": dtype, "shape": shape}
    if name == "MatrixField" and getattr(v, "ndim", 0) in (1, 2):
        out["element"] = [v.n] if v.ndim == 1 else [v.n, v.m]
    if _has_grad(v):
        out["grad"] = True
    if lay is not None and not lay.contiguous:
        out["strides"] = list(lay.strides)  # its layout in Quadrants' memory (docs/record.md)
    return out


def _dense_only(v):
    """Every SNode from the field up to the root is dense (qd.field(shape=...), struct fields,
    qd.root.dense(...).place(...))."""
    try:
        sn = v.snode
        for _ in range(64):
            sn = sn.parent()
            if sn is None:
                return True
            kind = str(sn.ptr.type).rsplit(".", 1)[-1]
            if kind == "root":
                return True
            if kind != "dense":
                return False
    except Exception:  # noqa: BLE001 - no SNode chain to walk: not a placed dense field
        return False
    return False


def _has_grad(v):
    """A field made with needs_grad=True (every float field has a .grad object; only those
    have one placed)."""
    g = getattr(v, "grad", None)
    if g is None:
        return False
    try:
        return g.shape is not None
    except Exception:  # noqa: BLE001 - an unplaced gradient field raises
        return False


MAX_CONSTANT_ARRAY = 4096  # numpy arrays in objects up to this size are recorded by value


def _is_quadrants_func(v):
    return type(v).__name__ in ("Func", "QuadrantsCallable") or hasattr(v, "_primal")


def describe_value(v, depth=0, seen=None, accessed=None):
    """A compile-time value (a template argument, a config object's field, a run-time-set
    module global) as JSON. `accessed` (a data_oriented `self` traced by Quadrants, see
    _Capture): the attributes the kernel read, by object; an object is then described by those
    alone (its other members, a whole scene behind it, are not the kernel's)."""
    if depth > 6 and accessed is None:
        return {"unsupported": "nested too deeply"}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, enum.Enum):
        value = v.value
        return {"enum": _qualname(type(v)), "member": v.name,
                "value": value if isinstance(value, (bool, int, float, str)) else None}
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return _float(v)
    if type(v).__module__ == "numpy" and hasattr(v, "item") and hasattr(v, "dtype"):
        if getattr(v, "ndim", 0) == 0:
            item = v.item()
            return {"numpy": v.dtype.name, "value": _float(item) if isinstance(item, float)
                    else item}
        if v.size <= MAX_CONSTANT_ARRAY and v.dtype.kind in "biuf":
            # A numpy array held by an object and read at trace time (Genesis: *grid_res in
            # qd.ndrange): its values, as Python sees them (a nested tuple).
            return describe_value(v.tolist(), depth, seen, accessed)
        return describe_array(v)
    t = describe_type(v)
    if t is not None:
        return t
    if isinstance(v, (tuple, list)):
        return {"tuple": [describe_value(x, depth + 1, seen, accessed) for x in v]}
    if type(v).__name__ == "BoundQuadrantsCallable" and hasattr(v, "instance"):
        # A @qd.func method bound to its object, held as data (Genesis: a material's
        # update_F_S_Jp in a solver's list): the func and the object it is called on.
        fn = getattr(getattr(v, "quadrants_callable", None), "fn", None)
        return {"method": f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', '?')}",
                "self": describe_value(v.instance, depth + 1, seen, accessed)}
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType)) or _is_quadrants_func(v):
        fn = getattr(v, "func", None) or getattr(v, "_primal", None) or v
        fn = getattr(fn, "func", fn)
        return {"func": f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', '?')}"}
    if isinstance(v, types.ModuleType):
        return {"module": v.__name__}
    if type(v).__name__ in ("ScalarNdarray", "VectorNdarray", "MatrixNdarray") or \
            type(v).__module__.startswith(("torch", "numpy", "quadrants._tensor_wrapper")) or \
            _numpy_array(v):
        return describe_array(v)
    if type(v).__name__ in ("ScalarField", "MatrixField", "StructField") and \
            type(v).__module__.startswith("quadrants"):
        return describe_field(v)
    if isinstance(v, type):
        return {"class": _qualname(v)}
    if type(v).__name__ in ("Vector", "Matrix") and type(v).__module__ == "quadrants.lang.matrix":
        # A Python-scope qd.Vector / qd.Matrix: a constant in the kernel, of its entries' dtype.
        entries = getattr(v, "entries", None)
        dtype = _NUMPY_NAMES.get(getattr(getattr(entries, "dtype", None), "name", ""), None)
        if dtype is None or getattr(v, "ndim", 0) not in (1, 2):
            return {"unsupported": "a qd.Vector / qd.Matrix value of unknown dtype"}
        return {"matrix_value": [_float(x) if isinstance(x, float) else x
                                 for x in entries.reshape(-1).tolist()],
                "shape": [v.n] if v.ndim == 1 else [v.n, v.m], "dtype": dtype}
    # A config object (a data_oriented / AutoInitMeta instance, any plain object): its fields
    # and the values of its properties (computed attributes kernels read).
    seen = set() if seen is None else seen
    if id(v) in seen:
        return {"unsupported": "a reference cycle"}
    seen = seen | {id(v)}
    out = {"object": _qualname(type(v))}
    if accessed is not None:
        read = accessed.get(id(v))
        fields = {}
        for k, x in sorted(read[1].items() if read is not None and read[0] is v else ()):
            if _method_of(v, k, x):
                continue  # a method: qdbuild reads it from the class
            if type(x).__name__ == "BoundQuadrantsCallable" and getattr(x, "instance", None) is v:
                fn = getattr(getattr(x, "quadrants_callable", None), "fn", None)
                fields[k] = {"method": f"{getattr(fn, '__module__', '?')}:"
                                       f"{getattr(fn, '__qualname__', '?')}", "self": "owner"}
                continue
            fields[k] = describe_value(x, depth + 1, seen, accessed)
        out["fields"] = fields
        return out
    fields = {}
    for k, x in sorted(getattr(v, "__dict__", {}).items()):
        if k.startswith(("__", "_qd_")):
            continue  # (Quadrants' own bookkeeping on data_oriented objects)
        fields[k] = describe_value(x, depth + 1, seen)
    if dataclasses.is_dataclass(v):
        for f in dataclasses.fields(v):
            fields.setdefault(f.name, describe_value(getattr(v, f.name), depth + 1, seen))
    out["fields"] = fields
    props = {}
    for cls in type(v).__mro__:
        for k, attr in vars(cls).items():
            if isinstance(attr, property) and k not in props and not k.startswith("_"):
                try:
                    props[k] = describe_value(getattr(v, k), depth + 1, seen)
                except Exception as e:  # noqa: BLE001 - a property may raise; say so
                    props[k] = {"unsupported": f"raised {type(e).__name__}"}
    if props:
        out["properties"] = dict(sorted(props.items()))
    return out


class _Capture(threading.local):
    """The attributes of app objects that Quadrants' AST builder reads while it traces a new
    instance (`self.sh.slot_size`, `self._coupler._rigid_sph`): id(object) -> (object,
    {attribute: value}); None outside a trace."""
    reads = None


capture = _Capture()


def app_object(v):
    if isinstance(v, (types.ModuleType, type, types.FunctionType, types.MethodType)):
        return False
    mod = type(v).__module__ or ""
    return hasattr(v, "__dict__") and not mod.startswith(
        ("quadrants", "builtins", "numpy", "torch", "qdrt"))


def patch_attributes(transformer_module):
    """Wraps ASTTransformer.build_Attribute (looked up by name at every node) to fill
    capture.reads."""
    cls = getattr(transformer_module, "ASTTransformer", None)
    original = getattr(cls, "build_Attribute", None) if cls is not None else None
    if original is None or getattr(original, "_qdrt_capture", False):
        return

    def build_Attribute(ctx, node):
        result = original(ctx, node)
        reads = capture.reads
        if reads is not None:
            base = getattr(node.value, "ptr", None)
            if base is not None and app_object(base):
                entry = reads.get(id(base))
                if entry is None:
                    entry = reads[id(base)] = (base, {})
                entry[1].setdefault(node.attr, getattr(node, "ptr", None))
        return result

    build_Attribute._qdrt_capture = True
    cls.build_Attribute = staticmethod(build_Attribute)


def kernel_id(func):
    """module:qualname as qdbuild names the kernel (a script's __main__ is its file's stem)."""
    module = func.__module__
    if module == "__main__":
        module = os.path.splitext(os.path.basename(func.__code__.co_filename))[0]
    return f"{module}:{func.__qualname__}"


def module_source(func, module):
    """Where the module of a recorded kernel was loaded from, as qdbuild finds it again without a
    PATH (docs/record.md "Sources"): {"file": its absolute path, "root": the directory its import
    name is relative to}, so that root + module.replace(".", "/") + ".py" (or + "/__init__.py")
    is the file. A script's kernels (`__main__`, named after the file's stem) have the script's
    directory as root. None when the file does not end in the module's path (a module loaded from
    an archive, or made at run time): such a kernel needs a PATH."""
    path = getattr(getattr(func, "__code__", None), "co_filename", "")
    if not path or not path.endswith(".py") or not os.path.isfile(path):
        return None
    path = os.path.abspath(path)
    rel = module.replace(".", os.sep)
    for tail in (rel + ".py", os.path.join(rel, "__init__.py")):
        if path.endswith(os.sep + tail):
            return {"file": path, "root": path[:-len(tail) - 1] or os.sep}
    return None


_kinds = {}  # id(annotation) -> (kind, annotation): annotations live as long as their functions


def annotation_kind(ann):
    """'template' | 'ndarray' | 'tensor' | 'dataclass' | 'final' | 'scalar' | 'other'."""
    hit = _kinds.get(id(ann))
    if hit is not None and hit[1] is ann:
        return hit[0]
    kind = _kind_of(ann)
    if len(_kinds) > 65536:
        _kinds.clear()
    _kinds[id(ann)] = (kind, ann)
    return kind


def _kind_of(ann):
    name = type(ann).__name__
    if ann is None:
        return "other"
    mod = getattr(ann, "__module__", "") or ""
    if name in ("template", "Template") or getattr(ann, "__name__", "") in ("Template", "template"):
        return "template"
    if name in ("NdarrayType",) or getattr(ann, "__name__", "") == "NDArray":
        return "ndarray"
    if getattr(ann, "__name__", "") == "Tensor" and mod.startswith("quadrants"):
        return "tensor"
    if isinstance(ann, type) and dataclasses.is_dataclass(ann):
        return "dataclass"
    if "Final" in repr(ann):
        return "final"
    if dtype_name(ann) is not None or ann in (int, float, bool):
        return "scalar"
    return "other"


def _scalar_name(ann):
    return dtype_name(ann) or {int: "int", float: "float", bool: "bool"}.get(ann, "?")


def describe_param(ann, v, accessed=None):
    if accessed is not None:
        return {"template": describe_value(v, accessed=accessed)}
    kind = annotation_kind(ann)
    if kind == "template":
        return {"template": describe_value(v)}
    if kind in ("ndarray", "tensor"):
        if v is None:
            return {"none": True}
        return describe_array(v, ann if kind == "ndarray" else None)
    if kind == "dataclass":
        return describe_dataclass(ann, v)
    if kind == "final":
        return {"final": describe_value(v)}
    if kind == "scalar":
        return {"scalar": _scalar_name(ann)}
    if isinstance(ann, type) or ann is None:
        return {"value": describe_value(v)}
    return {"other": repr(ann)[:120], "value": describe_value(v)}


_dataclass_fields = {}  # class -> (qualified name, [(member, resolved annotation)])


def describe_dataclass(cls, v):
    fields = _dataclass_fields.get(cls)
    if fields is None:
        resolved = []
        for f in dataclasses.fields(cls):
            ann = f.type
            if isinstance(ann, str):
                ann = _resolve_annotation(cls, ann)
            resolved.append((f.name, ann))
        fields = _dataclass_fields[cls] = (_qualname(cls), resolved)
    return {"dataclass": fields[0],
            "members": {name: describe_param(ann, getattr(v, name, None))
                        for name, ann in fields[1]}}


def _resolve_annotation(cls, text):
    mod = sys.modules.get(cls.__module__)
    try:
        return eval(text, vars(mod) if mod else {})  # noqa: S307 - the app's own annotation
    except Exception:  # noqa: BLE001 - unresolvable: described as 'other'
        return None
