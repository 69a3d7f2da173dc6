"""Kernels that print (tests/diff/print_check.py compares what compiled kernels print with what
real Quadrants prints for the same kernels, and with the reference stand-in)."""

import quadrants as qd

F32_1 = qd.types.NDArray[qd.f32, 1]
I32_1 = qd.types.NDArray[qd.i32, 1]


@qd.kernel
def scalars(x: F32_1, n: qd.i32) -> None:
    a = 1.5
    print("hello", n, a, x[0])
    print(qd.f64(1.0) / 3, qd.f32(1.0) / 3, qd.i64(-5), qd.u8(200), qd.i8(-3), qd.u16(7),
          qd.i16(-9), qd.u32(4000000000), qd.u64(18446744073709551615))
    print(n > 0, 1.5, 7, True, -0.0 * a)
    print()
    print("100% sure", "%d", n)
    print(x[1] * 1e30, -1e-5 * x[0], 123456789.0 * x[0])


@qd.kernel
def vectors(m: qd.types.NDArray[qd.types.matrix(2, 2, qd.i32), 1]) -> None:
    v = qd.Vector([1.0, 2.5, 3.0])
    w = qd.Matrix([[1, 2], [3, 4]])
    print(v)
    print(w, "and", m[0])
    print((1, 2.5, "s", v[0]), [qd.u8(3)])
    print(qd.Vector([True, False]), -v)


@qd.kernel
def fstrings(n: qd.i32, x: qd.f32) -> None:
    v = qd.Vector([x, 2.0 * x])
    print(f"n={n} x={x:.3f} v={v} {0.1} {(1, 2)} {True} {None} {'str'} {3}")
    print(f"{x:e}|{x:g}|{x:G}|{x:E}|{x:10}|{x:.3}|{x:-10.2f}|{x:+.1f}")
    print(f"{n:5d}|{n:-5d}|{n:+d}|{n:05d}|{n:i}|{qd.i64(n) * 3:8}")
    u = qd.u8(250)
    print(f"{u:x} {u:o} {u:X} {u:u} {qd.u32(48879):#x} {qd.u64(255):08X}")
    print(f"{v:.2f} {qd.Matrix([[1, 2], [3, 4]]):4d}")
    print(f"{0.1:.3f} {7:4d} {x=}")
    print(f"{qd.f64(x) / 7:.15f}", f"{qd.f64(2.0):.0f}")


@qd.kernel
def formats(n: qd.i32, x: qd.f32) -> None:
    print("a={} b={:.2f} c={k} d={k:x}".format(n, x, k=qd.u32(255)))
    print("{1} {0} {1:.1f}".format(n, x))
    print("x", "y", n, sep="")
    print("no newline", end="")
    print(" | sep and end", n, sep=", ", end=" <\n")
    print("tab\there", "quote\"s", "back\\slash", "utf-8: é €")


@qd.func
def show(label: qd.template(), v):
    print(label, v)


@qd.kernel
def in_loops(a: I32_1) -> None:
    qd.loop_config(serialize=True)
    for i in range(a.shape[0]):
        if a[i] % 2 == 0:
            print("even", i, a[i])
        else:
            show("odd", a[i] * 10)
    for i, j in qd.static(qd.ndrange(2, 2)):
        print(f"static {i},{j}")


@qd.kernel
def parallel(a: I32_1) -> None:
    for i in range(a.shape[0]):
        print("item", i, "->", a[i] * a[i])
