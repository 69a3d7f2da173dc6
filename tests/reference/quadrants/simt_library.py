"""qd.simt.subgroup's tiled reductions, scans and votes and qd.simt.block's reductions and scans
as kernel code (@qd.func), written as Quadrants writes them in its simt/reductions.py,
simt/subgroup.py and simt/block.py (the same shuffles, barriers and operations in the same order,
so floats combine in the same order): the stand-in interprets them like any func."""

import math

import quadrants as qd

from .values import Scalar

__all__ = [
    "reduce_add_tiled", "reduce_min_tiled", "reduce_max_tiled",
    "reduce_all_add_tiled", "reduce_all_min_tiled", "reduce_all_max_tiled",
    "reduce_add", "reduce_min", "reduce_max", "reduce_all_add", "reduce_all_min", "reduce_all_max",
    "inclusive_add_tiled", "inclusive_mul_tiled", "inclusive_min_tiled", "inclusive_max_tiled",
    "inclusive_and_tiled", "inclusive_or_tiled", "inclusive_xor_tiled",
    "inclusive_add", "inclusive_mul", "inclusive_min", "inclusive_max", "inclusive_and",
    "inclusive_or", "inclusive_xor",
    "segmented_reduce_add_tiled", "segmented_reduce_min_tiled", "segmented_reduce_max_tiled",
    "all_true_tiled", "any_true_tiled", "all_true", "any_true",
    "exclusive_add_tiled", "exclusive_mul_tiled", "exclusive_min_tiled", "exclusive_max_tiled",
    "exclusive_and_tiled", "exclusive_or_tiled", "exclusive_xor_tiled",
    "exclusive_add", "exclusive_mul", "exclusive_min", "exclusive_max", "exclusive_and",
    "exclusive_or", "exclusive_xor", "all_equal_tiled", "all_equal", "broadcast_first",
    "bitonic_sort_kv_tiled", "bitonic_sort_kv",
]

# qd.simt.block's (installed as block.<name> without the "block_" prefix).
__block__ = [
    "block_reduce", "block_reduce_all", "block_reduce_add", "block_reduce_min",
    "block_reduce_max", "block_reduce_all_add", "block_reduce_all_min", "block_reduce_all_max",
    "block_inclusive_scan", "block_inclusive_add", "block_inclusive_min", "block_inclusive_max",
    "block_exclusive_scan", "block_exclusive_add", "block_exclusive_min", "block_exclusive_max",
]


@qd.func
def _op(a, b, op: qd.template()):
    """op(a, b): op is "add", "mul", ... or a @qd.func of two values."""
    r = a
    if qd.static(not isinstance(op, str)):
        r = op(a, b)
    if qd.static(op == "add"):
        r = a + b
    if qd.static(op == "mul"):
        r = a * b
    if qd.static(op == "min"):
        r = qd.min(a, b)
    if qd.static(op == "max"):
        r = qd.max(a, b)
    if qd.static(op == "and"):
        r = a & b
    if qd.static(op == "or"):
        r = a | b
    if qd.static(op == "xor"):
        r = a ^ b
    return r


@qd.func
def _reduce_tiled(value, op: qd.template(), log2_size: qd.template()):
    # Offsets halving from 2**(log2_size-1): lane 0 combines in this order.
    for i in qd.static(range(log2_size)):
        offset = qd.static(1 << (log2_size - 1 - i))
        value = _op(value, qd.simt.subgroup.shuffle_down(value, qd.u32(offset)), op)
    return value


@qd.func
def _reduce_all_tiled(value, op: qd.template(), log2_size: qd.template()):
    lane = qd.simt.subgroup.invocation_id()
    for i in qd.static(range(log2_size)):
        mask = qd.static(1 << i)
        value = _op(value, qd.simt.subgroup.shuffle(value, qd.u32(lane ^ mask)), op)
    return value


@qd.func
def _inclusive_scan_tiled(value, op: qd.template(), log2_size: qd.template()):
    lane_in_group = qd.simt.subgroup.invocation_id() & qd.static((1 << log2_size) - 1)
    for i in qd.static(range(log2_size)):
        offset = qd.static(1 << i)
        partner = qd.simt.subgroup.shuffle_up(value, qd.u32(offset))
        if lane_in_group >= offset:
            value = _op(partner, value, op)
    return value


