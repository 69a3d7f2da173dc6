"""Cases for cases/probe_k.py."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


CASES = [
    {"name": "probe_empty", "kernel": "probe_k:empty", "args": [arr("f32", (3,), [1.0, 2.0, 3.0])],
     "outputs": [0]},
    {"name": "probe_mix", "kernel": "probe_k:mix",
     "args": [arr("f32", (5,), [1.0, -1.0, 2.0, 0.0, -3.5]),
              arr("f32", (5, 3), [0.5, 1.0, -1.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.5, 2.5, -0.5,
                                  3.0, 1.0, 2.0]),
              arr("f32", (5,))],
     "outputs": [2]},
]
