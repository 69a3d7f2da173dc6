"""Where a qd.field's elements are in Quadrants' memory: its layout (byte strides per axis and
per element dim) read from its SNode tree, and the address of its first element.

Quadrants keeps every field of an SNode tree in one buffer: the tree's root cell holds one dense
block per `dense` child, each block an array of cells, each cell the places under it
(`qd.field(f32, shape=(n,))` is root.dense(i, n).place(x); a vector field's components are
places of one cell (Layout.AOS, the default) or of one dense block each (Layout.SOA); a struct
field's members share the cell (AOS) or have blocks of their own (SOA)). Element I of a place
under one dense block is at

    root + block.offset_in_root_cell + linear(I) * block.cell_size + place.offset_in_cell

with linear(I) row-major over the block's axes: so strides are cell sizes, and a component's
offset is its place's offset. This module reads those numbers from the SNode tree; what it
cannot express as strides (nested dense blocks, sparse SNodes, offsets, layout-tagged fields)
it refuses with a reason naming the field. Quadrants 1.3.3's own `to_dlpack` gives the first
element's address (see address()), but the strides it reports are the C-contiguous ones even
for an AOS struct member or an SOA vector field: this module never takes strides from it.
"""

import ctypes

__all__ = ["Layout", "layout", "address", "NotStrided"]


class NotStrided(Exception):
    """A field whose elements are not one strided array; the message says why."""


class _Unmaterialized(Exception):
    pass


class Layout:
    """dtype (qdrt name), shape (outer extents, then element dims), strides (bytes, the same
    order), contiguous (whether they are the C-contiguous ones), first (the ScalarField of
    component 0, whose address is the array's)."""

    __slots__ = ("dtype", "shape", "strides", "contiguous", "first")

    def __init__(self, dtype, shape, strides, first):
        self.dtype, self.shape, self.strides, self.first = dtype, shape, strides, first
        expect, c = _SIZES[dtype], True
        for d in range(len(shape) - 1, -1, -1):
            if shape[d] > 1 and strides[d] != expect:
                c = False
            expect *= shape[d]
        self.contiguous = c


_SIZES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8,
          "f16": 2, "f32": 4, "f64": 8, "u1": 1}


_KINDS = {}  # SNode type (the enum value) -> its name: "root", "dense", "place", ...


def _kind(sn):
    t = sn.type
    k = _KINDS.get(t)
    if k is None:
        k = _KINDS[t] = str(t).rsplit(".", 1)[-1]
    return k


def _place_position(ptr, what, blocks=None):
    """(offset of element 0 from the tree's root, [(axis extent, byte stride)] outermost first)
    of a place SNode under at most one dense block. `blocks`: the dense blocks read so far, by
    SNode id (a vector field's components share theirs)."""
    parent = ptr.parent
    if parent is None:
        raise NotStrided(f"{what}: a place without a parent SNode")
    kind = _kind(parent)
    if kind == "root":
        return ptr.offset_bytes_in_parent_cell, []  # a 0-d field: placed in the root cell
    if kind != "dense":
        raise NotStrided(f"{what}: under a {kind} SNode (only dense fields are arrays)")
    block = None if blocks is None else blocks.get(parent.id)
    if block is None:
        block = _dense_block(parent, what)
        if blocks is not None:
            blocks[parent.id] = block
    return block[0] + ptr.offset_bytes_in_parent_cell, block[1]


def _dense_block(parent, what):
    """(the block's offset in the root cell, [(axis extent, byte stride)]) of a dense SNode
    directly under the root."""
    top = parent.parent
    if top is None or _kind(top) != "root":
        raise NotStrided(f"{what}: under nested SNodes (qd.root.dense(...).dense(...)); only one "
                         "dense level is a strided array")
    n = parent.num_active_indices()
    phys = list(parent.get_physical_index_position())[:n]
    if phys != list(range(n)):
        raise NotStrided(f"{what}: its dense SNode permutes its axes ({phys})")
    extents = [int(parent.get_shape_along_axis(k)) for k in range(n)]
    cell = int(parent.cell_size_bytes)
    if cell == 0:
        raise _Unmaterialized()
    axes, stride = [], cell
    for e in reversed(extents):
        axes.append((e, stride))
        stride *= e
    axes.reverse()
    return parent.offset_bytes_in_parent_cell, axes


_LAYOUTS = {}  # id(field) -> (field, Layout): fixed once the field is placed and materialized


def layout(field, what="the field"):
    """The Layout of a ScalarField or MatrixField (a struct field's members are fields of their
    own); NotStrided when its elements are not one strided array. Materializes the field's SNode
    tree when Quadrants has not yet (what its next launch would do). Remembered per field."""
    hit = _LAYOUTS.get(id(field))
    if hit is not None and hit[0] is field:
        return hit[1]
    lay = _layout(field, what)
    if len(_LAYOUTS) > 65536:
        _LAYOUTS.clear()
    _LAYOUTS[id(field)] = (field, lay)  # (keeps the field: its id stays its own)
    return lay


