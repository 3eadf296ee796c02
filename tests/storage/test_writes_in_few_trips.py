"""A write returns the game as it left it, without reading it again (``UPDATE … RETURNING``), on each
backend: the record equals a fresh read for every kind of write, and a refused action writes nothing.
On PostgreSQL an action (its row, its log entry, its posts and letters) is one statement, one round
trip to the server, and no connection is reset after use: the trips are counted, so that one more
fails here. A PostgreSQL transaction of one statement is that statement alone."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from bot.service import Caller, Tiempo
from bot.storage import (
    KEEP,
    Body,
    GameNotFoundError,
    GameRecord,
    Letter,
    SeatRecord,
    StaleSeqError,
    StandIn,
    Status,
    StatusError,
    Storage,
)
from rules import Age, Kind, placements
from tests.support.backends import Backend
from tests.support.pg_trips import Trips
from tests.support.service_play import Silent, seated_game

SEATS = (SeatRecord(101, "Ana", "Red"), SeatRecord(202, "Bea", "White"), SeatRecord(0, "AI", "Green", "easy"))


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Storage]:
    s = await Storage.open(backend.target)
    try:
        yield s
    finally:
        await s.close()


async def same_as_read(store: Storage, game: GameRecord | None) -> GameRecord:
    """``game`` (what a write returned), checked against the game read afresh."""
    assert game is not None
    assert game == await store.get_game(game.id)
    return game


async def test_every_write_returns_the_game_as_a_fresh_read_finds_it(store: Storage) -> None:
    g = await same_as_read(store, await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=2**100,
                                                          options={"a": 1}, now=1.0))
    g = await same_as_read(store, await store.update_lobby(g.id, seats=SEATS[:2], now=2.0))
    g = await same_as_read(store, await store.update_lobby(g.id, options={"b": "é"}, now=3.0))
    assert g.seats == SEATS[:2] and g.options == {"b": "é"} and g.updated_at == 3.0
    g = await same_as_read(store, await store.start_game(g.id, "s0", seats=SEATS, turn_deadline=50.5, now=4.0,
                                                         posts=["opening"]))
    assert g.status is Status.PLAYING and g.turn_deadline == 50.5 and g.seats == SEATS
    g = await same_as_read(store, await store.mark_half_warned(g.id, deadline=50.5, now=5.0))
    assert g.half_warned
    g = await same_as_read(store, await store.append_action(g.id, 1, 101, "Red build", "s1", now=6.0))
    assert (g.action_count, g.snapshot, g.turn_deadline, g.half_warned) == (1, "s1", 50.5, True)  # KEEP
    g = await same_as_read(store, await store.append_action(
        g.id, 2, 101, "Red end", "s2", turn_deadline=99.25, now=7.0, stand_ins=[StandIn(1, misses=1)],
        posts=["told", Body("with pictures", b"\x89PNG\x00\xff"), Letter(202, "dm", "fallback", 9.0, 2)]))
    assert (g.turn_deadline, g.half_warned, g.stand_ins, g.updated_at) == (99.25, False, (StandIn(1, misses=1),), 7.0)
    g = await same_as_read(store, await store.append_action(g.id, 3, 202, "White end", "s3", turn_deadline=None,
                                                            stand_ins=()))
    assert g.turn_deadline is None and g.stand_ins == ()
    g = await same_as_read(store, await store.set_stand_ins(g.id, [StandIn(0, by="away", stood=True)], now=8.0,
                                                            posts=["away"]))
    g = await same_as_read(store, await store.truncate_last_action(g.id, 3, "s2", turn_deadline=70.0, now=9.0,
                                                                   posts=["undone"]))
    assert (g.action_count, g.snapshot, g.turn_deadline) == (2, "s2", 70.0)
    g = await same_as_read(store, await store.truncate_last_action(g.id, 2, "s0", count=2, turn_deadline=KEEP))
    assert (g.action_count, g.turn_deadline) == (0, 70.0)
    g = await same_as_read(store, await store.append_action(g.id, 1, 101, "Red wins", "s9", status=Status.FINISHED,
                                                            now=10.0, posts=["the end"]))
    assert (g.status, g.turn_deadline, g.action_count) == (Status.FINISHED, None, 1)
    lobby = await store.create_game(guild_id=1, channel_id=3, opener_id=101, seed=5)
    await same_as_read(store, await store.set_status(lobby.id, Status.CANCELLED, now=11.0))
    assert [p.body for p in await store.posts.pending(2)] == ["opening", "told", "with pictures", "away", "undone",
                                                              "the end"]
    assert (await store.posts.pending(2))[2].pictures == b"\x89PNG\x00\xff"
    assert [(letter.user_id, letter.body, letter.due_at) for letter in await store.notices.waiting()] == [
        (202, "dm", 9.0)]
    assert [(a.seq, a.action) for a in await store.list_actions(g.id)] == [(1, "Red wins")]
    assert await store.integrity_problems() == []


async def test_an_action_refused_for_any_reason_writes_nothing(store: Storage) -> None:
    lobby = await store.create_game(guild_id=1, channel_id=3, opener_id=101, seed=5)
    g = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=7, seats=SEATS)
    g = await store.start_game(g.id, "s0", turn_deadline=40.0, now=1.0)
    g = await store.append_action(g.id, 1, 101, "Red build", "s1", now=2.0)
    posts = ["lost", Body("lost too", b"x"), Letter(202, "dm", "fallback", 9.0, 2)]
    refusals: list[tuple[type[Exception], int, int, Status | None]] = [
        (StaleSeqError, g.id, 1, None), (StaleSeqError, g.id, 3, None),  # played already; not yet
        (StatusError, g.id, 2, Status.PLAYING), (StatusError, g.id, 2, Status.LOBBY),  # no such change
        (StatusError, lobby.id, 1, None), (GameNotFoundError, 10**9, 1, None)]
    for error, game_id, seq, status in refusals:
        with pytest.raises(error):
            await store.append_action(game_id, seq, 101, "lost", "lost", status=status, turn_deadline=1.0,
                                      stand_ins=[StandIn(0, misses=1)], now=3.0, posts=posts)
    assert await store.get_game(g.id) == g
    assert await store.get_game(lobby.id) == lobby
    assert [a.action for a in await store.list_actions(g.id)] == ["Red build"]
    assert await store.posts.pending(2) == [] and await store.notices.waiting() == []
    await store.set_status(g.id, Status.FINISHED)
    with pytest.raises(StatusError):  # over
        await store.append_action(g.id, 2, 101, "lost", "lost", posts=posts)
    assert await store.posts.pending(2) == [] and await store.notices.waiting() == []


async def test_postgres_keeps_a_posts_pictures_uncompressed_and_whole(store: Storage, backend: Backend) -> None:
    """Migration step 11: the server stores the pictures as they are (PNGs are compressed already), and
    a post's pictures come back byte for byte."""
    if backend.name == "postgresql":
        assert await backend.fetch("SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'outbox'::regclass "
                                   "AND attname = 'pictures'") == [("e",)]
    pictures = bytes(range(256)) * 1200  # larger than a row holds: stored out of line
    g = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=7, seats=SEATS)
    await store.start_game(g.id, "s0", posts=[Body("board", pictures)])
    assert [(p.body, p.pictures) for p in await store.posts.pending(2)] == [("board", pictures)]


