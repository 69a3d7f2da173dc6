"""Cases for cases/literals_k.py."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


F32_TENTH = 0.10000000149011612

CASES = [
    {"name": "literals_implicit_casts", "kernel": "literals_k:implicit_literal_casts",
     "args": [arr("f64", (5,))], "outputs": [0],
     "expected": {0: [F32_TENTH, F32_TENTH, 0.1, 44.0, F32_TENTH]}},
    {"name": "literals_wide", "kernel": "literals_k:wide_literals",
     "args": [arr("u64", (2,), [5, 2**64 - 2]), arr("u64", (8,))], "outputs": [1],
     "expected": {1: [0, 2**64 - 6, 2**63 + 5, 6148914691236517205,
                      2**64 - 16, 1, 2**63 - 2, 6148914691236517205]}},
    {"name": "literals_folded_divmod", "kernel": "literals_k:folded_divmod",
     "args": [arr("i32", (4,))], "outputs": [0], "expected": {0: [-1, -4, 1, -4]},
     "oracle_differs": "real Quadrants 1.3.3 folds // and % of integer constants with C "
                       "semantics (7 % -2 gives 1, 7 // -2 gives -3; at run time it follows "
                       "Python's)"},
    {"name": "literals_python_math_fold", "kernel": "literals_k:python_math_fold",
     "args": [arr("f32", (6,))], "outputs": [0], "tol": {"rtol": 1e-6},
     "expected": {0: [2.0, 4.0, -2.0, 0.14112000805986721, 1414.2135623730951, 3.0]}},
]
