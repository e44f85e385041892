"""memory.map_large_blocks: a freed body chunk leaves the process.

Run in a fresh interpreter each, as a worker would be: the setting is
process-wide and cannot be undone.
"""

import subprocess
import sys

import pytest

# RSS growth, in MiB, after 100 chunks of 512 KiB are made and freed,
# a block of 32 KiB made after each still alive (as the rest of a
# worker's work leaves some: 3 MiB in all). A freed 8 MiB block first
# raises glibc's own threshold above the chunks' size.
_SCRIPT = '''
import sys
from placement import memory

if sys.argv[1] == 'fixed':
    assert memory.map_large_blocks()


def rss():
    with open('/proc/self/status') as status:
        for line in status:
            if line.startswith('VmRSS'):
                return int(line.split()[1]) / 1024


big = b'x' * (8 << 20)
del big
before = rss()
chunks, kept = [], []
for _ in range(100):
    chunks.append(b'x' * (512 << 10))
    kept.append(b'x' * (32 << 10))
del chunks
print(rss() - before)
'''


def _kept_mib(mode):
    out = subprocess.run([sys.executable, '-c', _SCRIPT, mode], check=True,
                         capture_output=True, text=True).stdout
    return float(out)


@pytest.mark.skipif(not sys.platform.startswith('linux'),
                    reason='glibc and /proc')
def test_freed_chunks_are_given_back():
    assert _kept_mib('default') > 40
    assert _kept_mib('fixed') < 10
