"""A stdlib-only stand-in for the `quadrants` package: kernels run as sequential Python with the
typed semantics of docs/language.md (the reference executor of the differential tests,
tests/diff). Put tests/reference first on sys.path so `import quadrants as qd` finds it."""

from . import graph, lang, math, random_numbers, simt, types  # noqa: F401
from .atomics import (atomic_add, atomic_and, atomic_cas, atomic_exchange, atomic_max,  # noqa: F401
                      atomic_min, atomic_mul, atomic_or, atomic_sub, atomic_xor)
from .dtypes import f16, f32, f64, i8, i16, i32, i64, u1, u8, u16, u32, u64  # noqa: F401
from .expressions import static  # noqa: F401
from .fields import Layout, StructField, field  # noqa: F401
from .graph import checkpoint, graph_do_while, graph_parallel, graph_parallel_context  # noqa: F401
from .lang.exception import (QuadrantsCompilationError, QuadrantsNameError,  # noqa: F401
                             QuadrantsSyntaxError, QuadrantsTypeError)
from .kernel import Template, data_oriented, func, kernel, template  # noqa: F401
from .local_struct import Struct  # noqa: F401
from .loops import grouped, ndrange  # noqa: F401
from .mathlib import (abs, acos, asin, atan2, ceil, cos, exp, floor, log, max, min, pow,  # noqa: F401
                      raw_div, raw_mod, round, rsqrt, select, sin, sqrt, tan, tanh)
from .matrix import Matrix, Vector  # noqa: F401
from .ops import cast  # noqa: F401
from .random_numbers import random  # noqa: F401
from .svd import svd  # noqa: F401
from .tiles import outer  # noqa: F401

IS_REFERENCE_STANDIN = True
int32, int64, float32, float64 = i32, i64, f32, f64
cpu = x64 = "cpu"
gpu = cuda = "cuda"


def init(arch=None, random_seed=0, **_options):
    """Accepted for compatibility; the stand-in always runs sequentially on the CPU.
    random_seed seeds qd.random as in Quadrants."""
    random_numbers.seed(random_seed)


class LoopConfig:
    """What qd.loop_config(...) says about the next loop: serialize=True makes a top-level loop
    serial (so `break` is allowed in it); block_dim=B runs a top-level loop as thread blocks of B
    (simt.py); the other hints have no effect here."""

    def __init__(self, serialize=False, block_dim=None, **_options):
        self.serialize = bool(serialize)
        self.block_dim = block_dim


def loop_config(**options):
    return LoopConfig(**options)


def static_assert(cond, msg=None):
    assert cond, msg


def ndarray(dtype, shape):
    raise NotImplementedError("use numpy arrays or array.array as ndarray arguments")

simt._install_library()
