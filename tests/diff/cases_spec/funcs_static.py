"""Cases for cases/funcs_k.py and cases/static_k.py (template instances: cases/pyproject.toml)."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "funcs_calls", "kernel": "funcs_k:func_calls",
     "args": [arr("i32", (4,), [3, -7, 10, 0]), arr("i32", (4,), [2, 3, -4, 5]), arr("i32", (24,)),
              arr("f32", (4,))],
     "outputs": [2, 3]},
    {"name": "funcs_vectors", "kernel": "funcs_k:func_vectors",
     "args": [arr("f32", (3, 2), [1, 2, -0.5, 0.25, 3, -4]), arr("f32", (3,), [2.0, -1.0, 0.5]),
              arr("f32", (3, 2)), arr("f32", (3, 2))],
     "outputs": [2, 3]},
    {"name": "funcs_templates", "kernel": "funcs_k:func_templates",
     "args": [arr("i32", (6,), [-4, -1, 0, 2, 3, 9]), arr("i32", (6,))], "outputs": [1]},
    {"name": "funcs_top_level_loop", "kernel": "funcs_k:func_top_level_loop",
     "args": [arr("i32", (5,)), arr("i32", (5,))], "outputs": [0, 1]},
    # caps (4, 8, 16, 32, 40): the smallest cap holding x, log2(32) = 5, (-37).bit_length() = 6.
    {"name": "static_trace_time_list", "kernel": "static_k:trace_time_list",
     "args": [{"array": "i32", "shape": (6,), "init": [1, 4, 5, 17, 33, 40]},
              {"array": "i32", "shape": (6,)}],
     "outputs": [1], "expected": {1: [56, 56, 156, 356, 456, 456]}},
    {"name": "static_stencil", "kernel": "static_k:stencil",
     "args": [arr("f32", (7,), [1, 2, 4, 8, 16, 32, 64]), arr("f32", (7,))], "outputs": [1]},
    {"name": "static_branches", "kernel": "static_k:static_branches",
     "args": [arr("i32", (4,), [0, 1, -3, 1000]), arr("i32", (4,))], "outputs": [1]},
    {"name": "static_enumerate", "kernel": "static_k:static_enumerate",
     "args": [arr("f32", (3,), [0.0, 1.0, -3.0]), arr("f32", (3,))], "outputs": [1]},
    {"name": "static_poly_d2_noflip", "kernel": "static_k:poly_template",
     "args": [arr("f32", (4,), [0, 1, 2, -1]), arr("f32", (4,)), 2, False], "outputs": [1]},
    {"name": "static_poly_d3_flip", "kernel": "static_k:poly_template",
     "args": [arr("f32", (4,), [0, 1, 2, -1]), arr("f32", (4,)), 3, True], "outputs": [1]},
    {"name": "static_unroll_n2", "kernel": "static_k:unroll_tuple",
     "args": [arr("i32", (3,)), 2], "outputs": [0]},
    {"name": "static_unroll_n5", "kernel": "static_k:unroll_tuple",
     "args": [arr("i32", (3,)), 5], "outputs": [0]},
]
