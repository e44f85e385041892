"""The WSGI application object that uwsgi, mod_wsgi or gunicorn load.

    gunicorn 'placement.wsgi.api:application'

Configuration comes from ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` when
that variable is set, else from the standard oslo.config locations
(``/etc/placement/placement.conf``, ...); options may also be given in the
environment (``OS_PLACEMENT_DATABASE__CONNECTION=...``). A configuration
that cannot work is logged in one line (CRITICAL), and the import fails
with that line as its message, nothing chained.
"""

import logging

from placement import deploy
from placement import fatal
from placement.conf import loading

LOG = logging.getLogger(__name__)


def init_application():
    try:
        conf = loading.parse(loading.new_conf(), [])
        return deploy.loadapp(conf)
    except fatal.FatalError as exc:
        error = exc
    # Out of the except block: oslo.log would append the exception to
    # the line.
    LOG.debug('Stopped by a fatal error', exc_info=error)
    LOG.critical('%s', fatal.one_line(error))
    raise error.with_traceback(None) from None


application = init_application()