@qd.func
def _segment_head_distance_tiled(head_flag, log2_size: qd.template()):
    full_mask = qd.simt.subgroup.ballot(qd.i32(head_flag != 0))
    lane = qd.simt.subgroup.invocation_id()
    half_base = qd.u32(lane) & qd.u32(~31 & 0xFFFFFFFF)
    head_mask = qd.u32(full_mask >> qd.u64(half_base))
    lane_in_half = qd.i32(lane) - qd.i32(half_base)
    group_base = qd.u32(lane_in_half) & qd.u32(qd.static(~((1 << log2_size) - 1) & 0xFFFFFFFF))
    bits_in_group = qd.u32(qd.static((2 ** (1 << log2_size) - 1) & 0xFFFFFFFF))
    group_mask = bits_in_group << group_base
    effective_mask = (head_mask & group_mask) | (qd.u32(1) << group_base)
    inclusive_mask = qd.u32(0xFFFFFFFF) >> qd.u32(qd.i32(31) - lane_in_half)
    lower = effective_mask & inclusive_mask
    segment_head = qd.i32(31) - qd.i32(qd.math.clz(lower))
    return lane_in_half - segment_head


@qd.func
def _segmented_tiled(value, head_flag, op: qd.template(), log2_size: qd.template()):
    distance = _segment_head_distance_tiled(head_flag, log2_size)
    for i in qd.static(range(log2_size)):
        offset = qd.static(1 << i)
        partner = qd.simt.subgroup.shuffle_up(value, qd.u32(offset))
        if distance >= offset:
            value = _op(value, partner, op)
    return value


@qd.func
def _vote_tiled(predicate, all_: qd.template(), log2_size: qd.template()):
    p = qd.i32(predicate != 0)
    for i in qd.static(range(log2_size)):
        mask = qd.static(1 << i)
        lane = qd.simt.subgroup.invocation_id()
        if qd.static(all_):
            p = p & qd.simt.subgroup.shuffle(p, qd.u32(lane ^ mask))
        else:
            p = p | qd.simt.subgroup.shuffle(p, qd.u32(lane ^ mask))
    return p


@qd.func
def reduce_add_tiled(value, log2_size: qd.template()):
    return _reduce_tiled(value, "add", log2_size)


@qd.func
def reduce_add(value):
    return _reduce_tiled(value, "add", 5)


@qd.func
def reduce_all_add_tiled(value, log2_size: qd.template()):
    return _reduce_all_tiled(value, "add", log2_size)


@qd.func
def reduce_all_add(value):
    return _reduce_all_tiled(value, "add", 5)


@qd.func
def segmented_reduce_add_tiled(value, head_flag, log2_size: qd.template()):
    return _segmented_tiled(value, head_flag, "add", log2_size)


@qd.func
def reduce_min_tiled(value, log2_size: qd.template()):
    return _reduce_tiled(value, "min", log2_size)


@qd.func
def reduce_min(value):
    return _reduce_tiled(value, "min", 5)


@qd.func
def reduce_all_min_tiled(value, log2_size: qd.template()):
    return _reduce_all_tiled(value, "min", log2_size)


@qd.func
def reduce_all_min(value):
    return _reduce_all_tiled(value, "min", 5)


@qd.func
def segmented_reduce_min_tiled(value, head_flag, log2_size: qd.template()):
    return _segmented_tiled(value, head_flag, "min", log2_size)


@qd.func
def reduce_max_tiled(value, log2_size: qd.template()):
    return _reduce_tiled(value, "max", log2_size)


@qd.func
def reduce_max(value):
    return _reduce_tiled(value, "max", 5)


@qd.func
def reduce_all_max_tiled(value, log2_size: qd.template()):
    return _reduce_all_tiled(value, "max", log2_size)


@qd.func
def reduce_all_max(value):
    return _reduce_all_tiled(value, "max", 5)


@qd.func
def segmented_reduce_max_tiled(value, head_flag, log2_size: qd.template()):
    return _segmented_tiled(value, head_flag, "max", log2_size)


@qd.func
def inclusive_add_tiled(value, log2_size: qd.template()):
    return _inclusive_scan_tiled(value, "add", log2_size)


@qd.func
def inclusive_add(value):
    return _inclusive_scan_tiled(value, "add", 5)


@qd.func
def inclusive_mul_tiled(value, log2_size: qd.template()):
    return _inclusive_scan_tiled(value, "mul", log2_size)


@qd.func
def inclusive_mul(value):
    return _inclusive_scan_tiled(value, "mul", 5)


@qd.func
def inclusive_min_tiled(value, log2_size: qd.template()):
    return _inclusive_scan_tiled(value, "min", log2_size)


@qd.func
def inclusive_min(value):
    return _inclusive_scan_tiled(value, "min", 5)


@qd.func
def inclusive_max_tiled(value, log2_size: qd.template()):
    return _inclusive_scan_tiled(value, "max", log2_size)


@qd.func
def inclusive_max(value):
    return _inclusive_scan_tiled(value, "max", 5)


@qd.func
def inclusive_and_tiled(value, log2_size: qd.template()):
    return _inclusive_scan_tiled(value, "and", log2_size)


