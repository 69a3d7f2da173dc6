"""Cases for cases/dtypes_k.py."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


SMALL = [-128, -65, -1, 0, 1, 63, 64, 127]
USMALL = [0, 1, 100, 127, 128, 200, 255, 3]

CASES = [
    {"name": "dtypes_small_ints", "kernel": "dtypes_k:small_ints",
     "args": [arr("i8", (8,), SMALL), arr("i16", (8,), [v * 200 for v in SMALL]),
              arr("u8", (8,), USMALL), arr("u16", (8,), [v * 250 for v in USMALL]),
              arr("i8", (8,)), arr("i16", (8,)), arr("u8", (8,)), arr("u16", (8,)), arr("i64", (8,))],
     "outputs": [4, 5, 6, 7, 8]},
    {"name": "dtypes_big_ints", "kernel": "dtypes_k:big_ints",
     "args": [arr("i32", (6,), [0, 1, -1, 40000, -40000, 2147483647]),
              arr("i64", (6,), [0, 3, -3, 2 ** 31, -(2 ** 31) - 5, 3037000499]),
              arr("u32", (6,), [0, 1, 2 ** 31, 2 ** 32 - 1, 1431655765, 1431655766]),
              arr("u64", (6,), [0, 1, 2 ** 32, 2 ** 63, 2 ** 64 - 1, 12345678901]),
              arr("i32", (6,)), arr("i64", (6,)), arr("u32", (6,)), arr("u64", (6,))],
     "outputs": [4, 5, 6, 7]},
    {"name": "dtypes_scalar_args", "kernel": "dtypes_k:scalar_args",
     "args": [-100, -30000, -7, -(2 ** 40), 250, 65000, 4000000000, 2 ** 63 + 5, 1.5, 2.25,
              arr("i64", (11,)), arr("f64", (4,))],
     "outputs": [10, 11]},
    {"name": "dtypes_casts", "kernel": "dtypes_k:casts",
     "args": [arr("f64", (8,), [0.0, 0.4, -0.6, 2.5, -2.5, 7.99, -7.99, 100.25]), arr("i32", (8,)),
              arr("u8", (8,)), arr("i8", (8,)), arr("i32", (8,)), arr("f32", (8,)), arr("u32", (8,))],
     "outputs": [1, 2, 3, 4, 5, 6], "tol": {"rtol": 1e-6}},
    {"name": "dtypes_int_float_conv", "kernel": "dtypes_k:int_float_conv",
     "args": [arr("i64", (5,), [0, -1, 2 ** 40, -123456, 999]),
              arr("u32", (5,), [0, 2 ** 32 - 1, 2 ** 31, 7, 123456]), arr("f64", (5,)), arr("f32", (5,))],
     "outputs": [2, 3]},
    {"name": "dtypes_f64_precision", "kernel": "dtypes_k:f64_precision",
     "args": [3.0, arr("f64", (5,))], "outputs": [1], "tol": {"rtol": 1e-15}},
]
