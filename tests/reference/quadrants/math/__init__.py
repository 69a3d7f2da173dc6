"""qd.math: fixed-dtype vector types (vecN f32, ivecN i32, uvecN u32, matN f32), helpers and
constants."""

import math as _m

from .. import dtypes as _dt
from ..mathlib import (acos, asin, atan2, ceil, clamp, clz, cos, cross, degrees, distance, dot,  # noqa: F401
                       exp, ffs, floor, fract, length, log, log2, max, min, mix, normalize, popcnt, pow,
                       radians, round, rsqrt, sign, sin, sqrt, step, tan, tanh)
from ..matrix import MatrixType, VectorType

vec2, vec3, vec4 = (VectorType(n, _dt.f32) for n in (2, 3, 4))
ivec2, ivec3, ivec4 = (VectorType(n, _dt.i32) for n in (2, 3, 4))
uvec2, uvec3, uvec4 = (VectorType(n, _dt.u32) for n in (2, 3, 4))
mat2, mat3, mat4 = (MatrixType(n, n, _dt.f32) for n in (2, 3, 4))

pi = _m.pi
e = _m.e
inf = _m.inf
nan = _m.nan
