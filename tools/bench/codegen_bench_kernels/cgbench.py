"""qd_codegen_bench kernels (tools/bench/codegen_bench.cpp): five CPU kernels that the benchmark
launches through libqdrt and compares with the same algorithms hand-written in C++. Tier-1
language only; every kernel is fully annotated, so each has exactly one instance."""
import quadrants as qd

vec3 = qd.types.vector(3, qd.f32)
mat3 = qd.types.matrix(3, 3, qd.f32)


@qd.kernel
def saxpy(a: qd.f32, x: qd.types.NDArray[qd.f32, 1], y: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def stencil(u: qd.types.NDArray[qd.f32, 2], out: qd.types.NDArray[qd.f32, 2]) -> None:
    n = u.shape[0]
    m = u.shape[1]
    for i, j in qd.ndrange((1, n - 1), (1, m - 1)):
        out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]


@qd.kernel
def reduce_sum(x: qd.types.NDArray[qd.f32, 1]) -> qd.f32:
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
    return total


@qd.kernel
def mat3_work(m: qd.types.NDArray[mat3, 1], v: qd.types.NDArray[vec3, 1],
              mv: qd.types.NDArray[vec3, 1], det: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in range(m.shape[0]):
        a = m[i]
        w = a @ v[i]
        mv[i] = a.transpose() @ w
        det[i] = a.determinant()


@qd.kernel
def histogram(x: qd.types.NDArray[qd.f32, 1], bins: qd.types.NDArray[qd.i32, 1]) -> None:
    nb = bins.shape[0]
    for i in range(x.shape[0]):
        b = qd.i32(x[i] * nb)
        bins[qd.max(0, qd.min(nb - 1, b))] += 1
