"""Literal typing at the edges (docs/language.md §3): only T(literal) keeps a literal's full
value; a func parameter or return annotated qd.f64 converts the f32-typed literal, as every
implicit cast and qd.cast do; integer literals up to the u64 range (2**64 - 1)."""

import quadrants as qd


@qd.func
def take_f64(x: qd.f64):
    return x


@qd.func
def give_f64() -> qd.f64:
    return 0.1


@qd.func
def take_i8(x: qd.i8):
    return x


@qd.kernel
def implicit_literal_casts(out: qd.types.NDArray[qd.f64, 1]) -> None:
    out[0] = take_f64(0.1)  # the f32 value of 0.1
    out[1] = give_f64()  # the f32 value of 0.1
    out[2] = qd.f64(0.1)  # 0.1
    out[3] = take_i8(300)  # the i32 literal, converted: 44
    out[4] = qd.cast(0.1, qd.f64)  # the f32 value of 0.1


@qd.kernel
def wide_literals(x: qd.types.NDArray[qd.u64, 1], out: qd.types.NDArray[qd.u64, 1]) -> None:
    for i in range(x.shape[0]):
        out[i * 4 + 0] = x[i] & qd.u64(0xFFFFFFFFFFFFFFF0)
        out[i * 4 + 1] = x[i] ^ qd.u64(18446744073709551615)
        out[i * 4 + 2] = x[i] + qd.u64(2**63)
        out[i * 4 + 3] = qd.u64((2**64 - 1) // 3)  # folded in Python first


@qd.kernel
def folded_divmod(o: qd.types.NDArray[qd.i32, 1]) -> None:
    c = 7
    d = -2
    o[0] = c % d  # Python semantics: -1
    o[1] = c // d  # -4
    o[2] = -c % 2  # 1
    o[3] = -c // 2  # -4


@qd.kernel
def python_math_fold(o: qd.types.NDArray[qd.f32, 1]) -> None:
    o[0] = qd.round(2.5)  # a Python value: numpy rounds half to even, 2.0
    o[1] = qd.round(3.5)  # 4.0
    o[2] = qd.f32(qd.floor(-1.5))  # floor of a Python float is a float: T(literal) takes it
    o[3] = qd.sin(3)  # an int literal is fine here (folded in Python)
    o[4] = qd.sqrt(2) * 1000.0
    x = 2.5
    o[5] = qd.round(x)  # a runtime value: half away from zero, 3.0
