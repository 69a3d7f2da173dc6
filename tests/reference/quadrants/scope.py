"""The names of a block while a kernel runs."""


class Scope(dict):
    """A block's names. `fixed`: names bound to values that cannot be assigned (qd.template()
    parameters and qd.static loop variables bound to compile-time values, ...)."""

    __slots__ = ("fixed",)

    def __init__(self, *args):
        super().__init__(*args)
        self.fixed = set()
