"""The README's install guide, as the tests that follow it read it."""

import pathlib
import re

_README = pathlib.Path(__file__).parent.parent / 'README.rst'


def keystone_authtoken(keystone='http://controller:5000/',
                       memcached='controller:11211'):
    """The guide's ``[keystone_authtoken]`` section (README.rst,
    "Deploying for real"), keystone at ``keystone``, memcached at
    ``memcached``."""
    block = re.search(r'^( +)\[keystone_authtoken\]\n(?:\1.*\n)+',
                      _README.read_text(), re.MULTILINE)
    text = re.sub(r'^ +', '', block.group(0), flags=re.MULTILINE)
    return text.replace('http://controller:5000/', keystone).replace(
        'controller:11211', memcached)
