"""The generator's storage: variables, arrays and the enclosing parallel loop, and the atomic
operations each dtype allows (generator.py)."""

from model import BITS, PYANY, Info, is_float, of_literal


class Reject(Exception):
    """The generator picked something it cannot make valid here; it tries something else."""


# --- storage --------------------------------------------------------------------------------

class Var:
    """A name in scope. env: what it may hold (assignments must fit); mutable: may be assigned;
    role: local, kscope (kernel-scope local), loop, param, template, static, ref."""

    def __init__(self, name, env, mutable, role, src=None, perm=None):
        self.name = name
        self.env = env
        self.mutable = mutable
        self.role = role
        self.src = src or name
        self.perm = perm  # ref / kscope in a parallel loop: None (plain), "ro", or an atomic op


class Array:
    def __init__(self, name, dt, ndim, elem, env):
        self.name = name
        self.dt = dt
        self.ndim = ndim
        self.elem = elem  # () scalar elements, (n,) vector elements
        self.env = env    # per component


class Par:
    """The rules inside one top-level parallel loop."""

    def __init__(self, dims, index_srcs):
        self.dims = dims              # how many leading axes the loop covers
        self.index_srcs = index_srcs  # source of each covered axis' index ("i", "I[0]")
        self.arrays = {}              # array name -> "own" | "ro" | atomic op ("add", "min", ...)
        self.kscope = {}              # kscope var name -> "ro" | atomic op
        self.grouped = None           # the vector index of a qd.grouped loop


ATOMIC_OPS = ("add", "min", "max", "or", "and", "xor")
STALE_VECTOR = ("whole-vector stores into a vector ndarray (real Quadrants 1.3.3 then reads "
                "stale components of that element)")


def atomic_ops_for(dt):
    """The atomic operations the generator uses on dt: min/max of 8-bit integers (and u1)
    crash real Quadrants 1.3.3 (qd.min of two u8 aborts the process), so not those."""
    if is_float(dt):
        return ("add", "min", "max")
    if BITS[dt] <= 8:
        return ("add", "or", "and", "xor")
    return ATOMIC_OPS
AUG_OF = {"add": "+=", "or": "|=", "and": "&=", "xor": "^="}


def typed(info):
    """A compile-time value as the runtime value it becomes (a typed literal)."""
    if info.py is None:
        return info
    if info.py is PYANY:
        return Info(info.dt, info.lo, info.hi, info.g, info.err, info.shape)
    return of_literal(info.py)
