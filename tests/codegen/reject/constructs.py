# Misuses of fill, slices, print, 0-d ndarrays, ndrange(axes=...), .m, determinant/inverse, vector
# func parameters, ffs and atomic_cas, and the Quadrants constructs compiled kernels do not have
# (autodiff, qd.simt, graph checkpoints and parallel regions, qd.algorithms, streams, fields,
# qd.random(i8)): each names it; misplaced qd.graph.do_while loops.
import quadrants as qd

A = qd.types.NDArray[qd.i32, 1]
F = qd.types.NDArray[qd.f32, 1]
Z = qd.types.NDArray[qd.f32, 0]
C0 = qd.types.NDArray[qd.i32, 0]
FIELD = qd.field(qd.f32, shape=4)


@qd.kernel
def fill_scalar(a: A) -> None:
    x = 1
    x.fill(2)  # expect: 17:5 QD202 fill() needs a vector or matrix, got a scalar
    a[0] = x


@qd.kernel
def fill_vector_value(a: F) -> None:
    m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
    m.fill(qd.Vector([1.0, 2.0]))  # expect: 24:12 QD202 fill() takes a scalar, got a vector of 2
    a[0] = m[0, 0]


@qd.kernel
def slice_runtime_bound(a: F, n: qd.i32) -> None:
    v = qd.Vector([1.0, 2.0, 3.0, 4.0])
    w = v[0:n]  # expect: 31:11 QD206 a slice bound must be a compile-time integer (Quadrants does
    a[0] = w[0]


@qd.kernel
def slice_negative(a: F) -> None:
    v = qd.Vector([1.0, 2.0, 3.0, 4.0])
    a[0] = v[-2:].sum()  # expect: 38:14 QD206 negative indices are not supported in kernels


@qd.kernel
def slice_ndarray(a: F) -> None:
    b = a[0:2]  # expect: 43:9 QD202 an ndarray cannot be sliced in a kernel (slice the vector or
    a[0] = b[0]


@qd.kernel
def slice_matrix_one_index(a: F) -> None:
    m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
    r = m[1:]  # expect: 50:9 QD202 a matrix slice takes two indices (m[i, :], m[:, j], m[a:b,
    a[0] = r[0, 0]


@qd.kernel
def slice_out_of_range(a: F) -> None:
    v = qd.Vector([1.0, 2.0, 3.0])
    a[0] = v[1:5].sum()  # expect: 57:14 QD206 the slice reaches index 3, out of range for 3


@qd.kernel
def print_python_spec(a: F) -> None:
    print(f"{a[0]:>5}")  # expect: 62:5 QD202 print: '>5' is not a printf format specification


@qd.kernel
def print_spec_type(a: A) -> None:
    i = a[0]
    print(f"{i:x}")  # expect: 68:5 QD202 print: the format 'x' does not match the type i32


@qd.kernel
def print_spec_bool(a: A) -> None:
    print(f"{a[0] > 0:d}")  # expect: 73:5 QD202 print: the format 'd' does not match the type u1


@qd.kernel
def print_spec_char(a: A) -> None:
    print(f"{a[0]:c}")  # expect: 78:5 QD202 print: the conversion 'c' is not supported


@qd.kernel
def print_brace(a: A) -> None:
    print(f"{{a}} {a[0]}")  # expect: 83:13 QD201 a literal brace ('{{' or '}}') in an f-string is


@qd.kernel
def print_format_count(a: A) -> None:
    print("{} {}".format(a[0]))  # expect: 88:11 QD202 str.format() in a kernel: expected 2


@qd.kernel
def print_file(a: A) -> None:
    print(a[0], file=None)  # expect: 93:17 QD201 print(file=...) is not supported in kernels: a


@qd.kernel
def print_string_spec(a: A) -> None:
    print(f"{'abc':>5}", a[0])  # expect: 98:5 QD202 print: a format spec on the string 'abc'


@qd.kernel
def zero_d_index(x: Z) -> None:
    x[0] = 1.0  # expect: 103:5 QD202 ndarray 'x' has 0 dimensions, indexed with 1 (index a 0-d


@qd.kernel
def zero_d_struct_for(x: Z) -> None:
    for i in x:  # expect: 108:9 QD202 the loop has 1 targets for 0 ndrange dimensions (they must
        x[None] = 1.0


@qd.kernel
def axes_not_permutation(a: A) -> None:
    for i, j in qd.ndrange(2, 3, axes=(0, 0)):  # expect: 114:39 QD206 qd.ndrange(axes=...) is not
        a[i] = j


@qd.kernel
def axes_count(a: A) -> None:
    for i, j in qd.ndrange(2, 3, axes=(1,)):  # expect: 120:39 QD206 qd.ndrange(axes=...) has 1
        a[i] = j


@qd.kernel
def axes_bool(a: A) -> None:
    for i, j in qd.ndrange(2, 3, axes=(True, False)):  # expect: 126:39 QD202 qd.ndrange(axes=...)
        a[i] = j


