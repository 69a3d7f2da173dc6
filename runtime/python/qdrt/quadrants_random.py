"""Where Quadrants keeps the generator states of qd.random on the CPU, so that a kernel served
from the store draws from them and leaves them as Quadrants would have left them.

Quadrants does not expose the address: its LLVM runtime allocates the array at qd.init
(LLVMRuntime::rand_states), page-aligned, one 20-byte state per CPU thread
(cpu_max_num_threads), state i set to (x_i, 362436069, 521288629, 88675123, lock 0) with
x_i = 123456789 * (random_seed * 1048391 + i) * 1000000007 (mod 2^32). A state changes only
when a kernel draws on thread i. So the array is found by its content: among the resident pages
of the process's anonymous memory, a page that starts an array of `count` states whose lock
words are all 0 and of which at least one still holds exactly its own initial value. It is
accepted only when exactly one such array exists; anything else is an error that names why, and
the bridge then leaves the kernels that draw to Quadrants."""

import ctypes
import ctypes.util
import mmap

_M = 0xFFFFFFFF
_TAIL = (362436069, 521288629, 88675123, 0)  # y, z, w, lock of an unused state
_STATE_WORDS = 5
_PAGE = mmap.PAGESIZE
_MAX_MAPPING = 1 << 38  # reserved address ranges larger than this are not searched


class NotFound(Exception):
    pass


def initial_x(seed, i):
    return (123456789 * ((seed * 1048391 + i) & _M) * 1000000007) & _M


def _libc():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]
    libc.mincore.restype = ctypes.c_int
    return libc


def _anonymous_mappings():
    """(start, end) of the private read-write mappings backed by no file ([heap] included)."""
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 5 or parts[1] != "rw-p":
                continue
            name = parts[5] if len(parts) > 5 else ""
            if name not in ("", "[heap]"):
                continue
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if 0 < hi - lo <= _MAX_MAPPING:
                yield lo, hi


def _resident_pages(libc, lo, hi):
    import numpy as np

    pages = (hi - lo) // _PAGE
    vec = (ctypes.c_ubyte * pages)()
    if libc.mincore(ctypes.c_void_p(lo), hi - lo, vec) != 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.frombuffer(vec, dtype=np.uint8) & 1)


def _matches(words, seed, first, last):
    """Per row of `words` (u32, each row a page's first words): whether a state j in
    [first, last) holds exactly its initial value."""
    import numpy as np

    hit = np.zeros(words.shape[0], dtype=bool)
    for j in range(first, last):
        base = _STATE_WORDS * j
        row = words[:, base:base + _STATE_WORDS]
        hit |= (row[:, 0] == initial_x(seed, j)) & np.all(row[:, 1:] == _TAIL, axis=1)
    return hit


def _verify(address, count, seed):
    import numpy as np

    words = np.ctypeslib.as_array((ctypes.c_uint32 * (count * _STATE_WORDS)).from_address(address))
    states = words.reshape(count, _STATE_WORDS)
    if np.any(states[:, 4] != 0):
        return False
    fresh = (states[:, 0] == np.array([initial_x(seed, i) for i in range(count)], dtype=np.uint32))
    return bool(np.any(fresh & np.all(states[:, 1:] == _TAIL, axis=1)))


def locate(count, seed):
    """The address of Quadrants' `count` generator states for random_seed `seed`."""
    import numpy as np

    if count <= 0:
        raise NotFound(f"Quadrants reports {count} CPU threads")
    size = count * _STATE_WORDS * 4
    libc = _libc()
    # First the states of the first threads (one column each), then every state the first page
    # holds, for a process where those first threads have drawn already.
    per_page = _PAGE // (_STATE_WORDS * 4)
    passes = [(0, min(count, 16))]
    if count > 16:
        passes.append((16, min(count, per_page)))
    mappings = [(lo, hi, _resident_pages(libc, lo, hi)) for lo, hi in _anonymous_mappings()]
    found = []
    for first, last in passes:
        for lo, hi, resident in mappings:
            if resident.size == 0:
                continue
            pages = (hi - lo) // _PAGE
            view = np.ctypeslib.as_array(
                (ctypes.c_uint32 * (pages * (_PAGE // 4))).from_address(lo)).reshape(pages, -1)
            cols = _STATE_WORDS * last
            for p in np.flatnonzero(_matches(view[resident, :cols], seed, first, last)):
                address = lo + int(resident[p]) * _PAGE
                end_page = (address + size - 1 - lo) // _PAGE
                if address + size > hi or not np.all(
                        np.isin(np.arange(resident[p], end_page + 1), resident)):
                    continue
                if _verify(address, count, seed):
                    found.append(address)
        if found:
            break
    if not found:
        raise NotFound(f"no array of {count} generator states for random_seed {seed} in this "
                       "process's memory (each thread's state has drawn already, or this "
                       "Quadrants keeps them elsewhere)")
    if len(found) > 1:
        raise NotFound(f"{len(found)} arrays look like Quadrants' generator states "
                       f"({', '.join(hex(a) for a in found)}): which one Quadrants uses is unknown")
    return found[0]
