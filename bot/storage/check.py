"""The start-up check: open the database before the bot goes online, and when it cannot be used, say why
in one sentence that names it and says what to do, leaving it as it was.

For a SQLite file everything that would stop the bot is looked at before anything is written: a path
that is a folder, a folder that cannot be created (a missing one is created), a file that cannot be read
or written, a folder SQLite cannot write its journal files in, a file that is not SQLite's, a damaged
file (``PRAGMA quick_check`` on a read-only connection), a schema from a newer Tiempo. Only then is it
opened for writing, which turns on WAL and applies the missing migrations. For PostgreSQL: a server
that cannot be reached, a user or password it refuses, a database that does not exist, a user who may
not create tables, a newer schema; the URL is shown without its password.
"""

from __future__ import annotations

import errno
import os
import pwd
import re
import sqlite3
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from . import schema
from .backend import is_postgres_url, without_password
from .records import SchemaError, StorageError
from .store import Storage

SQLITE_HEADER = b"SQLite format 3\x00"
HOW_TO_SET_UP = "docs/hosting.md, section SQLite or PostgreSQL"


class DatabaseUnusableError(StorageError):
    """The database named in the settings cannot be used; ``str()`` is one sentence saying why and what to do."""


async def check_database(target: str) -> None:
    """Open the database ``target`` names (creating a SQLite file and its folder if missing, applying
    migrations) and close it again. Raises DatabaseUnusableError when it cannot be used."""
    if is_postgres_url(target):
        await _check_postgres(target)
        return
    problem = sqlite_problem(target)
    if problem is not None:
        raise DatabaseUnusableError(problem)
    try:
        storage = await Storage.open(target)
    except SchemaError as err:
        raise DatabaseUnusableError(f"{err}") from None
    except (sqlite3.Error, OSError, StorageError) as err:
        raise DatabaseUnusableError(
            f"Cannot use the database {target} ({_reason(err)}): check that it is a Tiempo database and that "
            f"{_who()} may write it and its folder.") from None
    await storage.close()


def _who() -> str:
    """The user running Tiempo, as a sentence calls them."""
    try:
        return f"the user running Tiempo ({pwd.getpwuid(os.geteuid()).pw_name})"
    except KeyError:
        return f"the user running Tiempo (uid {os.geteuid()})"


def _reason(err: BaseException) -> str:
    """What went wrong, in a few words."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return str(err) or type(err).__name__


def sqlite_problem(path: str) -> str | None:
    """Why the SQLite file ``path`` cannot be used, in one sentence, or None; creates a missing folder and
    writes nothing else."""
    file = Path(path)
    folder = Path(os.path.abspath(path)).parent
    if file.is_dir():
        return (f"The database {path} is a folder, not a file: set database to a file in it, "
                f"like {file / 'tiempo.sqlite3'}.")
    if not folder.is_dir():
        try:
            folder.mkdir(parents=True)
        except OSError as err:
            if err.errno == errno.EROFS:  # (creating it by hand fails the same way)
                return (f"Cannot create the folder {folder} for the database {path}: it would be on a file system "
                        "mounted read-only. Set database to a path on a writable disk.")
            return (f"Cannot create the folder {folder} for the database {path} ({_reason(err)}): create it, "
                    "or set database to a path in a folder that exists.")
    header = b""
    if file.exists():
        try:
            with file.open("rb") as f:
                header = f.read(len(SQLITE_HEADER))
        except OSError as err:
            return f"Cannot read the database {path} ({_reason(err)}): make it readable and writable by {_who()}."
        if header and header != SQLITE_HEADER:
            return (f"{path} is not a Tiempo database (it is not an SQLite file): set database to another path, "
                    "or move this file away.")
    if _read_only_mount(folder):
        return (f"The database {path} is on a file system mounted read-only ({_mount_of(folder)}): mount it "
                "read-write, or set database to a path on a writable disk.")
    if file.exists() and not os.access(file, os.W_OK):
        return f"The database {path} is read-only: make it writable by {_who()} (chmod u+w, or chown)."
    if not os.access(folder, os.W_OK | os.X_OK):
        return (f"The folder {folder} of the database {path} is read-only, and SQLite writes its journal files "
                f"(-wal, -shm) beside the database: make the folder writable by {_who()}, or move the database.")
    return _damage_or_newer(path, file) if header else None


def _read_only_mount(folder: Path) -> bool:
    """Whether ``folder`` is on a file system mounted read-only (no chmod can help then)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _mount_of(folder: Path) -> str:
    """The mount point ``folder`` is under."""
    path = folder.resolve()
    while not os.path.ismount(path) and path != path.parent:
        path = path.parent
    return str(path)


