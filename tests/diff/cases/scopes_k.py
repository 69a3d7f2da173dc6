"""Scopes and compile-time conditions (docs/language.md §4): the taken branch of a
qd.static if is a scope of its own (a name first assigned in it is a new variable after it); an
`if` on a compile-time value without qd.static compiles both branches (each a scope) and runs
the taken one, a loop in it at the kernel's root being parallel as in Quadrants."""

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
def constant_if(a: qd.types.NDArray[qd.i32, 1]) -> None:
    if SERIAL:
        v = 3  # a scope of its own
        for i in range(a.shape[0]):
            a[i] = a[i] * v + i
    else:
        v = 2.5
        a[0] = v
    v = 0.5  # a new f32 variable
    a[0] += v * 4
