"""The storage contract, on each backend (a SQLite file, a real PostgreSQL database; see the ``backend``
fixture in conftest.py): schema and migrations, one active game per channel, the action log (atomic,
stale writes refused, also between two connections, undo), statuses and deadlines, per-game locks, and no
accepted action lost when the process is killed. Then what only one backend has: SQLite's WAL and full
sync, PostgreSQL's synchronous commit and a URL whose password is never shown."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import asyncpg
import pytest

import bot.storage.schema as schema_module
from bot.storage import (
    SCHEMA_VERSION,
    Body,
    ChannelBusyError,
    DatabaseFaultError,
    GameBusyError,
    GameNotFoundError,
    GameRecord,
    HintCounts,
    Letter,
    SchemaError,
    SeatRecord,
    StaleSeqError,
    StandIn,
    Status,
    StatusError,
    Step,
    Storage,
)
from bot.storage.community import PlayerRecords, RatingChange, RatingRecord, ResultRecord, Totals
from tests.support.backends import Backend
from tests.support.pg_cluster import Cluster

ROOT = Path(__file__).resolve().parents[2]
#: a game as an older schema holds it, written behind Storage's back (Storage reads the current columns)
OLD_GAME = ("INSERT INTO games (guild_id, channel_id, opener_id, seed, created_at, updated_at) "
            "VALUES (1, 2, 101, 7, 1.0, 1.0)")
SEATS = (SeatRecord(101, "Ana", "Red"), SeatRecord(202, "Bénédicte", "White"), SeatRecord(0, "AI", "Green", "easy"))


@pytest.fixture
def db_path(backend: Backend) -> str:
    """A fresh database: a file path or a postgresql:// URL."""
    return backend.target


@pytest.fixture
async def store(db_path: str) -> AsyncIterator[Storage]:
    """An open Storage on a fresh database, closed after the test."""
    s = await Storage.open(db_path)
    try:
        yield s
    finally:
        await s.close()


async def playing(store: Storage, channel_id: int = 2, now: float = 1000.0,
                  turn_deadline: float | None = None) -> GameRecord:
    """A started game with three seats and snapshot ``{"seq": 0}`` (and its first turn's deadline)."""
    g = await store.create_game(guild_id=1, channel_id=channel_id, opener_id=101, seed=7, seats=SEATS,
                                options={"holdem": False}, now=now)
    return await store.start_game(g.id, json.dumps({"seq": 0}), turn_deadline=turn_deadline, now=now + 1)


def raw(path: str) -> sqlite3.Connection:
    """A plain sqlite3 connection to the file, to look behind Storage's back."""
    return sqlite3.connect(path, isolation_level=None)


def step(*statements: str) -> Step:
    """A migration step written the same way for both backends."""
    return Step.same(*statements)


# ---------------------------------------------------------------------------------------------
# Schema


async def test_migrations_build_the_schema_on_a_fresh_database(backend: Backend) -> None:
    s = await Storage.open(backend.target)
    assert await s.schema_version() == SCHEMA_VERSION >= 1
    await s.close()
    assert await backend.version() == SCHEMA_VERSION
    assert {"games", "actions", "games_one_active_per_channel"} <= await backend.names()


async def test_reopening_applies_nothing_twice_and_keeps_the_data(backend: Backend) -> None:
    s = await Storage.open(backend.target)
    g = await playing(s)
    g = await s.append_action(g.id, 1, 101, "Red end", '{"seq": 1}', now=2000.0)
    await s.close()
    schema = await backend.schema()
    s = await Storage.open(backend.target)
    assert await s.get_game(g.id) == g
    assert [a.action for a in await s.list_actions(g.id)] == ["Red end"]
    await s.close()
    assert await backend.schema() == schema
    assert await backend.version() == SCHEMA_VERSION


