"""Cases for cases/structs_k.py: dataclass parameters (the compiled runs pass their members by
the paths the store lists: Kernel.arguments()), IntEnum members and trace-time Python."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


def state(n=5):
    return {"dataclass": "State", "members": {
        "a": arr("f32", (n,), lambda i: i * 0.5 - 1.0),
        "unused": arr("f64", (2, 2)),
        "inner": {"dataclass": "Inner", "members": {
            "u": arr("f32", (n,), lambda i: 0.25 * i),
            "w": arr("i32", (n,), lambda i: 3 - i)}},
        "n": 4,
        "m": arr("f32", (n, 3), lambda i: (i % 7) - 2.5)}}


CASES = [
    {"name": "structs_dataclass_members", "kernel": "structs_k:dataclass_members",
     "params": ["s", "out"], "args": [state(), arr("f32", (5,))],
     "outputs": [1, "0.inner.u"]},
    {"name": "structs_dataclass_atomic", "kernel": "structs_k:dataclass_atomic",
     "params": ["s"], "args": [state(6)], "outputs": ["0.inner.u"]},
    {"name": "structs_layouts", "kernel": "structs_k:laid_out", "params": ["s", "x", "out"],
     "args": [{"dataclass": "Laid", "members": {
         "a": {**arr("f32", (3, 4), lambda i: i * 0.5), "layout": (1, 0)},
         "b": {**arr("i32", (2, 3, 4), lambda i: i), "layout": (2, 0, 1)}}},
         {**arr("f32", (3, 5), lambda i: i - 7.0), "layout": (1, 0)}, arr("i32", (3,))],
     "outputs": ["0.a", "0.b", 1, 2]},
    {"name": "structs_final_member", "kernel": "structs_k:final_member", "params": ["s"],
     "args": [{"dataclass": "Scaled", "members": {
         "x": arr("f32", (4,), lambda i: i + 0.5), "scale": 3.0, "n": 2}}],
     "outputs": ["0.x"], "expected": {"0.x": [3.5, 6.5, 9.5, 12.5]}},
    {"name": "structs_config_object", "kernel": "structs_k:config_object", "params": ["cfg", "x"],
     "args": [{"object": "Config", "args": {"flag": True, "n": 3}}, arr("i32", (4,))],
     "outputs": [1], "expected": {1: [6, 9, 12, 15]}},
    {"name": "structs_wide_dataclass", "kernel": "structs_k:wide_dataclass", "params": ["w", "out"],
     "args": [{"dataclass": "Wide", "members": {
         f"a{j:02d}": arr("f32", (4,), lambda i, j=j: i + 0.25 * j) for j in range(60)}},
         arr("f32", (4,))],
     "outputs": [1]},
    {"name": "structs_trace_python", "kernel": "structs_k:trace_python",
     "args": [arr("i32", (16,)), arr("i32", (3, 3))], "outputs": [0, 1]},
]
