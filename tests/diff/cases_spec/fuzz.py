"""Cases for cases/fuzz_k.py: shrunk reproducers of divergences the kernel fuzzer found."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "fuzz_u1_static_place_add", "kernel": "fuzz_k:u1_static_place_add",
     "args": [arr("u1", (1,), [True])], "outputs": [0], "expected": {0: [False]}},
    {"name": "fuzz_u1_pow_neg", "kernel": "fuzz_k:u1_pow_neg",
     "args": [arr("u1", (3,), [False, False, True])], "outputs": [], "expected": {"return": 1}},
    {"name": "fuzz_ternary_side_effects", "kernel": "fuzz_k:ternary_side_effects",
     "args": [arr("i32", (3,), [1, 0, 0])], "outputs": [0], "expected": {0: [1, 5, 0]},
     "oracle_differs": "real Quadrants 1.3.3 builds both sides of `a if c else b`, so the "
                       "statements of a func called in the side not taken run too (x[2] becomes "
                       "10); docs/language.md: only one side runs"},
    {"name": "fuzz_any_all_small_vectors", "kernel": "fuzz_k:any_all_small_vectors",
     "args": [arr("i32", (3,), [0, 4, -1]), arr("i32", (3,))], "outputs": [1],
     "expected": {1: [1, 0, 0]}},
    {"name": "fuzz_vector_store_then_component", "kernel": "fuzz_k:vector_store_then_component",
     "args": [arr("i32", (2, 2), [1, 0, 0, 0])], "outputs": [0], "expected": {0: [2, 0, 0, 2]},
     "oracle_differs": "real Quadrants 1.3.3 reads a component of a vector ndarray element "
                       "stale after a store of the whole element (a[1].y becomes 1)"},
    {"name": "fuzz_vector_store_index_from_element",
     "kernel": "fuzz_k:vector_store_index_from_element",
     "args": [arr("u32", (2, 3, 2), [9, 0, 20, 20, 9, 3, 1, 2, 3, 4, 5, 6])], "outputs": [0],
     "expected": {0: [20, 20, 20, 20, 9, 3, 1, 2, 3, 4, 5, 6]}},
    {"name": "fuzz_callee_with_side_effects", "kernel": "fuzz_k:callee_with_side_effects",
     "args": [arr("f32", (3,)), arr("i32", (2,))], "outputs": [0, 1],
     "expected": {0: [2.0, 0.0, 0.0], 1: [2, 1]}},
    {"name": "fuzz_late_argument_load", "kernel": "fuzz_k:late_argument_load",
     "args": [arr("f32", (3,), [1.0, -1.0, -2.0])], "outputs": [0],
     "expected": {0: [0.0, 0.0, -2.0]}},
    {"name": "fuzz_atomic_then_read_same_element", "kernel": "fuzz_k:atomic_then_read_same_element",
     "args": [arr("u32", (3, 1), [10, 16, 2])], "outputs": [0],
     "expected": {"return": 17, 0: [10, 17, 2]},
     "oracle_differs": "real Quadrants 1.3.3 returns the element as read before the atomic (16)"},
    {"name": "fuzz_atomic_xor_zero_after_xor", "kernel": "fuzz_k:atomic_xor_zero_after_xor",
     "args": [arr("i64", (2,), [8, -325]), arr("u1", (2,), [0, 0])], "outputs": [0],
     "expected": {0: [8 ^ 13, -325]},
     "oracle_differs": "real Quadrants 1.3.3 loses the first xor when a no-op xor to the same "
                       "element follows (a[0] stays 8)"},
]