class Undone(Exception):
    """A failure inside a transaction's block."""


async def test_a_transaction_is_all_or_nothing_however_its_statements_are_sent(store: Storage,
                                                                             backend: Backend) -> None:
    """A transaction's first statement may wait for the next one or for the commit (both backends send
    statements together where they can): an error after it, or in the statement that follows it,
    still leaves nothing of it."""
    insert = "INSERT INTO progress (user_id, item, done_at) VALUES (?, ?, 1.0)"
    with pytest.raises(Undone):
        async with store.database.transaction() as tx:
            await tx.execute(insert, (1, "waited"))
            raise Undone
    with pytest.raises(backend.errors):
        async with store.database.transaction() as tx:
            await tx.execute(insert, (1, "first"))
            await tx.execute(insert, (1, "first"))  # the same key again: refused
    with pytest.raises(backend.errors):
        async with store.database.transaction() as tx:
            await tx.execute(insert, (1, "alone"))
            await tx.execute("INSERT INTO no_such_table VALUES (1)")
    async with store.database.transaction() as tx:  # alone, it is committed
        await tx.execute(insert, (2, "alone"))
    async with store.database.transaction() as tx:  # and with others, all of them are
        await tx.execute(insert, (3, "a"))
        row = await tx.one("SELECT COUNT(*) FROM progress WHERE user_id = 3")
        assert row is not None and row[0] == 1
        await tx.execute(insert, (3, "b"))
    assert await store.progress.done(1) == set()
    assert await store.progress.done(2) == {"alone"}
    assert await store.progress.done(3) == {"a", "b"}


