"""Kernels for the device bundle's benchmarks (scripts/gpu-bundle.sh), compiled by qdbuild for
cuda:sm_90: bandwidth-bound ones timed against a device-to-device copy of the same bytes, a graph
kernel timed as a CUDA graph against the runtime's host loop, and qd.random's draws checked
against a model of Quadrants' generator."""
import quadrants as qd


@qd.kernel
def saxpy(a: qd.f32, x: qd.types.ndarray(dtype=qd.f32, ndim=1),
          y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def copy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        y[i] = x[i]


@qd.kernel(graph=True)
def relax(counter: qd.types.NDArray[qd.i32, 0], x: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> None:
    """A graph kernel: `counter` passes of x = x / 2 + 1, each a parallel loop and the serial
    countdown (a CUDA graph's WHILE node on sm_90+, timed against the runtime's host loop)."""
    while qd.graph.do_while(counter):
        for i in range(x.shape[0]):
            x[i] = x[i] * 0.5 + 1.0
        counter[()] = counter[()] - 1


@qd.kernel
def draw(u: qd.types.ndarray(dtype=qd.u32, ndim=1), f: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    """qd.random in a parallel loop: on CUDA iteration i runs on thread i of Quadrants' grid and
    draws from state i (checked against Python's model of Quadrants' generator)."""
    for i in range(u.shape[0]):
        u[i] = qd.random(qd.u32)
        f[i] = qd.random(qd.f32)


@qd.kernel
def draw_serial(u: qd.types.ndarray(dtype=qd.u64, ndim=1)):
    """qd.random in serial code: state 0 (thread 0 of a <<<1, 1>>> launch on CUDA)."""
    qd.loop_config(serialize=True)
    for i in range(u.shape[0]):
        u[i] = qd.random(qd.u64)
