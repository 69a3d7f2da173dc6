"""The stand-in rejects what docs/language.md §6 lists as compile errors, and keeps a
few typing rules that the corpus cannot show through stores. Run: python3 -m unittest discover
-s tests/reference/tests (tests/reference must be importable; this file arranges it)."""

import array
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import quadrants as qd  # noqa: E402

I32_1 = qd.types.NDArray[qd.i32, 1]


@qd.kernel
def break_outermost(a: I32_1) -> None:
    for i in range(a.shape[0]):
        if i > 1:
            break
        a[i] = 1


@qd.kernel
def use_after_if(a: I32_1) -> None:
    for i in range(a.shape[0]):
        if a[i] > 0:
            x = 1
        a[i] = x  # noqa: F821 - x is not visible here


@qd.kernel
def range_step(a: I32_1) -> None:
    for i in range(0, 10, 2):
        a[0] = i


@qd.kernel
def float_condition(a: I32_1) -> None:
    if 0.5 * a[0]:
        a[0] = 1


@qd.kernel
def sin_of_int(a: I32_1) -> None:
    a[0] = qd.sin(a[0])


@qd.kernel
def assign_argument(a: I32_1, n: qd.i32) -> None:
    n = 3
    a[0] = n


@qd.kernel
def literal_range(a: I32_1) -> None:
    a[0] = 3000000000 + a[0]


@qd.kernel
def int_param(n: qd.i32) -> qd.i32:
    return n


@qd.kernel
def typing_rules() -> qd.f64:
    a = qd.i8(100) + qd.i8(100)        # i8: wraps to -56
    b = qd.u32(3) - 5                  # u32: wraps
    c = 7 // -2                        # folded in Python: -4
    d = qd.f32(16777217.0)             # rounds to 16777216
    return a * 1.0 + (b == qd.u32(4294967294)) * 1000.0 + c * 10000.0 + d


@qd.kernel
def slice_runtime_bound(a: I32_1, n: qd.i32) -> None:
    v = qd.Vector([1, 2, 3, 4])
    a[0] = v[0:n].sum()


@qd.kernel
def slice_negative(a: I32_1) -> None:
    v = qd.Vector([1, 2, 3, 4])
    a[0] = v[-2:].sum()


@qd.kernel
def print_bad_spec(a: I32_1) -> None:
    print(f"{a[0]:x}")


@qd.kernel
def cas_float(a: I32_1) -> None:
    x = 1.5
    qd.atomic_cas(x, 1.5, 2.5)
    a[0] = 1


@qd.kernel
def ffs_python_int(a: I32_1) -> None:
    a[0] = qd.math.ffs(8)


@qd.func
def first(v: qd.types.vector(2)) -> qd.i32:
    return v[0]


@qd.kernel
def vector_param_list(a: I32_1) -> None:
    a[0] = first([1, 2])


# --- graph kernels (quadrants/graph.py); each error checked against real Quadrants 1.3.3 --------

I32_0 = qd.types.NDArray[qd.i32, 0]


@qd.kernel
def do_while_no_graph(c: I32_0, a: I32_1) -> None:
    while qd.graph.do_while(c):
        c[()] -= 1


@qd.kernel(graph=True)
def do_while_in_for(c: I32_0, a: I32_1) -> None:
    for i in range(2):
        while qd.graph.do_while(c):
            c[()] -= 1


@qd.kernel(graph=True)
def do_while_scalar_flag(c: qd.i32, a: I32_1) -> None:
    while qd.graph.do_while(c):
        a[0] += 1


@qd.kernel(graph=True)
def do_while_local_flag(c: I32_0, a: I32_1) -> None:
    d = c[()]
    while qd.graph.do_while(d):
        a[0] += 1


@qd.kernel(graph=True)
def do_while_then_while(c: I32_0, a: I32_1) -> None:
    while qd.graph.do_while(c):
        c[()] -= 1
    k = 3
    while k > 0:
        k -= 1


@qd.kernel(graph=True)
def do_while_return(c: I32_0, a: I32_1) -> qd.i32:
    while qd.graph.do_while(c):
        c[()] -= 1
    return 3


