"""print(...), f-strings and "...".format(...) in kernels, as Quadrants formats them (impl.qd_print,
qd_format, the frontend type check of print specs and codegen_utils.h merge_printf_specifier):
compile-time values inside an f-string without a spec become Python text; every runtime value
(and every value with a spec) is printed with the C printf conversion of its dtype, merged with
the spec; tuples and lists print as "[a, b]", vectors as "[a, b]", matrices as "[[a, b], [c, d]]".
The printf conversions are emulated with Python's % operator (C's '%#o' and '%a' by hand)."""

import re
import sys

from . import dtypes as dt
from .ops import typed
from .values import Scalar, Tensor

_DTYPE_FORMATS = {"u1": "%d", "i8": "%hd", "u8": "%hu", "i16": "%hd", "u16": "%hu", "i32": "%d",
                  "u32": "%u", "i64": "%lld", "u64": "%llu", "f32": "%f", "f64": "%.12f"}
_SPEC = re.compile(r"%?([-+ #0]+)?(\d+|\*)?(\.(?:\d+|\*))?([hljztL]|hh|ll)?"
                   r"([csdioxXufFeEaAgGnp])?")


class Formatted:
    """The value of an f-string or str.format in a kernel: text (str) and values, a value with a
    spec as a (value, spec) tuple."""

    def __init__(self, pieces):
        self.pieces = []
        for p in pieces:
            if isinstance(p, str) and self.pieces and isinstance(self.pieces[-1], str):
                self.pieces[-1] += p
            else:
                self.pieces.append(p)


def python_text(value):
    """str() of a compile-time value (what qd_format's str.format does with it)."""
    if isinstance(value, (tuple, list)) and any(isinstance(x, (Scalar, Tensor)) for x in value):
        raise NotImplementedError("a tuple holding runtime values in an f-string")
    return str(value)


def formatted(pieces):
    """qd_format: compile-time values without a spec become text."""
    out = []
    for p in pieces:
        if isinstance(p, str):
            if "{" in p or "}" in p:
                raise SyntaxError("a literal brace in an f-string in a kernel")
            out.append(p)
        elif isinstance(p, Formatted):
            out.extend(p.pieces)
        elif isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], _Spec):
            out.append(p)
        elif isinstance(p, (Scalar, Tensor)):
            out.append(p)
        else:
            out.append(python_text(p))
    return Formatted(out)


class _Spec(str):
    """A format spec attached to a value."""


def with_spec(value, spec):
    return (value, _Spec(spec))


def str_format(raw, args, kwargs):
    """CallTransformer._canonicalize_formatted_string, then qd_format."""
    pieces, at, unnamed, max_index, used = [], 0, 0, -1, set()
    while True:
        open_ = raw.find("{", at)
        text = raw[at:] if open_ < 0 else raw[at:open_]
        if "}" in text:
            raise SyntaxError("a lone '}' in a format string")
        pieces.append(text)
        if open_ < 0:
            break
        close = raw.find("}", open_ + 1)
        if close < 0:
            raise SyntaxError("a '{' without its '}'")
        field = raw[open_ + 1:close]
        at = close + 1
        item, spec = field.split(":") if ":" in field else (field, None)
        if item == "" or item.isdigit():
            index = unnamed if item == "" else int(item)
            unnamed += item == ""
            max_index = max(max_index, index)
            if index >= len(args):
                raise SyntaxError(f"Expected {max_index + 1} positional argument(s), "
                                  f"but received {len(args)} instead.")
            value = args[index]
        else:
            if item not in kwargs:
                raise SyntaxError(f"Keyword '{item}' not found.")
            used.add(item)
            value = kwargs[item]
        pieces.append(with_spec(value, spec) if spec else value)
    if max_index + 1 != len(args):
        raise SyntaxError(f"Expected {max_index + 1} positional argument(s), but received "
                          f"{len(args)} instead.")
    for k in kwargs:
        if k not in used:
            raise SyntaxError(f"Keyword '{k}' not used.")
    return formatted(pieces)


