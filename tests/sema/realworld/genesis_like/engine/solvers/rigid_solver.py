"""A rigid-body solver in the style of Genesis: data_oriented state, funcs calling funcs,
qd.static loops over compile-time sizes, and a collider member."""
import quadrants as qd

from ...options import (
    EPS,
    N_ITERATIONS,
    TOLERANCE,
    ConstraintSolverType,
    IntegratorType,
    gs_float,
    vec3,
    vec4,
)
from ...utils import geom as gu
from ..collision import Collider


@qd.func
def func_integrate_pos(pos: vec3, vel: vec3, dt: gs_float) -> vec3:
    return pos + vel * dt


@qd.func
def func_integrate_quat(quat: vec4, ang: vec3, dt: gs_float) -> vec4:
    dq = gu.qd_rotvec_to_quat(ang * dt)
    return gu.qd_quat_mul(dq, quat)


@qd.func
def func_apply_damping(vel: vec3, damping: gs_float, dt: gs_float) -> vec3:
    return vel * qd.exp(-damping * dt)


@qd.data_oriented
class RigidSolver:
    def __init__(self, n_links, n_envs, integrator=IntegratorType.EULER):
        self.n_links = n_links
        self.n_envs = n_envs
        self.integrator = integrator
        self.substeps = 4
        self.damping = 0.1
        self.solver_type = ConstraintSolverType.NEWTON
        self.links_pos = qd.Vector.ndarray(3, qd.f32, (n_links, n_envs))
        self.links_quat = qd.Vector.ndarray(4, qd.f32, (n_links, n_envs))
        self.links_vel = qd.Vector.ndarray(3, qd.f32, (n_links, n_envs))
        self.links_ang = qd.Vector.ndarray(3, qd.f32, (n_links, n_envs))
        self.links_mass = qd.ndarray(qd.f32, (n_links,))
        self.links_force = qd.Vector.ndarray(3, qd.f32, (n_links, n_envs))
        self.collider = Collider(n_links, n_envs)

    @qd.func
    def _func_gravity(self, i_l, i_b, gravity: vec3):
        if self.links_mass[i_l] > EPS:
            self.links_force[i_l, i_b] += gravity * self.links_mass[i_l]

    @qd.func
    def _func_update_velocity(self, i_l, i_b, dt: gs_float):
        inv_mass = 1.0 / qd.max(self.links_mass[i_l], EPS)
        v = self.links_vel[i_l, i_b] + self.links_force[i_l, i_b] * inv_mass * dt
        self.links_vel[i_l, i_b] = func_apply_damping(v, self.damping, dt)
        self.links_force[i_l, i_b] = vec3(0.0, 0.0, 0.0)

    @qd.func
    def _func_update_pose(self, i_l, i_b, dt: gs_float):
        self.links_pos[i_l, i_b] = func_integrate_pos(self.links_pos[i_l, i_b], self.links_vel[i_l, i_b], dt)
        if qd.static(self.integrator == IntegratorType.EULER):
            self.links_quat[i_l, i_b] = func_integrate_quat(self.links_quat[i_l, i_b], self.links_ang[i_l, i_b], dt)
        else:
            q = self.links_quat[i_l, i_b]
            for _ in qd.static(range(2)):
                q = func_integrate_quat(q, self.links_ang[i_l, i_b], dt * 0.5)
            self.links_quat[i_l, i_b] = q / q.norm()

    @qd.kernel(fastcache=True)
    def kernel_step(self, dt: gs_float, gravity: vec3):
        for i_l, i_b in qd.ndrange(self.n_links, self.n_envs):
            self._func_gravity(i_l, i_b, gravity)
            for _ in qd.static(range(self.substeps)):
                self._func_update_velocity(i_l, i_b, dt / self.substeps)
                self._func_update_pose(i_l, i_b, dt / self.substeps)

    @qd.kernel(fastcache=True)
    def kernel_detect_collisions(self):
        self.collider.detect()

    @qd.kernel(fastcache=True)
    def kernel_constraint_solve(self, residual: qd.types.NDArray[qd.f32, 1]):
        for i_b in range(self.n_envs):
            err = 1.0
            it = 0
            while err > TOLERANCE and it < N_ITERATIONS:
                err = 0.0
                for i_l in range(self.n_links):
                    v = self.links_vel[i_l, i_b]
                    if qd.static(self.solver_type == ConstraintSolverType.NEWTON):
                        v = v * 0.5
                    else:
                        v = v * 0.9
                    err = qd.max(err, (v - self.links_vel[i_l, i_b]).norm())
                    self.links_vel[i_l, i_b] = v
                it += 1
            residual[i_b] = err

    @qd.kernel
    def kernel_reset(self, envs_idx: qd.types.NDArray[qd.i32, 1]):
        for i_l, i_b_ in qd.ndrange(self.n_links, envs_idx.shape[0]):
            i_b = envs_idx[i_b_]
            self.links_vel[i_l, i_b] = vec3(0.0, 0.0, 0.0)
            self.links_ang[i_l, i_b] = vec3(0.0, 0.0, 0.0)
            self.links_quat[i_l, i_b] = vec4(1.0, 0.0, 0.0, 0.0)


@qd.kernel(fastcache=True)
def kernel_links_world_points(
    solver: qd.template(),
    local_pts: qd.types.NDArray[vec3, 1],
    out: qd.types.ndarray(dtype=vec3, ndim=2),
):
    for i_p, i_b in qd.ndrange(local_pts.shape[0], out.shape[1]):
        i_l = i_p % solver.n_links
        out[i_p, i_b] = gu.qd_transform_by_trans_quat(
            local_pts[i_p], solver.links_pos[i_l, i_b], solver.links_quat[i_l, i_b]
        )
