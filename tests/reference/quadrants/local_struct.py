"""qd.Struct(a=..., b=...) made in a kernel: one variable per member, read as `s.a` and assigned
as `s.a = ...` / `s.a += ...`; a qd.template() parameter takes the struct itself (by reference)."""

from .ops import typed
from .values import Cell, Scalar, Tensor


class Struct:
    def __init__(self, **members):
        if not members:
            raise TypeError("qd.Struct needs its members by keyword")
        cells = {}
        for k, v in members.items():
            if isinstance(v, Tensor):
                cells[k] = Cell(v.copy())
            elif isinstance(v, (Scalar, bool, int, float)):
                cells[k] = Cell(typed(v))
            else:
                raise TypeError(f"a qd.Struct member is a number, a vector or a matrix: '{k}'")
        self.__dict__["_cells"] = cells

    def cell(self, name):
        cells = self.__dict__["_cells"]
        if name not in cells:
            raise AttributeError(f"the qd.Struct has no member '{name}'")
        return cells[name]

    def __getattr__(self, name):
        return self.cell(name).value
