"""Cases for cases/tasks_k.py and cases/atomics_k.py. Float reductions use values whose partial
sums are exact, so the order of the parallel additions does not matter."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "tasks_sum_then_scale", "kernel": "tasks_k:sum_then_scale",
     "args": [arr("f32", (8,), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 12.0]), arr("f32", (8,))],
     "outputs": [1]},
    {"name": "tasks_count_then_fill", "kernel": "tasks_k:count_then_fill",
     "args": [arr("i32", (10,), [1, -1, 2, 0, 5, -3, 7, 8, -9, 0]), arr("i32", (10,), [-1] * 10)],
     "outputs": [1]},
    {"name": "tasks_ret_i64", "kernel": "tasks_k:ret_i64",
     "args": [arr("i64", (4,), [2 ** 20, -(2 ** 21), 3, 2 ** 30])]},
    {"name": "tasks_ret_f64", "kernel": "tasks_k:ret_f64",
     "args": [arr("f64", (5,), [0.1, 0.2, 0.3, 1e10, -1e10])], "tol": {"rtol": 1e-9, "atol": 1e-12}},
    {"name": "tasks_ret_cast", "kernel": "tasks_k:ret_cast", "args": [7, 2]},
    {"name": "tasks_ret_u8", "kernel": "tasks_k:ret_u8", "args": [100]},
    {"name": "tasks_ret_float_of_int", "kernel": "tasks_k:ret_float_of_int", "args": [-10]},
    {"name": "tasks_serial_only", "kernel": "tasks_k:serial_only", "args": [6, arr("i32", (1,))],
     "outputs": [1]},
    {"name": "tasks_minmax_reduce", "kernel": "tasks_k:minmax_reduce",
     "args": [arr("i32", (9,), [5, -3, 17, 0, 8, -11, 2, 9, 4])]},
    {"name": "tasks_multi_reduce", "kernel": "tasks_k:multi_reduce",
     "args": [arr("f32", (6,), [1.5, -2.0, 3.0, 0.5, -4.5, 2.5]), arr("f32", (3,))], "outputs": [1]},
    {"name": "atomics_ops_array", "kernel": "atomics_k:atomic_ops_array",
     "args": [arr("i32", (8,), [5, -3, 12, 7, 0x40, 9, -20, 1]),
              arr("i32", (7,), [100, 100, 1000, -1000, -1, 0, 0])],
     "outputs": [1]},
    {"name": "atomics_aug_array", "kernel": "atomics_k:aug_atomic_array",
     "args": [arr("i32", (10,), lambda i: i * 5 - 7), arr("i32", (5,), [0, 0, 0xFFF, 0, 0]),
              arr("f32", (10,), lambda i: i * 0.25), arr("f32", (2,))],
     "outputs": [1, 3]},
    {"name": "atomics_old_values", "kernel": "atomics_k:atomic_old_values",
     "args": [arr("i32", (6,), [3, 1, 4, 1, 5, 9]), arr("i32", (6,)), arr("i32", (2,))],
     "outputs": [1, 2], "sort": {1: 6}},
    {"name": "atomics_serial_returns", "kernel": "atomics_k:atomic_serial_returns",
     "args": [37, arr("i32", (8,))], "outputs": [1]},
    {"name": "atomics_float", "kernel": "atomics_k:atomic_float",
     "args": [arr("f32", (7,), [1.0, -2.5, 3.25, 0.5, -1.75, 8.0, 2.0]), arr("f32", (5,), [0, 0, 0, -100, 100])],
     "outputs": [1]},
    {"name": "atomics_scatter", "kernel": "atomics_k:atomic_scatter",
     "args": [arr("i32", (8,), [0, 1, 0, 2, 1, 0, 3, 2]),
              arr("i64", (8,), [2 ** 33, 5, -7, 2 ** 40, 11, 13, -(2 ** 35), 17]), arr("i64", (5,))],
     "outputs": [2]},
    {"name": "atomics_local_in_loop", "kernel": "atomics_k:atomic_local_in_loop",
     "args": [arr("i32", (5,), [0, 1, 2, 5, 10]), arr("i32", (5,))], "outputs": [1]},
]
