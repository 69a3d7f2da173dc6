"""Regression fixtures: kernels shrunk by the random-kernel differential fuzzer
(scripts/kernel_fuzz.py) from divergences it found, each as the shrinker left it (the names are
the generator's). tests/diff/README.md says what each one was."""

import quadrants as qd


@qd.kernel
def u1_static_place_add(a1: qd.types.NDArray[qd.u1, 1]) -> None:
    for s29 in qd.static((a1[0],)):
        s29 += 1  # an atomic add on a u1 element: 1 + 1 wraps to 0


@qd.kernel
def u1_pow_neg(a3: qd.types.NDArray[qd.u1, 1]) -> qd.i32:
    return -a3[2] ** 3


@qd.func
def bump(p: qd.template()) -> qd.i32:
    p += 10
    return 1


@qd.kernel
def ternary_side_effects(x: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(1):
        x[1] = 5 if x[0] > 0 else bump(x[2])  # only the side taken runs


@qd.kernel
def any_all_small_vectors(x: qd.types.NDArray[qd.i32, 1], o: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(1):
        v = qd.Vector([x[0], x[1], x[2]])
        o[0] = (v > 0).any()  # was QD206 "'.any' is out of range for a vector of 3"
        o[1] = (v > 0).all()
        o[2] = (qd.Vector([x[0], x[1]]) != 0).all()


@qd.kernel
def vector_store_then_component(a: qd.types.NDArray[qd.types.vector(2, qd.i32), 1]) -> None:
    x = a[0].x
    a[0] = qd.Vector([x + 1, 0])
    a[1].y = a[0].x  # the component just stored


@qd.kernel
def vector_store_index_from_element(a: qd.types.NDArray[qd.types.vector(2, qd.u32), 2]) -> None:
    # The index reads the element being stored: it is computed once, before either component
    # is written (qdbuild recomputed it for the second component, which then went to a[0, 2]).
    a[0, a[0, 0][0] % a.shape[1]] = a[0, 1]


@qd.func
def bump(p: qd.template()):
    return qd.atomic_add(p, 1)


@qd.kernel
def callee_with_side_effects(a: qd.types.NDArray[qd.f32, 1], o: qd.types.NDArray[qd.i32, 1]) -> None:
    # The callee of the assigned call and of the if test (X.norm_sqr, X.any) holds a func with
    # an atomic: it runs once (checking for qd.static evaluated it, and ran bump twice).
    acc = 1
    for i in range(1):
        acc = qd.Vector([i + 0, bump(acc)]).norm_sqr()
        for k in range(0, acc):
            a[k] = 2.0
        if qd.Vector([bump(acc), 0]).any():
            o[1] = 1
    o[0] = acc


@qd.func
def clear1(p: qd.template()):
    p[1] = 0
    return 0


@qd.func
def first_arg(x: qd.f32, y: qd.i16) -> qd.f32:
    return x


@qd.kernel
def late_argument_load(a: qd.types.NDArray[qd.f32, 1]) -> None:
    # Quadrants builds every argument, then the callee's prologue copies x: a[1] is read after
    # clear1 stored 0 into it (seed 1000 #706; the stand-in read it first).
    a[0] = first_arg(a[1], clear1(a))


@qd.kernel
def atomic_then_read_same_element(a: qd.types.NDArray[qd.u32, 2]) -> qd.u16:
    # The atomic's destination index reads the element it then changes (seed 1000 #115).
    qd.atomic_xor(a[a[1, 0] % a.shape[0], 0], 1)
    return a[1, 0]


@qd.kernel
def atomic_xor_zero_after_xor(a: qd.types.NDArray[qd.i64, 1], f: qd.types.NDArray[qd.u1, 1]) -> None:
    # A no-op xor after a real one to the same element, whose value reads it (seed 1000 #634).
    qd.atomic_xor(a[f[0]], a[0] + 5)
    qd.atomic_xor(a[0], 0)
