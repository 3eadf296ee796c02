"""A throwaway PostgreSQL cluster for the tests, made with the server's own programs (initdb, pg_ctl).

It lives in a temporary folder and listens only on a Unix socket there (no TCP port, so test runs
side by side never meet). The user ``postgres`` is trusted; every other user must give its password,
so that the start-up check can be shown a wrong one. fsync is off (a test cluster need not survive a
power cut; the bot's own durability comes from committing before it answers, which these settings do
not change), unless ``durable`` (the benchmarks: a commit costs what it costs on a real server).
PostgreSQL refuses to run as root: as root, the programs run as the ``postgres`` system user, which
owns the folder.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

#: what to do when the server programs are missing (the test is skipped, or fails under .ci/run)
INSTALL = ("PostgreSQL's server programs (initdb, pg_ctl) are not installed, so the PostgreSQL storage tests "
           "cannot run: install them with `apt-get install postgresql` (Debian, Ubuntu), `dnf install "
           "postgresql-server` (Fedora) or `brew install postgresql` (macOS), or put their folder on PATH.")
#: what to do when running as root without a postgres user
NO_POSTGRES_USER = ("The PostgreSQL storage tests run as root, and PostgreSQL refuses to run as root: create the "
                    "`postgres` system user (`apt-get install postgresql` does) or run the tests as another user.")
PORT = 5432  # only names the socket file, inside the cluster's own folder


def _version(folder: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", folder)) or (0,)


def server_programs() -> Path | None:
    """The folder holding initdb and pg_ctl (the newest of Debian's versioned folders, else PATH), or None."""
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin") + glob.glob("/usr/pgsql-*/bin"), key=_version,
                     reverse=True)
    found = shutil.which("initdb")
    folders += [str(Path(found).resolve().parent)] if found else []
    for folder in folders:
        if all(os.access(Path(folder) / name, os.X_OK) for name in ("initdb", "pg_ctl")):
            return Path(folder)
    return None


class Cluster:
    """A running cluster in its own temporary folder; ``stop`` removes it all."""

    def __init__(self, programs: Path, *, durable: bool = False) -> None:
        self.programs = programs
        self.durable = durable
        self.as_postgres = os.geteuid() == 0
        self.folder = Path(tempfile.mkdtemp(prefix="tiempo-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.running = False

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.programs / program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr[-2000:]}\n{log}")

    def start(self) -> Cluster:
        """initdb, then start the server and wait until it accepts connections."""
        if self.as_postgres:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
                  "--no-sync")
        (self.data / "pg_hba.conf").write_text("local all postgres trust\nlocal all all scram-sha-256\n")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", self._settings(), "-w", "-t", "60",
                  "start")
        self.running = True
        return self

    def _settings(self) -> str:
        sync = "on" if self.durable else "off"
        return (f"-c listen_addresses='' -c unix_socket_directories='{self.folder}' -p {PORT} "
                f"-c fsync={sync} -c full_page_writes={sync} -c max_connections=200")

    def restart(self) -> None:
        """Restart the server (fast shutdown: every connection is cut), as an upgrade of it would."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", self._settings(), "-m", "fast", "-w",
                  "-t", "60", "restart")

    def url(self, database: str = "postgres", user: str = "postgres", password: str | None = None) -> str:
        """A URL for ``database`` on this cluster, through its socket."""
        who = f"{user}:{password}" if password is not None else user
        return f"postgresql://{who}@/{database}?host={self.folder}&port={PORT}"

    async def new_database(self, prefix: str = "tiempo", *, template: str | None = None) -> str:
        """Create a new database on this cluster, empty or a copy of the database ``template`` (which
        nobody may be connected to); its name."""
        import asyncpg

        name = f"{prefix}_{uuid.uuid4().hex[:16]}"
        admin = await asyncpg.connect(self.url())
        try:
            await admin.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
        finally:
            await admin.close()
        return name

    async def drop_database(self, name: str) -> None:
        """Drop the database ``name``, cutting whoever is still connected."""
        import asyncpg

        admin = await asyncpg.connect(self.url())
        try:
            await admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
        finally:
            await admin.close()

    def stop(self) -> None:
        """Stop the server at once and remove the folder."""
        try:
            if self.running:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
                self.running = False
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
