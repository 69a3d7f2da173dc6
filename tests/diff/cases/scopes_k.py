"""Scopes and compile-time conditions (kernel-language.md §1.2, §1.7): the taken branch of a
qd.static if is a scope of its own (a name first assigned in it is a new variable after it), and
an `if` on a compile-time value without qd.static is a runtime branch: a loop in it runs
serially, as Quadrants runs it."""

import quadrants as qd

SERIAL = True


@qd.kernel
def static_if_scope(x: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in range(1):
        if qd.static(SERIAL):
            v = 1  # an i32 that ends with the branch
            x[1] = v
        v = 2.7  # a new f32 variable, not a store into the i32 one
        x[0] = v


@qd.kernel
def constant_if_is_serial(a: qd.types.NDArray[qd.i32, 1]) -> None:
    if SERIAL:
        for i in range(1, a.shape[0]):  # inside an if: serial, so a prefix sum is right
            a[i] += a[i - 1]