@qd.func
def inclusive_and(value):
    return _inclusive_scan_tiled(value, "and", 5)


@qd.func
def inclusive_or_tiled(value, log2_size: qd.template()):
    return _inclusive_scan_tiled(value, "or", log2_size)


@qd.func
def inclusive_or(value):
    return _inclusive_scan_tiled(value, "or", 5)


@qd.func
def inclusive_xor_tiled(value, log2_size: qd.template()):
    return _inclusive_scan_tiled(value, "xor", log2_size)


@qd.func
def inclusive_xor(value):
    return _inclusive_scan_tiled(value, "xor", 5)


@qd.func
def all_true_tiled(predicate, log2_size: qd.template()):
    return _vote_tiled(predicate, True, log2_size)


@qd.func
def all_true(predicate):
    return _vote_tiled(predicate, True, 5)


@qd.func
def any_true_tiled(predicate, log2_size: qd.template()):
    return _vote_tiled(predicate, False, log2_size)


@qd.func
def any_true(predicate):
    return _vote_tiled(predicate, False, 5)


@qd.func
def all_equal_tiled(value, log2_size: qd.template()):
    lane = qd.simt.subgroup.invocation_id()
    group_base = qd.u32(lane) & qd.u32(qd.static(~((1 << log2_size) - 1) & 0xFFFFFFFF))
    base = qd.simt.subgroup.shuffle(value, group_base)
    return _vote_tiled(value == base, True, log2_size)


@qd.func
def all_equal(value):
    return all_equal_tiled(value, 5)


@qd.func
def broadcast_first(value):
    return qd.simt.subgroup.broadcast(value, qd.u32(0))


@qd.func
def bitonic_sort_kv_tiled(key, value, log2_size: qd.template()):
    """Quadrants' sorting.py: the bitonic network over each group of 2**log2_size lanes."""
    lane = qd.simt.subgroup.invocation_id()
    tile_mask = qd.static((1 << log2_size) - 1)
    for k_log2 in qd.static(range(1, log2_size + 1)):
        k_mask = qd.static(1 << k_log2)
        for j_log2 in qd.static(range(k_log2 - 1, -1, -1)):
            j_mask = qd.static(1 << j_log2)
            partner = qd.u32(lane) ^ qd.u32(j_mask)
            their_key = qd.simt.subgroup.shuffle(key, partner)
            their_value = qd.simt.subgroup.shuffle(value, partner)
            i_am_low = (lane & j_mask) == 0
            ascending = (lane & k_mask & tile_mask) == 0
            take_min = i_am_low == ascending
            their_lt_mine = (their_key < key) or (their_key == key and their_value < value)
            if take_min:
                if their_lt_mine:
                    key = their_key
                    value = their_value
            else:
                if not their_lt_mine and (their_key != key or their_value != value):
                    key = their_key
                    value = their_value
    return key, value


@qd.func
def bitonic_sort_kv(key, value):
    return bitonic_sort_kv_tiled(key, value, 5)


def _min_identity(value):
    """The largest value of value's type (+inf for floats): exclusive_min's identity."""
    t = value.dtype
    if t.is_float:
        return Scalar(t, math.inf)
    return Scalar(t, (1 << (t.bits - 1)) - 1 if t.is_signed else (1 << t.bits) - 1)


def _max_identity(value):
    """The smallest value of value's type (-inf for floats; 0 unsigned): exclusive_max's."""
    t = value.dtype
    if t.is_float:
        return Scalar(t, -math.inf)
    return Scalar(t, -(1 << (t.bits - 1)) if t.is_signed else 0)


@qd.func
def _exclusive_scan_tiled(value, op: qd.template(), identity, log2_size: qd.template()):
    lane_in_group = qd.simt.subgroup.invocation_id() & qd.static((1 << log2_size) - 1)
    prev = qd.simt.subgroup.shuffle_up(value, qd.u32(1))
    if lane_in_group == 0:
        prev = identity
    return _inclusive_scan_tiled(prev, op, log2_size)


@qd.func
def _identity(value, op: qd.template()):
    """op's identity in value's type, as Quadrants builds it."""
    r = value - value
    if qd.static(op == "mul"):
        r = value - value + 1
    if qd.static(op == "and"):
        r = ~(value ^ value)
    if qd.static(op == "or" or op == "xor"):
        r = value ^ value
    if qd.static(op == "min"):
        r = _min_identity(value)
    if qd.static(op == "max"):
        r = _max_identity(value)
    return r


def _exclusive(op):
    @qd.func
    def tiled(value, log2_size: qd.template()):
        return _exclusive_scan_tiled(value, op, _identity(value, op), log2_size)

    @qd.func
    def whole(value):
        return _exclusive_scan_tiled(value, op, _identity(value, op), 5)
    return tiled, whole


