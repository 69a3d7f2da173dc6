"""qd.simt: thread blocks run in lockstep between barriers.

A top-level loop with qd.loop_config(block_dim=B) runs its iterations as thread blocks: the
iterations [k*B, (k+1)*B) are block k, each iteration a thread. A block's threads are Python
threads of which exactly one runs at a time: each runs until it waits at a barrier or finishes;
then every thread of a warp (32 lanes) waiting at one qd.simt.warp.sync / subgroup.sync goes on,
else every live thread of the block must wait at the same qd.simt.block.sync, and all go on
(threads that wait at different kinds of barrier are CUDA's deadlock: an error here; two
block.sync calls are not told apart). The k-th
qd.simt.block.SharedArray a thread makes is the block's k-th shared array (zero-filled).
Memory fences are no-ops (one thread runs at a time)."""

import array
import threading
import types as _types

from . import dtypes as dt
from .ndarray import ArrayArg
from .values import Scalar

_tls = threading.local()


def _block():
    return getattr(_tls, "block", None)


class _Block:
    def __init__(self, n):
        self.n = n
        self.shared = []
        self.waiting = [None] * n  # per thread: None running, ("block"|"warp", site), "exited"
        self.go = [threading.Semaphore(0) for _ in range(n)]
        self.back = threading.Semaphore(0)
        self.error = None


def run_block(n, body):
    """Runs body(t) for the threads t of one block of n threads, in lockstep between barriers."""
    block = _Block(n)

    def thread_main(t):
        _tls.block = block
        _tls.thread = t
        _tls.shared_made = 0
        block.go[t].acquire()
        try:
            body(t)
        except BaseException as e:  # noqa: BLE001 - handed to the launching thread
            if block.error is None:
                block.error = e
        block.waiting[t] = "exited"
        block.back.release()

    threads = [threading.Thread(target=thread_main, args=(t,), daemon=True) for t in range(n)]
    for th in threads:
        th.start()
    try:
        running = list(range(n))
        while True:
            for t in running:
                block.go[t].release()
                block.back.acquire()
                if block.error is not None:
                    raise block.error
            running = _release(block)
            if running is None:
                break
    finally:
        if block.error is not None or any(w != "exited" for w in block.waiting):
            # Unblock the threads still waiting so they end (their body raises _Abort).
            block.error = block.error or RuntimeError("block aborted")
            for t in range(n):
                if block.waiting[t] != "exited":
                    block.go[t].release()
        for th in threads:
            th.join()


class _Abort(BaseException):
    pass


def _release(block):
    """The threads that go on after a pass, or None when all have exited."""
    for w in range(0, block.n, 32):
        lanes = [t for t in range(w, min(w + 32, block.n)) if block.waiting[t] != "exited"]
        sites = {block.waiting[t] for t in lanes}
        if lanes and len(sites) == 1 and next(iter(sites))[0] == "warp":
            for t in lanes:
                block.waiting[t] = None
            return lanes
    live = [t for t in range(block.n) if block.waiting[t] != "exited"]
    if not live:
        return None
    sites = {block.waiting[t] for t in live}
    if len(sites) != 1 or next(iter(sites))[0] != "block":
        raise RuntimeError("the threads of a block wait at different barriers "
                           f"({sorted(map(str, sites))}): CUDA deadlocks here")
    for t in live:
        block.waiting[t] = None
    return live


def _wait(kind, site):
    block = _block()
    if block is None:
        return  # serial code: one thread, nothing to wait for
    t = _tls.thread
    block.waiting[t] = (kind, site)
    block.back.release()
    block.go[t].acquire()
    if block.error is not None:
        raise _Abort()


def _thread_idx():
    block = _block()
    if block is None:
        if getattr(_tls, "in_loop", 0):
            raise NotImplementedError("qd.simt.block.thread_idx() in a loop without "
                                      "qd.loop_config(block_dim=...) is not supported by the "
                                      "reference stand-in")
        return Scalar(dt.i32, 0)
    return Scalar(dt.i32, _tls.thread)


def _shared_array(shape, dtype):
    block = _block()
    if block is None:
        raise NotImplementedError("qd.simt.block.SharedArray outside a loop with "
                                  "qd.loop_config(block_dim=...)")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    k = _tls.shared_made
    _tls.shared_made += 1
    elem_shape = ()
    scalar = dtype
    if hasattr(dtype, "shape") and hasattr(dtype, "dtype"):  # a vector / matrix type
        elem_shape, scalar = tuple(dtype.shape), dtype.dtype
    if k == len(block.shared):
        count = 1
        for n in shape + elem_shape:
            count *= n
        fmt = dt.format_of(scalar)
        buf = array.array(fmt, [0] * count) if fmt != "?" else bytearray(count)
        mv = memoryview(buf).cast("B").cast(fmt, shape + elem_shape)
        ann = _types.SimpleNamespace(dtype=dtype, ndim=len(shape))
        block.shared.append(((shape, elem_shape, scalar), ArrayArg(mv, ann, "SharedArray")))
    made, arr = block.shared[k]
    if made != (shape, elem_shape, scalar):
        raise RuntimeError("the threads of a block made different shared arrays")
    return arr


def _sync():
    _wait("block", None)


def _warp_sync(mask=0xFFFFFFFF):
    m = mask.v if isinstance(mask, Scalar) else int(mask)
    if m & 0xFFFFFFFF != 0xFFFFFFFF:
        raise NotImplementedError("qd.simt.warp.sync with a partial mask")
    _wait("warp", None)


def _fence():
    return None


def _invocation_id():
    return Scalar(dt.u32, _thread_idx().v & 31)


block = _types.SimpleNamespace(sync=_sync, mem_fence=_fence, mem_sync=_fence,
                               thread_idx=_thread_idx, SharedArray=_shared_array)
grid = _types.SimpleNamespace(mem_fence=_fence, memfence=_fence)
warp = _types.SimpleNamespace(sync=_warp_sync)
subgroup = _types.SimpleNamespace(sync=_warp_sync, barrier=_warp_sync,
                                  invocation_id=_invocation_id)
