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
        self.ops = [None] * n  # per thread: the warp operation it waits at (op, value, arg)
        self.results = [None] * n


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


def _exchange(block, w, lanes):
    """Every lane's result of the warp operation the live lanes of warp w wait at (CUDA's
    shfl.sync clamps: a source lane outside the warp, or absent, gives the lane its own value)."""
    ops = block.ops
    live = set(lanes)
    preds = {t: ops[t][1] != 0 for t in lanes if ops[t] is not None}
    for t in lanes:
        if ops[t] is None:
            continue
        op, value, arg = ops[t]
        lane, b = t - w, arg & 31
        if op == "ballot":
            block.results[t] = sum(1 << (u - w) for u, p in preds.items() if p)
        elif op == "all":
            block.results[t] = int(all(preds.values()))
        elif op == "any":
            block.results[t] = int(any(preds.values()))
        elif op == "match_any":  # the lanes holding this lane's value
            bits = sum(1 << (u - w) for u in lanes if ops[u] is not None and ops[u][1] == value)
            block.results[t] = bits - (1 << 32) if bits >= 1 << 31 else bits
        elif op == "match_all":  # the live lanes when all hold one value, else 0
            values = {ops[u][1] for u in lanes if ops[u] is not None}
            bits = sum(1 << (u - w) for u in lanes) if len(values) == 1 else 0
            block.results[t] = bits - (1 << 32) if bits >= 1 << 31 else bits
        else:
            src = b if op == "shuffle" else lane - b if op == "up" else lane + b
            inside = 0 <= src <= 31 and w + src in live
            block.results[t] = ops[w + src][1] if inside else value
    for t in lanes:
        ops[t] = None


def _release(block):
    """The threads that go on after a pass, or None when all have exited."""
    for w in range(0, block.n, 32):
        lanes = [t for t in range(w, min(w + 32, block.n)) if block.waiting[t] != "exited"]
        sites = {block.waiting[t] for t in lanes}
        if lanes and len(sites) == 1 and next(iter(sites))[0] == "warp":
            _exchange(block, w, lanes)
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
    # A barrier that reduces the predicates (sync_all / any / count_nonzero).
    count = sum(1 for t in live if block.ops[t] is not None and block.ops[t][1] != 0)
    for t in live:
        if block.ops[t] is not None:
            op = block.ops[t][0]
            block.results[t] = (int(count == len(live)) if op == "block_all" else
                                int(count > 0) if op == "block_any" else count)
            block.ops[t] = None
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


def _block_vote(op):
    def vote(predicate):
        raw = predicate.v if isinstance(predicate, Scalar) else predicate
        block = _block()
        if block is None:
            return Scalar(dt.i32, int(raw != 0))
        t = _tls.thread
        block.ops[t] = (op, raw, 0)
        _wait("block", None)
        return Scalar(dt.i32, block.results[t])
    return vote


def _warp_op(op, value, arg=0):
    """One lane's part of a warp operation: its result once every live lane of the warp has come
    (a serial thread is lane 0 of a warp of one)."""
    block = _block()
    raw = value.v if isinstance(value, Scalar) else value
    if block is None:
        if op in ("ballot", "all", "any"):
            return int(raw != 0)
        if op in ("match_any", "match_all"):
            return 1  # the one lane matches itself
        return raw
    t = _tls.thread
    block.ops[t] = (op, raw, arg)
    _wait("warp", op)
    return block.results[t]


def _shuffle_type(value, what):
    if isinstance(value, Scalar):
        t = value.dtype
    elif isinstance(value, float):
        t = dt.f32
    else:
        t = dt.i32
    if t.bits not in (32, 64):
        raise TypeError(f"qd.simt.subgroup.{what} moves 32- and 64-bit values, got {t}")
    return t


def _lane_arg(x):
    v = x.v if isinstance(x, Scalar) else int(x)
    return v & 0xFFFFFFFF


def _shuffler(op, what):
    def shuffle(value, index):
        t = _shuffle_type(value, what)
        return Scalar(t, _warp_op(op, value, _lane_arg(index)))
    shuffle.__name__ = what
    return shuffle


def _ballot(predicate):
    return Scalar(dt.u64, _warp_op("ballot", predicate))


def _ballot_first_n(predicate, n):
    p = predicate.v if isinstance(predicate, Scalar) else predicate
    if int(n) != 32:
        p = p if _thread_idx().v % 32 < int(n) else 0
    return Scalar(dt.u32, _warp_op("ballot", p))


def _vote(op):
    def vote(predicate):
        return Scalar(dt.i32, _warp_op(op, predicate))
    return vote


def _shuffle_xor(value, mask):
    t = _shuffle_type(value, "shuffle_xor")
    return Scalar(t, _warp_op("shuffle", value, (_thread_idx().v & 31) ^ _lane_arg(mask)))


