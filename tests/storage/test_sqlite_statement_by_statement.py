"""SQLite storage when aiosqlite no longer offers the private method a transaction's statements
go through in one trip (``Connection._execute``): it is served statement by statement through the
public interface, with the same results and the same refusals."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from bot.storage import DatabaseBusyError, StaleSeqError, Storage
from bot.storage import sqlite as sqlite_storage


async def test_the_installed_aiosqlite_sends_a_transaction_in_one_trip(tmp_path: Path) -> None:
    """If this fails, aiosqlite changed what the one-trip path uses: the bot still works (below),
    more slowly; look at ``SQLiteTx._send``."""
    db = await aiosqlite.connect(str(tmp_path / "t.sqlite3"))
    try:
        assert sqlite_storage.one_trip(db)
    finally:
        await db.close()


async def test_without_the_one_trip_path_a_game_is_stored_and_read_back_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_storage, "one_trip", lambda db: False)
    path = str(tmp_path / "t.sqlite3")
    store = await Storage.open(path)  # the migrations too go statement by statement
    try:
        g = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=7)
        g = await store.start_game(g.id, json.dumps({"seq": 0}), now=2.0)
        g = await store.append_action(g.id, 1, 101, "Red end", json.dumps({"seq": 1}))
        with pytest.raises(StaleSeqError):
            await store.append_action(g.id, 1, 101, "Red end again", json.dumps({"seq": 9}))
        assert [a.seq for a in await store.list_actions(g.id)] == [1]
        assert (await store.get_game(g.id)).action_count == 1
        assert await store.integrity_problems() == []
    finally:
        await store.close()


async def test_without_the_one_trip_path_a_file_held_elsewhere_answers_busy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "t.sqlite3")
    store = await Storage.open(path)
    try:
        g = await store.create_game(guild_id=1, channel_id=2, opener_id=101, seed=7)
        monkeypatch.setattr(sqlite_storage, "one_trip", lambda db: False)
        monkeypatch.setattr(sqlite_storage, "BUSY_S", 0.1)
        await store.close()
        store = await Storage.open(path)  # its busy timeout is now 0.1 s
        other = sqlite3.connect(path, isolation_level=None)  # another process holds the file
        other.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(DatabaseBusyError):
                await store.update_lobby(g.id, options={"seats": 4})
        finally:
            other.execute("ROLLBACK")
            other.close()
        await store.update_lobby(g.id, options={"seats": 3})  # and once it is free, it writes
        assert (await store.get_game(g.id)).options == {"seats": 3}
    finally:
        await store.close()
