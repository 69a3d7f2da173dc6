"""Cases for cases/edge_k.py."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "edge_aug_int_float", "kernel": "edge_k:aug_int_float",
     "args": [arr("f32", (5,), [1.5, -1.5, 0.75, -2.25, 4.0]), arr("i32", (15,))], "outputs": [1]},
    {"name": "edge_mixed_select", "kernel": "edge_k:mixed_select",
     "args": [arr("i32", (4,), [3, 0, -2, 5]), arr("f32", (4,), [0.5, 1.25, -2.5, 9.0]),
              arr("f32", (4,)), arr("i32", (4,))],
     "outputs": [2, 3]},
    {"name": "edge_bool_arith", "kernel": "edge_k:bool_arith",
     "args": [arr("i32", (4,), [2, 3, -4, 0]), arr("i32", (16,))], "outputs": [1]},
    {"name": "edge_store_truncation", "kernel": "edge_k:store_truncation",
     "args": [arr("f64", (5,), [1.9, -1.9, 100.5, -127.25, 0.125]), arr("i8", (5,)), arr("u16", (5,)),
              arr("i64", (5,))],
     "outputs": [1, 2, 3]},
]
