"""Cases for cases/spec_k.py: docs/language.md §6 (K1..K10), with the spec's expected
values (diff_reference_self checks the stand-in against them)."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "K1_saxpy", "kernel": "spec_k:saxpy",
     "args": [2.0, arr("f32", (8,), lambda i: i), arr("f32", (8,), [1.0] * 8)],
     "outputs": [2], "expected": {2: [1, 3, 5, 7, 9, 11, 13, 15]}},
    {"name": "K2_int_sem", "kernel": "spec_k:int_sem",
     "args": [arr("i32", (4,), [7, -7, 7, -7]), arr("i32", (4,), [2, 2, -2, -2]), arr("i32", (4,)),
              arr("i32", (4,)), arr("f32", (4,)), arr("i32", (4,))],
     "outputs": [2, 3, 4, 5],
     "expected": {2: [3, -4, -4, 3], 3: [1, 1, -1, -1], 4: [3.5, -3.5, -3.5, 3.5], 5: [3, -3, -3, 3]}},
    {"name": "K3_histogram", "kernel": "spec_k:histogram",
     "args": [arr("i32", (100,), lambda i: i * i), arr("i32", (10,))],
     "outputs": [1], "expected": {1: [10, 20, 0, 0, 20, 10, 20, 0, 0, 20]}},
    {"name": "K4_reduce_stats", "kernel": "spec_k:reduce_stats",
     "args": [arr("f32", (1000,), lambda i: 0.5 * (i - 100)), arr("i32", (1,))],
     "outputs": [1], "expected": {"return": 199750.0, 1: [899]}},
    {"name": "K5_vec_ops", "kernel": "spec_k:vec_ops",
     "args": [arr("f32", (3, 3), [3, 4, 0, 1, 2, 2, 0, 0, 5]), arr("f32", (3, 3)), arr("f32", (3,))],
     "outputs": [1, 2], "tol": {"rtol": 1e-5, "atol": 1e-6},
     "expected": {1: [-4, 3, 1, -2, 1, 3, 0, 0, 6], 2: [630, 72, 30]}},
    {"name": "K6_fill2d_mode0", "kernel": "spec_k:fill2d",
     "args": [arr("i32", (3, 4)), 0], "outputs": [0],
     "expected": {0: [10 * i + j for i in range(3) for j in range(4)]}},
    {"name": "K6_fill2d_mode1", "kernel": "spec_k:fill2d",
     "args": [arr("i32", (3, 4)), 1], "outputs": [0],
     "expected": {0: [i - j for i in range(3) for j in range(4)]}},
    {"name": "K7_collatz", "kernel": "spec_k:collatz",
     "args": [arr("i32", (10,), lambda i: i + 1), arr("i32", (10,))], "outputs": [1],
     "expected": {1: [0, 1, 7, 2, 5, 8, 16, 3, 19, 6]}},
    {"name": "K8_factors", "kernel": "spec_k:factors",
     "args": [arr("i32", (10,)), arr("i32", (4, 3))], "outputs": [0, 1],
     "expected": {0: [2, 3, 2, 5, 2, 7, 2, 3, 2, 11],
                  1: [0 if i == 0 else 100 * i + j for i in range(4) for j in range(3)]}},
    {"name": "K9_poly_bits", "kernel": "spec_k:poly_bits",
     "args": [arr("f32", (4,), [0, 1, 2, -1]), arr("f32", (4,)),
              arr("u32", (3,), [5, 0xFFFFFFFF, 0x80000000]), arr("u32", (3,)), arr("i32", (3,))],
     "outputs": [1, 3, 4],
     "expected": {1: [4, 10, 26, 2], 3: [42, 0x80000007, 0x40000000], 4: [7, 287, 1]}},
    {"name": "K10_compact", "kernel": "spec_k:compact",
     "args": [arr("f32", (6,), [-1, 2, 0, 3.5, -4, 5]), arr("f32", (6,)), arr("i32", (1,))],
     "outputs": [1, 2], "sort": {1: 3},
     "expected": {1: [4.0, 7.0, 10.0, 0, 0, 0], 2: [3]}},
]
