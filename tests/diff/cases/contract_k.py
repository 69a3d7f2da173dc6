"""Products and sums rounded one operation at a time, as Quadrants' CPU backend computes them: it
never fuses a multiply and an add into one FMA (fast_math on or off), so neither may qdbuild's CPU
code. The kernels are the shapes where a fused multiply-add changes the result: the difference of
two equal products (0 unfused, the rounding error of one product fused), the orientation test of
three collinear points (Genesis's contact hull, collider/contact.py func_contact_support_hull:
coincident and collinear points must not turn), a multiply-add, a dot product and a cross
product."""

import quadrants as qd

vec2 = qd.types.vector(2, qd.f32)
vec3 = qd.types.vector(3, qd.f32)


@qd.kernel
def products_difference(a: qd.types.NDArray[qd.f32, 1], b: qd.types.NDArray[qd.f32, 1],
                        out: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] - a[i] * b[i]


@qd.kernel
def hull_turns(s: qd.types.NDArray[vec2, 1], t: qd.types.NDArray[vec2, 1],
               p: qd.types.NDArray[vec2, 1], cross: qd.types.NDArray[qd.f32, 1],
               pops: qd.types.NDArray[qd.i32, 1]) -> None:
    eps = 1.1920929e-07
    for i in range(s.shape[0]):
        dir_t, dir_p = t[i] - s[i], p[i] - s[i]
        cross[i] = dir_t[0] * dir_p[1] - dir_t[1] * dir_p[0]
        cross_lhs = dir_t[0] * dir_p[1]
        cross_rhs = dir_t[1] * dir_p[0]
        pops[i] = 0
        if cross_lhs - cross_rhs <= 2.0 * eps * (qd.abs(cross_lhs) + qd.abs(cross_rhs)):
            pops[i] = 1


@qd.kernel
def multiply_adds(a: qd.types.NDArray[vec3, 1], b: qd.types.NDArray[vec3, 1],
                  c: qd.types.NDArray[qd.f32, 1], out: qd.types.NDArray[qd.f32, 2],
                  cr: qd.types.NDArray[vec3, 1],
                  d: qd.types.NDArray[qd.f64, 1]) -> None:
    for i in range(a.shape[0]):
        out[i, 0] = a[i][0] * b[i][0] + c[i]
        out[i, 1] = a[i].dot(b[i])
        out[i, 2] = a[i][0] * b[i][1] - a[i][1] * b[i][0] + c[i] * c[i]
        cr[i] = a[i].cross(b[i])
        d[i] = qd.f64(a[i][0]) * qd.f64(b[i][2]) + qd.f64(c[i]) * 0.1