@qd.kernel
def vector_m(a: A) -> None:
    v = qd.Vector([1, 2, 3])
    a[0] = v.m  # expect: 133:12 QD202 '.m' of a vector: a vector has one dimension (Quadrants:


@qd.kernel
def det_5x5(a: F) -> None:
    m = qd.Matrix.identity(qd.f32, 5)
    a[0] = m.determinant()  # expect: 139:12 QD201 determinant() of a 5x5 matrix is not supported


@qd.func
def head(v: qd.types.vector(2)) -> qd.f32:
    return v[0]


@qd.kernel
def vector_param_list(a: F) -> None:
    a[0] = head([1.0, 2.0])  # expect: 149:17 QD202 parameter 'v' expects a vector of 2, got a


@qd.kernel
def vector_type_no_dtype(a: F) -> None:
    v = qd.types.vector(3)(1.0, 2.0, 3.0)  # expect: 154:9 QD202 qd.types.vector(n) without a
    a[0] = v[0]


@qd.kernel
def ffs_float(a: F) -> None:
    a[0] = qd.math.ffs(a[1] * 2.0)  # expect: 160:12 QD202 qd.math.ffs() takes an integer, got f32


@qd.kernel
def ffs_python_int(a: A) -> None:
    a[0] = qd.math.ffs(8)  # expect: 165:12 QD202 qd.math.ffs() of a compile-time Python number


@qd.kernel
def cas_float(a: F) -> None:
    qd.atomic_cas(a[0], 1.0, 2.0)  # expect: 170:5 QD202 qd.atomic_cas needs an integer target,


@qd.kernel
def cas_vector(a: qd.types.NDArray[qd.types.vector(2, qd.i32), 1]) -> None:
    qd.atomic_cas(a[0], qd.Vector([1, 2]), qd.Vector([3, 4]))  # expect: 175:5 QD201 qd.atomic_cas on


@qd.kernel
def grad_ndarray(a: F) -> None:
    a.grad[0] = 1.0  # expect: 180:5 QD201 'a.grad': autodiff is not supported in compiled kernels


@qd.kernel
def needs_grad(a: qd.types.ndarray(dtype=qd.f32, ndim=1, needs_grad=True)) -> None:  # expect: 184:16 QD201 needs_grad=True
    a[0] = 1.0


@qd.kernel
def warp_match_partial_mask(a: A) -> None:
    for i in range(a.shape[0]):
        a[i] = qd.simt.warp.match_any(0x0000FFFF, a[i])  # expect: 191:16 QD201 match_any(mask, ...) with a mask other than the whole warp


@qd.kernel
def graph_loop_not_graph(c: C0) -> None:
    while qd.graph.do_while(c):  # expect: 196:5 QD205 requires @qd.kernel(graph=True)
        c[None] -= 1


@qd.kernel(graph=True)
def graph_loop_in_for(c: C0) -> None:
    for i in range(2):
        while qd.graph.do_while(c):  # expect: 203:9 QD205 cannot appear inside a for-loop
            c[None] -= 1


@qd.kernel(graph=True)
def graph_loop_in_if(c: C0, n: qd.i32) -> None:
    if n > 0:
        while qd.graph.do_while(c):  # expect: 210:9 QD201 inside a runtime if
            c[None] -= 1


@qd.kernel(graph=True)
def graph_loop_carried_local(c: C0, out: A) -> None:
    k = 5
    while qd.graph.do_while(c):
        k = k + 1  # expect: 218:13 QD201 the local 'k', declared before the qd.graph.do_while() loop
        out[0] = k
        c[None] -= 1


@qd.kernel(graph=True)
def graph_loop_runtime_while(c: C0, out: A) -> None:
    while qd.graph.do_while(c):
        while out[0] < 3:  # expect: 226:9 QD205 a qd.graph.do_while() body may not contain a While
            out[0] += 1
        c[None] -= 1


@qd.kernel(graph=True)
def graph_loop_pass(c: C0) -> None:
    pass  # expect: 233:5 QD205 the kernel body may not contain a Pass statement
    while qd.graph.do_while(c):
        c[None] -= 1


@qd.kernel(graph=True)
def graph_loop_f32_flag(c: Z) -> None:
    while qd.graph.do_while(c):  # expect: 240:29 QD205 must be a 0-dim qd.i32 ndarray
        c[None] -= 1.0


@qd.kernel(graph=True)
def graph_loop_flag_value(c: C0) -> None:
    while qd.graph.do_while(c[None]):  # expect: 246:11 QD205 takes one argument
        c[None] -= 1


@qd.kernel(graph=True)
def graph_loop_call_outside_while(c: C0) -> None:
    c[None] = qd.graph.do_while(c)  # expect: 252:15 QD201 only the test of a while loop


@qd.kernel(graph=True, checkpoints=True)
def graph_checkpoints(c: C0) -> None:  # expect: 256:1 QD201 graph checkpoints
    while qd.graph.do_while(c):
        c[None] -= 1