def _elect():
    return Scalar(dt.i32, int(_thread_idx().v & 31 == 0))


def _lanemask(kind):
    def mask(lane):
        at = (1 << (_lane_arg(lane) & 31)) & 0xFFFFFFFF
        below = (at - 1) & 0xFFFFFFFF
        v = {"lt": below, "le": at | below, "eq": at, "gt": ~(at | below) & 0xFFFFFFFF,
             "ge": ~below & 0xFFFFFFFF}[kind]
        return Scalar(dt.u32, v)
    return mask


def _invocation_id():
    return Scalar(dt.i32, _thread_idx().v & 31)


block = _types.SimpleNamespace(sync=_sync, mem_fence=_fence, mem_sync=_fence,
                               thread_idx=_thread_idx, SharedArray=_shared_array,
                               sync_all_nonzero=_block_vote("block_all"),
                               sync_any_nonzero=_block_vote("block_any"),
                               sync_count_nonzero=_block_vote("block_count"))
def _full_mask(mask, what):
    m = mask.v if isinstance(mask, Scalar) else int(mask)
    if m & 0xFFFFFFFF != 0xFFFFFFFF:
        raise NotImplementedError(f"qd.simt.warp.{what} with a partial mask")


def _warp_vote(op):
    def vote(mask, predicate):
        _full_mask(mask, op)
        if op == "unique":  # vote.uni: all lanes' predicates the same
            a = _warp_op("all", predicate)
            n = _warp_op("any", predicate)
            return Scalar(dt.i32, int(a or not n))
        return Scalar(dt.i32, _warp_op("all" if op == "all_nonzero" else "any", predicate))
    return vote


def _warp_shfl(op, t, xor=False):
    def shfl(mask, value, offset):
        _full_mask(mask, "shfl")
        v = Scalar(t, value.v if isinstance(value, Scalar) else value)
        k = _lane_arg(offset)
        if xor:
            k = (_thread_idx().v & 31) ^ k
        return Scalar(t, _warp_op(op, v, k))
    return shfl


def _warp_ballot(predicate):
    return Scalar(dt.i32, _warp_op("ballot", predicate))


def _warp_match(op):
    def match(mask, value):
        _full_mask(mask, op)
        v = value.v if isinstance(value, Scalar) else int(value)
        v = ((int(v) + (1 << 31)) % (1 << 32)) - (1 << 31)  # as i32
        return Scalar(dt.i32, _warp_op(op, v))
    match.__name__ = op
    return match


def _active_mask():
    return Scalar(dt.i32, _warp_op("ballot", 1))


grid = _types.SimpleNamespace(mem_fence=_fence, memfence=_fence)
warp = _types.SimpleNamespace(
    sync=_warp_sync, all_nonzero=_warp_vote("all_nonzero"), any_nonzero=_warp_vote("any_nonzero"),
    unique=_warp_vote("unique"), ballot=_warp_ballot, active_mask=_active_mask,
    match_any=_warp_match("match_any"), match_all=_warp_match("match_all"),
    shfl_sync_i32=_warp_shfl("shuffle", dt.i32), shfl_sync_f32=_warp_shfl("shuffle", dt.f32),
    shfl_up_i32=_warp_shfl("up", dt.i32), shfl_up_f32=_warp_shfl("up", dt.f32),
    shfl_down_i32=_warp_shfl("down", dt.i32), shfl_down_f32=_warp_shfl("down", dt.f32),
    shfl_xor_i32=_warp_shfl("shuffle", dt.i32, xor=True))
subgroup = _types.SimpleNamespace(
    sync=_warp_sync, barrier=_warp_sync, invocation_id=_invocation_id, elect=_elect,
    group_size=lambda: 32, log2_group_size=lambda: 5,
    shuffle=_shuffler("shuffle", "shuffle"), broadcast=_shuffler("shuffle", "broadcast"),
    shuffle_up=_shuffler("up", "shuffle_up"), shuffle_down=_shuffler("down", "shuffle_down"),
    shuffle_xor=_shuffle_xor, ballot=_ballot, ballot_full_subgroup=_ballot,
    ballot_first_n=_ballot_first_n, _vote_all=_vote("all"), _vote_any=_vote("any"),
    **{f"lanemask_{k}": _lanemask(k) for k in ("lt", "le", "eq", "gt", "ge")})


def _install_library():
    """The tiled reductions, scans and votes, the block reductions and scans: @qd.func kernel
    code (simt_library.py)."""
    from . import simt_library
    for name in simt_library.__all__:
        setattr(subgroup, name, getattr(simt_library, name))
    for name in simt_library.__block__:
        setattr(block, name[len("block_"):], getattr(simt_library, name))
    from . import tiles
    globals().update(Tile16x16=tiles.Tile16x16, Tile32x32=tiles.Tile32x32)
