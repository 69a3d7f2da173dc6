"""Cases for cases/scopes_k.py."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


N = 20000

CASES = [
    {"name": "scopes_static_if", "kernel": "scopes_k:static_if_scope",
     "args": [arr("f32", (2,))], "outputs": [0], "tol": {"rtol": 0.0},
     "expected": {0: [2.700000047683716, 1.0]}},
    {"name": "scopes_constant_if", "kernel": "scopes_k:constant_if",
     "args": [arr("i32", (N,), lambda i: i % 7 - 3)], "outputs": [0]},
]