def conversion(dtype, spec):
    """The printf conversion of a value of `dtype` with the user's spec (None: none)."""
    fmt = _DTYPE_FORMATS[dtype.name]
    if spec is None:
        return fmt
    conv = spec[-1:] if spec else ""
    if conv and conv in "csdioxXufFeEaAgGnp":
        if conv in "csnp":
            raise TypeError(f"conversion '{conv}' is not supported.")
        real = dtype.is_float
        if (conv in "fFeEaAgG" and not real) or (conv in "di" and not dtype.is_signed) or (
                conv in "oxXu" and dtype.kind != "u"):
            raise TypeError(f"'{spec}' doesn't match '{dtype.name}'.")
    m = _SPEC.fullmatch(spec)
    if m is None:
        raise TypeError(f"{spec} is not a valid printf specifier.")
    flags, width, precision, _length, user_conv = (g or "" for g in m.groups())
    if width == "*" or precision == ".*" or user_conv == "n":
        raise TypeError(f"The {spec} printf specifier is not supported")
    d = _SPEC.fullmatch(fmt)
    dt_precision, dt_length, dt_conv = (g or "" for g in d.groups()[2:])
    groups = ("di", "oxXu", "fFeEaAgG")
    conv = dt_conv
    if user_conv and user_conv != dt_conv and any(
            user_conv in g and dt_conv in g for g in groups):
        conv = user_conv
    return "%" + flags + width + (precision or dt_precision) + dt_length + conv


def c_printf(spec, value):
    """C printf of one value with a conversion made by conversion()."""
    m = _SPEC.fullmatch(spec)
    flags, width, precision, _length, conv = (g or "" for g in m.groups())
    if conv in "aA":
        if precision:
            raise NotImplementedError("%a with a precision")
        text = _hex_float(float(value))
        text = text.upper() if conv == "A" else text
        if "+" in flags and not text.startswith("-"):
            text = "+" + text
        w = int(width or 0)
        return text.ljust(w) if "-" in flags else text.rjust(w)
    if conv == "o" and "#" in flags:
        raise NotImplementedError("%#o (C's alternate octal form)")
    if conv == "u":
        conv = "d"
    return ("%" + flags + width + precision + conv) % value


def _hex_float(x):
    """C's %a of a double (glibc): 0x1.8p+1, 0x0p+0."""
    if x != x or x in (float("inf"), float("-inf")):
        return "%f" % x
    h = x.hex()  # '0x1.8000000000000p+1'
    sign = "-" if h.startswith("-") else ""
    h = h.lstrip("-")[2:]
    mant, exp = h.split("p")
    whole, _, frac = mant.partition(".")
    frac = frac.rstrip("0")
    exp = int(exp)
    return f"{sign}0x{whole}{'.' + frac if frac else ''}p{'+' if exp >= 0 else '-'}{abs(exp)}"


def render(value, spec=None):
    """The text one print argument produces."""
    if isinstance(value, str):
        if spec is not None:
            raise TypeError("Invalid constant scalar data type: <class 'str'>")
        return value
    if isinstance(value, Formatted):
        return "".join(render(p[0], p[1]) if isinstance(p, tuple) else render(p)
                       for p in value.pieces)
    if isinstance(value, (tuple, list)):
        if spec is not None:
            raise TypeError("a format spec on a tuple or list")
        return "[" + ", ".join(render(v) for v in value) + "]"
    if isinstance(value, Tensor):
        f = conversion(value.dtype, spec)
        cells = [c_printf(f, v) for v in value.data]
        if len(value.shape) == 1:
            return "[" + ", ".join(cells) + "]"
        n = value.shape[1]
        return "[" + ", ".join("[" + ", ".join(cells[r * n:(r + 1) * n]) + "]"
                               for r in range(value.shape[0])) + "]"
    if value is None:
        raise TypeError("print() of None in a kernel")
    s = typed(value)  # a compile-time number is a default-typed constant, as Expr(x)
    return c_printf(conversion(s.dtype, spec), s.v)


def kernel_print(*args, sep=" ", end="\n", **kw):
    if kw:
        raise TypeError(f"print({', '.join(kw)}=...) in a kernel")
    if not isinstance(sep, str) or not isinstance(end, str):
        raise TypeError("print(sep=, end=) must be strings in a kernel")
    text = sep.join(render(a) for a in args) + end
    sys.stdout.write(text)
    sys.stdout.flush()


_ = dt  # dtypes are reached through the values
