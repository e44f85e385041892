"""The memory of a large answer goes back to the system once it is sent.

glibc's malloc serves a block of ``M_MMAP_THRESHOLD`` bytes or more
from a mapping of its own, unmapped when the block is freed; but each
time such a block is freed it raises the threshold to that block's size
(up to 32 MiB), and from then on blocks as large come from the heap of
the allocating thread's arena, whose freed memory the process keeps and
only that arena reuses. The chunks of a large body (``util.JsonArray``:
hundreds of KB each, 74 MB for a list of 100,000 providers) then stayed
in a worker after its answer, in the arena of the thread that made them,
and another thread's answer came on top of them. With the threshold
fixed they are mapped and unmapped.
"""

import ctypes

#: mallopt's parameter for the threshold (``M_MMAP_THRESHOLD``, malloc.h).
_M_MMAP_THRESHOLD = -3
#: Blocks this large or larger are mapped; a chunk of a body is larger.
MMAP_THRESHOLD = 256 * 1024


def map_large_blocks():
    """Fix glibc's mmap threshold at :data:`MMAP_THRESHOLD` for this
    process (and the workers it forks). False where the C library has
    no such setting."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
