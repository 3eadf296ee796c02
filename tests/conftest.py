"""Shared fixtures: the simulated Discord for end-to-end bot tests (``discord_sim``, and ``sim``, which also
fails the test on any error the bot logged; see tests/support/discord_sim.py), and the
storage backends (a SQLite file, a database on a throwaway PostgreSQL cluster: tests/support/pg_cluster.py)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.storage import Storage
from tests.support.backends import Backend, PostgresBackend, SQLiteBackend
from tests.support.discord_sim import DiscordSim
from tests.support.pg_cluster import INSTALL, NO_POSTGRES_USER, Cluster, server_programs


@pytest.fixture
async def discord_sim() -> AsyncIterator[DiscordSim]:
    """Discord on 127.0.0.1 with discord.py pointed at it; afterwards, fails the test if anything tried
    to reach past loopback or called a route the simulator does not implement."""
    async with DiscordSim.running() as sim:
        yield sim
        assert sim.blocked == [], f"tried to leave loopback: {sim.blocked}"
        assert sim.unhandled == [], f"routes the simulator lacks: {[(r.method, r.path) for r in sim.unhandled]}"


@pytest.fixture
async def sim(discord_sim: DiscordSim) -> AsyncIterator[DiscordSim]:
    """The Discord stand-in for a test of the bot; afterwards, fails the test if the bot logged an error."""
    yield discord_sim
    assert discord_sim.errors == [], [r.getMessage() for r in discord_sim.errors]


def _cannot(sentence: str) -> None:
    """Skip the test, saying what to install; under .ci/run (TIEMPO_REQUIRE_POSTGRES=1) fail it instead."""
    if os.environ.get("TIEMPO_REQUIRE_POSTGRES", "").strip() == "1":
        pytest.fail(sentence, pytrace=False)
    pytest.skip(sentence)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A PostgreSQL cluster for the whole session, started on first use and removed at the end."""
    programs = server_programs()
    if programs is None:
        _cannot(INSTALL)
    assert programs is not None
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            _cannot(NO_POSTGRES_USER)
    cluster = Cluster(programs)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def pg_template(pg_cluster: Cluster) -> str:
    """A database migrated to the current schema, made once per session; a test that opens a working
    store is given a copy of it (``CREATE DATABASE … TEMPLATE``: a fraction of the second and a half that
    creating a database and migrating it takes)."""

    async def migrated() -> str:
        name = await pg_cluster.new_database("tiempo_template")
        store = await Storage.open(pg_cluster.url(name))
        await store.close()
        return name

    with ThreadPoolExecutor(1) as thread:  # asked for from inside a test's running event loop
        return thread.submit(asyncio.run, migrated()).result()


@pytest.fixture
async def pg_url(pg_cluster: Cluster, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """The URL of a new database on the test cluster, dropped after the test: empty, or already migrated
    (a copy of ``pg_template``) for a test that uses the ``store`` fixture, which opens it."""
    template = request.getfixturevalue("pg_template") if "store" in request.fixturenames else None
    name = await pg_cluster.new_database(template=template)
    yield pg_cluster.url(name)
    await pg_cluster.drop_database(name)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Each storage backend in turn, empty: a new SQLite file, or a new database on the test cluster.

    The PostgreSQL half is ``slow``: a new database costs about 1.5 s, most of the quick loop's time
    spent on storage; the full suite (.ci/run) passes every test on both backends."""
    if request.param == "sqlite":
        return SQLiteBackend(str(tmp_path / "tiempo.sqlite3"))
    return PostgresBackend(request.getfixturevalue("pg_url"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that needs the PostgreSQL cluster is ``slow``: the quick loop starts no server (the full
    suite, which .ci/run runs, has them all)."""
    for item in items:
        if "pg_cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
