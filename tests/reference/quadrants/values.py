"""Typed runtime values (the "Expr" side of two-level evaluation).

Python ints, floats, bools, tuples, ... are compile-time values and stay plain Python objects.
A Scalar is a runtime value with a fixed dtype; a Tensor is a vector (shape (n,)) or matrix
(shape (n, m)) of one dtype, stored flat, row-major. Both hold already-normalized Python numbers.
A Cell is a declared local variable: its dtype (and shape) are fixed at declaration.
"""


class Scalar:
    __slots__ = ("dtype", "v")

    def __init__(self, dtype, v):
        self.dtype = dtype
        self.v = dtype.normalize(v)

    def __repr__(self):
        return f"{self.dtype.name}({self.v!r})"


class Tensor:
    __slots__ = ("dtype", "shape", "data")

    def __init__(self, dtype, shape, data):
        self.dtype = dtype
        self.shape = tuple(shape)
        self.data = [dtype.normalize(x) for x in data]
        assert len(self.data) == _count(self.shape)

    def __repr__(self):
        return f"Tensor({self.dtype.name}, {self.shape}, {self.data})"

    def copy(self):
        return Tensor(self.dtype, self.shape, self.data)

    def elem(self, k):
        return Scalar(self.dtype, self.data[k])

    def elems(self):
        return [Scalar(self.dtype, x) for x in self.data]

    def flat_index(self, idx):
        """idx: tuple of Python ints (one per dim)."""
        if len(idx) != len(self.shape):
            raise IndexError(f"tensor of shape {self.shape} indexed with {len(idx)} indices")
        k = 0
        for i, n in zip(idx, self.shape):
            if not 0 <= i < n:
                raise IndexError(f"index {idx} out of range for shape {self.shape}")
            k = k * n + i
        return k

    def __getattr__(self, name):
        # Methods (v.dot(w), m.transpose(), ...) and swizzles live in tensor_methods.
        from .tensor_methods import tensor_attribute

        return tensor_attribute(self, name)


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Cell:
    """A declared local: value is a Scalar or a Tensor; assignments cast into its type."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"Cell({self.value!r})"


class PlaceCell(Cell):
    """A qd.template() func parameter bound to an assignable place of the caller (an ndarray
    element, a vector component, ...): reads and writes go to that place. The place's expression
    is evaluated again at every use, in the caller's scopes, as Quadrants re-evaluates the Expr it
    binds (`f(x[j], j)` with `j += 1` in f writes x[j + 1])."""

    __slots__ = ("caller", "node")

    def __init__(self, caller, node):  # pylint: disable=super-init-not-called
        self.caller = caller
        self.node = node

    @property
    def value(self):
        return self.caller.lvalue(self.node).get()

    @value.setter
    def value(self, v):
        self.caller.lvalue(self.node).set(v)


class LazyValue(Cell):
    """A qd.template() func parameter bound to a runtime value that is not a place (`f(x[i] + 1)`):
    evaluated again at every use; assigning to it is an error, as in Quadrants."""

    __slots__ = ("caller", "node")

    def __init__(self, caller, node):  # pylint: disable=super-init-not-called
        self.caller = caller
        self.node = node

    @property
    def value(self):
        return self.caller.eval(self.node)

    @value.setter
    def value(self, v):
        raise SyntaxError("cannot use a non-writable target as the first operand of 'assign'")
