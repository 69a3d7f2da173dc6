"""Quaternion and transform helpers (funcs calling funcs)."""
import quadrants as qd

from ..options import EPS, gs_float, vec3, vec4, mat3


@qd.func
def qd_normalize(v: vec3) -> vec3:
    return v / (v.norm() + EPS)


@qd.func
def qd_quat_mul(u: vec4, v: vec4) -> vec4:
    terms = v.outer_product(u)
    w = terms[0, 0] - terms[1, 1] - terms[2, 2] - terms[3, 3]
    x = terms[0, 1] + terms[1, 0] - terms[2, 3] + terms[3, 2]
    y = terms[0, 2] + terms[1, 3] + terms[2, 0] - terms[3, 1]
    z = terms[0, 3] - terms[1, 2] + terms[2, 1] + terms[3, 0]
    return vec4(w, x, y, z)


@qd.func
def qd_quat_to_R(q: vec4) -> mat3:
    d = q.dot(q)
    w, x, y, z = q
    s = 2.0 / (d + EPS)
    xs, ys, zs = x * s, y * s, z * s
    wx, wy, wz = w * xs, w * ys, w * zs
    xx, xy, xz = x * xs, x * ys, x * zs
    yy, yz, zz = y * ys, y * zs, z * zs
    return mat3(
        [
            [1.0 - (yy + zz), xy - wz, xz + wy],
            [xy + wz, 1.0 - (xx + zz), yz - wx],
            [xz - wy, yz + wx, 1.0 - (xx + yy)],
        ]
    )


@qd.func
def qd_transform_by_quat(v: vec3, quat: vec4) -> vec3:
    R = qd_quat_to_R(quat)
    return R @ v


@qd.func
def qd_transform_by_trans_quat(pos: vec3, trans: vec3, quat: vec4) -> vec3:
    return qd_transform_by_quat(pos, quat) + trans


@qd.func
def qd_rotvec_to_quat(rotvec: vec3) -> vec4:
    theta = rotvec.norm()
    quat = vec4(1.0, 0.0, 0.0, 0.0)
    if theta > EPS:
        axis = rotvec / theta
        half = theta * 0.5
        s = qd.sin(half)
        quat = vec4(qd.cos(half), axis[0] * s, axis[1] * s, axis[2] * s)
    return quat


@qd.func
def qd_clamp(x: gs_float, lo: gs_float, hi: gs_float) -> gs_float:
    return qd.max(lo, qd.min(x, hi))
