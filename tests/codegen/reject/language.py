# Kernels outside the supported language: each must be rejected at the right place.
import quadrants as qd

A = qd.types.NDArray[qd.i32, 1]


@qd.kernel
def break_outermost(a: A) -> None:
    for i in range(a.shape[0]):
        break  # expect: 10:9 QD205 Cannot break in the outermost loop


@qd.kernel
def use_after_block(a: A) -> None:
    for i in range(a.shape[0]):
        if a[i] > 0:
            x = 1
        a[i] = x  # expect: 18:16 QD203 name 'x' is not defined


@qd.kernel
def return_in_loop(a: A) -> qd.i32:
    for i in range(a.shape[0]):
        return 1  # expect: 24:9 QD205 return inside non-static if/for/while


@qd.kernel
def range_step(a: A) -> None:
    for i in range(0, 10, 2):  # expect: 29:14 QD205 Range should have 1 or 2 arguments
        a[i] = i


@qd.kernel
def float_condition(a: A) -> None:
    for i in range(a.shape[0]):
        if 0.5 * a[i]:  # expect: 36:12 QD202 a condition must be an integer, got f32
            a[i] = 1


@qd.kernel
def sin_of_int(a: A) -> None:
    for i in range(a.shape[0]):
        a[i] = qd.sin(i)  # expect: 43:16 QD202 sin() takes real inputs only


@qd.kernel
def assign_argument(a: A, n: qd.i32) -> None:
    n = 3  # expect: 48:5 QD204 kernel arguments are immutable
    a[0] = n


@qd.kernel
def try_block(a: A) -> None:
    try:  # expect: 54:5 QD201 try is not supported in kernels
        a[0] = 1
    except Exception:
        pass


@qd.kernel
def lambda_expr(a: A) -> None:
    f = lambda v: v  # expect: 62:9 QD201 lambda is not supported in kernels
    a[0] = 1


@qd.kernel
def for_else(a: A) -> None:
    for i in range(a.shape[0]):  # expect: 68:5 QD205 'for ... else' is not supported
        a[i] = 1
    else:
        a[0] = 2


@qd.kernel
def literal_too_big(a: A) -> None:
    a[0] = 5000000000  # expect: 76:12 QD206 exceeds the range of i32


@qd.kernel
def bit_and_float(a: A) -> None:
    for i in range(a.shape[0]):
        a[i] = qd.cast(1.5 * i, qd.f32) & 1  # expect: 82:16 QD202 needs integer operands


@qd.kernel
def static_of_runtime(a: A) -> None:
    for i in range(a.shape[0]):
        if qd.static(a[i] > 0):  # expect: 88:12 QD206 qd.static() needs a compile-time value
            a[i] = 1


@qd.kernel
def vector_shape_mismatch(a: A) -> None:
    v = qd.Vector([1, 2, 3])
    w = qd.Vector([1, 2])
    u = v + w  # expect: 96:9 QD202 element-wise operation on a vector of 3 and a vector of 2
    a[0] = u[0]


@qd.kernel
def print_call(a: A) -> None:
    print(a)  # expect: 102:5 QD202 print() cannot print an ndarray in a kernel


@qd.kernel
def unpack_count(a: A) -> None:
    x, y = 1, 2, 3  # expect: 107:12 QD206 cannot unpack 3 values into 2 targets
    a[0] = x + y


@qd.kernel
def raise_stmt(a: A) -> None:
    raise ValueError("no")  # expect: 113:5 QD201 raise is not supported in kernels


@qd.kernel
def loop_var_assign(a: A) -> None:
    for i in range(a.shape[0]):
        i = 2  # expect: 119:9 QD204 cannot assign to loop variable 'i'
        a[0] = i


@qd.kernel
def isnan_of_int(a: A) -> None:
    for i in range(a.shape[0]):
        a[i] = qd.math.isnan(i)  # expect: 126:16 QD202 isnan() takes real inputs only


@qd.func
def set_seven(t: qd.template()):
    t = 7  # expect: 131:5 QD204 cannot assign to the qd.template() parameter 't'


@qd.kernel
def template_not_assignable(a: A) -> None:
    for i in range(a.shape[0]):
        set_seven(a[i] + 1)


@qd.func
def bump(t: qd.template()):
    t += 1  # expect: 142:5 QD204 cannot assign to the qd.template() parameter 't'


@qd.kernel
def template_constant_aug(a: A) -> None:
    for i in range(a.shape[0]):
        bump(3)


@qd.kernel
def static_loop_var_assign(a: A) -> None:
    for k in qd.static(range(2)):
        k = 5  # expect: 154:9 QD204 cannot assign to the qd.static loop variable 'k'
        a[k] = 1


ALWAYS = True


@qd.kernel
def return_in_constant_if(a: A) -> qd.i32:
    if ALWAYS:  # not qd.static: a runtime branch
        return 1  # expect: 164:9 QD205 return inside non-static if/for/while
    return 0


@qd.kernel
def literal_out_of_range(a: A) -> None:
    a[0] = qd.u8(300)  # expect: 170:12 QD206 the integer literal 300 exceeds the range of u8


@qd.kernel
def int_literal_float_type(a: A) -> None:
    a[0] = qd.f64(1)  # expect: 175:12 QD202 integer literals must be annotated with an integer type


@qd.kernel
def float_literal_int_type(a: A) -> None:
    a[0] = qd.i32(2.5)  # expect: 180:12 QD202 floating-point literals must be annotated


@qd.kernel
def runtime_loop_over_tuple(a: A) -> None:
    for s in (a[0], a[1]):  # expect: 185:14 QD205 a for loop over a tuple, list, enumerate or zip needs qd.static
        a[2] += s