@qd.kernel(graph=True)
def do_while_pass(c: I32_0, a: I32_1) -> None:
    while qd.graph.do_while(c):
        c[()] -= 1
        pass


@qd.kernel(graph=True)
def do_while_else(c: I32_0, a: I32_1) -> None:
    while qd.graph.do_while(c):
        c[()] -= 1
    else:
        a[0] = 1


@qd.kernel(graph=True)
def do_while_two_args(c: I32_0, a: I32_1) -> None:
    while qd.graph.do_while(c, a):
        c[()] -= 1


# Refused by the stand-in: real Quadrants compiles these and runs something else (the body of a
# do_while in an `if` runs once; `k` is 5 in every pass; an i64 flag is read as its low 32 bits).
@qd.kernel(graph=True)
def do_while_in_if(c: I32_0, a: I32_1) -> None:
    if a[0] == 0:
        while qd.graph.do_while(c):
            c[()] -= 1


@qd.kernel(graph=True)
def do_while_carried_local(c: I32_0, a: I32_1) -> None:
    k = 5
    while qd.graph.do_while(c):
        a[0] = k
        k = k + 1
        c[()] -= 1


@qd.kernel(graph=True)
def do_while_i64_flag(c: qd.types.NDArray[qd.i64, 0], a: I32_1) -> None:
    while qd.graph.do_while(c):
        c[()] -= 1


@qd.kernel(graph=True, checkpoints=True)
def with_checkpoints(c: I32_0, a: I32_1) -> None:
    a[0] = 1


@qd.kernel(graph=True)
def parallel_region(c: I32_0, a: I32_1) -> None:
    with qd.graph.parallel_context():
        with qd.graph.parallel():
            a[0] = 1


# Accepted by Quadrants as by the stand-in: the deprecated spelling (a DeprecationWarning), a
# loop in a qd.func called at the top level, a loop under a qd.static if.
@qd.kernel(graph=True)
def do_while_deprecated(c: I32_0, a: I32_1) -> None:
    while qd.graph_do_while(c):
        a[0] += 1
        c[None] = c[None] - 1


@qd.func
def count_down(c: qd.template(), a: qd.template()):
    while qd.graph.do_while(c):
        a[0] += 1
        c[()] -= 1


@qd.kernel(graph=True)
def do_while_in_func(c: I32_0, a: I32_1) -> None:
    a[1] = 9
    count_down(c, a)


@qd.kernel(graph=True)
def do_while_static_if(c: I32_0, a: I32_1) -> None:
    if qd.static(True):
        while qd.graph.do_while(c):
            a[0] += 1
            c[()] -= 1


def scalar0(value, fmt="i"):
    return memoryview(array.array(fmt, [value])).cast("B").cast(fmt, ())