async def test_a_new_migration_step_is_applied_once_in_order(backend: Backend, monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    s = await Storage.open(backend.target)
    g = await s.create_game(guild_id=1, channel_id=2, opener_id=3, seed=4)
    await s.close()
    new = step("ALTER TABLE games ADD COLUMN note TEXT NOT NULL DEFAULT ''", "UPDATE games SET note = 'migrated'")
    monkeypatch.setattr(schema_module, "MIGRATIONS", (*schema_module.MIGRATIONS, new))
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    for _ in range(2):  # the second open finds nothing to do
        s = await Storage.open(backend.target)
        assert await s.schema_version() == SCHEMA_VERSION + 1
        assert (await s.get_game(g.id)).id == g.id
        await s.close()
    assert await backend.fetch("SELECT note FROM games") == [("migrated",)]


async def test_a_failing_migration_step_leaves_the_database_as_it_was(backend: Backend,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    await (await Storage.open(backend.target)).close()
    bad = step("ALTER TABLE games ADD COLUMN note TEXT", "THIS IS NOT SQL")
    monkeypatch.setattr(schema_module, "MIGRATIONS", (*schema_module.MIGRATIONS, bad))
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(backend.errors):
        await Storage.open(backend.target)
    assert await backend.version() == SCHEMA_VERSION
    assert "note" not in await backend.columns("games")


async def test_two_bots_starting_at_once_migrate_once(backend: Backend) -> None:
    stores = await asyncio.gather(*(Storage.open(backend.target) for _ in range(3)))
    try:
        assert [await s.schema_version() for s in stores] == [SCHEMA_VERSION] * 3
        g = await playing(stores[0])
        assert await stores[2].get_game(g.id) == g
    finally:
        for s in stores:
            await s.close()
    assert await backend.version() == SCHEMA_VERSION


async def test_a_database_from_a_newer_tiempo_is_refused(backend: Backend) -> None:
    await (await Storage.open(backend.target)).close()
    await backend.set_version(SCHEMA_VERSION + 1)
    with pytest.raises(SchemaError, match="newer than this Tiempo knows"):
        await Storage.open(backend.target)
    assert await backend.version() == SCHEMA_VERSION + 1


# ---------------------------------------------------------------------------------------------
# Games


async def test_a_game_is_created_in_the_lobby_and_read_back(store: Storage) -> None:
    g = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=42, seats=SEATS,
                                options={"holdem": True, "turn_limit": 30}, now=1000.0)
    assert g.status is Status.LOBBY and g.is_active
    assert (g.guild_id, g.channel_id, g.opener_id, g.seed) == (1, 2, 101, 42)
    assert g.seats == SEATS and g.options == {"holdem": True, "turn_limit": 30}
    assert (g.snapshot, g.action_count, g.next_seq, g.turn_deadline, g.half_warned) == (None, 0, 1, None, False)
    assert g.created_at == g.updated_at == 1000.0
    assert await store.get_game(g.id) == g
    with pytest.raises(GameNotFoundError, match=f"no game #{g.id + 1}"):
        await store.get_game(g.id + 1)


async def test_a_seed_of_any_size_is_kept_exactly(store: Storage, backend: Backend) -> None:
    """A keyed seed (129 bits, beyond any integer column) and a seed of the old kind both read back as
    they were given; the big one never goes through a 64-bit column."""
    big = (1 << 128) | (2**127 + 12345)
    games = [await store.create_game(guild_id=1, channel_id=c, opener_id=101, seed=seed)
             for c, seed in ((10, big), (11, 2**63 - 1), (12, 0))]
    assert [g.seed for g in games] == [big, 2**63 - 1, 0]
    assert [(await store.get_game(g.id)).seed for g in games] == [big, 2**63 - 1, 0]
    assert await backend.fetch(f"SELECT seed, seed_text FROM games WHERE id = {games[0].id}") == [(0, str(big))]


async def test_a_database_of_schema_2_keeps_its_games_seeds(backend: Backend, monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Upgrading a database written before keyed seeds (schema 2) keeps every game and its seed."""
    monkeypatch.setattr(schema_module, "MIGRATIONS", schema_module.MIGRATIONS[:2])
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", 2)
    await (await Storage.open(backend.target)).close()
    monkeypatch.undo()
    await backend.fetch("INSERT INTO games (guild_id, channel_id, opener_id, seed, created_at, updated_at) "
                        f"VALUES (1, 2, 101, {2**31 - 1}, 1.0, 1.0)")
    s = await Storage.open(backend.target)
    try:
        assert await s.schema_version() == SCHEMA_VERSION
        assert [g.seed for g in await s.list_games()] == [2**31 - 1]
    finally:
        await s.close()


async def test_progress_is_kept_per_person_and_marked_once(store: Storage) -> None:
    """The course's progress (migration 4): items per person, the first mark kept, forgotten by prefix."""
    assert await store.progress.done(101) == set()
    assert await store.progress.mark(101, "lesson:cards", now=5.0) is True
    assert await store.progress.mark(101, "lesson:cards", now=6.0) is False
    assert await store.progress.mark(101, "tip:ripple", now=7.0) is True
    assert await store.progress.mark(2**62, "lesson:cards", now=8.0) is True  # a Discord id is a 64-bit number
    assert await store.progress.done(101) == {"lesson:cards", "tip:ripple"}
    assert await store.progress.forget(101, "lesson:") == 1
    assert await store.progress.done(101) == {"tip:ripple"}
    assert await store.progress.done(2**62) == {"lesson:cards"}


async def test_a_database_of_schema_3_gains_the_progress_table(backend: Backend, monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """Upgrading a database of schema 3 keeps its games and adds the (empty) progress table."""
    monkeypatch.setattr(schema_module, "MIGRATIONS", schema_module.MIGRATIONS[:3])
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", 3)
    await (await Storage.open(backend.target)).close()
    monkeypatch.undo()
    await backend.fetch(OLD_GAME)
    s = await Storage.open(backend.target)
    try:
        assert await s.schema_version() == SCHEMA_VERSION
        assert len(await s.list_games()) == 1 and await s.progress.done(101) == set()
        assert "progress" in await backend.names()
    finally:
        await s.close()


async def test_notify_is_kept_per_person_channel_until_chosen(store: Storage) -> None:
    """How a person is told of their turn (migration 7): ``channel`` until they choose; a bad mode is refused."""
    assert await store.notices.mode(101) == "channel"
    await store.notices.choose(101, "dm", now=1.0)
    await store.notices.choose(2**62, "off", now=1.0)  # a Discord id is a 64-bit number
    assert (await store.notices.mode(101), await store.notices.mode(2**62)) == ("dm", "off")
    await store.notices.choose(101, "channel", now=2.0)
    assert await store.notices.mode(101) == "channel"
    with pytest.raises(ValueError):
        await store.notices.choose(101, "pigeon")
    assert await store.notices.mode(101) == "channel"


async def test_direct_messages_wait_until_due_and_only_while_the_game_is_where_it_was(store: Storage) -> None:
    """A letter is stored with its action, read only once due, current while the game has not moved on."""
    game = await playing(store)
    await store.notices.choose(101, "dm", now=1.0)
    await store.append_action(game.id, 1, 10, "M:build", "s1", now=5.0,
                              posts=["turn post", Letter(101, "dm body", "fallback", due_at=605.0, seq=1)])
    assert [p.body for p in await store.posts.pending(game.channel_id)] == ["turn post"]
    assert await store.notices.due(604.0) == []
    assert await store.notices.next_due() == 605.0
    (letter,) = await store.notices.due(605.0)
    assert (letter.user_id, letter.body, letter.fallback, letter.current) == (101, "dm body", "fallback", True)
    assert (letter.game_id, letter.guild_id, letter.channel_id) == (game.id, game.guild_id, game.channel_id)
    assert letter.nonce == f"tiempo-dm-{letter.id}"
    await store.append_action(game.id, 2, 10, "M:build", "s2", now=6.0)  # the player acted: no longer current
    assert [x.current for x in await store.notices.due(605.0)] == [False]
    await store.truncate_last_action(game.id, 2, "s1", now=7.0)  # and undid it: one action again, still acted
    assert [x.current for x in await store.notices.due(605.0)] == [False]
    await store.notices.sent(letter.id)
    assert await store.notices.due(10_000.0) == [] and await store.notices.next_due() is None


async def test_a_refused_direct_message_becomes_a_channel_post_and_says_why_once(store: Storage) -> None:
    game = await playing(store)
    await store.notices.choose(101, "dm", now=1.0)
    await store.append_action(game.id, 1, 10, "M:build", "s1", now=5.0,
                              posts=[Letter(101, "dm", "fb", 5.0, 1), Letter(101, "dm2", "fb2", 6.0, 1)])
    first, second = await store.notices.due(6.0)
    assert await store.notices.refused(first, "fb + why", "fb", now=7.0) is True
    assert await store.notices.refused(first, "fb + why", "fb", now=7.0) is False  # taken already: nothing
    assert await store.notices.refused(second, "fb2 + why", "fb2", now=8.0) is False
    assert [p.body for p in await store.posts.pending(game.channel_id)] == ["fb + why", "fb2"]
    assert await store.notices.due(100.0) == []
    await store.notices.choose(101, "dm", now=9.0)  # choosing again: told again next time
    await store.append_action(game.id, 2, 10, "M:build", "s2", now=10.0, posts=[Letter(101, "dm3", "fb3", 10.0, 2)])
    (third,) = await store.notices.due(10.0)
    assert await store.notices.refused(third, "fb3 + why", "fb3") is True


async def test_the_seats_the_ai_keeps_warm_are_stored_with_an_action_or_alone(store: Storage) -> None:
    """Migration step 7: who the AI stands in for (and each seat's time-outs in a row) is kept with the game,
    written with an action in its transaction or on its own (a person handing their seat over), and only
    while the game is being played."""
    g = await playing(store)
    assert g.stand_ins == () and g.stand_in(1) == StandIn(1)
    g = await store.append_action(g.id, 1, 101, "Red end", '{"seq": 1}', stand_ins=[StandIn(1, misses=1)])
    assert g.stand_ins == (StandIn(1, misses=1),)
    g = await store.append_action(g.id, 2, 202, "White end", '{"seq": 2}')  # KEEP: unchanged
    assert (await store.get_game(g.id)).stand_ins == (StandIn(1, misses=1),)
    warm = (StandIn(0, by="away", stood=True), StandIn(1, misses=2, by="time", back=True, stood=True))
    g = await store.set_stand_ins(g.id, warm, posts=['{"text": "away"}'], now=3000.0)
    assert (await store.get_game(g.id)).stand_ins == warm and g.updated_at == 3000.0
    assert [p.body for p in await store.posts.pending(g.channel_id)] == ['{"text": "away"}']
    g = await store.set_stand_ins(g.id, ())
    assert (await store.get_game(g.id)).stand_ins == ()
    await store.set_status(g.id, Status.FINISHED)
    with pytest.raises(StatusError):
        await store.set_stand_ins(g.id, warm)


async def test_a_database_of_schema_7_gains_the_stand_ins_of_its_games(backend: Backend,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Upgrading a database of schema 7 keeps its games, whose seats the AI keeps warm are none."""
    monkeypatch.setattr(schema_module, "MIGRATIONS", schema_module.MIGRATIONS[:7])
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", 7)
    await (await Storage.open(backend.target)).close()
    monkeypatch.undo()
    await backend.fetch(OLD_GAME)
    s = await Storage.open(backend.target)
    try:
        assert await s.schema_version() == SCHEMA_VERSION >= 8
        assert [g.stand_ins for g in await s.list_games()] == [()]
    finally:
        await s.close()


async def test_the_hints_each_seat_asked_for_are_counted_with_the_game(store: Storage) -> None:
    """Migration step 9: the hints each seat asked for are counted with the game while it is played, and
    read back after it ended."""
    g = await playing(store)
    assert g.hints == () and g.hints_of(0) == g.hints_of(1) == 0
    counts = HintCounts(store.database)
    assert await counts.count(g.id, 1) == (0, 1)
    assert (await store.get_game(g.id)).hints == (0, 1)
    await counts.count(g.id, 1)
    assert await counts.count(g.id, 0) == (1, 2)
    await store.set_status(g.id, Status.FINISHED)
    g = await store.get_game(g.id)
    assert (g.hints_of(0), g.hints_of(1), g.hints_of(4)) == (1, 2, 0)
    with pytest.raises(StatusError):
        await counts.count(g.id, 0)
    with pytest.raises(GameNotFoundError):
        await counts.count(g.id + 100, 0)


async def test_a_database_of_schema_8_gains_the_hint_counts_of_its_games(backend: Backend,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Upgrading a database of schema 8 keeps its games, whose hints asked for are none."""
    monkeypatch.setattr(schema_module, "MIGRATIONS", schema_module.MIGRATIONS[:8])
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", 8)
    await (await Storage.open(backend.target)).close()
    monkeypatch.undo()
    await backend.fetch(OLD_GAME)
    s = await Storage.open(backend.target)
    try:
        assert await s.schema_version() == SCHEMA_VERSION >= 9
        assert [g.hints for g in await s.list_games()] == [()]
    finally:
        await s.close()


async def test_a_database_of_schema_9_keeps_its_unsent_posts_and_stores_pictures_as_binary(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """Migration step 10: the outbox gains a binary column for a post's pictures (a BLOB, a bytea). A
    post stored before it keeps its text (its pictures in it) and has no binary; a post stored after it
    gets its bytes back exactly, NUL and high bytes included, in order with the old ones."""
    monkeypatch.setattr(schema_module, "MIGRATIONS", schema_module.MIGRATIONS[:9])
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", 9)
    await (await Storage.open(backend.target)).close()
    monkeypatch.undo()
    await backend.fetch(OLD_GAME)
    await backend.fetch("INSERT INTO outbox (game_id, guild_id, channel_id, body, created_at) "
                        """VALUES (1, 1, 2, '{"text": ["old"], "png": "iVBORw=="}', 1.0)""")
    s = await Storage.open(backend.target)
    try:
        assert await s.schema_version() == SCHEMA_VERSION >= 10
        game = await s.get_game(1)
        pictures = b"\x89PNG\r\n\x1a\n\x00\xff" + bytes(range(256)) * 1000
        await s.posts.add(game, [Body('{"text": ["new"], "png": 256010}', pictures), Body("no pictures"), "text"], 2.0)
        waiting = await s.posts.pending(2)
        assert [(p.body, p.pictures) for p in waiting] == [
            ('{"text": ["old"], "png": "iVBORw=="}', None), ('{"text": ["new"], "png": 256010}', pictures),
            ("no pictures", None), ("text", None)]
        assert [type(r[0]) for r in await backend.fetch("SELECT pictures FROM outbox ORDER BY id")] == [
            type(None), bytes, type(None), type(None)]
    finally:
        await s.close()


async def test_one_active_game_per_channel(store: Storage, backend: Backend) -> None:
    g = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=1)
    with pytest.raises(ChannelBusyError) as busy:
        await store.create_game(guild_id=1, channel_id=2, opener_id=202, seed=2)
    assert busy.value.game_id == g.id
    other = await store.create_game(guild_id=1, channel_id=3, opener_id=202, seed=2)
    assert await store.active_game_in_channel(2) == g
    assert await store.active_game_in_channel(3) == other
    assert await store.active_game_in_channel(4) is None
    # the partial unique index holds even for a writer that skips Storage's check
    with pytest.raises(backend.integrity_error):
        await backend.fetch("INSERT INTO games (guild_id, channel_id, opener_id, seed, created_at, updated_at) "
                            "VALUES (1, 2, 9, 9, 0, 0)")
    await store.set_status(g.id, Status.CANCELLED)
    assert await store.active_game_in_channel(2) is None
    again = await store.create_game(guild_id=1, channel_id=2, opener_id=202, seed=3)
    assert again.id > other.id  # ids are never reused


async def test_lobby_changes_then_start(store: Storage) -> None:
    g = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=1, now=10.0)
    g = await store.update_lobby(g.id, seats=SEATS[:1], now=11.0)
    g = await store.update_lobby(g.id, options={"holdem": True}, now=12.0)
    assert g.seats == SEATS[:1] and g.options == {"holdem": True} and g.updated_at == 12.0
    g = await store.start_game(g.id, '{"seq": 0}', seats=SEATS, turn_deadline=500.0, now=13.0)
    assert (g.status, g.snapshot, g.seats, g.turn_deadline) == (Status.PLAYING, '{"seq": 0}', SEATS, 500.0)
    with pytest.raises(StatusError, match="is playing; cannot change its seats"):
        await store.update_lobby(g.id, seats=())
    with pytest.raises(StatusError, match="cannot start it"):
        await store.start_game(g.id, "{}")


async def test_statuses_move_only_forward(store: Storage) -> None:
    lobby = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=1)
    with pytest.raises(StatusError):
        await store.set_status(lobby.id, Status.FINISHED)
    with pytest.raises(StatusError):
        await store.set_status(lobby.id, Status.PLAYING)  # start_game does that, with a snapshot
    g = await playing(store, channel_id=3, turn_deadline=5000.0)
    done = await store.set_status(g.id, Status.FINISHED, now=3000.0)
    assert (done.status, done.turn_deadline, done.updated_at, done.is_active) == (Status.FINISHED, None, 3000.0, False)
    for status in Status:
        with pytest.raises(StatusError):
            await store.set_status(g.id, status)
    with pytest.raises(StatusError, match="cannot play an action"):
        await store.append_action(g.id, 1, 101, "Red end", "{}")
    with pytest.raises(GameNotFoundError):
        await store.set_status(999, Status.CANCELLED)


# ---------------------------------------------------------------------------------------------
# The action log


async def test_append_action_logs_and_snapshots_together(store: Storage) -> None:
    g = await playing(store)
    g = await store.append_action(g.id, 1, 101, "Red travel 1 F", '{"seq": 1}', now=2000.0)
    g = await store.append_action(g.id, g.next_seq, 202, "White end", '{"seq": 2}', now=2001.0)
    assert (g.action_count, g.snapshot, g.updated_at) == (2, '{"seq": 2}', 2001.0)
    actions = await store.list_actions(g.id)
    assert [(a.seq, a.actor_id, a.action, a.created_at) for a in actions] == [
        (1, 101, "Red travel 1 F", 2000.0), (2, 202, "White end", 2001.0)]
    assert [a.seq for a in await store.list_actions(g.id, after=1)] == [2]
    assert await store.list_actions(999) == []


async def test_append_action_returns_the_game_as_stored(store: Storage) -> None:
    """The record ``append_action`` returns is the one a read gives after it (it is not read back):
    with and without a deadline, seats kept warm, the game's end."""
    g = await playing(store, now=1000)
    g = await store.append_action(g.id, 1, 101, "Red travel 1 F", '{"seq": 1}', now=2000)
    assert g == await store.get_game(g.id)
    marked = await store.mark_half_warned(g.id)
    assert marked is not None and marked.half_warned
    g = await store.append_action(g.id, 2, 101, "Red end", '{"seq": 2}', now=2001.5, turn_deadline=6000.25,
                                  stand_ins=[StandIn(1, misses=2), StandIn(2, by="away", stood=True)])
    assert g == await store.get_game(g.id) and (g.turn_deadline, g.half_warned) == (6000.25, False)
    g = await store.append_action(g.id, 3, 202, "White end", '{"seq": 3}', now=2002.0, stand_ins=[])
    assert g == await store.get_game(g.id) and g.stand_ins == ()
    g = await store.append_action(g.id, 4, 202, "White wins", '{"seq": 4}', now=2003.0, status=Status.FINISHED)
    assert g == await store.get_game(g.id) and (g.status, g.turn_deadline) == (Status.FINISHED, None)


async def test_a_stale_seq_is_refused_and_writes_nothing(store: Storage) -> None:
    g = await playing(store)
    g = await store.append_action(g.id, 1, 101, "Red end", '{"seq": 1}')
    for seq in (1, 3, 0):
        with pytest.raises(StaleSeqError, match="changed since it was loaded") as stale:
            await store.append_action(g.id, seq, 202, "White end", '{"seq": "stale"}')
        assert (stale.value.expected_seq, stale.value.action_count) == (seq, 1)
    assert await store.get_game(g.id) == g
    assert len(await store.list_actions(g.id)) == 1


async def test_concurrent_appends_at_the_same_seq_one_wins(store: Storage) -> None:
    g = await playing(store)
    results = await asyncio.gather(
        *(store.append_action(g.id, 1, 101 + i, f"action by {i}", json.dumps({"by": i})) for i in range(5)),
        return_exceptions=True)
    winners = [r for r in results if isinstance(r, GameRecord)]
    assert len(winners) == 1
    assert all(isinstance(r, StaleSeqError) for r in results if r not in winners)
    (action,) = await store.list_actions(g.id)
    assert (await store.get_game(g.id)).snapshot == json.dumps({"by": action.actor_id - 101})


async def test_two_connections_appending_at_the_same_seq_one_wins(store: Storage, db_path: str) -> None:
    """As two bot processes would: each has its own connection(s); the database decides."""
    other = await Storage.open(db_path)
    try:
        g = await playing(store)
        for seq in (1, 2, 3):
            results = await asyncio.gather(
                *(s.append_action(g.id, seq, 101 + i, f"{seq} by {i}", json.dumps({"seq": seq, "by": i}))
                  for i, s in enumerate([store, other, store, other])), return_exceptions=True)
            winners = [r for r in results if isinstance(r, GameRecord)]
            assert len(winners) == 1, results
            assert all(isinstance(r, StaleSeqError) for r in results if r not in winners), results
        assert [a.seq for a in await other.list_actions(g.id)] == [1, 2, 3]
        assert await store.integrity_problems() == []
    finally:
        await other.close()


async def test_append_action_is_all_or_nothing(store: Storage, backend: Backend) -> None:
    g = await playing(store)
    await backend.refuse_snapshot("boom")  # the snapshot update fails after the action row was inserted
    with pytest.raises(backend.errors, match="boom refused"):
        await store.append_action(g.id, 1, 101, "Red end", "boom")
    assert await store.list_actions(g.id) == []
    assert await store.get_game(g.id) == g
    g = await store.append_action(g.id, 1, 101, "Red end", '{"seq": 1}')  # the connection is usable
    assert g.action_count == 1 and await store.integrity_problems() == []


async def test_the_last_action_ends_the_game_in_the_same_transaction(store: Storage) -> None:
    g = await playing(store, turn_deadline=9000.0)
    g = await store.append_action(g.id, 1, 101, "Red end", '{"over": true}', status=Status.FINISHED)
    assert (g.status, g.turn_deadline, g.action_count) == (Status.FINISHED, None, 1)
    assert await store.active_game_in_channel(g.channel_id) is None


async def test_undo_removes_the_last_action_and_restores_the_snapshot(store: Storage) -> None:
    g = await playing(store)
    for seq in (1, 2):
        g = await store.append_action(g.id, seq, 101, f"action {seq}", json.dumps({"seq": seq}))
    with pytest.raises(StaleSeqError):
        await store.truncate_last_action(g.id, 1, '{"seq": 0}')  # not the last one
    g = await store.truncate_last_action(g.id, 2, '{"seq": 1}', now=3000.0)
    assert (g.action_count, g.snapshot, g.updated_at) == (1, '{"seq": 1}', 3000.0)
    assert [a.action for a in await store.list_actions(g.id)] == ["action 1"]
    g = await store.truncate_last_action(g.id, 1, '{"seq": 0}')
    with pytest.raises(StaleSeqError):
        await store.truncate_last_action(g.id, 0, '{"seq": 0}')  # nothing left to undo
    g = await store.append_action(g.id, 1, 101, "again", '{"seq": 1}')  # the seq is free again
    assert g.action_count == 1 and await store.integrity_problems() == []


# ---------------------------------------------------------------------------------------------
# Deadlines, lists, the board message column dropped


async def test_deadlines_and_the_half_time_warning(store: Storage) -> None:
    a = await playing(store, channel_id=2, turn_deadline=300.0)
    b = await playing(store, channel_id=3, turn_deadline=100.0)
    await playing(store, channel_id=4)  # no turn limit
    assert [g.id for g in await store.due_games(300.0)] == [b.id, a.id]
    assert [g.id for g in await store.due_games(200.0)] == [b.id]
    assert (await store.mark_half_warned(b.id)).half_warned
    # an action that starts a new turn sets the next deadline and clears the warning
    b = await store.append_action(b.id, 1, 101, "Red end", '{"seq": 1}', turn_deadline=700.0)
    assert (b.turn_deadline, b.half_warned) == (700.0, False)
    await store.mark_half_warned(b.id)
    b = await store.append_action(b.id, 2, 202, "White travel 1 F", '{"seq": 2}')  # KEEP: same turn
    assert (b.turn_deadline, b.half_warned) == (700.0, True)
    # a warning is written only for the turn it was worked out for, and once
    assert await store.mark_half_warned(b.id, deadline=700.0, posts=["twice"]) is None
    assert await store.mark_half_warned(a.id, deadline=999.0, posts=["another turn's"]) is None
    assert await store.mark_half_warned(a.id, deadline=300.0, posts=["warned"]) is not None
    assert [p.body for p in await store.posts.pending(a.channel_id)] == ["warned"]
    b = await store.append_action(b.id, 3, 303, "Green end", '{"seq": 3}', turn_deadline=800.0)  # the next turn
    assert (b.turn_deadline, b.half_warned) == (800.0, False)
    await store.set_status(a.id, Status.CANCELLED)  # an ended game has no deadline
    assert [g.id for g in await store.due_games(10**9)] == [b.id]


async def test_list_and_count_by_status_and_guild(store: Storage) -> None:
    lobby = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=1)
    play = await playing(store, channel_id=3)
    other_guild = await store.create_game(guild_id=9, channel_id=4, opener_id=101, seed=1)
    done = await playing(store, channel_id=5)
    await store.set_status(done.id, Status.FINISHED)
    assert [g.id for g in await store.list_games()] == [lobby.id, play.id, other_guild.id, done.id]
    assert [g.id for g in await store.list_games(Status.LOBBY)] == [lobby.id, other_guild.id]
    assert [g.id for g in await store.list_games(Status.LOBBY, guild_id=1)] == [lobby.id]
    assert [g.id for g in await store.list_games(guild_id=9)] == [other_guild.id]
    assert await store.count() == 4
    assert await store.count(Status.FINISHED) == 1
    assert await store.count(Status.CANCELLED) == 0
    assert await store.count(guild_id=1) == 3


async def test_the_step_that_drops_the_board_message_keeps_every_game(backend: Backend,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A database from before the step (with the unused ``board_message_id`` column) is migrated: the
    column is gone, the games read back as they were."""
    before = schema_module.MIGRATIONS.index(schema_module._NO_BOARD_MESSAGE)
    with monkeypatch.context() as older:
        older.setattr(schema_module, "MIGRATIONS", schema_module.MIGRATIONS[:before])
        older.setattr(schema_module, "SCHEMA_VERSION", before)
        await (await Storage.open(backend.target)).close()
    # written behind Storage's back, as the older schema holds it (Storage reads the current columns)
    await backend.fetch("INSERT INTO games (guild_id, channel_id, opener_id, status, options, seats, seed, "
                        "created_at, updated_at, snapshot, action_count, turn_deadline, board_message_id) VALUES "
                        f"(1, 2, 101, 'playing', '{{}}', '{json.dumps([s.to_json() for s in SEATS])}', 7, 1.0, "
                        "2000.0, '{\"seq\": 1}', 1, 500.0, 99)")
    await backend.fetch("INSERT INTO actions (game_id, seq, actor_id, action, created_at) "
                        "VALUES (1, 1, 101, 'Red end', 2000.0)")
    assert "board_message_id" in await backend.columns("games")
    s = await Storage.open(backend.target)
    g = await s.get_game(1)
    assert (g.status, g.seats, g.seed, g.snapshot, g.action_count, g.turn_deadline, g.stand_ins) == (
        Status.PLAYING, SEATS, 7, '{"seq": 1}', 1, 500.0, ())
    assert [a.action for a in await s.list_actions(g.id)] == ["Red end"]
    await s.close()
    assert "board_message_id" not in await backend.columns("games")
    assert await backend.version() == SCHEMA_VERSION


# ---------------------------------------------------------------------------------------------
# Locks


async def test_the_game_lock_serialises_commands_in_one_game(store: Storage) -> None:
    assert store.lock(1).memory is store.lock(1).memory
    assert store.lock(1).memory is not store.lock(2).memory
    trace: list[str] = []

    async def command(name: str, game_id: int) -> None:
        async with store.lock(game_id):
            trace.append(f"{name} in")
            await asyncio.sleep(0.01)
            trace.append(f"{name} out")

    await asyncio.gather(command("a", 1), command("b", 1), command("c", 1))
    assert trace == ["a in", "a out", "b in", "b out", "c in", "c out"]
    # other games do not wait: each command stays in until the other is in too (a command that had to
    # wait for the other's game would time out here)
    entered = {1: asyncio.Event(), 2: asyncio.Event()}

    async def meets(game_id: int) -> None:
        async with store.lock(game_id):
            entered[game_id].set()
            await asyncio.wait_for(entered[3 - game_id].wait(), 5)

    await asyncio.gather(meets(1), meets(2))


async def test_posts_are_stored_with_their_action_and_forgotten_once_sent(store: Storage) -> None:
    game = await playing(store)
    await store.append_action(game.id, 1, 10, "M:build", "s1", posts=["first", "second"])
    with pytest.raises(StaleSeqError):  # a refused action stores none of its posts
        await store.append_action(game.id, 1, 10, "M:build", "s1", posts=["lost"])
    await store.truncate_last_action(game.id, 1, "s0", posts=["undone"])
    waiting = await store.posts.pending(game.channel_id)
    assert [p.body for p in waiting] == ["first", "second", "undone"]
    assert len({p.nonce for p in waiting}) == 3 and all(p.game_id == game.id for p in waiting)
    assert await store.posts.channels() == [(game.guild_id, game.channel_id)]
    await store.posts.sent(waiting[0].id)
    assert [p.body for p in await store.posts.pending(game.channel_id)] == ["second", "undone"]
    assert [p.body for p in await store.posts.pending(game.channel_id, after=waiting[1].id)] == ["undone"]
    assert await store.posts.pending(game.channel_id + 1) == []


async def test_sent_posts_are_forgotten_together(store: Storage) -> None:
    """Taking sent posts out of the outbox: many in one call (more than one statement's worth), the
    others kept; ids already gone are no error."""
    from bot.storage.outbox import FORGET_AT_ONCE

    game = await playing(store)
    await store.append_action(game.id, 1, 10, "M:build", "s1", posts=[f"p{i}" for i in range(FORGET_AT_ONCE + 3)])
    waiting = await store.posts.pending(game.channel_id, limit=FORGET_AT_ONCE + 10)
    await store.posts.sent(*(p.id for p in waiting[:-2]), waiting[0].id - 1)
    assert [p.body for p in await store.posts.pending(game.channel_id)] == [f"p{FORGET_AT_ONCE + 1}",
                                                                            f"p{FORGET_AT_ONCE + 2}"]
    await store.posts.sent()  # nothing to forget: nothing happens
    await store.posts.sent(*(p.id for p in waiting))
    assert await store.posts.pending(game.channel_id) == []


async def test_a_start_stores_its_opening_post_with_it(store: Storage) -> None:
    g = await store.create_game(guild_id=1, channel_id=4, opener_id=101, seed=7, seats=SEATS, options={}, now=1.0)
    await store.start_game(g.id, json.dumps({"seq": 0}), now=2.0, posts=["the first board"])
    with pytest.raises(StatusError):  # a start refused stores nothing
        await store.start_game(g.id, json.dumps({"seq": 0}), now=3.0, posts=["twice"])
    assert [p.body for p in await store.posts.pending(4)] == ["the first board"]


async def test_a_game_held_too_long_answers_busy_and_others_still_get_it(store: Storage) -> None:
    held = asyncio.Event()
    release = asyncio.Event()

    async def long_command() -> None:
        async with store.lock(1):
            held.set()
            await release.wait()

    task = asyncio.create_task(long_command())
    await held.wait()
    loop = asyncio.get_running_loop()
    began = loop.time()
    with pytest.raises(GameBusyError, match=r"Game #1 is busy with another move; try again in a moment\."):
        async with store.lock(1, wait=0.2):
            pass
    assert loop.time() - began < 1.0
    async with store.lock(2, wait=0.2):  # another game is free
        pass
    release.set()
    await task
    async with store.lock(1, wait=0.2):  # and the first is free again
        pass


async def test_two_processes_on_one_database_take_turns_with_a_game(db_path: str) -> None:
    """Shards: each process has its own Storage on the same database; a game's lock is also the
    database's, so the second process waits (and answers busy), whatever its own memory says."""
    first = await Storage.open(db_path, shared=True)
    second = await Storage.open(db_path, shared=True)
    try:
        async with first.lock(7):
            with pytest.raises(GameBusyError):
                async with second.lock(7, wait=0.3):
                    pass
            async with second.lock(8, wait=0.3):  # another game is free
                pass
        async with second.lock(7, wait=0.3):  # given back: the other process gets it
            pass
    finally:
        await first.close()
        await second.close()


# ---------------------------------------------------------------------------------------------
# Results and ratings (schema step 4: bot/storage/community.py)


def result(game: GameRecord, seat: int, *, place: int, ecus: int, at: float, rated: bool = True,
           ai: bool = False, players: int = 2) -> ResultRecord:
    s = game.seats[seat]
    return ResultRecord(game.id, seat, game.guild_id, game.channel_id, s.user_id, s.name, ai, players, place, ecus,
                        place == 1, rated, at, ripples=seat + 1, paradoxes=seat, cards=5,
                        built_might=1, built_faith=2 + seat, built_reason=0, income_might=3)


def rating(user_id: int, value: int, *, guild_id: int = 1, games: int = 1) -> RatingRecord:
    return RatingRecord(guild_id, user_id, f"u{user_id}", 25.0 + value / 100, 8.0 - value / 1000, value, games, 5.0)


async def test_a_finished_games_results_and_ratings_are_recorded_once(store: Storage) -> None:
    records = PlayerRecords(store.database)
    g = await playing(store)
    results = [result(g, 0, place=1, ecus=12, at=50.0), result(g, 1, place=2, ecus=7, at=50.0)]
    seen: list[dict[int, RatingRecord | None]] = []

    def rate(before: Mapping[int, RatingRecord | None]) -> tuple[list[RatingChange], list[RatingRecord]]:
        seen.append(dict(before))
        return ([RatingChange(g.id, 101, 1, 1000, 1040, 26.5, 7.5), RatingChange(g.id, 202, 1, 1000, 980, 24.0, 7.5)],
                [rating(101, 1040), rating(202, 980)])

    assert await records.record_game(results, rate)
    assert seen == [{101: None, 202: None}]
    assert not await records.record_game(results, rate)  # once only: nothing read or written again
    assert len(seen) == 1
    assert await records.results_of_game(g.id) == results
    assert await records.is_recorded(g.id) and not await records.is_recorded(g.id + 1)
    assert [c.rating_after for c in await records.changes_of_game(g.id)] == [1040, 980]
    assert await records.all_ratings() == [rating(101, 1040), rating(202, 980)]
    # the next game reads the ratings the first one left, and updates them in place
    g2 = await playing(store, channel_id=3)
    assert await records.record_game([result(g2, 0, place=2, ecus=1, at=60.0), result(g2, 1, place=1, ecus=9, at=60.0)],
                                     lambda before: (seen.append(dict(before)) or [], [rating(101, 1001, games=2)]))
    assert seen[1] == {101: rating(101, 1040), 202: rating(202, 980)}
    assert (await records.rating(1, 101)) == (rating(101, 1001, games=2), 1)


async def test_a_profiles_totals_best_and_last_games_are_the_persons_own_on_the_server(store: Storage) -> None:
    records = PlayerRecords(store.database)
    games = [await playing(store, channel_id=c) for c in (3, 4, 5)]
    await records.record_game([result(games[0], 0, place=1, ecus=12, at=10.0), result(games[0], 1, place=2, ecus=7,
                                                                                      at=10.0)])
    await records.record_game([result(games[1], 0, place=2, ecus=4, at=20.0), result(games[1], 1, place=1, ecus=8,
                                                                                     at=20.0),
                               result(games[1], 2, place=3, ecus=1, at=20.0, ai=True)])
    other = await store.create_game(guild_id=9, channel_id=6, opener_id=101, seed=1, seats=SEATS)
    other = await store.start_game(other.id, "{}")
    await records.record_game([result(other, 0, place=1, ecus=30, at=30.0)])
    totals = await records.totals(101, 1)
    assert totals == Totals(games=2, won=1, average_ecus=8.0, ripples=2, paradoxes=0, built_might=2, built_faith=4,
                            built_reason=0)
    assert (await records.totals(101)) == Totals(3, 2, 46 / 3, 3, 0, 3, 6, 0)
    assert await records.totals(0, 1) is None  # AI seats have no profile
    assert await records.totals(303) is None and await records.servers_of(101) == 2
    assert (await records.best(101, 1)) == result(games[0], 0, place=1, ecus=12, at=10.0)
    assert [r.game_id for r in await records.recent(101, 1)] == [games[1].id, games[0].id]
    assert [r.game_id for r in await records.recent(101, None, limit=2)] == [other.id, games[1].id]
    assert await records.unrecorded() == []  # none of them is finished
    # a loss with more Ecus is not a better game than a win; of two wins, the one against more players
    await records.record_game([result(games[2], 0, place=2, ecus=40, at=40.0)])
    assert (await records.best(101, 1)) == result(games[0], 0, place=1, ecus=12, at=10.0)
    bigger = await playing(store, channel_id=8)
    await records.record_game([result(bigger, 0, place=1, ecus=9, at=50.0, players=5)])
    assert (await records.best(101, 1)) == result(bigger, 0, place=1, ecus=9, at=50.0, players=5)


async def test_the_leaderboard_is_a_servers_ratings_best_first(store: Storage) -> None:
    records = PlayerRecords(store.database)
    await records.replace_ratings([], [rating(1, 1100), rating(2, 1200), rating(3, 1100), rating(4, 1500, guild_id=2)])
    assert [r.user_id for r in await records.board(1)] == [2, 1, 3]
    assert [r.user_id for r in await records.board(1, offset=1, limit=1)] == [1]
    assert await records.rated_players(1) == 3 and await records.rated_players(3) == 0
    assert [(await records.rating(1, u) or (None, 0))[1] for u in (1, 2, 3, 4)] == [2, 1, 2, 0]
    assert await records.ratings_of(1, [1, 4, 2]) == {1: rating(1, 1100), 2: rating(2, 1200)}
    await records.replace_ratings([], [rating(5, 900)])  # a rebuild replaces them all
    assert await records.all_ratings() == [rating(5, 900)]


async def test_a_persons_games_in_play_are_found_by_their_seat(store: Storage) -> None:
    records = PlayerRecords(store.database)
    a = await playing(store, channel_id=3)
    await store.create_game(guild_id=1, channel_id=4, opener_id=101, seed=1, seats=SEATS)  # a lobby
    over = await playing(store, channel_id=5)
    await store.set_status(over.id, Status.FINISHED)
    b = await playing(store, channel_id=6)
    assert await records.playing(101) == [a, b] and [g.id for g in await records.playing(202)] == [a.id, b.id]
    assert await records.playing(0) == [] and await records.playing(10) == []  # an AI seat's id; a prefix of 101
    assert await records.unrecorded() == [over.id]


# ---------------------------------------------------------------------------------------------
# What one backend has


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[Storage]:
    s = await Storage.open(str(tmp_path / "tiempo.sqlite3"))
    try:
        yield s
    finally:
        await s.close()


async def test_a_lock_left_by_a_process_that_died_is_taken_over_at_once(tmp_path: Path) -> None:
    """SQLite shared by processes of one machine: the lock row of a process that is not running any more
    does not make players wait for it to lapse."""
    store = await Storage.open(str(tmp_path / "shared.sqlite3"), shared=True)
    try:
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True)
        assert await store.database.try_lock(3, f"{socket.gethostname()}:{int(dead.stdout)}:0000")
        async with store.lock(3, wait=0.2):
            pass
        alive = f"{socket.gethostname()}:{os.getpid()}:1111"  # a running process's lock is respected
        assert await store.database.try_lock(4, alive)
        with pytest.raises(GameBusyError):
            async with store.lock(4, wait=0.2):
                pass
    finally:
        await store.close()


async def test_sqlite_wal_full_sync_and_foreign_keys_are_on(sqlite_store: Storage) -> None:
    with raw(sqlite_store.path) as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # stored in the file
    # per-connection settings, read on Storage's own connection
    assert (await sqlite_store.database.fetchall("PRAGMA foreign_keys"))[0][0] == 1
    assert (await sqlite_store.database.fetchall("PRAGMA synchronous"))[0][0] == 2  # FULL
    assert await sqlite_store.integrity_problems() == []


async def test_postgres_commits_synchronously_and_never_shows_the_password(pg_cluster: Cluster, pg_url: str
                                                                          ) -> None:
    admin = await asyncpg.connect(pg_url)
    try:
        await admin.execute("CREATE ROLE tiempo_pw LOGIN PASSWORD 's3cret'")
        await admin.execute("GRANT CREATE ON SCHEMA public TO tiempo_pw")
        await admin.execute("ALTER SYSTEM SET synchronous_commit = off")  # a server that would lose commits…
        await admin.execute("SELECT pg_reload_conf()")
        database = pg_url.split("@/", 1)[1].split("?", 1)[0]
        store = await Storage.open(pg_cluster.url(database, "tiempo_pw", "s3cret"))
        try:
            # …still commits Tiempo's transactions durably
            assert (await store.database.fetchall("SHOW synchronous_commit"))[0][0] == "on"
            assert "s3cret" not in store.path and "tiempo_pw@" in store.path
            g = await playing(store)
            assert (await store.append_action(g.id, 1, 101, "Red end", "{}")).action_count == 1
            assert await store.integrity_problems() == []
        finally:
            await store.close()
    finally:
        await admin.execute("ALTER SYSTEM RESET synchronous_commit")
        await admin.execute("SELECT pg_reload_conf()")
        await admin.close()


async def test_postgres_storage_reconnects_after_the_server_restarts(pg_cluster: Cluster, pg_url: str) -> None:
    store = await Storage.open(pg_url)
    try:
        g = await playing(store)
        pg_cluster.restart()  # (blocking: the event loop has not yet seen its connection closed)
        # the connection that was cut fails the command that was using it, with a sentence…
        with pytest.raises(DatabaseFaultError, match="connection to the PostgreSQL server was lost"):
            await store.get_game(g.id)
        # …and the pool connects again for the next one; nothing was lost
        assert await store.get_game(g.id) == g
        pg_cluster.restart()
        await asyncio.sleep(0.2)  # a bot's event loop sees an idle connection closed, and replaces it unused
        assert await store.get_game(g.id) == g
        assert (await store.append_action(g.id, 1, 101, "Red end", "{}")).action_count == 1
    finally:
        await store.close()


async def test_postgres_a_restart_under_the_game_locks_is_a_fault_with_a_sentence_then_play_resumes(
        pg_cluster: Cluster, pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Shards hold game locks on a connection of their own: a restart of the server cuts it. The next
    lock reads as a database fault (not asyncpg's "cannot switch to state"), logged as a warning
    without a traceback, and the one after works again."""
    store = await Storage.open(pg_url, shared=True)
    try:
        g = await playing(store)
        async with store.lock(g.id):
            pass
        pg_cluster.restart()
        failures = 0
        for _ in range(3):
            try:
                async with store.lock(g.id):
                    g = await store.append_action(g.id, g.next_seq, 101, "Red end", "{}")
                break
            except DatabaseFaultError as err:
                assert "did not count" in str(err)
                failures += 1
        assert failures >= 1 and g.action_count == 1
        assert all(r.exc_info is None for r in caplog.records if r.name.startswith("tiempo"))
        assert any("PostgreSQL server was lost" in r.getMessage() for r in caplog.records)
    finally:
        await store.close()


async def test_sqlite_a_full_disk_is_a_fault_with_a_sentence_then_play_resumes(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A full disk (SQLite's page limit stands for it) fails a move with a sentence that says it did not
    count, logs a warning without a traceback, keeps what was stored, and play goes on once there is
    room again."""
    store = await Storage.open(str(tmp_path / "t.sqlite3"))
    try:
        g = await playing(store)
        pages = (await store.database.fetchall("PRAGMA page_count"))[0][0]
        await store.database.fetchall(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(DatabaseFaultError, match=r"the disk is full.*did not count"):
            await store.append_action(g.id, 1, 101, "Red end", json.dumps({"pad": "x" * 50_000}))
        assert (await store.get_game(g.id)).action_count == 0
        assert all(r.exc_info is None for r in caplog.records if r.name.startswith("tiempo"))
        assert any("the disk is full" in r.getMessage() for r in caplog.records)
        await store.database.fetchall("PRAGMA max_page_count = 1073741823")
        g = await store.append_action(g.id, 1, 101, "Red end", json.dumps({"pad": "x" * 50_000}))
        assert g.action_count == 1 and [a.action for a in await store.list_actions(g.id)] == ["Red end"]
    finally:
        await store.close()


async def test_a_game_id_beyond_any_column_is_a_game_that_does_not_exist(store: Storage) -> None:
    """A forged button may carry any number: one beyond 64 bits finds no game (no overflow)."""
    for game_id in (2**63, 2**64 + 5, 10**30, -1):
        with pytest.raises(GameNotFoundError):
            await store.get_game(game_id)


# ---------------------------------------------------------------------------------------------
# Durability


CHILD = """
import asyncio, json, sys
from bot.storage import Storage

async def main(path):
    store = await Storage.open(path)
    games = await store.list_games()
    if games:
        game = games[0]
    else:
        game = await store.create_game(guild_id=1, channel_id=2, opener_id=3, seed=7)
        game = await store.start_game(game.id, json.dumps({"seq": 0}))
    seq = game.next_seq
    while True:
        game = await store.append_action(game.id, seq, 3, f"action {seq}", json.dumps({"seq": seq, "pad": "x" * 2000}))
        print(seq, flush=True)  # told only after append_action returned: committed
        seq += 1

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.slow
async def test_no_reported_action_is_lost_when_the_process_is_killed(db_path: str) -> None:  # on each backend
    rng = random.Random(5)
    reported: list[int] = []
    runs: list[list[int]] = []
    for _ in range(3):  # kill, recover, go on, kill again
        start = len(reported)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", CHILD, db_path, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.stdout is not None
        wanted = rng.randint(5, 40)
        seen = 0
        while seen < wanted:
            line = await asyncio.wait_for(proc.stdout.readline(), timeout=30)
            assert line, "the child stopped before it was killed"
            reported.append(int(line))
            seen += 1
        proc.kill()  # SIGKILL, while it is appending
        await proc.wait()
        reported += [int(x) for x in (await proc.stdout.read()).split()]  # printed before the kill
        assert proc.returncode == -9
        runs.append(reported[start:])
    for run in runs:
        assert run == list(range(run[0], run[0] + len(run)))  # one process reports each commit in turn
    assert runs[0][0] == 1
    for before, after in itertools.pairwise(runs):
        # a restart goes on from the last commit; the kill may have come between a commit and its
        # print, which leaves one action stored but never reported (never one reported but lost)
        assert after[0] - before[-1] in (1, 2)
    s = await Storage.open(db_path)
    try:
        (game,) = await s.list_games()
        actions = await s.list_actions(game.id)
        assert game.action_count >= reported[-1]  # a commit may have beaten the kill to the print
        assert [a.seq for a in actions] == list(range(1, game.action_count + 1))
        assert set(reported) <= {a.seq for a in actions}
        assert all(a.action == f"action {a.seq}" for a in actions)
        assert json.loads(game.snapshot or "null")["seq"] == game.action_count
        assert await s.integrity_problems() == []
    finally:
        await s.close()


def test_placeholders_are_numbered_for_postgresql_outside_quotes_only() -> None:
    from bot.storage.backend import numbered

    assert numbered("SELECT a FROM t WHERE b = ? AND c IN (?, ?)") == "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)"
    assert numbered("SELECT '?', \"a?\" FROM t WHERE x = ? AND y = 'it''s ?'") == (
        "SELECT '?', \"a?\" FROM t WHERE x = $1 AND y = 'it''s ?'")


def test_a_url_is_shown_without_its_password() -> None:
    from bot.storage import has_password, is_postgres_url, without_password

    assert without_password("postgresql://ana:p%40ss@db.example:5433/tiempo?sslmode=require") == (
        "postgresql://ana@db.example:5433/tiempo?sslmode=require")
    assert without_password("postgres:///tiempo?host=/run/postgresql&password=x") == (
        "postgres:///tiempo?host=/run/postgresql")
    # the other parameters as written (libpq reads "%20" as a space, "+" as a plus)
    assert without_password("postgresql://ana@db/tiempo?options=-c%20search_path%3Dx&pass%77ord=y&a=") == (
        "postgresql://ana@db/tiempo?options=-c%20search_path%3Dx&a=")
    assert has_password("postgresql://ana:s@db/t") and has_password("postgresql://ana@db/t?sslmode=x&password=s")
    assert not has_password("postgresql://ana@db/t?options=-c%20a%3Db") and not has_password("postgresql://db/t")
    assert is_postgres_url("PostgreSQL://x/y") and is_postgres_url("postgres://x/y")
    assert not is_postgres_url("postgresql.sqlite3") and not is_postgres_url("/srv/postgresql://x")


async def test_a_write_cancelled_while_waiting_for_the_file_leaves_nothing_open(tmp_path: Path) -> None:
    """A command cancelled while its BEGIN waits for a SQLite file another process holds: the BEGIN
    may still take the file; it is rolled back, so this process writes on and the other gets the file."""
    import threading

    path = str(tmp_path / "t.sqlite3")
    storage = await Storage.open(path)
    try:
        game = await storage.create_game(guild_id=1, channel_id=7, opener_id=1, seed=1)
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)  # another shard process
        other.execute("BEGIN IMMEDIATE")
        threading.Timer(0.5, lambda: other.execute("COMMIT")).start()  # it lets go half a second later
        task = asyncio.create_task(storage.update_lobby(game.id, options={"seats": 4}))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(1.0)
        await storage.update_lobby(game.id, options={"seats": 3})  # this process writes on
        assert (await storage.get_game(game.id)).options == {"seats": 3}
        third = sqlite3.connect(path, timeout=0.5, isolation_level=None)
        third.execute("BEGIN IMMEDIATE")  # and the file is free for others
        third.execute("ROLLBACK")
        third.close()
        other.close()
    finally:
        await storage.close()


async def test_postgres_a_command_cancelled_while_giving_its_lock_back_still_frees_it(pg_url: str) -> None:
    """Shard A's command is cancelled while it waits to give the game's lock back: the lock is still
    given back, so shard B can take the game."""
    a, b = await Storage.open(pg_url), await Storage.open(pg_url)
    try:
        game = await a.create_game(guild_id=1, channel_id=7, opener_id=1, seed=1)

        async def command() -> None:
            async with a.lock(game.id):
                await asyncio.sleep(0.05)

        task = asyncio.create_task(command())
        await asyncio.sleep(0.02)  # it holds the game
        await a.database._locking.acquire()  # type: ignore[attr-defined]  # another lock query is under way
        await asyncio.sleep(0.1)  # ... so the command waits to give its lock back
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        a.database._locking.release()  # type: ignore[attr-defined]
        await asyncio.sleep(0.2)
        async with b.lock(game.id, wait=1.0):
            pass
    finally:
        await a.close()
        await b.close()


async def test_postgres_a_hung_lock_connection_answers_busy_in_time_then_recovers(pg_url: str) -> None:
    """The connection holding the game locks stops answering (its server process stopped): a command
    answers "busy" within its wait, not never; once the server answers again, the games lock anew."""
    import signal

    storage = await Storage.open(pg_url)
    try:
        first = await storage.create_game(guild_id=1, channel_id=7, opener_id=1, seed=1)
        second = await storage.create_game(guild_id=1, channel_id=8, opener_id=1, seed=1)
        async with storage.lock(first.id):
            pid = await storage.database._locker.fetchval("SELECT pg_backend_pid()")  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGSTOP)
        try:
            loop = asyncio.get_running_loop()
            began = loop.time()
            with pytest.raises(GameBusyError):
                async with storage.lock(second.id, wait=1.0):
                    pass
            assert loop.time() - began < 3.0
        finally:
            os.kill(pid, signal.SIGCONT)
        async with storage.lock(second.id, wait=5.0):  # a new lock connection
            pass
    finally:
        await storage.close()
