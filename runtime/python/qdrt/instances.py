"""Which built instance a recorded call is: a recorded description of a kernel call's parameters
(what `python -m qdrt.record` writes, docs/record.md "The format") against the canonical instance
strings of a store (qdrt Kernel.instances).

qdbuild turns each recorded description into a configured value and prints it canonically in the
instance string (`x=ndarray(f32, 1), cfg={...}, s=dataclass m.State {...}`). config_text() gives
the same text for a description (the C++ side is src/sema/instance_record.cpp and
ConfigValue::text); select() finds the one instance whose every recorded parameter prints the
same. The bridge from an unchanged Quadrants app to the store selects instances this way, and
the Genesis tests check it against every recorded instance of the committed records.
"""

import math
import re

__all__ = ["config_text", "split_instance", "matches", "select", "select_segments"]


def _repr(v):
    """sema::repr: Python's repr for None/bool/int/float/str/tuple values."""
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return repr(v)
    if isinstance(v, tuple):
        return "(" + ", ".join(_repr(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


class _Table(dict):
    """A configured table: printed {key=value, ...} in key order (std::map). Built, then only
    read: its text is computed once."""

    __slots__ = ("_printed",)

    def text(self):
        try:
            return self._printed
        except AttributeError:
            self._printed = "{" + ", ".join(f"{k}={self[k].text()}" for k in sorted(self)) + "}"
            return self._printed


class _Scalar:
    def __init__(self, text):
        self._text = text

    def text(self):
        return self._text


# The characters _split_top looks at; everything between them is copied as it is.
_STRUCTURE = re.compile(r"""['"()\[\]{},]""")


def _split_top(s):
    """Splits at the commas outside brackets and quotes, each part stripped (a trailing empty part
    dropped). Only the structural characters are visited (instance strings of Genesis kernels run
    to tens of kilobytes)."""
    parts, start, n = [], 0, len(s)
    while start < n:
        end = _segment_end(s, start)
        if end < n or s[start:end].strip():
            parts.append(s[start:end].strip())
        start = end + 1
    return parts


_ARRAYS = {}


def _array(text):
    """parse_array_text: "ndarray(f32, 1, element=(3,), layout=(1, 0))" -> table (shared: never
    modified by its users)."""
    t = _ARRAYS.get(text)
    if t is None:
        if len(_ARRAYS) > 65536:
            _ARRAYS.clear()
        t = _ARRAYS[text] = _parse_array(text)
    return t


def _parse_array(text):
    if not (text.startswith("ndarray(") and text.endswith(")")):
        raise ValueError(f"not an ndarray description: {text!r}")
    parts = _split_top(text[8:-1])
    dtype, ndim = parts[0], int(parts[1])
    t = _Table()
    for p in parts[2:]:
        if p.startswith("element="):
            dims = [int(x) for x in p[8:].strip("()").split(",") if x.strip()]
            dtype = (f"vector({dims[0]}, {dtype})" if len(dims) == 1 else
                     f"matrix({dims[0]}, {dims[1]}, {dtype})")
        elif p.startswith("layout="):
            dims = [int(x) for x in p[7:].strip("()").split(",") if x.strip()]
            t["layout"] = _Scalar(_repr("(" + ", ".join(map(str, dims)) +
                                        ("," if len(dims) == 1 else "") + ")"))
        elif p == "grad":
            t["needs_grad"] = _Scalar("True")
        elif p.startswith("source="):
            t["source"] = _Scalar(_repr(p[7:]))
        else:
            raise ValueError(f"unknown part {p!r} of {text!r}")
    t["dtype"] = _Scalar(_repr(dtype))
    t["ndim"] = _Scalar(_repr(ndim))
    return t


def _template(v, depth=0):
    """template_value: a recorded template value -> a scalar or table."""
    if depth > 8:
        raise ValueError("nested too deeply")
    if v is None or isinstance(v, (bool, int, float, str)):
        return _Scalar(_repr(v))
    if not isinstance(v, dict):
        raise ValueError(f"not a recorded value: {v!r}")
    if "float" in v:
        return _Scalar("nan" if v["float"] == "nan" else ("-inf" if v["float"].startswith("-")
                                                          else "inf"))
    if "enum" in v:
        member = "<unknown>"
        if "value" in v:
            try:
                inner = _template(v["value"], depth + 1)
                if not isinstance(inner, _Table):
                    member = inner.text()
            except ValueError:
                pass
        return _Scalar(f"<{v['enum']}.{v['member']}: {member}>")
    if "numpy" in v:
        return _template(v["value"], depth + 1)
    if "tuple" in v:
        items = [_template(x, depth + 1) for x in v["tuple"]]
        if any(isinstance(i, _Table) for i in items):
            t = _Table()  # a tuple holding objects: {__tuple__ = n, 0 = ..., ...}
            t["__tuple__"] = _Scalar(_repr(len(items)))
            for k, i in enumerate(items):
                t[str(k)] = i
            return t
        return _Scalar("(" + ", ".join(i.text() for i in items) +
                       ("," if len(items) == 1 else "") + ")")
    if "method" in v:
        t = _Table()
        t["__method__"] = _Scalar(_repr(v["method"]))
        if v.get("self") == "owner":  # bound to the object that holds it
            t["__self_owner__"] = _Scalar(_repr(True))
            return t
        self_ = _template(v.get("self"), depth + 1)
        if not isinstance(self_, _Table):
            raise ValueError("a bound method whose object cannot be described")
        t["__self__"] = self_
        return t
    if "func" in v:
        return _Scalar(_repr(v["func"]))
    if "matrix_value" in v:  # a Python-scope qd.Vector / qd.Matrix
        t = _Table()
        t["__matrix__"] = _template({"tuple": v["matrix_value"]}, depth + 1)
        t["shape"] = _template({"tuple": v["shape"]}, depth + 1)
        t["dtype"] = _Scalar(_repr(v["dtype"]))
        return t
    if "field" in v:  # field_value
        dtype = v["field"]
        element = v.get("element")
        if element:
            dtype = (f"vector({element[0]}, {dtype})" if len(element) == 1 else
                     f"matrix({element[0]}, {element[1]}, {dtype})")
        t = _Table()
        t["__field__"] = _Scalar("True")
        t["dtype"] = _Scalar(_repr(dtype))
        t["ndim"] = _Scalar(_repr(len(v["shape"])))
        t["shape"] = _template({"tuple": v["shape"]}, depth + 1)
        if v.get("grad"):
            t["needs_grad"] = _Scalar("True")
        if "strides" in v:  # its layout in Quadrants' memory, when not C-contiguous
            t["strides"] = _template({"tuple": v["strides"]}, depth + 1)
        return t
    if "struct_field" in v:  # struct_field_value
        t = _Table()
        t["__struct_field__"] = _Scalar("True")
        for k, m in v["struct_field"].items():
            if not isinstance(m, dict) or not ("field" in m or "struct_field" in m):
                raise ValueError(f"struct field member '{k}': not a field")
            t[k] = _template(m, depth + 1)
        return t
    for kind in ("dtype", "vector", "matrix"):
        if kind in v:
            if kind == "dtype":
                text = v[kind]
            else:
                text = kind + "(" + ", ".join(str(a) for a in v[kind]) + ")"
            t = _Table()
            t["__type__"] = _Scalar(_repr(text))
            return t
    if "object" in v:
        t = _Table()
        t["__class__"] = _Scalar(_repr(v.get("object", "?")))
        for part in ("fields", "properties"):
            for k, x in v.get(part, {}).items():
                try:
                    if isinstance(x, str) and x.startswith("ndarray("):
                        item = _array(x)
                    else:
                        item = _template(x, depth + 1)
                except ValueError as e:
                    item = _Table()
                    item["__unsupported__"] = _Scalar(_repr(str(e)))
                t.setdefault(k, item)
        return t
    if "module" in v or "class" in v:
        t = _Table()
        key = "__module__" if "module" in v else "__classref__"
        t[key] = _Scalar(_repr(v["module"] if "module" in v else v["class"]))
        return t
    if "unsupported" in v:
        raise ValueError(v["unsupported"])
    raise ValueError(f"not a recorded value: {v!r}")


def config_text(desc):
    """The canonical text qdbuild prints for one recorded parameter description, or None when
    the description adds nothing (a runtime scalar)."""
    if isinstance(desc, str):
        return _array(desc).text()
    if not isinstance(desc, dict):
        raise ValueError("not a parameter description")
    if "template" in desc:
        return _template(desc["template"]).text()
    if "final" in desc:
        return _template(desc["final"]).text()
    if "none" in desc:
        return "None"
    if "scalar" in desc:
        return None
    if "dataclass" in desc:
        return _dataclass(desc).text()
    if "field" in desc:  # a qd.field given where an array is taken (performance mode)
        return _template(desc).text()
    if "value" in desc:
        return _template(desc["value"]).text()
    raise ValueError(desc.get("unsupported", f"not a parameter description: {desc!r}"))


def _dataclass(desc):
    t = _Table()
    t["__class__"] = _Scalar(_repr(desc["dataclass"]))
    for k, m in desc["members"].items():
        try:
            if isinstance(m, dict) and "dataclass" in m:
                t[k] = _dataclass(m)
                continue
            text = config_text(m)
        except ValueError as e:
            bad = _Table()
            bad["__unsupported__"] = _Scalar(_repr(str(e)))
            t[k] = bad
            continue
        if text is None:
            continue
        t[k] = _array(m) if isinstance(m, str) else _Scalar(text)
    return t


_SPLIT = {}


def split_instance(instance):
    """'a=ndarray(f32, 1), cfg={...}' -> {'a': 'ndarray(f32, 1)', 'cfg': '{...}'} (remembered:
    select() and the bridge split the same strings; the result is not to be modified)."""
    out = _SPLIT.get(instance)
    if out is None:
        if len(_SPLIT) > 4096:
            _SPLIT.clear()
        out = {}
        for part in _split_top(instance):
            name, _, rest = part.partition("=")
            out[name] = rest
        _SPLIT[instance] = out
    return out


def _array_matches(segment, desc):
    """A partial ndarray prints ndarray(dtype, ndim[, options][, layout=...]); a complete one its
    annotation. Either way the recorded dtype, ndim and layout must be the segment's."""
    body = segment
    if " " in segment and not segment.startswith("ndarray("):
        body = segment.split(" ", 1)[1]  # "tensor {dtype=...}" / "torch.Tensor {...}"
        return body == _array(desc).text()
    if not segment.startswith("ndarray("):
        return False
    seg = _split_top(segment[8:-1])
    rec = _array(desc)
    dtype = rec["dtype"].text().strip("'")
    if seg[0] != dtype or seg[1] != rec["ndim"].text():
        return False
    layout = rec.get("layout")
    seg_layout = next((p[7:] for p in seg[2:] if p.startswith("layout=")), None)
    return (layout.text().strip("'") if layout else None) == seg_layout


def param_text(desc):
    """One recorded parameter's ndarray description or canonical text (see _texts)."""
    return desc if isinstance(desc, str) else config_text(desc)


def _texts(params):
    """Per recorded parameter: its ndarray description, or its canonical text (None: a runtime
    scalar, which every instance takes)."""
    return {name: desc if isinstance(desc, str) else config_text(desc)
            for name, desc in params.items()}


def _matches(segments, params, texts):
    for name, desc in params.items():
        seg = segments.get(name)
        if seg is None:
            return False
        if isinstance(desc, str):
            if not _array_matches(seg, desc):
                return False
            continue
        text = texts[name]
        if text is None:
            continue
        if seg != text and not seg.endswith(" " + text):
            return False
    return True


def matches(instance, params):
    """Whether built instance string `instance` is the call recorded as `params`."""
    return _matches(split_instance(instance), params, _texts(params))


def _segment_end(s, start):
    """The end of the top-level segment that starts at `start`: the next comma outside brackets
    and quotes, or the end."""
    depth, quote = 0, None
    for m in _STRUCTURE.finditer(s, start):
        ch = m.group()
        if quote:
            if ch == quote:
                quote = None
        elif ch == "'" or ch == '"':
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0:
            return m.start()
    return len(s)


def _confirms(instance, params, texts):
    """The segments of `instance` when it is the call `params` describes, read without splitting
    the whole string: each expected text is compared where its segment starts (as it is, or
    after a flat prefix: `dataclass m.State {...}`); a segment that is not found so is read to
    its end and compared as _matches compares it, and the first that differs ends the reading
    (_NO: this instance is not the call). None when this cannot decide (a parameter the call
    does not have, one named twice): _matches over split_instance decides then."""
    segments, pos, n = {}, 0, len(instance)
    while pos < n:
        eq = instance.find("=", pos)
        if eq < 0:
            return None
        name = instance[pos:eq].strip()
        desc = params.get(name, _MISSING)
        if desc is _MISSING or name in segments:
            return None
        start = eq + 1
        text = texts[name]
        end = -1
        if text is not None and not isinstance(desc, str):
            if instance.startswith(text, start):
                end = start + len(text)
            else:
                j = instance.find(" " + text, start)
                if j >= 0 and _STRUCTURE.search(instance, start, j) is None:
                    end = j + 1 + len(text)
            if end >= 0 and end < n and instance[end] != ",":
                end = -1  # (the text is only the start of this segment)
            if end < 0:
                end = _segment_end(instance, start)
                seg = instance[start:end].strip()
                if seg != text and not seg.endswith(" " + text):
                    return _NO
        else:
            end = _segment_end(instance, start)
            if isinstance(desc, str) and not _array_matches(instance[start:end].strip(), desc):
                return _NO
        segments[name] = instance[start:end].strip()
        pos = end + 1
        while pos < n and instance[pos] == " ":
            pos += 1
    return segments if len(segments) == len(params) else _NO


_MISSING = object()
_NO = object()


def select_segments(instances, params, texts=None):
    """(index, segments): the one instance in `instances` (canonical strings) that `params`
    describes, and its segments by parameter name (as split_instance gives them for those
    parameters); (None, None) when none or more than one is. `texts`: what _texts(params) gives,
    when the caller keeps it (the bridge does, per described object)."""
    texts = _texts(params) if texts is None else texts
    found = []
    for i, s in enumerate(instances):
        segments = _confirms(s, params, texts)
        if segments is _NO:
            continue
        if segments is None and _matches(split_instance(s), params, texts):
            segments = split_instance(s)
        if segments is not None:
            found.append((i, segments))
    return found[0] if len(found) == 1 else (None, None)


def select(instances, params, texts=None):
    """The index of the one instance in `instances` (canonical strings) that `params` describes,
    or None (none, or more than one)."""
    return select_segments(instances, params, texts)[0]
