"""Particle integration with vector dtypes: gravity, drag, a ground plane and a bounding box.

Positions and velocities are 1-D ndarrays of vec3 (element dims stored innermost, AoS).
Build ahead of time with `qdbuild build examples/ --store build/qdstore`; the kernels are
`particles:integrate`, `particles:apply_wind` and `particles:kinetic_energy`.
"""
import quadrants as qd

vec3 = qd.types.vector(3, qd.f32)

GRAVITY = -9.81
DRAG = 0.02
RESTITUTION = 0.6
BOX_HALF_WIDTH = 4.0


@qd.func
def acceleration(v: vec3) -> vec3:
    drag = -DRAG * v.norm() * v
    return drag + vec3(0.0, GRAVITY, 0.0)


@qd.kernel(fastcache=True)
def integrate(
    pos: qd.types.ndarray(dtype=vec3, ndim=1),
    vel: qd.types.ndarray(dtype=vec3, ndim=1),
    dt: qd.f32,
):
    """Semi-implicit Euler step for every particle, then reflection off the walls of the box
    and the ground plane y = 0."""
    for i in range(pos.shape[0]):
        v = vel[i] + dt * acceleration(vel[i])
        p = pos[i] + dt * v
        for k in qd.static(range(3)):
            lo = -BOX_HALF_WIDTH
            if qd.static(k == 1):
                lo = 0.0
            if p[k] < lo:
                p[k] = lo
                v[k] = -v[k] * RESTITUTION
            if p[k] > BOX_HALF_WIDTH:
                p[k] = BOX_HALF_WIDTH
                v[k] = -v[k] * RESTITUTION
        pos[i] = p
        vel[i] = v


@qd.kernel(fastcache=True)
def apply_wind(
    vel: qd.types.ndarray(dtype=vec3, ndim=1),
    mass: qd.types.ndarray(dtype=qd.f32, ndim=1),
    wind_x: qd.f32,
    wind_z: qd.f32,
    dt: qd.f32,
):
    """A horizontal wind force; massless (mass 0) particles are pinned and left alone."""
    for i in range(vel.shape[0]):
        if mass[i] > 0:
            vel[i] += dt * vec3(wind_x, 0.0, wind_z) / mass[i]


@qd.kernel(fastcache=True)
def kinetic_energy(
    vel: qd.types.ndarray(dtype=vec3, ndim=1),
    mass: qd.types.ndarray(dtype=qd.f32, ndim=1),
) -> qd.f32:
    """Total kinetic energy: a kernel-scope reduction (`+=` stays atomic)."""
    total = 0.0
    for i in range(vel.shape[0]):
        total += 0.5 * mass[i] * vel[i].norm_sqr()
    return total