class Graph(unittest.TestCase):
    def arr(self):
        return array.array("i", [0, 0, 0, 0])

    def check(self, kernel, exc, pattern, flag=None):
        with self.assertRaisesRegex(exc, pattern):
            kernel(scalar0(1) if flag is None else flag, self.arr())

    def test_errors(self):
        q = qd.QuadrantsSyntaxError
        self.check(do_while_no_graph, q,
                   r"^qd\.graph\.do_while\(\) requires @qd\.kernel\(graph=True\)$")
        self.check(do_while_in_for, q, r"directly nested inside another "
                   r"qd\.graph\.do_while\(\); it cannot appear inside a for-loop\.$")
        self.check(do_while_scalar_flag, q, r"^qd\.graph\.do_while\(\.\.\.\) got 'c' which does "
                   r"not resolve to an ndarray kernel parameter of 'do_while_scalar_flag'\.",
                   flag=1)
        self.check(do_while_local_flag, q, r"got 'd' which does not resolve to an ndarray kernel "
                   r"parameter of 'do_while_local_flag'")
        self.check(do_while_then_while, q, r"^When a kernel uses qd\.graph\.do_while\(\), the "
                   r"kernel body may not contain a While statement\. .*"
                   r"\[offending stmt 2: While\]$")
        self.check(do_while_return, q, r"the kernel body may not contain a Return statement")
        self.check(do_while_pass, q, r"a qd\.graph\.do_while\(\) body may not contain a Pass "
                   r"statement\. .*\[offending stmt 1: Pass\]$")
        self.check(do_while_else, q,
                   r"^'else' clause for 'while' not supported in Quadrants kernels$")
        self.check(do_while_two_args, TypeError, r"takes 1 positional argument but 2 were given")
        with self.assertRaisesRegex(q, r"checkpoints=True\) requires graph=True"):
            qd.kernel(checkpoints=True)(lambda c: None)

    def test_refused(self):
        self.check(do_while_in_if, NotImplementedError, r"inside a runtime if or while")
        self.check(do_while_carried_local, NotImplementedError,
                   r"the local 'k'.*changes in its body")
        self.check(do_while_i64_flag, NotImplementedError, r"0-dim qd\.i32", flag=scalar0(1, "q"))
        self.check(with_checkpoints, NotImplementedError, r"checkpoints=True")
        self.check(parallel_region, NotImplementedError, r"qd\.graph\.parallel_context")

    def test_accepted(self):
        c, a = scalar0(4), self.arr()
        with self.assertWarnsRegex(DeprecationWarning, r"use qd\.graph\.do_while\(\) instead"):
            do_while_deprecated(c, a)
        self.assertEqual((c[()], list(a)), (0, [4, 0, 0, 0]))
        c, a = scalar0(3), self.arr()
        do_while_in_func(c, a)
        self.assertEqual((c[()], list(a)), (0, [3, 9, 0, 0]))
        c, a = scalar0(3), self.arr()
        do_while_static_if(c, a)
        self.assertEqual((c[()], list(a)), (0, [3, 0, 0, 0]))


class Negative(unittest.TestCase):
    def arr(self):
        return array.array("i", [1, 2, 3, 4])

    def test_break_outermost(self):
        with self.assertRaisesRegex(SyntaxError, "Cannot break in the outermost loop"):
            break_outermost(self.arr())

    def test_use_after_if(self):
        with self.assertRaises(NameError):
            use_after_if(self.arr())

    def test_range_step(self):
        with self.assertRaisesRegex(TypeError, "Range should have 1 or 2 arguments"):
            range_step(self.arr())

    def test_float_condition(self):
        with self.assertRaisesRegex(TypeError, "integer"):
            float_condition(self.arr())

    def test_sin_of_int(self):
        with self.assertRaisesRegex(TypeError, "real"):
            sin_of_int(self.arr())

    def test_assign_argument(self):
        with self.assertRaisesRegex(SyntaxError, "immutable"):
            assign_argument(self.arr(), 1)

    def test_literal_range(self):
        with self.assertRaisesRegex(TypeError, "exceeded the range of default_ip"):
            literal_range(self.arr())

    def test_int_param_rejects_float(self):
        with self.assertRaises(TypeError):
            int_param(1.5)

    def test_slices(self):
        with self.assertRaisesRegex(TypeError, "variables in slice"):
            slice_runtime_bound(self.arr(), 2)
        with self.assertRaisesRegex(SyntaxError, "Negative indices"):
            slice_negative(self.arr())

    def test_print_spec(self):
        with self.assertRaisesRegex(TypeError, "'x' doesn't match 'i32'"):
            print_bad_spec(self.arr())

    def test_cas_float(self):
        with self.assertRaisesRegex(TypeError, "requires integer operands"):
            cas_float(self.arr())

    def test_ffs_python_int(self):
        with self.assertRaises(NotImplementedError):
            ffs_python_int(self.arr())

    def test_vector_param_list(self):
        with self.assertRaisesRegex(SyntaxError, "expected to be a Matrix"):
            vector_param_list(self.arr())


class Typing(unittest.TestCase):
    def test_rules(self):
        self.assertEqual(typing_rules(), -56.0 + 1000.0 - 40000.0 + 16777216.0)


if __name__ == "__main__":
    unittest.main()
