"""Promotion with u1 as real Quadrants 1.3.3 does it (quadrants/ir/type_factory.cpp,
compare_types): u1 is stored in a byte and counts as 8 bits, so u1 op i8 is u1 (unsigned beats
signed at equal width), u1 op u8 is u8 and u8 op u1 is u1 (at a full tie the second operand's
type wins); with 16 bits and more the wider type wins as usual. A Python bool (a template value,
True) is a u1 constant. Converting to u1 is `!= 0`."""

import quadrants as qd


@qd.kernel
def u1_promotion(a: qd.types.NDArray[qd.i8, 1], u: qd.types.NDArray[qd.u8, 1],
                 b: qd.types.NDArray[qd.i32, 1], o: qd.types.NDArray[qd.i32, 1], flag: qd.template()) -> None:
    c = a[0] > 0  # u1
    o[0] = c * a[0]  # u1: 1 * (36 != 0)
    o[1] = c + a[0]  # u1: 1 + 1 wraps to 0
    o[2] = c + b[0]  # i32: 101
    o[3] = flag * a[0]  # u1
    o[4] = 1 + flag * a[0]  # i32 1 + u1 1
    o[5] = a[0] + True  # u1
    o[6] = c + u[0]  # u8: 8
    o[7] = u[0] + c  # u1: 0
    o[8] = c - u[0]  # u8: 250
    o[9] = (c + u[0]) + 1000  # i32: 1008
    o[10] = c * a[1]  # u1: a[1] = 0 -> 0


@qd.kernel
def u1_ops(a: qd.types.NDArray[qd.u1, 1], o: qd.types.NDArray[qd.i32, 1]) -> None:
    o[0] = -(a[0] ** 3)  # u1 ** 3 is u1, so its negation is 1, not -1
    o[1] = ~a[0]  # ~ on one bit
    o[2] = ~a[1]
    o[3] = a[1] ** 0
    o[4] = (qd.cast(a[0], qd.i32) * qd.i32(-2147483648)) % 7  # the i32 minimum as a literal
