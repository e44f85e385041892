"""A process-wide, counted pause of Python's cycle collector.

The big reads (unlimited allocation candidates, detailed capacity
reports) make hundreds of thousands of small containers that all stay
alive until the answer is sent, so the collector's full passes
(triggered by allocations, each walking every live object) cost a
third of such a request and find nothing to free.
"""

import contextlib
import gc
import threading

_PAUSE_LOCK = threading.Lock()
_pauses = [0, False]    # blocks running, whether they disabled gc


@contextlib.contextmanager
def no_cycle_collection():
    """Pause the cycle collector for the block.

    The threads of one worker share the pause: the last one out enables
    the collector again (if it was enabled).
    """
    with _PAUSE_LOCK:
        if not _pauses[0]:
            _pauses[1] = gc.isenabled()
            gc.disable()
        _pauses[0] += 1
    try:
        yield
    finally:
        with _PAUSE_LOCK:
            _pauses[0] -= 1
            if not _pauses[0] and _pauses[1]:
                gc.enable()
