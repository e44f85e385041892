"""The WSGI application object that uwsgi, mod_wsgi or gunicorn load.

    gunicorn 'placement.wsgi.api:application'

Configuration comes from ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` when
that variable is set, else from the standard oslo.config locations
(``/etc/placement/placement.conf``, ...); options may also be given in the
environment (``OS_PLACEMENT_DATABASE__CONNECTION=...``).
"""

from placement import deploy
from placement.conf import loading


def init_application():
    conf = loading.parse(loading.new_conf(), [])
    return deploy.loadapp(conf)


application = init_application()
