"""Cases for cases/linalg_k.py and cases/mathfn_k.py. Float results carry a tolerance: fast_math
(the default) may change the last bits of transcendental functions, divisions and fused
multiply-adds."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


def tri(i):  # small integers and halves: well-conditioned matrix entries
    return ((i * 7) % 11 - 5) * 0.5


F = {"rtol": 1e-5, "atol": 1e-5}
T = {"rtol": 2e-5, "atol": 2e-6}

CASES = [
    {"name": "linalg_mat3_ops", "kernel": "linalg_k:mat3_ops",
     "args": [arr("f32", (4, 3, 3), tri), arr("f32", (4, 3), lambda i: i - 5.5), arr("f32", (4, 3)),
              arr("f32", (4, 3, 3)), arr("f32", (4, 5))],
     "outputs": [2, 3, 4], "tol": F},
    {"name": "linalg_vec_methods", "kernel": "linalg_k:vec_methods",
     "args": [arr("f32", (4, 3), [3, 4, 0, 1, 2, 2, -1, 0.5, 2, 6, -2, 3]),
              arr("f32", (4, 3), [0, 0, 5, 2, -1, 1, 4, 4, 2, 1, 1, -1]),
              arr("f32", (4, 5)), arr("f32", (4, 3)), arr("f32", (4, 3))],
     "outputs": [2, 3, 4], "tol": F},
    {"name": "linalg_swizzles", "kernel": "linalg_k:swizzles",
     "args": [arr("f32", (3, 4), lambda i: i * 1.5 - 4), arr("f32", (3, 4)), arr("f32", (3, 2))],
     "outputs": [1, 2]},
    {"name": "linalg_outer_transpose", "kernel": "linalg_k:outer_transpose",
     "args": [arr("f32", (3, 3), lambda i: i - 4), arr("f32", (3, 2), lambda i: 0.5 * i + 1),
              arr("f32", (3, 3, 2)), arr("f32", (3, 2, 3)), arr("f32", (3, 2, 2))],
     "outputs": [2, 3, 4]},
    {"name": "linalg_constructors", "kernel": "linalg_k:constructors",
     "args": [arr("f32", (4, 5)), arr("i32", (4, 4))], "outputs": [0, 1]},
    {"name": "linalg_dynamic_index", "kernel": "linalg_k:dynamic_index",
     "args": [arr("f32", (5, 3, 3), tri), arr("f32", (5,)), arr("f32", (5, 3))], "outputs": [1, 2]},
    {"name": "linalg_elementwise", "kernel": "linalg_k:elementwise",
     "args": [arr("f32", (4, 3), lambda i: i * 0.75 - 3), arr("f32", (4, 3), lambda i: 2 - i * 0.5),
              arr("f32", (4, 3)), arr("i32", (4, 3))],
     "outputs": [2, 3], "tol": F},
    {"name": "linalg_particles", "kernel": "linalg_k:particles",
     "args": [arr("f32", (4, 3), [0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4]), arr("f32", (4, 3)), arr("f32", (4,))],
     "outputs": [1, 2], "tol": {"rtol": 1e-4, "atol": 1e-4}},
    {"name": "math_transcendental", "kernel": "mathfn_k:transcendental",
     "args": [arr("f32", (6,), [-2.0, -0.75, 0.0, 0.3, 1.0, 2.5]), arr("f32", (6, 12))],
     "outputs": [1], "tol": T},
    {"name": "math_int_to_float_rules", "kernel": "mathfn_k:int_to_float_rules",
     "args": [arr("i32", (5,), [0, 1, 4, 10, -3]), arr("f32", (5, 6))], "outputs": [1], "tol": T},
    {"name": "math_rounding", "kernel": "mathfn_k:rounding",
     "args": [arr("f32", (8,), [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -3.7, 3.2]), arr("f32", (8, 4)),
              arr("i32", (8, 4))],
     "outputs": [1, 2]},
    {"name": "math_minmax_builtins", "kernel": "mathfn_k:minmax_builtins",
     "args": [arr("f32", (5,), [-1.0, 0.25, 0.75, 3.0, 10.0]), arr("i32", (5,), [-4, 0, 1, 2, 7]),
              arr("f32", (5,)), arr("i32", (5,))],
     "outputs": [2, 3]},
    {"name": "math_helpers", "kernel": "mathfn_k:helpers",
     "args": [arr("f32", (6,), [-3.0, -0.25, 0.0, 0.5, 0.75, 5.0]), arr("f32", (6, 7))],
     "outputs": [1], "tol": T},
    {"name": "math_f64", "kernel": "mathfn_k:f64_math",
     "args": [arr("f64", (5,), [-1.2, 0.0, 0.5, 1.7, 3.3]), arr("f64", (5, 5))],
     "outputs": [1], "tol": {"rtol": 1e-12, "atol": 1e-12}},
]
