"""Decoding the inventories of the trees loaded for candidates."""

from placement.objects import candidate_folding
from placement.objects import candidate_names
from placement.objects import candidate_tree

FOLDED = '0:16:0:4.0:16:1:1;1:65536:512:1.5:65536:1:1;2:1000:0:1.0:100:10:5'


def _names():
    return candidate_names.Names(
        None, {0: 'VCPU', 1: 'MEMORY_MB', 2: 'DISK_GB'})


def test_inventories_with_their_usage():
    inventories = candidate_folding.decode_inventories(
        (FOLDED, ((0, 5), (2, 20))), _names())
    assert list(inventories) == ['VCPU', 'MEMORY_MB', 'DISK_GB']
    assert inventories == {
        'VCPU': candidate_tree.Inventory(64, 5, 59, 16, 1, 1),
        'MEMORY_MB': candidate_tree.Inventory(97536, 0, 97536, 65536, 1, 1),
        'DISK_GB': candidate_tree.Inventory(1000, 20, 980, 100, 10, 5)}


def test_no_inventories():
    assert candidate_folding.decode_inventories((None, ()), _names()) == {}
    assert candidate_folding.decode_inventories(('', ()), _names()) == {}


def test_a_model_s_string_is_parsed_once_whatever_the_usage(monkeypatch):
    names = _names()
    parsed = []
    real = candidate_folding._parsed_inventories

    def counted(folded, names):
        parsed.append(folded)
        return real(folded, names)

    monkeypatch.setattr(candidate_folding, '_parsed_inventories', counted)
    busy = [candidate_folding.decode_inventories(
        (FOLDED, ((0, used),)), names) for used in range(1, 6)]
    assert parsed == [FOLDED]
    assert [inventories['VCPU'].free for inventories in busy] == [
        63, 62, 61, 60, 59]
