"""Cases for cases/contract_k.py: compared exactly. Quadrants' CPU backend rounds every product
and sum (no fused multiply-add, fast_math or not), and the inputs are floats whose products are
not representable, so a compiler that fuses a multiply and an add gives other bits: the products'
difference is 0 unfused and the rounding error of a product fused, and the hull's collinear
points are popped unfused but may turn either way fused."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


def odd(i):  # floats with 24 significant bits: their products round
    return 1.0 + (i * 2654435761 % 8388607) / 8388608.0 * 0.999 + i * 0.37


def collinear(base):
    # Points s, t, p on one line through s with a slope of 1/3 (not a binary fraction): the
    # differences are rounded, the products of the orientation test are not exact.
    def init(k):
        i, axis = divmod(k, 2)
        x = (0.1 + 0.013 * i) * base
        return x if axis == 0 else x / 3.0 + 0.7
    return init


CASES = [
    {"name": "contract_products_difference", "kernel": "contract_k:products_difference",
     "args": [arr("f32", (16,), odd), arr("f32", (16,), lambda i: odd(i + 101) * 0.3),
              arr("f32", (16,), lambda i: 7.0)], "outputs": [2],
     "expected": {2: [0.0] * 16}},
    {"name": "contract_hull_turns", "kernel": "contract_k:hull_turns",
     "args": [arr("f32", (16, 2), collinear(1.0)), arr("f32", (16, 2), collinear(2.0)),
              arr("f32", (16, 2), collinear(3.7)), arr("f32", (16,)), arr("i32", (16,))],
     "outputs": [3, 4]},
    {"name": "contract_multiply_adds", "kernel": "contract_k:multiply_adds",
     "args": [arr("f32", (8, 3), odd), arr("f32", (8, 3), lambda i: odd(i + 57) - 1.3),
              arr("f32", (8,), lambda i: odd(i + 7) * 1e-3), arr("f32", (8, 3)), arr("f32", (8, 3)),
              arr("f64", (8,))], "outputs": [3, 4, 5]},
]
