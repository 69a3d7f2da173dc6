"""Bandwidth-bound kernels for the device bundle's benchmarks (scripts/gpu-bundle.sh): compiled
by qdbuild for cuda:sm_90 and timed against a device-to-device copy of the same bytes."""
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