@qd.kernel(graph=True)
def graph_parallel_context(a: A) -> None:
    with qd.graph.parallel_context():  # expect: 263:10 QD201 qd.graph.parallel_context: graph kernels' parallel regions
        a[0] = 1


@qd.kernel
def algorithms_sort(a: A) -> None:
    qd.algorithms.parallel_sort(a)  # expect: 269:5 QD201 qd.algorithms.parallel_sort: the


@qd.kernel
def stream_parallel(a: A, b: A) -> None:
    with qd.stream_parallel():  # expect: 274:10 QD201 qd.stream_parallel: concurrent GPU streams
        for i in range(a.shape[0]):
            a[i] = 1
        for i in range(b.shape[0]):
            b[i] = 2


@qd.kernel
def captured_field(a: F) -> None:
    a[0] = FIELD[0]  # expect: 283:12 QD201 the field 'FIELD': a module-level field is not


@qd.kernel
def field_in_kernel(a: F) -> None:
    f = qd.field(qd.f32, shape=4)  # expect: 288:9 QD201 qd.field: a field cannot be made in a kernel
    a[0] = 1.0


@qd.kernel
def ad_tape(a: F) -> None:
    with qd.ad.Tape(loss=a):  # expect: 294:10 QD201 qd.ad.Tape: autodiff is not supported in
        a[0] = 1.0


@qd.kernel
def random_value(a: F) -> None:
    a[0] = qd.random(qd.i8)  # expect: 300:12 QD202 qd.random(i8): Quadrants draws f32, f64, i32,


@qd.kernel
def forward(a: F) -> None:
    a[0] = 1.0


@qd.kernel
def kernel_grad(a: F) -> None:
    forward.grad(a)  # expect: 310:5 QD201 'constructs:forward.grad': autodiff is not supported in


@qd.kernel
def shared_outside_loop(a: A) -> None:
    sh = qd.simt.block.SharedArray((4,), qd.i32)  # expect: 315:10 QD201 qd.simt.block.SharedArray outside a parallel for loop
    a[0] = sh[0]


@qd.kernel
def shared_bad_shape(a: A) -> None:
    for i in range(a.shape[0]):
        sh = qd.simt.block.SharedArray((4, 0), qd.i32)  # expect: 322:14 QD206 dimension must be positive
        a[i] = sh[0, 0]


@qd.kernel
def shared_too_big(a: A) -> None:
    for i in range(a.shape[0]):
        sh = qd.simt.block.SharedArray((8192,), qd.f64)  # expect: 329:14 QD206 more than 49152 bytes
        a[i] = qd.i32(sh[i])


@qd.kernel
def warp_sync_partial(a: A) -> None:
    for i in range(a.shape[0]):
        qd.simt.warp.sync(0xFFFF)  # expect: 336:9 QD201 mask other than the whole warp
        a[i] = i


def halve_until_small(n):
    while n > 1:  # expect: 341:11 QD206 needs a compile-time condition
        n = n // 2
    return n


@qd.kernel
def trace_time_while_runtime(a: A) -> None:
    for i in range(a.shape[0]):
        a[i] = halve_until_small(a[i])



@qd.kernel
def global_thread(a: A) -> None:
    for i in range(a.shape[0]):
        a[i] = qd.simt.block.global_thread_idx()  # expect: 356:16 QD201 depends on the launch grid


@qd.kernel
def block_reduce_bad_dim(a: A) -> None:
    qd.loop_config(block_dim=48)
    for i in range(a.shape[0]):
        a[i] = qd.simt.block.reduce_add(a[i], 48, qd.i32)  # expect: 363:16 QD206 multiple of the subgroup size


@qd.kernel
def block_radix(a: A) -> None:
    for i in range(a.shape[0]):
        a[i] = qd.simt.block.radix_rank_match_atomic_or(a[i], 0, 8)  # expect: 369:16 QD201 qd.simt.block.radix_rank


@qd.kernel
def block_reduce_other_dim(a: A) -> None:
    qd.loop_config(block_dim=64)
    for i in range(a.shape[0]):
        a[i] = qd.simt.block.reduce_add(a[i], 128, qd.i32)  # expect: 376:16 QD206 the loop's blocks have 64 threads


@qd.kernel
def tile_serial(a: A) -> None:
    t = qd.simt.Tile16x16.zeros(dtype=qd.f32)  # expect: 381:9 QD201 outside a parallel for loop
    a[0] = qd.i32(t.r[0])


@qd.kernel
def tile_open_slice(a: qd.types.NDArray[qd.f32, 2]) -> None:
    qd.loop_config(block_dim=16)
    for i in range(16):
        t = qd.simt.Tile16x16.zeros(dtype=qd.f32)
        t[:] = a[0:, 0:16]  # expect: 390:18 QD206 needs both its start and stop


@qd.kernel
def warp_mask_variable(a: A) -> None:
    for i in range(a.shape[0]):
        m = qd.u32(0xFFFFFFFF)
        a[i] = qd.simt.warp.shfl_sync_i32(m, a[i], 0)  # expect: 397:16 QD201 mask other than the whole warp
