"""An SPH fluid solver: dataclass parameters (some values baked into the key with
FIELD_METADATA_CACHE_VALUE), template kernel functions, reductions."""
import dataclasses
import math

import quadrants as qd
from quadrants.lang._fast_caching import FIELD_METADATA_CACHE_VALUE

from ...options import GRAVITY, gs_float, vec3


@dataclasses.dataclass
class SPHParams:
    n_particles: int
    h: float = 0.04
    rho0: float = 1000.0
    stiffness: float = 50.0
    viscosity: float = 0.01
    dim: int = dataclasses.field(default=3, metadata={FIELD_METADATA_CACHE_VALUE: True})
    use_xsph: bool = dataclasses.field(default=True, metadata={FIELD_METADATA_CACHE_VALUE: True})


@dataclasses.dataclass
class SPHState:
    pos: qd.types.NDArray[vec3, 1]
    vel: qd.types.NDArray[vec3, 1]
    rho: qd.types.NDArray[qd.f32, 1]
    pressure: qd.types.NDArray[qd.f32, 1]


@qd.func
def cubic_kernel(r: gs_float, h: gs_float) -> gs_float:
    k = 8.0 / (math.pi * h * h * h)
    q = r / h
    w = 0.0
    if q <= 0.5:
        w = k * (6.0 * q * q * q - 6.0 * q * q + 1.0)
    elif q <= 1.0:
        w = k * 2.0 * qd.pow(1.0 - q, 3.0)
    return w


@qd.func
def cubic_kernel_grad(r_vec: vec3, h: gs_float) -> vec3:
    r = r_vec.norm()
    k = 48.0 / (math.pi * h * h * h)
    q = r / h
    g = vec3(0.0, 0.0, 0.0)
    if r > 1e-5 and q <= 1.0:
        if q <= 0.5:
            g = k * q * (3.0 * q - 2.0) * r_vec / (r * h)
        else:
            g = -k * (1.0 - q) * (1.0 - q) * r_vec / (r * h)
    return g


@qd.func
def tait_pressure(rho: gs_float, params: qd.template()) -> gs_float:
    return params.stiffness * (qd.pow(rho / params.rho0, 7.0) - 1.0)


@qd.func
def sum_neighbors(state: qd.template(), i, weight_fn: qd.template(), h: gs_float) -> gs_float:
    acc = 0.0
    for j in range(state.pos.shape[0]):
        acc += weight_fn((state.pos[i] - state.pos[j]).norm(), h)
    return acc


@qd.kernel(fastcache=True)
def kernel_density(params: SPHParams, state: SPHState):
    for i in range(state.pos.shape[0]):
        state.rho[i] = params.rho0 * 0.0 + sum_neighbors(state, i, cubic_kernel, params.h)
        state.pressure[i] = params.stiffness * (state.rho[i] / params.rho0 - 1.0)


@qd.kernel(fastcache=True)
def kernel_forces(params: SPHParams, state: SPHState, dt: gs_float):
    g = vec3(GRAVITY[0], GRAVITY[1], GRAVITY[2])
    for i in range(state.pos.shape[0]):
        f = g
        for j in range(state.pos.shape[0]):
            if i != j:
                grad = cubic_kernel_grad(state.pos[i] - state.pos[j], params.h)
                f -= (state.pressure[i] + state.pressure[j]) / (2.0 * state.rho[j] + 1e-6) * grad
                if qd.static(params.use_xsph):
                    f += params.viscosity * (state.vel[j] - state.vel[i])
        state.vel[i] += dt * f


@qd.kernel(fastcache=True)
def kernel_advect(state: SPHState, dt: gs_float, lo: vec3, hi: vec3):
    for i in range(state.pos.shape[0]):
        p = state.pos[i] + dt * state.vel[i]
        for k in qd.static(range(3)):
            if p[k] < lo[k]:
                p[k] = lo[k]
                state.vel[i][k] *= -0.5
            if p[k] > hi[k]:
                p[k] = hi[k]
                state.vel[i][k] *= -0.5
        state.pos[i] = p


@qd.kernel(fastcache=True)
def kernel_kinetic_energy(state: SPHState, mass: gs_float) -> gs_float:
    e = 0.0
    for i in range(state.vel.shape[0]):
        e += 0.5 * mass * state.vel[i].norm_sqr()
    return e


@qd.kernel
def kernel_debug_dump(state: SPHState, out: qd.types.NDArray[qd.f32, 2]):
    for i in range(state.pos.shape[0]):
        for k in qd.static(range(3)):
            out[i, k] = state.pos[i][k]
