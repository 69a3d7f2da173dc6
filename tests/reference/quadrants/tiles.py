"""qd.simt.Tile16x16 / Tile32x32: register tiles, as Quadrants' simt/_tile.py defines them.

A tile is an NxN matrix spread over N lanes of a warp, one row per lane: each thread (a Python
thread of simt.run_block) holds its own row, `r`, N scalars. The operations are Quadrants' own,
written again here over the stand-in's scalars and simt's shuffles, in the same order:

  t = TileNxN.zeros(dtype=None) / TileNxN.eye(dtype=None)
  t[:] = arr[r0:r1, c0:c1]  (or arr[b, r0:r1, c0:c1]): lane l loads row r0 + l, clipped
  arr[r0:r1, c0:c1] = t: stores the same way
  t -= qd.outer(a, b): a, b per-lane scalars or columns arr[r0:r1, col] (0 past r1)
  t.cholesky_(eps), L.solve_triangular_(B), t.eye_()
The interpreter builds the slices (ex_Subscript), and runs the loads, stores and outer products
(assign, stmt_AugAssign)."""

from . import dtypes as dt
from . import mathlib
from .lvalues import ArrayLV
from .ops import binop, cast
from .values import Scalar


def _lane():
    from . import simt
    return simt._invocation_id().v


def _shuffle(value, lane):
    from . import simt
    return simt.subgroup.shuffle(value, lane)


def _int(x):
    return x.v if isinstance(x, Scalar) else int(x)


class Slice:
    """arr[r0:r1, c0:c1] ("tile") or arr[r0:r1, col] ("vec"), with an optional batch index."""

    def __init__(self, kind, arr, batch, bounds, ctx):
        self.kind, self.arr, self.batch, self.bounds, self.ctx = kind, arr, batch, bounds, ctx

    def _index(self, row, col):
        idx = [] if self.batch is None else [cast(self.batch, dt.i32)]
        return idx + [Scalar(dt.i32, row), Scalar(dt.i32, col)]

    def _extent(self, axis):
        return self.arr.array_shape[axis + (0 if self.batch is None else 1)]

    def column(self, dtype):
        """Quadants' _resolve_vec2d / _resolve_vec3d: lane l's row r0 + l of the column."""
        r0, r1, col = (_int(b) for b in self.bounds)
        row_stop = min(r1, self._extent(0))
        v = Scalar(dtype, 0.0)
        if r0 + _lane() < row_stop:
            v = cast(ArrayLV(self.arr, self._index(r0 + _lane(), col), self.ctx).get(), dtype)
        return v


class Outer:
    def __init__(self, a, b):
        self.a, self.b = a, b


def outer(a, b):
    return Outer(a, b)


def array_slice(arr, items, ctx):
    """items: ("slice", lo, hi) or ("index", value) per axis."""
    kinds = [k[0] == "slice" for k in items]
    batch = None
    if kinds and not kinds[0]:
        batch, items, kinds = items[0][1], items[1:], kinds[1:]
    if kinds == [True, True]:
        for it in items:
            if it[1] is None or it[2] is None:
                raise SyntaxError("a tile slice needs both its start and stop")
        return Slice("tile", arr, batch, [items[0][1], items[0][2], items[1][1], items[1][2]],
                     ctx)
    if kinds == [True, False]:
        if items[0][1] is None or items[0][2] is None:
            raise SyntaxError("a tile slice needs both its start and stop")
        return Slice("vec", arr, batch, [items[0][1], items[0][2], items[1][1]], ctx)
    raise TypeError("an ndarray cannot be sliced in a kernel")


class Tile:
    def __init__(self, n, dtype):
        self.n, self.dtype = n, dtype
        self.r = [Scalar(dtype, 0.0) for _ in range(n)]

    def eye_(self):
        tid = _lane()
        for j in range(self.n):
            self.r[j] = Scalar(self.dtype, 1.0 if tid == j else 0.0)

    def _rows(self, s, each):
        """Quadrants' _load / _store: lane l's row r0 + l, columns c0 + j, both clipped to the
        slice and the array; each(j, index) for the ones inside."""
        r0, r1, c0, c1 = (_int(b) for b in s.bounds)
        row_stop = min(r1, s._extent(0))
        row = r0 + _lane()
        if row < row_stop:
            col_stop = min(c1, s._extent(1))
            for j in range(self.n):
                if c0 + j < col_stop:
                    each(j, s._index(row, c0 + j))

    def load(self, s):
        def get(j, index):
            self.r[j] = cast(ArrayLV(s.arr, index, s.ctx).get(), self.dtype)
        self._rows(s, get)

    def store(self, s):
        self._rows(s, lambda j, index: ArrayLV(s.arr, index, s.ctx).set(self.r[j]))

    def _operand(self, v):
        if isinstance(v, Slice):
            if v.kind != "vec":
                raise TypeError("qd.outer takes columns arr[r0:r1, col] or per-lane scalars")
            return v.column(self.dtype)
        return v

    def sub_outer(self, o):
        """Quadrants' _ger_sub: r[j] = r[j] - a * shuffle(b, j)."""
        a = self._operand(o.a)
        b = a if o.b is o.a else self._operand(o.b)
        for j in range(self.n):
            bc = _shuffle(b, j)
            self.r[j] = cast(binop("-", self.r[j], binop("*", a, bc)), self.dtype)

    def cholesky_(self, eps):
        t = self.dtype
        tid = _lane()
        norm = Scalar(t, 0.0)
        for k in range(self.n):
            diag_val = Scalar(t, 0.0)
            if tid == k:
                diag_val = mathlib.sqrt(binop("max", binop("-", self.r[k], norm), eps))
                self.r[k] = cast(diag_val, t)
            diag_k = _shuffle(diag_val, k)
            dot0 = Scalar(t, 0.0)
            dot1 = Scalar(t, 0.0)
            for j in range(k):
                my_col = self.r[j]
                lkj = _shuffle(my_col, k)
                if j % 2 == 0:
                    dot0 = binop("+", dot0, binop("*", lkj, my_col))
                else:
                    dot1 = binop("+", dot1, binop("*", lkj, my_col))
            dot = binop("+", dot0, dot1)
            new_val = Scalar(t, 0.0)
            if tid > k:
                new_val = binop("/", binop("-", self.r[k], dot), diag_k)
                self.r[k] = cast(new_val, t)
            if tid > k:
                norm = binop("+", norm, binop("*", new_val, new_val))

    def solve_triangular_(self, b, lower=True):
        if not lower:
            raise TypeError("solve_triangular_: only lower=True is supported")
        b._trsm(self)

    def _trsm(self, lt):
        """Quadrants' _trsm: self := self L^-T, column by column."""
        t = self.dtype
        for c in range(self.n):
            dot = Scalar(t, 0.0)
            for j in range(self.n):
                if c > j:
                    lkj = _shuffle(lt.r[j], c)
                    dot = binop("+", dot, binop("*", self.r[j], lkj))
            diag_c = _shuffle(lt.r[c], c)
            self.r[c] = cast(binop("/", binop("-", self.r[c], dot), diag_c), t)


class TileType:
    """qd.simt.Tile16x16 / Tile32x32."""

    def __init__(self, n):
        self.n = n
        self.SIZE = n

    def zeros(self, dtype=None):
        return Tile(self.n, dtype if dtype is not None else dt.f32)  # default_fp

    def eye(self, dtype=None):
        tile = self.zeros(dtype)
        tile.eye_()
        return tile


Tile16x16 = TileType(16)
Tile32x32 = TileType(32)
