"""A data_oriented `self` described from the live object, as a built instance reads it.

The recorder describes a method kernel's `self` by what Quadrants' trace read of it (the
attributes its AST builder looked up, object by object: docs/record.md), so a built instance's
`self` segment names exactly those members: `{__class__='m.Solver', n=64, p={__struct_field__=
True, pos={__field__=True, ...}}, sh={__class__='m.Hash', cell=0.1}}`. An unchanged app's call
has no trace. describe() reads the same members off the live object, following the instance's
own text (objects by their attributes, tuples of objects by index, bound methods by their object),
and describes them with the recorder's own code: the call is that instance exactly when the texts
are equal. What the description read is kept as guards (each attribute's object, and the bytes of
the small numpy arrays read by value), so a later call with the same object re-checks them instead
of describing again: a member reassigned to another object (a field rebuilt by qd.FieldsBuilder)
is seen at the next call, while values the trace read stay frozen, as in Quadrants
(guards_hold).
"""

from qdrt import describe as describing, instances

__all__ = ["describe", "difference", "guards_hold"]

_PRIMITIVES = (bool, int, float, str)


def _tree(text, depth=0):
    """The keys of a canonical table text, nested: {key: subtree or None for a leaf}."""
    items = _items(text) if depth <= 32 else None
    if items is None:
        return None
    return {k: _tree(v, depth + 1) if v.startswith("{") else None for k, v in items.items()}


def _table_text(segment):
    """An instance's segment for a template object: `data_oriented m.C {...}` -> `{...}`."""
    return segment[segment.index("{"):] if "{" in segment else segment


def _read(obj, tree, accessed, guards, depth=0):
    """Follows `tree` over the live `obj`, filling the recorder's `accessed` ({id: (object,
    {attribute: value})}) and `guards`; False when an attribute the instance names is missing."""
    if tree is None or depth > 32:
        return True
    if "__class__" in tree:
        entry = accessed.get(id(obj))
        reads = entry[1] if entry is not None else {}
        for key, sub in tree.items():
            if key.startswith("__"):
                continue
            try:
                value = getattr(obj, key)
            except Exception:  # noqa: BLE001 - a missing member or a raising property
                return False
            reads[key] = value
            guards.append(_guard(obj, key, value))
            if not _read(value, sub, accessed, guards, depth + 1):
                return False
        accessed[id(obj)] = (obj, reads)
        return True
    if "__tuple__" in tree:
        try:
            for key, sub in tree.items():
                if key.isdigit() and not _read(obj[int(key)], sub, accessed, guards, depth + 1):
                    return False
        except Exception:  # noqa: BLE001 - not indexable as the instance says
            return False
        return True
    if "__method__" in tree:
        if "__self_owner__" in tree:
            return True  # bound to its holder: the description says whether it still is
        target = getattr(obj, "instance", None)
        return target is not None and _read(target, tree.get("__self__"), accessed, guards,
                                            depth + 1)
    return True


def _guard(obj, key, value):
    if type(value).__module__ == "numpy" and hasattr(value, "tobytes") and \
            getattr(value, "size", 1 << 30) <= describing.MAX_CONSTANT_ARRAY:
        return (obj, key, value, value.tobytes())  # read by value: its bytes too
    return (obj, key, value, None)


def guards_hold(guards):
    """Whether every attribute a description read still holds the object it read. A value the
    trace read (a number, a bool, a small numpy array read by value) is frozen into the
    instance as Quadrants freezes it into the kernel it traced for this object: Quadrants never
    traces a data_oriented object's kernel again when such a value changes (Genesis's FEM
    materials set `_hessian_ready` after the first Hessian; the kernel keeps the branch it was
    traced with), so neither does the bridge. A member reassigned to another object (a field
    rebuilt by qd.FieldsBuilder, a sub-object replaced) is selected again."""
    for obj, key, seen, data in guards:
        try:
            now = getattr(obj, key)
        except Exception:  # noqa: BLE001
            return False
        if now is not seen and not (type(seen) in _PRIMITIVES or data is not None):
            return False
    return True


def describe(obj, segment):
    """(description, canonical text, guards) of `obj` as the instance whose `self` segment is
    `segment` reads it, or None when `obj` is not that instance's object."""
    tree = _tree(_table_text(segment))
    if tree is None:
        return None
    accessed, guards = {}, []
    if not _read(obj, tree, accessed, guards):
        return None
    desc = {"template": describing.describe_value(obj, accessed=accessed)}
    try:
        text = instances.config_text(desc)
    except ValueError:
        return None
    return desc, text, guards


def difference(segment, text, prefix="self"):
    """The first member where the instance's `segment` and a live object's description `text`
    differ: "self.p.pos is {...shape=(128,)} here, {...shape=(64,)} in the built instance"."""
    built, here = _items(_table_text(segment)), _items(text)
    if built is None or here is None:
        return f"{prefix} is {text} here, {segment} in the built instance"
    for key in sorted(set(built) | set(here)):
        a, b = built.get(key), here.get(key)
        if a == b:
            continue
        path = f"{prefix}.{key}"
        if a is None or b is None:
            return f"{path} is {'missing' if b is None else b} here, " \
                   f"{'missing' if a is None else a} in the built instance"
        inner = _items(a)
        if inner is not None and "__field__" not in inner and b.startswith("{"):
            return difference(a, b, path)  # an object or a struct field: which member
        return f"{path} is {b} here, {a} in the built instance"
    return f"{prefix} differs from the built instance"


def _items(text):
    if not text.startswith("{") or not text.endswith("}"):
        return None
    out = {}
    for part in instances._split_top(text[1:-1]):
        key, _, value = part.partition("=")
        out[key.strip()] = value.strip()
    return out
