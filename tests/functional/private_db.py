"""Private MariaDB and PostgreSQL servers that a test may kill.

Each runs on its own port with its own data directory under /tmp, as a
process group of its own, so that killing it touches nothing else (never
the machine's shared servers). The binaries come from Debian's
mariadb-server and postgresql packages (.ci/run installs them).
"""

import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time

import sqlalchemy as sa

from tests import processes


def _postgres_binary(name):
    """``name`` on the PATH, else of the newest installed PostgreSQL."""
    installed = sorted(glob.glob(f'/usr/lib/postgresql/*/bin/{name}'))
    found = shutil.which(name) or (installed[-1] if installed else None)
    if found is None:
        raise RuntimeError(f'{name} not found: install postgresql')
    return found


class _Server:
    """A database server process group; subclasses say how to run it."""

    name = None

    def __init__(self):
        self.port = processes.free_port()
        self.directory = tempfile.mkdtemp(prefix=f'placement-{self.name}-')
        self.process = None
        self.log = open(os.path.join(self.directory, 'server.log'), 'ab')

    def initialise(self, command):
        """Run ``command``, which creates ``self.datadir``; try a second
        time into an empty directory, and fail with the end of its log.

        CI once saw mariadb-install-db exit 1 on a machine where it passed
        before and after; its log, which went unread then, says why.
        """
        for _attempt in (1, 2):
            if subprocess.run(command, stdout=self.log,
                              stderr=subprocess.STDOUT).returncode == 0:
                return
            shutil.rmtree(self.datadir, ignore_errors=True)
        self.log.flush()
        with open(self.log.name, errors='replace') as log:
            tail = ''.join(log.readlines()[-30:])
        raise RuntimeError(f'{command[0]} failed twice; its log:\n{tail}')

    @property
    def admin_url(self):
        raise NotImplementedError

    def command(self):
        raise NotImplementedError

    def start(self):
        """Start the server and wait until it accepts connections."""
        self.process = subprocess.Popen(
            self.command(), stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True)
        engine = sa.create_engine(self.admin_url, poolclass=sa.pool.NullPool)
        deadline = time.monotonic() + 60
        try:
            while True:
                try:
                    with engine.connect():
                        return
                except sa.exc.OperationalError:
                    if (time.monotonic() > deadline
                            or self.process.poll() is not None):
                        raise RuntimeError(
                            f'{self.name} did not start; see '
                            f'{self.directory}/server.log') from None
                    time.sleep(0.2)
        finally:
            engine.dispose()

    def kill(self):
        """SIGKILL the whole server, as a crash or a lost host would, and
        wait until none of its processes is left (a PostgreSQL started
        while the old one's backends hold its shared memory exits)."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)

    def create_database(self, name):
        """Create database ``name``; its URL."""
        engine = sa.create_engine(self.admin_url,
                                  isolation_level='AUTOCOMMIT')
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE {name}')
        engine.dispose()
        return str(sa.engine.make_url(self.admin_url).set(database=name))

    def destroy(self):
        if self.process is not None and self.process.poll() is None:
            self.kill()
        self.log.close()
        shutil.rmtree(self.directory, ignore_errors=True)


class MariaDB(_Server):
    """``options``: more of mariadbd's command-line options."""

    name = 'mariadb'

    def __init__(self, options=()):
        super().__init__()
        self.options = list(options)
        self.datadir = os.path.join(self.directory, 'data')
        self.initialise(
            ['mariadb-install-db', '--no-defaults',
             f'--datadir={self.datadir}', '--user=root',
             '--auth-root-authentication-method=normal', '--skip-test-db'])

    @property
    def admin_url(self):
        return f'mysql+pymysql://root@127.0.0.1:{self.port}/'

    def command(self):
        return ['mariadbd', '--no-defaults', f'--datadir={self.datadir}',
                f'--port={self.port}', '--bind-address=127.0.0.1',
                f'--socket={self.directory}/mysqld.sock', '--user=root',
                '--skip-grant-tables', '--skip-name-resolve',
                '--innodb-buffer-pool-size=32M', '--innodb-log-file-size=16M',
                '--innodb-flush-log-at-trx-commit=1', *self.options]


class PostgreSQL(_Server):
    """Run as the ``postgres`` system user: PostgreSQL refuses root."""

    name = 'postgresql'

    def __init__(self):
        super().__init__()
        self.datadir = os.path.join(self.directory, 'data')
        shutil.chown(self.directory, 'postgres')
        self.initialise(
            self._as_postgres(_postgres_binary('initdb'), '-D', self.datadir,
                              '-A', 'trust', '-U', 'postgres', '--no-sync'))

    @staticmethod
    def _as_postgres(*command):
        if os.geteuid() == 0:
            return ['runuser', '-u', 'postgres', '--', *command]
        return list(command)

    @property
    def admin_url(self):
        return (f'postgresql+psycopg2://postgres@127.0.0.1:{self.port}/'
                f'postgres')

    def command(self):
        return self._as_postgres(
            _postgres_binary('postgres'), '-D', self.datadir,
            '-p', str(self.port), '-k', self.directory,
            '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off',
            '-c', 'shared_buffers=16MB')
