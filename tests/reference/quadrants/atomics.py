"""qd.atomic_* builtins and the atomic augmented assignments (+=, -=, &=, |=, ^=).

Execution is sequential, so an atomic is a read-modify-write that returns the old value. The
operand is cast to the destination's dtype first (the destination's type is the operation's
type), then combined; vectors fan out per component."""

from .ops import binop, cast
from .values import Tensor

ATOMIC_AUG_OPS = {"+": "add", "-": "sub", "&": "and", "|": "or", "^": "xor"}
_BINOP = {"add": "+", "sub": "-", "and": "&", "or": "|", "xor": "^", "min": "min", "max": "max",
          "mul": "*"}


def atomic_rmw(kind, lvalue, value):
    old = lvalue.get()
    if isinstance(old, Tensor):
        value = cast(value, old.dtype) if not isinstance(value, Tensor) else cast(value, old.dtype)
    else:
        value = cast(value, old.dtype)
    if kind == "exchange":
        new = value
    else:
        new = cast(binop(_BINOP[kind], old, value), old.dtype)
    lvalue.set(new)
    return old


def _atomic(kind):
    def f(lvalue, value):
        return atomic_rmw(kind, lvalue, value)

    f.__name__ = "atomic_" + kind
    f.takes_lvalue = True  # the interpreter passes the first argument as an lvalue
    return f


atomic_add = _atomic("add")
atomic_sub = _atomic("sub")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_min = _atomic("min")
atomic_max = _atomic("max")
atomic_mul = _atomic("mul")
atomic_exchange = _atomic("exchange")


def atomic_cas(lvalue, expected, desired):
    """qd.atomic_cas: integers only; the old value, `desired` stored when it equals `expected`
    (both cast to the destination's dtype first)."""
    old = lvalue.get()
    if isinstance(old, Tensor):
        raise TypeError("'atomic_cas' on tensor (vector / matrix) destinations is not supported")
    if not old.dtype.is_int:
        raise TypeError(f"'atomic_cas' requires integer operands, got dest '*{old.dtype}'")
    if cast(expected, old.dtype).v == old.v:
        lvalue.set(cast(desired, old.dtype))
    return old


atomic_cas.takes_lvalue = True
