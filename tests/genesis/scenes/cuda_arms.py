"""Genesis's CUDA arms of the rigid solver, taken on the CPU where Quadrants can run them.

On CUDA, Genesis 1.4.5 configures its rigid solver differently (RigidSolver._build_static_config
bakes the choices into `rigid_config`, the qd.template() config object its kernels read): among
others the decomposed constraint solver, whose iterations are a graph kernel
(solver_breakdown._kernel_solve_graph, `qd.graph.do_while`), and the kernels' own
`qd.static(rigid_config.backend == gs.cuda)` arms. `force(gs)`, called after gs.init(backend=
gs.cpu) and before the scene is built, makes the solver configure itself as on an H200 (132 SMs,
227 KiB of shared memory per block, sm_90), and then turns off the arms that need block-level
SIMT code (qd.simt.block.sync, shared arrays, subgroup operations, register tiles), which
Quadrants runs on CUDA only: the level sweep, the tiled and cooperative mass-matrix and constraint
kernels, the tiled island seed. `force(gs, simt=True)` keeps those, and makes the collider take its
CUDA arms too (the split narrowphase, the cooperative contact dedup), for a store to run.
"""
import contextlib

# An H200, as torch reports it (what _build_static_config sizes its GPU arms from).
H200 = dict(multi_processor_count=132, shared_memory_per_multiprocessor=233472,
            shared_memory_per_block_optin=232448, max_threads_per_multi_processor=2048,
            warp_size=32, major=9, minor=0)

# The arms that need block-level SIMT code (Quadrants: "... is not supported for arch x64").
SIMT_ARMS = ("enable_level_sweep", "enable_tiled_cholesky_mass_matrix", "mass_matrix_fits_shared",
             "enable_register_tiled_mass", "enable_fused_smooth_acc_solve",
             "enable_tiled_island_seed", "has_scalar_seed_factor",
             "enable_cooperative_constraint_kernels", "enable_cooperative_noslip")



class _Properties:
    def __init__(self, values):
        self.__dict__.update(values)


@contextlib.contextmanager
def _as_cuda(gs):
    """gs.backend is gs.cuda, and torch and Quadrants answer as an H200, for the duration."""
    import torch
    import quadrants as qd
    impl = qd.lang.impl
    saved = (gs.backend, torch.cuda.is_available, torch.cuda.get_device_properties,
             torch.cuda.current_device, impl.get_max_shared_memory_bytes)
    gs.backend = gs.cuda
    torch.cuda.is_available = lambda: True
    torch.cuda.get_device_properties = lambda *a, **k: _Properties(H200)
    torch.cuda.current_device = lambda: 0
    impl.get_max_shared_memory_bytes = lambda **k: H200["shared_memory_per_block_optin"]
    try:
        yield
    finally:
        (gs.backend, torch.cuda.is_available, torch.cuda.get_device_properties,
         torch.cuda.current_device, impl.get_max_shared_memory_bytes) = saved


def force(gs, prefer_decomposed=1, simt=False):
    """Configure every rigid solver built from now on as on CUDA, less SIMT_ARMS (with `simt`:
    with them, as Genesis chooses them on an H200, register tiles included; Quadrants cannot run
    those on the CPU, see simt_trace.py); `prefer_decomposed`: 1 the decomposed solver (the graph
    kernel), 0 the monolithic one."""
    import genesis.utils.array_class as array_class
    import genesis.engine.solvers.rigid.rigid_solver as rigid_solver

    original_build = rigid_solver.RigidSolver._build_static_config
    original_config = array_class.RigidSimStaticConfig
    chosen = {}

    def config(**values):
        values["backend"] = gs.cuda  # the kernels' own qd.static(backend) checks: their CUDA arm
        if not simt:
            for arm in SIMT_ARMS:
                values[arm] = False
        values["prefer_decomposed_solver"] = prefer_decomposed
        chosen.update(values)
        return original_config(**values)

    def build(self):
        with _as_cuda(gs):
            array_class.RigidSimStaticConfig = config
            try:
                return original_build(self)
            finally:
                array_class.RigidSimStaticConfig = original_config

    rigid_solver.RigidSolver._build_static_config = build
    if simt:
        # The collider decides its CUDA arms in its constructor (the split narrowphase, the
        # cooperative contact dedup: block-level code, qd.simt.grid.mem_fence).
        import genesis.engine.solvers.rigid.collider.collider as collider
        original_init = collider.Collider.__init__

        def init(self, *args, **kwargs):
            with _as_cuda(gs):
                original_init(self, *args, **kwargs)
            chosen["collider.split_narrowphase"] = self._use_split_narrowphase
            chosen["collider.coop_dedup"] = self._use_coop_dedup

        collider.Collider.__init__ = init
    return chosen
