"""qd.simt.subgroup's tiled reductions, scans and votes as kernel code (@qd.func), written as
Quadrants writes them in its simt/reductions.py and simt/subgroup.py (the same shuffles in the
same order, so floats combine in the same order): the stand-in interprets them like any func."""

import quadrants as qd

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
]


@qd.func
def _op(a, b, op: qd.template()):
    r = a
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
