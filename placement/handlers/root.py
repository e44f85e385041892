"""GET /: the version document; no authentication needed."""

from placement import microversion
from placement import util


def home(req):
    version_doc = {
        'id': 'v1.0',
        'min_version': microversion.MIN_VERSION_STRING,
        'max_version': microversion.MAX_VERSION_STRING,
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }
    return util.Result({'versions': [version_doc]})