def _damage_or_newer(path: str, file: Path) -> str | None:
    """Look at an existing SQLite file through a read-only connection: damage, or a newer schema."""
    try:
        db = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
        try:
            damage = [str(r[0]) for r in db.execute("PRAGMA quick_check").fetchall() if r[0] != "ok"]
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error as err:
        damage, version = [str(err)], 0
    if damage:
        return (f"The database {path} is damaged (SQLite says: {damage[0]}): restore it from a backup "
                "(docs/hosting.md, Backups), or move it away to start with no games.")
    if version > schema.SCHEMA_VERSION:
        return (f"The database {path} was written by a newer Tiempo (schema version {version}; this one knows "
                f"up to {schema.SCHEMA_VERSION}): upgrade Tiempo, or set database to a backup made by this version.")
    return None


async def _check_postgres(url: str) -> None:
    """Open and close the PostgreSQL database; every refusal becomes one sentence without the password."""
    import asyncpg

    if _unencoded(url):
        raise DatabaseUnusableError(
            "The PostgreSQL URL has a user or password with a character a URL reserves (@, /, :, ? or #): write "
            "it %-encoded (@ as %40, / as %2F, : as %3A, ? as %3F, # as %23), e.g. "
            "postgresql://tiempo:p%40ss@localhost/tiempo.")
    name = without_password(url)

    def detail(err: BaseException) -> str:
        return _hide_password(str(err), url)
    try:
        storage = await Storage.open(url)
    except SchemaError:
        raise DatabaseUnusableError(
            f"The PostgreSQL database {name} was written by a newer Tiempo (this one knows schema version up to "
            f"{schema.SCHEMA_VERSION}): upgrade Tiempo, or point database at a backup made by this version."
        ) from None
    except asyncpg.InvalidAuthorizationSpecificationError as err:  # a wrong password, an unknown user
        problem = (f"PostgreSQL refused the user or password of {name} ({detail(err)}): fix them in the URL, or create "
                   f"the user ({HOW_TO_SET_UP}).")
    except asyncpg.InvalidCatalogNameError as err:
        problem = (f"The PostgreSQL database of {name} does not exist ({detail(err)}): create it ({HOW_TO_SET_UP}), or "
                   "fix its name in the URL.")
    except asyncpg.InsufficientPrivilegeError as err:
        problem = (f"The user of {name} may not create Tiempo's tables ({detail(err)}): make it the database's owner "
                   "(ALTER DATABASE … OWNER TO …).")
    except (OSError, TimeoutError) as err:
        problem = (f"Cannot reach the PostgreSQL server of {name} ({_reason(err) or 'no answer'}): start it, or "
                   "fix the host and port in the URL.")
    except (asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as err:
        problem = f"Cannot use the PostgreSQL database {name} ({detail(err)}): check the URL and the server's log."
    else:
        await storage.close()
        return
    raise DatabaseUnusableError(problem) from None


def _hide_password(text: str, url: str) -> str:
    """``text`` (an error message of the server or the driver) with the URL's password, should it quote
    it, replaced by ``***``: where it stands as a word of its own (a short password is not hidden
    inside other words, which it would garble), and not where it is also the user's or the database's
    name (which the message names anyway)."""
    parts = urlsplit(url)
    secrets = {parts.password or ""} | {v for k, v in parse_qsl(parts.query) if k == "password"}
    shown = {unquote(parts.username or ""), unquote(parts.path.lstrip("/"))}
    for secret in sorted(filter(None, (secrets | {unquote(s) for s in secrets}) - shown), key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", "***", text)
    return text


def _unencoded(url: str) -> bool:
    """Whether the URL's user or password holds a character the URL's syntax reserves, not %-encoded:
    an ``@`` too many before the host, or the user part cut short by a ``/``, ``?`` or ``#``."""
    rest = url.partition("://")[2]
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    before_query = rest.split("?", 1)[0]
    return before_query.count("@") > 1 or ("@" not in authority and "@" in before_query)