async def test_postgres_an_action_is_one_round_trip_and_a_pool_connection_is_not_reset(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with Trips.counting(monkeypatch) as trips:
        store = await Storage.open(pg_url)
        try:
            g = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=7, seats=SEATS)
            g = await store.start_game(g.id, "s0", now=1.0)
            for seq, posts in enumerate([["a"], ["b", Body("c", b"png")], [Letter(202, "dm", "fb", 9.0, 3), "d"]], 1):
                await store.append_action(g.id, seq, 101, "act", f"s{seq}", posts=posts)  # (each prepared once)
            async with trips.of():
                g = await store.append_action(g.id, 4, 101, "act", "s4", turn_deadline=5.0, now=2.0,
                                              stand_ins=[StandIn(1, misses=1)],
                                              posts=[Letter(202, "dm", "fb", 9.0, 4), "e", Body("f", b"png")])
            assert len(trips.sent) == 1 and trips.sent[0].startswith("WITH g AS (UPDATE games"), trips.sent
            async with trips.of():
                await store.get_game(g.id)
            assert len(trips.sent) == 1, trips.sent  # no reset after it
            async with trips.of():
                await store.set_stand_ins(g.id, (), posts=["back"])
            assert [s.split()[0] for s in trips.sent] == ["BEGIN;", "UPDATE", "INSERT", "COMMIT;"], trips.sent
            async with trips.of():
                await store.posts.sent((await store.posts.pending(g.channel_id))[0].id)
            assert [s.split()[0] for s in trips.sent] == ["SELECT", "DELETE"], trips.sent  # no BEGIN, no COMMIT
            async with trips.of(), store.lock(g.id):
                pass
            assert len(trips.sent) == 2, trips.sent  # the game lock's lock and unlock
        finally:
            await store.close()


async def test_postgres_a_typed_build_at_the_service_takes_at_most_seven_round_trips(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The trips of a typed build, from the command to the post sent: the game read, its lock, read
    again under the lock, the action with its post (one statement), the outbox read, the lock given
    back, the sent post taken out (one statement). There were 20 before: each pool use reset its
    connection, the action took BEGIN, a read, an INSERT, an UPDATE, the posts' INSERTs, a read again
    and COMMIT, and the sent post's removal BEGIN, DELETE, COMMIT."""
    with Trips.counting(monkeypatch) as trips:
        storage = await Storage.open(pg_url)
        service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 5)
        people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["ann", "bob", "cy"])]
        try:
            game = await seated_game(service, storage, people)
            counts = []
            for _ in range(3):  # three turns: a build and the end of the turn (the first prepares the statements)
                state = service.state_of(game)
                seat, age = state.active, state.players[state.active].pawns[0]
                kind, cells = next(((k, c) for k in (Kind.WATCHTOWER, Kind.CHAPEL, Kind.HAMLET)
                                    if (c := placements(state, seat, k, age) if age is not Age.REASON else [])),
                                   (Kind.HAMLET, []))
                if cells:
                    async with trips.of():
                        await service.play(people[seat], "build", {"kind": kind.value, "cell": str(cells[0]),
                                                                   "age": age.title})
                    counts.append(list(trips.sent))
                await service.play(people[seat], "end", {})
                game = await storage.get_game(game.id)
            assert len(counts) >= 2 and all(len(sent) <= 7 for sent in counts[1:]), json.dumps(counts, indent=1)
            assert any("WITH g AS (UPDATE games" in s for s in counts[-1])
        finally:
            await service.close()
            await storage.close()
