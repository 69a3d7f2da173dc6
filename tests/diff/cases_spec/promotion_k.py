"""Cases for cases/promotion_k.py (template instance flag = True: cases/pyproject.toml)."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "promotion_u1", "kernel": "promotion_k:u1_promotion",
     "args": [arr("i8", (2,), [36, 0]), arr("u8", (1,), [7]), arr("i32", (1,), [100]),
              arr("i32", (11,)), True],
     "outputs": [3], "expected": {3: [1, 0, 101, 1, 2, 0, 8, 0, 250, 1008, 0]}},
    {"name": "promotion_u1_ops", "kernel": "promotion_k:u1_ops",
     "args": [arr("u1", (2,), [1, 0]), arr("i32", (5,))], "outputs": [1],
     "expected": {1: [1, 0, 1, 1, 5]}},
]
