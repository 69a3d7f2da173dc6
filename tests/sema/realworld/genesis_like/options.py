"""Solver options: enums and module constants shared by the solvers."""
import enum

import quadrants as qd

EPS = 1e-9
GRAVITY = (0.0, 0.0, -9.81)
MAX_CONTACTS_PER_PAIR = 4
N_ITERATIONS = 50
TOLERANCE = 1e-6 * 10

gs_float = qd.f32
gs_int = qd.i32
vec3 = qd.types.vector(3, gs_float)
vec4 = qd.types.vector(4, gs_float)
mat3 = qd.types.matrix(3, 3, gs_float)


class IntegratorType(enum.IntEnum):
    EULER = 0
    IMPLICITFAST = 1
    RK4 = 2


class GeomType(enum.IntEnum):
    PLANE = 0
    SPHERE = 1
    CAPSULE = 2
    BOX = 3


class ConstraintSolverType(enum.IntEnum):
    CG = 0
    NEWTON = 1
