"""Cases for cases/random_k.py (one case: see its docstring)."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "random_draws", "kernel": "random_k:draws",
     "args": [arr("f32", (6,)), arr("f64", (6,)), arr("u32", (6,)), arr("i32", (6,)),
              arr("i64", (6,)), arr("u64", (6,)), arr("f32", (6, 3)), arr("i32", (6,))],
     "outputs": [0, 1, 2, 3, 4, 5, 6, 7]},
]