def _layout(field, what):
    from quadrants.lang.field import ScalarField

    name = type(field).__name__
    # A layout-tagged field (Genesis's performance mode: qd.field(..., layout=...)) is placed at
    # the permuted physical shape: `tagged[p]` is the canonical axis at physical position p.
    tagged = getattr(field, "_qd_layout", None)
    if name == "MatrixField":
        n, m, ndim = field.n, field.m, getattr(field, "ndim", 2)
        element = [n] if ndim == 1 else [n, m]
        first = ScalarField(field.vars[0])
    elif name == "ScalarField":
        element, first = [], field
    else:
        raise NotStrided(f"{what}: a {name}, not a scalar, vector or matrix field")
    # The place SNodes of the components (what ScalarField(var).snode.ptr is, without the
    # wrapper objects).
    ptrs = [var.ptr.snode() for var in field.vars]
    from qdrt.describe import dtype_name

    dtype = dtype_name(field.dtype)
    if dtype not in _SIZES:
        raise NotStrided(f"{what}: dtype {field.dtype}")
    offset = getattr(ptrs[0], "offset", None)
    if offset and any(offset):
        raise NotStrided(f"{what}: a field with offset={tuple(offset)}")
    try:
        blocks = {}
        positions = [_place_position(p, what, blocks) for p in ptrs]
    except _Unmaterialized:
        # A field placed since Quadrants last materialized its SNode trees: what its next
        # launch does, done now.
        from quadrants.lang import impl

        impl.get_runtime().materialize()
        try:
            blocks = {}
            positions = [_place_position(p, what, blocks) for p in ptrs]
        except _Unmaterialized:
            raise NotStrided(f"{what}: its SNode has no memory (cell size 0)") from None
    base, axes = positions[0]
    if any(p[1] != axes for p in positions):
        raise NotStrided(f"{what}: its components are laid out differently")
    if tagged is not None and tuple(tagged) != tuple(range(len(tagged))):
        if sorted(tagged) != list(range(len(axes))):
            raise NotStrided(f"{what}: its layout {tuple(tagged)} is not a permutation of its "
                             f"{len(axes)} axes")
        physical = {a: axes[p] for p, a in enumerate(tagged)}
        axes = [physical[a] for a in range(len(axes))]  # canonical order, physical strides
    shape = [e for e, _ in axes] + element
    strides = [s for _, s in axes]
    # Components: offsets from component 0 must be r * s_r (+ c * s_c) for one s_r (s_c).
    offs = [p[0] - base for p in positions]
    if element:
        cols = element[1] if len(element) > 1 else 1
        s_r = offs[cols] if element[0] > 1 else _SIZES[dtype] * cols
        s_c = offs[1] if cols > 1 else None
        for k, o in enumerate(offs):
            want = (k // cols) * s_r + ((k % cols) * s_c if s_c is not None else 0)
            if o != want:
                raise NotStrided(f"{what}: its components are not evenly spaced in memory")
        strides.append(s_r)
        if s_c is not None:
            strides.append(s_c)
    size = _SIZES[dtype]
    if any(s < 0 or s % size for s in strides):
        raise NotStrided(f"{what}: strides {tuple(strides)} are not multiples of {size} bytes")
    return Layout(dtype, tuple(shape), tuple(strides), first)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", ctypes.c_uint32), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64)]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


_TREES = {}  # (id(program), id of a tree's root SNode) -> (program, its buffer's address or None)


def address(lay):
    """The address of element 0, component 0 (host memory on the CPU, a CUdeviceptr on CUDA).
    Quadrants exports field memory only as DLPack, and for a field that does not start its
    SNode tree's buffer its export imports torch (to check torch's byte_offset support); so the
    buffer's address comes from the tree's first place (offset 0: no torch), once per tree of
    a Quadrants program (a tree's buffer stays where it is while the tree exists, and a new tree
    has a new root SNode id; the cache keeps the program object, so its id is not reused), and
    the field's from its offset in the tree. The capsules are read here, not consumed (their destructor frees them)."""
    ptr = lay.first.snode.ptr
    from quadrants.lang import impl

    prog = impl.get_runtime().prog
    root = ptr
    while root.parent is not None and _kind(root) != "root":
        root = root.parent
    # (A destroyed tree's id is given to the next tree; an SNode's id never is, in a program.)
    key = (id(prog), root.id)
    hit = _TREES.get(key)
    if hit is None or hit[0] is not prog:
        hit = _TREES[key] = (prog, _tree_address(root, prog))
    if hit[1] is not None:
        return hit[1] + _root_offset(ptr)
    return _capsule_address(lay.first.to_dlpack())


def _tree_address(root, prog):
    """The address of the buffer of the SNode tree under `root`, from its first place, or None
    when that place does not start the buffer or Quadrants does not export it."""
    first = root
    for _ in range(64):
        if _kind(first) == "place" or first.get_num_ch() == 0:
            break
        first = first.get_ch(0)
    if _kind(first) != "place" or _root_offset(first) != 0:
        return None
    try:
        capsule = prog.field_to_dlpack(first, 0, 0, 0)
    except Exception:  # noqa: BLE001 - a first place Quadrants does not export: the field's own
        return None
    return _capsule_address(capsule) if capsule is not None else None


def _root_offset(ptr):
    """The byte offset of a place's element 0 in its tree's buffer."""
    off = 0
    while ptr is not None and _kind(ptr) != "root":
        off += ptr.offset_bytes_in_parent_cell
        ptr = ptr.parent
    return off


def _capsule_address(capsule):
    t = _DLTensor.from_address(_get_pointer(capsule, b"dltensor"))
    return (t.data or 0) + t.byte_offset
