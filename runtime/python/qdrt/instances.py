"""Which built instance a recorded call is: a recorded description of a kernel call's parameters
(what `python -m qdrt.record` writes, docs/record.md "The format") against the canonical instance
strings of a store (qdrt Kernel.instances).

qdbuild turns each recorded description into a configured value and prints it canonically in the
instance string (`x=ndarray(f32, 1), cfg={...}, s=dataclass m.State {...}`). config_text() gives
the same text for a description: libqdrt prints it with the code qdbuild reads and prints records
with (qdrt_instance_text), so there is one printer; this module only splits instance strings and
compares. select() finds the one instance whose every recorded parameter prints the same. The bridge from an unchanged Quadrants app to the store selects instances this way, and
the Genesis tests check it against every recorded instance of the committed records.
"""

import ctypes
import json
import re

__all__ = ["config_text", "split_instance", "matches", "select", "select_segments"]


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


_TEXTS = {}


def _instance_text(data):
    """libqdrt's qdrt_instance_text on a description's JSON bytes (remembered: the bridge asks
    for the same ndarray descriptions on every selection)."""
    text = _TEXTS.get(data)
    if text is None:
        from qdrt import _library
        lib = _library._load()
        out = ctypes.c_char_p()
        if lib.qdrt_instance_text(data, len(data), ctypes.byref(out)) != 0:
            raise ValueError(lib.qdrt_last_error().decode("utf-8", "replace"))
        if len(_TEXTS) > 65536:
            _TEXTS.clear()
        text = _TEXTS[data] = out.value.decode("utf-8", "surrogateescape")
    return text


def config_text(desc):
    """The canonical text qdbuild prints for one recorded parameter description, or None when
    the description adds nothing (a runtime scalar). libqdrt prints it with qdbuild's own code
    (qdrt_instance_text); ValueError says why a description cannot be read."""
    try:
        data = json.dumps(desc, separators=(",", ":"), allow_nan=False).encode()
    except (TypeError, ValueError) as e:
        raise ValueError(f"not a parameter description: {e}") from None
    return _instance_text(data) or None


_ARRAYS = {}


def _array(text):
    """An ndarray description's canonical table by key: "ndarray(f32, 1, layout=(1, 0))" ->
    {"dtype": "'f32'", "layout": "'(1, 0)'", "ndim": "1"} (remembered; not to be modified)."""
    t = _ARRAYS.get(text)
    if t is None:
        if len(_ARRAYS) > 65536:
            _ARRAYS.clear()
        printed = config_text(text)
        t = _ARRAYS[text] = {k.strip(): v.strip() for k, _, v in
                             (part.partition("=") for part in _split_top(printed[1:-1]))}
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
        return body == config_text(desc)
    if not segment.startswith("ndarray("):
        return False
    seg = _split_top(segment[8:-1])
    rec = _array(desc)
    dtype = rec["dtype"].strip("'")
    if seg[0] != dtype or seg[1] != rec["ndim"]:
        return False
    layout = rec.get("layout")
    seg_layout = next((p[7:] for p in seg[2:] if p.startswith("layout=")), None)
    return (layout.strip("'") if layout else None) == seg_layout


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
