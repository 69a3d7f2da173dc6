"""Cases for cases/byref_k.py: qd.template() parameters bound to assignable places."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "byref_sort_rows", "kernel": "byref_k:sort_rows",
     "args": [arr("i32", (4, 3), [3, 1, 2, 1, 2, 3, 9, -4, 0, 5, 5, -5])],
     "outputs": [0], "expected": {0: [1, 2, 3, 1, 2, 3, -4, 0, 9, -5, 5, 5]}},
    {"name": "byref_scatter_add", "kernel": "byref_k:scatter_add",
     "args": [arr("f32", (3,)), arr("f32", (10,), lambda i: i)],
     "outputs": [0], "expected": {0: [36.0, 24.0, 30.0]}},
    {"name": "byref_places", "kernel": "byref_k:places",
     "args": [arr("i32", (3,), [0, 0, 4]), arr("i32", (9,))],
     "outputs": [0, 1], "expected": {0: [0, 5, 11], 1: [7, 11, 10, 20, 1, 7, -5, 4, 1]}},
    {"name": "byref_vector_elements", "kernel": "byref_k:vector_elements",
     "args": [arr("f32", (2, 3), [1, 2, 3, 4, 5, 6]), arr("f32", (2, 3), [2, 4, 6, -2, -4, -6])],
     "outputs": [0, 1],
     "expected": {0: [2, 4, -1, 3, 3, -1], 1: [5, 4, 6, 1, -4, -6]}},
    {"name": "byref_lazy_argument", "kernel": "byref_k:lazy_argument",
     "args": [arr("i32", (3,))], "outputs": [0], "expected": {0: [100, 101, 0]}},
    {"name": "byref_atomics", "kernel": "byref_k:atomics_through_refs",
     "args": [arr("i32", (20,), lambda i: i * i), arr("i32", (5,))], "outputs": [1],
     "expected": {1: [20, 24, 0, 0, 24]}},
    {"name": "byref_serial_dynamic", "kernel": "byref_k:serial_dynamic",
     "args": [arr("i32", (2,), [2, 0]), arr("i32", (3,))], "outputs": [1],
     "expected": {1: [3, 0, 9]}},
    {"name": "byref_static_display", "kernel": "byref_k:static_display_places",
     "args": [arr("i32", (3,)), arr("i32", (4,))], "outputs": [0, 1],
     "expected": {0: [23, 23, 0], 1: [13, 12, 1525, 36]}},
]
