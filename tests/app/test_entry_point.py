"""The entry point: with no token it says exactly what to do, and never starts half-configured; a database
it cannot use is explained in one sentence before the bot goes online."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import pwd
import shutil
import socket
import sqlite3
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

import bot.__main__ as entry
from bot.__main__ import main
from bot.config import Config
from bot.storage import SCHEMA_VERSION, Storage
from tests.support.pg_cluster import Cluster


def test_no_token_explains_how_to_get_one_and_how_to_play_offline(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("TIEMPO_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "https://discord.com/developers/applications" in err
    assert "DISCORD_TOKEN=" in err and "tiempo-bot console" in err


def test_no_token_names_the_program_as_the_shell_can_run_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Started as ``.venv/bin/tiempo-bot`` with the environment not activated, ``tiempo-bot console``
    would be "command not found": the text says ``.venv/bin/tiempo-bot console``; on the PATH, the name."""
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("TIEMPO_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    program = tmp_path / ".venv" / "bin" / "tiempo-bot"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [".venv/bin/tiempo-bot"])
    monkeypatch.setenv("PATH", "/nowhere")
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "DISCORD_TOKEN=<your token> .venv/bin/tiempo-bot\n" in err and "  .venv/bin/tiempo-bot console " in err
    assert "  tiempo-bot console" not in err
    monkeypatch.setenv("PATH", str(program.parent))
    assert main([]) == 2
    assert "  tiempo-bot console " in capsys.readouterr().err


def test_a_broken_config_file_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    bad = tmp_path / "tiempo.toml"
    bad.write_text("tokken = 'x'\n")
    assert main(["--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "unknown key 'tokken'" in err


@pytest.mark.parametrize("part", ["console", "selfplay"])
def test_a_broken_import_of_an_offline_table_shows_as_itself(monkeypatch: pytest.MonkeyPatch, part: str) -> None:
    """Not as argparse's "invalid choice": the import error itself, which names what is broken."""
    import bot

    monkeypatch.setitem(sys.modules, f"bot.{part}", None)  # importing it now raises ImportError
    monkeypatch.delattr(bot, part, raising=False)
    with pytest.raises(ImportError, match=f"bot.{part}"):
        main([part, "--help"])


def test_debug_logging_never_writes_discord_request_bodies() -> None:
    import logging

    from bot.__main__ import configure_logging

    root = logging.getLogger()
    saved = (root.level, list(root.handlers), logging.getLogger("discord").level)
    try:
        root.handlers.clear()
        configure_logging(logging.DEBUG)
        assert logging.getLogger("tiempo.service").isEnabledFor(logging.DEBUG)
        assert not logging.getLogger("discord.http").isEnabledFor(logging.DEBUG)  # bodies carry hands
        assert logging.getLogger("discord.http").isEnabledFor(logging.INFO)
    finally:
        root.setLevel(saved[0])
        root.handlers[:] = saved[1]
        logging.getLogger("discord").setLevel(saved[2])


# ---------------------------------------------------------------------------------------------
# The database is checked before the bot goes online: one sentence naming it and saying what to do,
# exit code 2, no traceback, the file as it was. A missing folder is created.


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> list[Config]:
    """Going online is replaced by a note of the settings the bot would have served with."""
    reached: list[Config] = []

    def go_online(config: Config) -> int:
        reached.append(config)
        return 0

    monkeypatch.setattr(entry, "go_online", go_online)
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    monkeypatch.delenv("TIEMPO_DATABASE", raising=False)
    monkeypatch.delenv("TIEMPO_CONFIG", raising=False)
    return reached


def start(folder: Path, database: str) -> int:
    """``tiempo-bot --config <folder>/tiempo.toml`` with ``database`` in that file."""
    config = folder / "tiempo.toml"
    config.write_text(f"database = '{database}'\n", encoding="utf-8")
    return main(["--config", str(config)])


def tiempo_database(path: Path, *, games: int = 3) -> bytes:
    """A Tiempo database with a few games (several pages), closed; returns its bytes."""
    async def fill() -> None:
        async with await Storage.open(str(path)) as store:
            for channel in range(games):
                g = await store.create_game(guild_id=1, channel_id=channel, opener_id=1, seed=1)
                await store.start_game(g.id, json.dumps({"pad": "x" * 5000}))
    asyncio.run(fill())
    return path.read_bytes()


def one_sentence(err: str, *words: str) -> None:
    """``err`` is one line, one sentence, no traceback, and says ``words``."""
    assert err.endswith(".\n") and err.count("\n") == 1, err
    assert "Traceback" not in err and "Error:" not in err, err
    for word in words:
        assert word in err, (word, err)


def not_sqlite(path: Path) -> None:
    path.write_text("name,score\nana,3\n" * 200, encoding="utf-8")


def damaged(path: Path) -> None:
    data = bytearray(tiempo_database(path))
    data[4096:4096 + 200] = b"\xff" * 200  # the second page's header
    path.write_bytes(bytes(data))


def newer(path: Path) -> None:
    tiempo_database(path)
    c = sqlite3.connect(path)
    c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    c.close()  # the last connection to close writes the -wal file back into the database
    assert not path.with_name(path.name + "-wal").exists()


@pytest.mark.parametrize(("make", "words"), [
    (not_sqlite, ["is not a Tiempo database", "not an SQLite file", "move this file away"]),
    (damaged, ["is damaged", "restore it from a backup"]),
    (newer, ["written by a newer Tiempo", f"schema version {SCHEMA_VERSION + 1}", "upgrade Tiempo"]),
])
def test_a_database_file_that_cannot_be_used_is_explained_and_left_as_it_was(
        make: Callable[[Path], None], words: list[str], tmp_path: Path, offline: list[Config],
        capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "tiempo.sqlite3"
    make(db)
    before = db.read_bytes()
    assert start(tmp_path, str(db)) == 2
    one_sentence(capsys.readouterr().err, str(db), *words)
    assert db.read_bytes() == before and offline == []


def test_a_path_that_cannot_be_a_database_is_explained(tmp_path: Path, offline: list[Config],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    assert start(tmp_path, str(folder)) == 2
    one_sentence(capsys.readouterr().err, f"The database {folder} is a folder", "set database to a file")
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    under_a_file = tmp_path / "notes.txt" / "tiempo.sqlite3"
    assert start(tmp_path, str(under_a_file)) == 2
    one_sentence(capsys.readouterr().err, f"Cannot create the folder {under_a_file.parent}", str(under_a_file))
    assert list(folder.iterdir()) == [] and (tmp_path / "notes.txt").read_text() == "a file, not a folder"
    assert offline == []


def test_a_missing_folder_is_created_and_the_bot_goes_online(tmp_path: Path, offline: list[Config]) -> None:
    db = tmp_path / "data" / "tiempo" / "games.sqlite3"
    assert start(tmp_path, str(db)) == 0
    assert [c.database for c in offline] == [str(db)]

    async def version() -> int:
        async with await Storage.open(str(db)) as store:
            return await store.schema_version()
    assert asyncio.run(version()) == SCHEMA_VERSION  # opened and migrated before going online


def unprivileged(work: Callable[[], int]) -> tuple[int, str]:
    """Run ``work`` in a child process as a user without root's power to write read-only files (``nobody``
    when we are root): its exit code and what it wrote to stderr."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        code = 99
        try:
            os.close(read)
            sys.stderr = open(write, "w", encoding="utf-8")  # noqa: SIM115
            if os.geteuid() == 0:
                nobody = pwd.getpwnam("nobody")
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
            code = work()
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    os.close(write)
    with open(read, encoding="utf-8") as f:
        err = f.read()
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), err


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder the unprivileged user can reach (pytest's own temporary folders are private to root)."""
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("nobody")
        except KeyError:
            pytest.skip("running as root and there is no user 'nobody' to try a read-only file with")
    top = Path(tempfile.mkdtemp(prefix="tiempo-ro-"))
    top.chmod(0o755)
    try:
        yield top
    finally:
        for p in [top, *top.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        shutil.rmtree(top)


def _give_to_nobody(*paths: Path) -> None:
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        for p in paths:
            os.chown(p, nobody.pw_uid, nobody.pw_gid)


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_database_or_folder_is_explained_and_left_as_it_was(
        what: str, shared_folder: Path, offline: list[Config]) -> None:
    folder = shared_folder / "games"
    folder.mkdir()
    db = folder / "tiempo.sqlite3"
    before = tiempo_database(db)
    config = shared_folder / "tiempo.toml"
    config.write_text(f"database = '{db}'\n", encoding="utf-8")
    _give_to_nobody(folder, db, config)
    (db if what == "file" else folder).chmod(0o444 if what == "file" else 0o555)
    code, err = unprivileged(lambda: main(["--config", str(config)]))
    assert code == 2, err
    if what == "file":
        one_sentence(err, f"The database {db} is read-only", "make it writable by the user running Tiempo")
    else:
        one_sentence(err, f"The folder {folder} of the database {db} is read-only", "-wal", "make the folder writable")
    assert db.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["tiempo.sqlite3"]


def test_an_unreachable_postgresql_server_is_explained_without_the_password(
        tmp_path: Path, offline: list[Config], capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert start(tmp_path, f"postgresql://tiempo:s3cret@127.0.0.1:{port}/tiempo") == 2
    err = capsys.readouterr().err
    one_sentence(err, f"Cannot reach the PostgreSQL server of postgresql://tiempo@127.0.0.1:{port}/tiempo",
                 "start it, or fix the host and port")
    assert "s3cret" not in err and offline == []


def test_a_postgresql_password_with_a_reserved_character_not_encoded_is_explained_without_it(
        tmp_path: Path, offline: list[Config], capsys: pytest.CaptureFixture[str]) -> None:
    """``p@ss/wd`` written as it is cuts the URL in the wrong places: the sentence says to %-encode it,
    and quotes no part of it (nor "cannot reach the server", which would send the host astray)."""
    for url in ("postgresql://tiempo:p@ss/wd@localhost:5499/tiempo", "postgresql://tiempo:p#ss@localhost/tiempo"):
        assert start(tmp_path, url) == 2
        err = capsys.readouterr().err
        one_sentence(err, "The PostgreSQL URL has a user or password with a character a URL reserves",
                     "@ as %40, / as %2F")
        assert "ss/wd" not in err and "p#ss" not in err and "Cannot reach" not in err and offline == []


def test_a_short_password_or_one_like_the_user_name_is_hidden_without_garbling_the_sentence() -> None:
    """A server's message quoting the password has it hidden where it stands as a word; a one-letter
    password is not cut out of other words, and a password that is also the user's name leaves the
    name (shown anyway) as it is."""
    from bot.storage.check import _hide_password

    assert _hide_password('password "s3cret" refused for user "tiempo"', "postgresql://tiempo:s3cret@h/db") == \
        'password "***" refused for user "tiempo"'
    said = "connection to postgresql at port 5499 failed: password p refused"
    assert _hide_password(said, "postgresql://tiempo:p@h:5499/db") == \
        "connection to postgresql at port 5499 failed: password *** refused"
    assert _hide_password('password authentication failed for user "tiempo"',
                          "postgresql://tiempo:tiempo@h/tiempo") == 'password authentication failed for user "tiempo"'


def test_postgresql_refusals_are_explained_without_the_password(
        pg_cluster: Cluster, tmp_path: Path, offline: list[Config], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def setup() -> None:
        admin = await asyncpg.connect(pg_cluster.url())
        try:
            await admin.execute("CREATE ROLE tiempo_main LOGIN PASSWORD 'right-one'")
            await admin.execute("CREATE DATABASE tiempo_main OWNER tiempo_main")
        finally:
            await admin.close()
    asyncio.run(setup())
    wrong = pg_cluster.url("tiempo_main", "tiempo_main", "wrong-one")
    assert start(tmp_path, wrong) == 2
    err = capsys.readouterr().err
    one_sentence(err, "PostgreSQL refused the user or password of postgresql://tiempo_main@/tiempo_main?host=",
                 "fix them in the URL")
    assert "wrong-one" not in err
    missing = pg_cluster.url("no_such_database", "tiempo_main", "right-one")
    assert start(tmp_path, missing) == 2
    err = capsys.readouterr().err
    one_sentence(err, "The PostgreSQL database of postgresql://tiempo_main@/no_such_database", "does not exist",
                 "create it")
    assert "right-one" not in err and offline == []

    right = pg_cluster.url("tiempo_main", "tiempo_main", "right-one")
    assert start(tmp_path, right) == 0 and [c.database for c in offline] == [right]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiempo.toml"]  # no SQLite file
    monkeypatch.setenv("TIEMPO_DATABASE", right)  # the environment overrides the file's database
    assert start(tmp_path, str(tmp_path / "games.sqlite3")) == 0 and offline[-1].database == right
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiempo.toml"]
    monkeypatch.delenv("TIEMPO_DATABASE")

    async def newer() -> None:
        conn = await asyncpg.connect(right)
        try:
            await conn.execute(f"UPDATE tiempo_schema SET version = {SCHEMA_VERSION + 1}")
        finally:
            await conn.close()
    asyncio.run(newer())
    assert start(tmp_path, right) == 2
    one_sentence(capsys.readouterr().err, "postgresql://tiempo_main@/tiempo_main", "written by a newer Tiempo")


def test_a_database_on_a_read_only_mount_is_explained_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """chmod cannot help a file system mounted read-only: the sentence says to mount it read-write or
    move the database (the mount is played by os.statvfs's read-only flag)."""
    from bot.storage import check

    db = tmp_path / "t.sqlite3"
    db.write_bytes(b"")
    real = os.statvfs

    def read_only(path: Any) -> Any:
        got = real(path)
        return os.statvfs_result((*got[:8], got.f_flag | os.ST_RDONLY, got.f_namemax))

    monkeypatch.setattr(check.os, "statvfs", read_only)
    problem = check.sqlite_problem(str(db))
    assert problem is not None and "mounted read-only" in problem and "chmod" not in problem
    monkeypatch.setattr(check.os, "statvfs", real)
    assert check.sqlite_problem(str(db)) is None
    # a folder to make there: creating it by hand would fail the same way, so the sentence does not ask to

    def refused(self: Path, *args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(check.Path, "mkdir", refused)
    inside = tmp_path / "sub" / "t.sqlite3"
    assert check.sqlite_problem(str(inside)) == (
        f"Cannot create the folder {inside.parent} for the database {inside}: it would be on a file system mounted "
        "read-only. Set database to a path on a writable disk.")
