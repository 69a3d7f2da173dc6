"""Cases for cases/graph_k.py: graph kernels' qd.graph.do_while loops (see its docstring). The
expected values are the do-while's: the body runs once, then again while the flag is non-zero."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    # 3 passes with counter 3, 2, 1: acc[i] += 3i+1, 2i+1, i+1.
    {"name": "graph_countdown", "kernel": "graph_k:countdown",
     "args": [arr("i32", (), [3]), arr("i32", (5,), lambda i: 100 * i), arr("i32", (3,))],
     "outputs": [0, 1, 2],
     "expected": {0: [0], 1: [3, 109, 215, 321, 427], 2: [30, 3, 300]}},
    # Outer passes 3, 2, 1; the inner loop runs outer + 1 passes each (inner = o+1 .. 1); grid
    # starts from i * 100 (the loop before).
    {"name": "graph_nested", "kernel": "graph_k:nested",
     "args": [arr("i32", (), [3]), arr("i32", (), [-5]), arr("i32", (3, 4)), arr("i32", (4,))],
     "outputs": [0, 1, 2, 3],
     "expected": {0: [0], 1: [0], 2: [2, 2, 0, 0, 103, 104, 103, 100, 204, 206, 206, 204],
                  3: [204, 9, 60, 9]}},
    {"name": "graph_single_pass", "kernel": "graph_k:single_pass",
     "args": [arr("i32", (), [5]), arr("f32", (4,), [0.5, -1.0, 2.25, 3.0]), arr("i32", (2,))],
     "outputs": [0, 1, 2],
     "expected": {0: [0], 1: [2.0, -1.0, 5.5, 7.0], 2: [1, 7]}},
    {"name": "graph_dataclass_flag", "kernel": "graph_k:dataclass_flag", "params": ["s", "log"],
     "args": [{"dataclass": "Solver", "members": {
         "counter": arr("i32", (), [3]), "state": arr("f32", (4,), [8.0, -4.0, 2.0, 6.0])}},
         arr("i32", (4,), [-1, -1, -1, -1])],
     "outputs": ["0.counter", "0.state", 1],
     "expected": {"0.counter": [0], "0.state": [1.0, 1.25, 3.75, 6.0], 1: [99, 3, 6, 9]}},
    {"name": "graph_serial_head", "kernel": "graph_k:serial_head",
     "args": [arr("i32", (), [3]), arr("i32", ()), arr("i32", (2,))], "outputs": [0, 1, 2],
     "expected": {0: [0], 1: [13], 2: [33, 13]},
     "oracle_differs": "Quadrants 1.3.3 forwards the value of d[()] stored by the serial "
                       "statement before the do_while loop to the load in the body's first serial "
                       "statements, in every pass (log[0] = 30, not 10 + 11 + 12)"},
]