exclusive_add_tiled, exclusive_add = _exclusive("add")
exclusive_mul_tiled, exclusive_mul = _exclusive("mul")
exclusive_min_tiled, exclusive_min = _exclusive("min")
exclusive_max_tiled, exclusive_max = _exclusive("max")
exclusive_and_tiled, exclusive_and = _exclusive("and")
exclusive_or_tiled, exclusive_or = _exclusive("or")
exclusive_xor_tiled, exclusive_xor = _exclusive("xor")


# --- qd.simt.block (Quadrants' simt/block.py) ----------------------------------------------


@qd.func
def block_reduce(value, block_dim: qd.template(), op: qd.template(), dtype: qd.template()):
    """Each warp's shuffle_down tree, warp aggregates staged in shared memory, thread 0 folds them
    in warp order; valid in thread 0."""
    NUM = qd.static(block_dim // 32)
    agg = _reduce_tiled(value, op, 5)
    result = agg
    if qd.static(NUM > 1):
        tid = qd.simt.block.thread_idx()
        warp = tid // 32
        lane = tid & 31
        shared = qd.simt.block.SharedArray((NUM,), dtype)
        if lane == 0:
            shared[warp] = agg
        qd.simt.block.sync()
        if tid == 0:
            result = shared[0]
            for w in qd.static(range(1, NUM)):
                result = _op(result, shared[w], op)
    return result


@qd.func
def block_reduce_all(value, block_dim: qd.template(), op: qd.template(), dtype: qd.template()):
    result = block_reduce(value, block_dim, op, dtype)
    bcast = qd.simt.block.SharedArray((1,), dtype)
    if qd.simt.block.thread_idx() == 0:
        bcast[0] = result
    qd.simt.block.sync()
    return bcast[0]


@qd.func
def _block_scan(scan, value, block_dim: qd.template(), op: qd.template(), exclusive: qd.template(),
                identity, dtype: qd.template()):
    """The block stage of a scan: `scan` is the warp's scan of `value`."""
    NUM = qd.static(block_dim // 32)
    if qd.static(NUM > 1):
        tid = qd.simt.block.thread_idx()
        warp = tid // 32
        lane = tid & 31
        shared = qd.simt.block.SharedArray((NUM,), dtype)
        if lane == 31:
            if qd.static(exclusive):
                shared[warp] = _op(scan, value, op)
            else:
                shared[warp] = scan
        qd.simt.block.sync()
        block_aggregate = shared[0]
        warp_prefix = block_aggregate
        if qd.static(exclusive):
            warp_prefix = identity
        for w in qd.static(range(1, NUM)):
            if warp == w:
                warp_prefix = block_aggregate
            addend = shared[w]
            block_aggregate = _op(block_aggregate, addend, op)
        if warp != 0:
            scan = _op(warp_prefix, scan, op)
    return scan


@qd.func
def block_inclusive_scan(value, block_dim: qd.template(), op: qd.template(),
                         dtype: qd.template()):
    return _block_scan(_inclusive_scan_tiled(value, op, 5), value, block_dim, op, False, value,
                       dtype)


@qd.func
def block_exclusive_scan(value, block_dim: qd.template(), op: qd.template(), identity,
                         dtype: qd.template()):
    return _block_scan(_exclusive_scan_tiled(value, op, identity, 5), value, block_dim, op, True,
                       identity, dtype)


def _typed(kind, op):
    @qd.func
    def typed(value, block_dim: qd.template(), dtype: qd.template()):
        r = value
        if qd.static(kind == "reduce"):
            r = block_reduce(value, block_dim, op, dtype)
        if qd.static(kind == "reduce_all"):
            r = block_reduce_all(value, block_dim, op, dtype)
        if qd.static(kind == "inclusive"):
            r = block_inclusive_scan(value, block_dim, op, dtype)
        if qd.static(kind == "exclusive"):
            r = block_exclusive_scan(value, block_dim, op, _identity(value, op), dtype)
        return r
    return typed


block_reduce_add = _typed("reduce", "add")
block_reduce_min = _typed("reduce", "min")
block_reduce_max = _typed("reduce", "max")
block_reduce_all_add = _typed("reduce_all", "add")
block_reduce_all_min = _typed("reduce_all", "min")
block_reduce_all_max = _typed("reduce_all", "max")
block_inclusive_add = _typed("inclusive", "add")
block_inclusive_min = _typed("inclusive", "min")
block_inclusive_max = _typed("inclusive", "max")
block_exclusive_add = _typed("exclusive", "add")
block_exclusive_min = _typed("exclusive", "min")
block_exclusive_max = _typed("exclusive", "max")
