"""Narrow-phase contact detection: a data_oriented member of the rigid solver."""
import quadrants as qd

from .. import options
from ..options import GeomType, MAX_CONTACTS_PER_PAIR, vec3, vec4
from ..utils import geom as gu


@qd.func
def sphere_plane(center: vec3, radius: qd.f32, normal: vec3, offset: qd.f32) -> qd.f32:
    return center.dot(normal) - offset - radius


@qd.func
def sphere_sphere(c0: vec3, r0: qd.f32, c1: vec3, r1: qd.f32) -> qd.f32:
    return (c1 - c0).norm() - r0 - r1


@qd.func
def capsule_axis(quat: vec4) -> vec3:
    return gu.qd_transform_by_quat(vec3(0.0, 0.0, 1.0), quat)


@qd.data_oriented
class Collider:
    def __init__(self, n_geoms, n_envs):
        self.n_geoms = n_geoms
        self.n_envs = n_envs
        self.max_contacts = n_geoms * MAX_CONTACTS_PER_PAIR
        self.geom_type = qd.ndarray(qd.i32, (n_geoms,))
        self.geom_size = qd.ndarray(qd.f32, (n_geoms, 3))
        self.geom_pos = qd.Vector.ndarray(3, qd.f32, (n_geoms, n_envs))
        self.geom_quat = qd.Vector.ndarray(4, qd.f32, (n_geoms, n_envs))
        self.contact_pos = qd.Vector.ndarray(3, qd.f32, (n_geoms * MAX_CONTACTS_PER_PAIR, n_envs))
        self.contact_depth = qd.ndarray(qd.f32, (n_geoms * MAX_CONTACTS_PER_PAIR, n_envs))
        self.n_contacts = qd.ndarray(qd.i32, (n_envs,))

    @qd.func
    def _penetration(self, i_a, i_b, i_b_env):
        t_a = self.geom_type[i_a]
        t_b = self.geom_type[i_b]
        depth = 0.0
        if t_a == GeomType.SPHERE and t_b == GeomType.SPHERE:
            depth = sphere_sphere(
                self.geom_pos[i_a, i_b_env],
                self.geom_size[i_a, 0],
                self.geom_pos[i_b, i_b_env],
                self.geom_size[i_b, 0],
            )
        elif t_a == GeomType.SPHERE and t_b == GeomType.PLANE:
            normal = gu.qd_transform_by_quat(vec3(0.0, 0.0, 1.0), self.geom_quat[i_b, i_b_env])
            depth = sphere_plane(
                self.geom_pos[i_a, i_b_env],
                self.geom_size[i_a, 0],
                normal,
                self.geom_pos[i_b, i_b_env].dot(normal),
            )
        elif t_a == GeomType.CAPSULE:
            axis = capsule_axis(self.geom_quat[i_a, i_b_env])
            depth = -axis.norm() * self.geom_size[i_a, 1]
        return depth

    @qd.func
    def _add_contact(self, i_a, i_b, i_b_env, depth):
        slot = qd.atomic_add(self.n_contacts[i_b_env], 1)
        if slot < self.max_contacts:
            self.contact_depth[slot, i_b_env] = depth
            self.contact_pos[slot, i_b_env] = 0.5 * (self.geom_pos[i_a, i_b_env] + self.geom_pos[i_b, i_b_env])

    @qd.func
    def detect(self):
        qd.loop_config(serialize=False)
        for i_b_env in range(self.n_envs):
            self.n_contacts[i_b_env] = 0
            for i_a in range(self.n_geoms):
                for i_b in range(i_a + 1, self.n_geoms):
                    depth = self._penetration(i_a, i_b, i_b_env)
                    if depth < 0.0:
                        self._add_contact(i_a, i_b, i_b_env, depth)

    @qd.kernel(fastcache=True)
    def kernel_detect(self):
        self.detect()

    @qd.kernel(fastcache=True)
    def kernel_clear(self):
        for i_b_env in range(self.n_envs):
            self.n_contacts[i_b_env] = 0
            for s in qd.static(range(options.MAX_CONTACTS_PER_PAIR)):
                self.contact_depth[s, i_b_env] = 0.0
