"""Cases for cases/arith_k.py."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


A = [7, -7, 7, -7, 0, 1, -1, 100, -100, 2147483647, -2147483648, 13]
B = [2, 2, -2, -2, 3, -3, 3, 7, 7, -1, 3, -5]
F = [7.5, -7.5, 7.5, -7.5, 0.0, 1.25, -1.25, 100.0, -100.5, 3.0, -0.5, 13.0]
G = [2.0, 2.0, -2.0, -2.0, 3.0, -3.0, 0.5, 7.0, 7.0, -1.5, 0.25, -5.0]
N = 12
EPS = {"rtol": 1e-6, "atol": 1e-6}

CASES = [
    {"name": "arith_div_mod_signed", "kernel": "arith_k:div_mod_signed",
     "args": [arr("i32", (N,), A[:9] + [100, -100, 13]), arr("i32", (N,), B[:9] + [-1, 3, -5]),
              arr("i32", (N,)), arr("i32", (N,)), arr("f32", (N,)), arr("i32", (N,)), arr("i32", (N,))],
     "outputs": [2, 3, 4, 5, 6], "tol": EPS},
    {"name": "arith_div_mod_unsigned", "kernel": "arith_k:div_mod_unsigned",
     "args": [arr("u32", (6,), [7, 4000000000, 5, 0, 100, 2 ** 32 - 1]),
              arr("u32", (6,), [2, 3, 9, 5, 100, 16]), arr("u32", (6,)), arr("u32", (6,)),
              arr("i64", (6,))],
     "outputs": [2, 3, 4]},
    {"name": "arith_div_mod_float", "kernel": "arith_k:div_mod_float",
     "args": [arr("f32", (N,), F), arr("f32", (N,), G), arr("f32", (N,)), arr("f32", (N,)),
              arr("f32", (N,))],
     "outputs": [2, 3, 4], "tol": EPS},
    {"name": "arith_shifts", "kernel": "arith_k:shifts",
     "args": [arr("i32", (8,), [1, -1, 1000, -1000, 2147483647, -2147483648, 0x12345678, -77]),
              arr("u32", (8,), [1, 2 ** 32 - 1, 1000, 2 ** 31, 0x80000001, 12345, 0xDEADBEEF, 7]),
              arr("i8", (8,), [1, -1, 127, -128, 64, -64, 5, -5]),
              arr("i32", (8,)), arr("i32", (8,)), arr("u32", (8,)), arr("u32", (8,)), arr("i8", (8,)),
              arr("i32", (8,))],
     "outputs": [3, 4, 5, 6, 7, 8]},
    {"name": "arith_powers", "kernel": "arith_k:powers",
     "args": [arr("i32", (6,), [0, 1, -2, 3, 1291, -1291]),
              arr("f32", (6,), [1.0, 2.0, -0.5, 3.0, 0.25, -4.0]),
              arr("i32", (6,)), arr("f32", (6,)), arr("f32", (6,)), arr("u8", (6,))],
     "outputs": [2, 3, 4, 5], "tol": {"rtol": 1e-6}},
    {"name": "arith_float_pow", "kernel": "arith_k:float_pow",
     "args": [arr("f32", (5,), [2.0, 9.0, 0.5, 1.5, 4.0]), arr("f32", (5,), [0.5, 1.5, 2.0, -1.0, 0.0]),
              arr("f32", (5,)), arr("f32", (5,))],
     "outputs": [2, 3], "tol": {"rtol": 2e-6, "atol": 1e-6}},
    {"name": "arith_bits", "kernel": "arith_k:bits",
     "args": [arr("i32", (6,), [0, -1, 0x0F0F, -256, 12345, 2147483647]),
              arr("i32", (6,), [5, 0x7FFF, 0x00FF, 255, -12345, -2147483648]),
              arr("i32", (6,)), arr("i32", (6,)), arr("i32", (6,)), arr("i32", (6,)),
              arr("u16", (6,), [0, 1, 0xFFFF, 0x1234, 0x8000, 77]), arr("u16", (6,))],
     "outputs": [2, 3, 4, 5, 7]},
    {"name": "arith_promotion", "kernel": "arith_k:promotion",
     "args": [arr("i8", (1,), [-100]), arr("u8", (1,), [200]), arr("u32", (1,), [5]), arr("f64", (12,))],
     "outputs": [3]},
    {"name": "arith_compare_logic", "kernel": "arith_k:compare_logic",
     "args": [arr("i32", (7,), [0, 3, 5, 7, -1, 11, 3]), arr("i32", (7,), [0, 4, 5, 2, 6, 12, 0]),
              arr("i32", (7,)), arr("i32", (7,)), arr("i32", (7,)), arr("i32", (7,)), arr("i32", (7,)),
              arr("f32", (7,))],
     "outputs": [2, 3, 4, 5, 6, 7]},
    {"name": "arith_walrus_swap", "kernel": "arith_k:walrus_swap",
     "args": [arr("i32", (5,), [0, 1, -4, 10, 3]), arr("i32", (5,)), arr("i32", (5,)), arr("i32", (5,))],
     "outputs": [1, 2, 3]},
    {"name": "arith_aug_assign", "kernel": "arith_k:aug_assign",
     "args": [arr("i32", (5,), [0, 1, -17, 123, 9999]), arr("f32", (5,), [0.0, 1.5, -2.25, 10.0, -7.75]),
              arr("i32", (5,)), arr("f32", (5,))],
     "outputs": [2, 3], "tol": EPS},
    {"name": "arith_aug_cast", "kernel": "arith_k:aug_cast",
     "args": [arr("f32", (5,), [0.5, -0.5, 1.25, -3.75, 2.0]), arr("i32", (5,)), arr("u8", (5,))],
     "outputs": [1, 2]},
]
