"""Cases for cases/fields_k.py: kernels of data_oriented objects that read and write fields
(the compiled runs pass each field the instance reads as an array named by its member path)."""


def arr(dtype, shape, init=None):
    return {"array": dtype, "shape": shape, "init": init}


def particles(**extra):
    """Four particles in two batches; values are multiples of 1/8 (every sum is exact, so
    parallel atomics in any order give the same bits)."""
    fields = {
        "particles.pos": arr("f32", (4, 2, 3), lambda i: ((i * 5) % 9) / 8.0),
        "particles.vel": arr("f32", (4, 2, 3), lambda i: ((i * 3) % 7 - 3) / 4.0),
        "particles.rho": arr("f32", (4, 2)),
        "ng.active": arr("u1", (4, 2), lambda i: i % 3 != 1),
        "ng.idx": arr("i32", (4, 2)),
        "gravity": arr("f32", (2, 3), lambda i: [0.0, 0.0, -1.0, 0.5, 0.0, -2.0][i]),
        "mass": arr("f32", (4,), lambda i: i + 1.0),
        "grid.slot_size": arr("i32", (4, 2), lambda i: 9),
        "grid.slot_start": arr("i32", (4, 2), lambda i: -1),
    }
    fields.update(extra)
    return {"object": "Particles", "args": {"n": 4, "n_batch": 2}, "fields": fields}


CASES = [
    {"name": "fields_solver_step", "kernel": "fields_k:Particles.step", "params": ["self", "f"],
     "args": [particles(), 3],
     "outputs": ["0.particles.pos", "0.particles.vel", "0.particles.rho", "0.grid.slot_size",
                 "0.grid.slot_start"]},
    {"name": "fields_struct_copy", "kernel": "fields_k:Particles.reorder", "params": ["self"],
     "args": [particles(**{
         "reordered.pos": arr("f32", (4, 2, 3)), "reordered.vel": arr("f32", (4, 2, 3)),
         "reordered.rho": arr("f32", (4, 2), lambda i: -1.0),
         "particles.rho": arr("f32", (4, 2), lambda i: i * 0.5)})],
     "outputs": ["0.ng.idx", "0.reordered.pos", "0.reordered.vel", "0.reordered.rho", "0.mass"]},
    {"name": "fields_static_shapes", "kernel": "fields_k:Particles.stats", "params": ["self", "out"],
     "args": [particles(**{
         "reordered.pos": arr("f32", (4, 2, 3), lambda i: (i % 5) / 4.0),
         "reordered.rho": arr("f32", (4, 2), lambda i: (i * 7 % 8) * 0.125)}),
         arr("f32", (3,))],
     "outputs": [1]},
    {"name": "fields_bound_methods", "kernel": "fields_k:Chain.run", "params": ["self"],
     "args": [{"object": "Chain", "fields": {"out": arr("f32", (4,), lambda i: i * 0.25)}}],
     "outputs": ["0.out"]},
    {"name": "fields_local_struct", "kernel": "fields_k:local_struct", "params": ["out", "counts"],
     "args": [arr("f32", (16,)), arr("i32", (4,))], "outputs": [0, 1]},
    {"name": "fields_struct_field_to_func", "kernel": "fields_k:Particles.floor",
     "params": ["self", "height"], "args": [particles(), 0.5],
     "outputs": ["0.particles.pos", "0.particles.vel"]},
]
