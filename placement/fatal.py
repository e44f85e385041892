"""What stops a command, or the service, before it does its work.

Each is something the operator must fix (a configuration file, an
option, the database or policy file it names) and says so in one line:
the commands print that line alone and exit with the status of its
kind; the traceback is logged at debug level only (``--debug``).

Exit statuses are those of sysexits(3), which systemd knows:
``RestartPreventExitStatus=78`` keeps a unit from restarting on a
configuration error while it still restarts on 75.
"""

import functools
import logging
import os
import sys

LOG = logging.getLogger(__name__)

#: EX_CONFIG: a configuration file, option or policy file must change.
CONFIGURATION_ERROR = 78
#: EX_TEMPFAIL: the database was still unreachable when the retries ran
#: out, or another process listens on the address the server must;
#: starting again later may work.
TEMPORARY_FAILURE = 75


class FatalError(Exception):
    """Stops the process; ``str()`` is the one line the operator reads."""

    exit_status = CONFIGURATION_ERROR


class ConfigurationError(FatalError):
    """The configuration (or what it names) cannot work as it is."""


class DatabaseUnreachable(FatalError):
    """The database could not be reached within the configured retries."""

    exit_status = TEMPORARY_FAILURE


class AddressInUse(FatalError):
    """Another process listens on the address and port to listen on.

    A temporary failure, as an unreachable database: it is often the
    server being replaced, still finishing its requests, and the same
    start works once it has gone (systemd restarts the unit).
    """

    exit_status = TEMPORARY_FAILURE


def one_line(text):
    """``text`` with its line breaks and runs of blanks folded."""
    return ' '.join(str(text).split())


def report(exc, exit_status=None):
    """Print ``exc`` as one line on stderr; the exit status to return.

    ``exit_status`` replaces the error's own, for a command whose exit
    statuses are fixed by another convention (placement-status).
    """
    LOG.debug('Stopped by a fatal error', exc_info=exc)
    prog = os.path.basename(sys.argv[0]) if sys.argv else 'placement'
    print(f'{prog}: {one_line(exc)}', file=sys.stderr)
    return exc.exit_status if exit_status is None else exit_status


def exits_cleanly(exit_status=None):
    """Decorate a console script's ``main``: a FatalError is reported
    in one line and its status returned, instead of a traceback."""

    def decorator(main):
        @functools.wraps(main)
        def wrapper(*args, **kwargs):
            try:
                return main(*args, **kwargs)
            except FatalError as exc:
                return report(exc, exit_status)
        return wrapper
    return decorator
