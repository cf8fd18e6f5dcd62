"""A PostgreSQL server of a test's own (its own data directory and port), for tests that stop and
restart the database: the shared one (``SIXNIMMT_TEST_POSTGRES_URL``) serves other tests at the
same time. Made from the PostgreSQL binaries installed on the machine; None where there are none."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return None if pg_ctl is None else Path(pg_ctl).parent


class PostgresServer:
    """``initdb`` into a fresh directory, then ``start``, ``stop`` and ``restart`` at will; ``url``
    is the SQLAlchemy URL of its ``postgres`` database. As root, the server runs as ``postgres``
    (PostgreSQL refuses to run as root)."""

    def __init__(self, binaries: Path, port: int) -> None:
        self.binaries = binaries
        self.port = port
        self.directory = Path(tempfile.mkdtemp(prefix="sixnimmt-pg-"))
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.directory, "postgres")
        self._run(f"{binaries}/initdb -D {self.directory}/data -A trust -U postgres")

    @classmethod
    def make(cls, port: int) -> PostgresServer | None:
        binaries = _binaries()
        if binaries is None:
            return None
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:  # root, and no user to run the server as
                return None
        return cls(binaries, port)

    def _run(self, command: str) -> None:
        argv = ["su", "postgres", "-s", "/bin/sh", "-c", command] if self.as_postgres else ["sh", "-c", command]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, timeout=120)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1"
        self._run(f"{self.binaries}/pg_ctl -D {self.directory}/data -o '{options}' -l {self.directory}/log -w start")

    def stop(self, mode: str = "fast") -> None:
        self._run(f"{self.binaries}/pg_ctl -D {self.directory}/data -m {mode} -w stop")

    def restart(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1"
        self._run(f"{self.binaries}/pg_ctl -D {self.directory}/data -o '{options}' -l {self.directory}/log "
                  "-m fast -w restart")

    def destroy(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass  # not running
        shutil.rmtree(self.directory, ignore_errors=True)
