"""The counted pause of the cycle collector."""

import gc

from placement import gc_pause


def test_cycle_collection_pauses_nest_and_end():
    assert gc.isenabled()
    with gc_pause.no_cycle_collection():
        assert not gc.isenabled()
        with gc_pause.no_cycle_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_cycle_collection_stays_off_if_it_was():
    gc.disable()
    try:
        with gc_pause.no_cycle_collection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
