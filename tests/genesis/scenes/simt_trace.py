"""Recording Genesis's block-level (qd.simt) kernels on the CPU, where Quadrants refuses them.

Quadrants raises at trace time for qd.simt.block.* and qd.simt.grid.* on the CPU ("... is not
supported for arch x64"), and aborts the process when it compiles a subgroup operation for it.
`enable()` makes the trace go as on CUDA (the same internal calls; the subgroup size 32) and
then skips the launch of every kernel whose trace used qd.simt: it is recorded (the recorder
hooks the trace, Kernel.materialize) but never compiled or run by Quadrants. The run's numbers
are therefore meaningless after the first such kernel; only the calls it makes (their
instances) are the point. A store built from that record then runs the kernels itself: qdrt's
bridge serves them, block-level code included, so Quadrants never traces them.
"""
import functools
import sys

skipped = {}
_NOT_COMPILED = object()


def enable():
    from quadrants.lang import impl
    import importlib
    kernel_module = importlib.import_module("quadrants.lang.kernel")
    from quadrants.lang.simt import block, grid, subgroup, warp

    simt_kernels = set()

    def mark():
        c = impl.get_runtime().compiling_callable
        simt_kernels.add(id(c))  # the KernelCxx being traced (launch_kernel's kernel_cpp)

    def as_cuda(name, internal):
        def f(*args):
            mark()
            return impl.call_internal(internal, *args, with_runtime_context=False)
        f.__name__ = name
        return f

    block.sync = as_cuda("sync", "block_barrier")
    block.mem_fence = as_cuda("mem_fence", "block_mem_fence")
    block.thread_idx = as_cuda("thread_idx", "block_thread_idx")
    grid.mem_fence = as_cuda("mem_fence", "grid_mem_fence")
    subgroup.group_size = lambda: 32
    subgroup.log2_group_size = lambda: 5
    for module in (subgroup, warp):
        for name in dir(module):
            f = getattr(module, name)
            if name.startswith("_") or not callable(f) or getattr(f, "__module__", "") != module.__name__:
                continue
            if name in ("group_size", "log2_group_size"):
                continue

            def marking(*a, _f=f, **k):
                mark()
                return _f(*a, **k)
            setattr(module, name, functools.wraps(f)(marking))
    original_init = block.SharedArray.__init__

    def shared_init(self, *a, **k):
        mark()
        original_init(self, *a, **k)
    block.SharedArray.__init__ = shared_init

    # Tiles (qd.simt.Tile16x16 / Tile32x32) refuse the CPU when they resolve their class.
    from quadrants.lang.simt import _tile

    def resolve(self, dtype):
        mark()
        return _tile._make_tile(self._N, dtype if dtype is not None else impl.get_runtime().default_fp)
    _tile._TileProxy._resolve = resolve

    original_launch = kernel_module.Kernel.launch_kernel

    def launch_kernel(self, key, kernel_cpp, compiled_kernel_data, *py_args, **kwargs):
        if id(kernel_cpp) in simt_kernels:
            name = getattr(self.func, "__qualname__", str(self.func))
            skipped[name] = skipped.get(name, 0) + 1
            self._last_compiled_kernel_data = _NOT_COMPILED  # what __call__ caches per key
            return None
        return original_launch(self, key, kernel_cpp, compiled_kernel_data, *py_args, **kwargs)
    kernel_module.Kernel.launch_kernel = launch_kernel

    import atexit
    atexit.register(lambda: print(f"simt_trace: skipped launches {sorted(skipped.items())}",
                                  file=sys.stderr))
