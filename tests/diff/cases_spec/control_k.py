"""Cases for cases/control_k.py."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "control_classify", "kernel": "control_k:classify",
     "args": [arr("f32", (8,), [-5.0, -1.0, -0.5, 0.0, 0.5, 1.0, 50.0, 200.0]), arr("i32", (8,))],
     "outputs": [1]},
    {"name": "control_skip_odd", "kernel": "control_k:skip_odd",
     "args": [arr("i32", (9,), lambda i: i * 7 - 20), arr("i32", (9,), [-1] * 9)], "outputs": [1]},
    {"name": "control_gcd_loop", "kernel": "control_k:gcd_loop",
     "args": [arr("i32", (6,), [12, 17, 100, 0, 270, 1071]), arr("i32", (6,), [18, 5, 75, 9, 192, 462]),
              arr("i32", (6,)), arr("i32", (6,))],
     "outputs": [2, 3]},
    {"name": "control_inner_break_continue", "kernel": "control_k:inner_break_continue",
     "args": [arr("i32", (7,), [0, 1, 3, 5, 8, 12, 30]), arr("i32", (7,)), arr("i32", (7,))],
     "outputs": [1, 2]},
    {"name": "control_dynamic_range", "kernel": "control_k:dynamic_range",
     "args": [3, 9, arr("i32", (12,), lambda i: i * i), arr("i32", (12,), [-1] * 12)], "outputs": [3]},
    {"name": "control_nested_while", "kernel": "control_k:nested_while",
     "args": [4, arr("i32", (6,))], "outputs": [1]},
    {"name": "control_ndrange3", "kernel": "control_k:ndrange3",
     "args": [arr("i32", (4, 4, 3), [-1] * 48), 1], "outputs": [0]},
    {"name": "control_grouped3", "kernel": "control_k:grouped3",
     "args": [arr("i32", (2, 3, 4), [-1] * 24)], "outputs": [0]},
    {"name": "control_ndrange_empty", "kernel": "control_k:ndrange_empty",
     "args": [arr("i32", (6,)), 1], "outputs": [0]},
    {"name": "control_scopes", "kernel": "control_k:scopes",
     "args": [arr("i32", (5,), [0, 1, 3, 4, -2]), arr("i32", (5,))], "outputs": [1]},
]
