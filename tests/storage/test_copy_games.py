"""``tiempo-bot copy-games``: every game moves to another database (SQLite to PostgreSQL, or to another
file) with its id, log, seats, deadline and unsent posts, and goes on there."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import bot.storage.copy as copy_module
from bot.__main__ import main as cli
from bot.service import Caller, Post, Tiempo, version_of
from bot.service.messages import encode_post
from bot.storage import Status, Storage
from bot.storage.copy import CopyError, copy_games
from bot.words import text
from rules import legal_actions
from tests.support.backends import Backend
from tests.support.gameplay import choose
from tests.support.service_play import Silent


async def _a_used_database(path: str) -> None:
    """Games in every status, one with a turn limit and a post left unsent."""
    storage = await Storage.open(path)
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 6)
    rng = random.Random(6)
    try:
        for channel in (1, 2, 3):  # three games played a while (the third is then cancelled)
            people = [Caller(1, channel, 100 + i, name) for i, name in enumerate(["ana", "ben", "cy"])]
            await service.new(people[0], turn_minutes=30 if channel == 1 else None)
            for p in people[1:]:
                await service.join(p)
            await service.start_game(people[0])
            game = await storage.active_game_in_channel(channel)
            assert game is not None
            for _ in range(25):
                game = await storage.get_game(game.id)
                state = service.state_of(game)
                action = choose(rng, state, legal_actions(state))
                await service.moves.play_action(people[action.player], game.id, version_of(game),
                                                lambda s, p, a=action: a)
        await storage.set_status(3, Status.CANCELLED)
        await service.new(Caller(1, 4, 100, "ana"))  # a lobby
        await storage.mark_half_warned(1, posts=[encode_post(Post(text("unsent"), png=UNSENT_PNG))])  # not yet sent
    finally:
        await service.close()
        await storage.close()


#: the picture of the post left unsent (binary, with bytes no text column would keep)
UNSENT_PNG = b"\x89PNG\r\n\x1a\n\x00\xff unsent"


async def test_every_game_is_copied_and_goes_on_in_the_copy(tmp_path: Path, backend: Backend) -> None:
    source = str(tmp_path / "old.sqlite3")
    await _a_used_database(source)
    lines: list[str] = []
    copied = await copy_games(source, backend.target, say=lines.append)
    assert (copied.games, copied.playing, copied.posts) == (4, 2, 1) and copied.actions == 75
    assert lines and "Copying 4 games" in lines[0]
    old, new = await Storage.open(source), await Storage.open(backend.target)
    try:
        assert await new.list_games() == await old.list_games()
        for game in await old.list_games():
            assert await new.list_actions(game.id) == await old.list_actions(game.id)
        assert [(p.body, p.pictures) for p in await new.posts.pending(1)] == [
            (p.body, p.pictures) for p in await old.posts.pending(1)]
        assert (await new.posts.pending(1))[0].pictures == UNSENT_PNG  # its picture, as binary
        assert json.loads((await new.posts.pending(1))[0].body)["text"] == ["unsent"]
        game = await new.get_game(2)  # play on in the copy
        service = Tiempo(new, Silent(), render=False)
        state = service.state_of(game)
        action = legal_actions(state)[0]
        seat = game.seats[action.player]
        await service.moves.play_action(Caller(1, 2, seat.user_id, seat.name), game.id, version_of(game),
                                        lambda s, p: action)
        assert (await new.get_game(2)).action_count == game.action_count + 1
        fresh = await new.create_game(guild_id=1, channel_id=9, opener_id=100, seed=1)
        assert fresh.id == 5  # after the highest copied id: old buttons never meet a new game
        await service.close()
    finally:
        await old.close()
        await new.close()


async def test_a_copy_into_a_database_with_games_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    source, dest = str(tmp_path / "old.sqlite3"), str(tmp_path / "new.sqlite3")
    await _a_used_database(source)
    async with await Storage.open(dest) as storage:
        await storage.create_game(guild_id=1, channel_id=1, opener_id=1, seed=1)
    with pytest.raises(CopyError, match=r"already holds 1 game: copy into an empty database"):
        await copy_games(source, dest)
    with pytest.raises(CopyError, match="no database file"):
        await copy_games(str(tmp_path / "missing.sqlite3"), dest)
    with pytest.raises(CopyError, match="the same database"):
        await copy_games(source, source)
    async with await Storage.open(dest) as storage:
        assert await storage.count() == 1


def test_the_command_says_what_it_copied_and_what_to_do_next(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    import asyncio

    source, dest = str(tmp_path / "old.sqlite3"), str(tmp_path / "new.sqlite3")
    asyncio.run(_a_used_database(source))
    assert cli(["copy-games", source, dest]) == 0
    out = capsys.readouterr().out
    assert "Copied 4 games (2 being played)" in out and f'database = "{dest}"' in out
    assert cli(["copy-games", source, dest]) == 2  # again: the copy now holds games
    assert "already holds 4 games" in capsys.readouterr().err


def test_after_a_copy_into_postgresql_the_next_step_says_the_password_was_left_out() -> None:
    from bot.storage.copy import next_step

    url = "postgresql://tiempo:s3cret@localhost:5432/tiempo"
    said = next_step("games.sqlite3", url)
    assert "s3cret" not in said
    assert said.startswith('Now set database = "postgresql://tiempo@localhost:5432/tiempo" (with its password, '
                           "left out here) in the config file")
    assert "(with its password" not in next_step("games.sqlite3", "postgresql://tiempo@localhost/tiempo")
    plain = "postgresql://tiempo@localhost/tiempo?sslmode=require&application_name=a%20b"  # no password: as given
    assert next_step("games.sqlite3", plain).startswith(f'Now set database = "{plain}" in the config file')


async def test_a_copy_goes_on_numbering_posts_after_the_source_s(tmp_path: Path, backend: Backend) -> None:
    """Sent posts are deleted, but Discord remembers their nonces (``tiempo-<id>``) for a while: the
    copy's next post must not take the id of one the old database sent."""
    source = str(tmp_path / "old.sqlite3")
    async with await Storage.open(source) as old:
        game = await old.create_game(guild_id=1, channel_id=5, opener_id=1, seed=1)
        for n in range(3):
            await old.mark_half_warned(game.id, posts=[encode_post(Post(text(f"post {n}")))])
        for post in await old.posts.pending(5):
            await old.posts.sent(post.id)  # all sent: the outbox is empty
    await copy_games(source, backend.target)
    async with await Storage.open(backend.target) as new:
        await new.mark_half_warned(game.id, posts=[encode_post(Post(text("after the move")))])
        (post,) = await new.posts.pending(5)
        assert post.id == 4 and post.nonce == "tiempo-4"
        assert (await new.create_game(guild_id=1, channel_id=6, opener_id=1, seed=1)).id == 2


async def test_a_damaged_source_is_refused_with_a_sentence(tmp_path: Path) -> None:
    source, dest = str(tmp_path / "old.sqlite3"), str(tmp_path / "new.sqlite3")
    await _a_used_database(source)
    raw = sqlite3.connect(source)
    raw.execute("PRAGMA foreign_keys = OFF")
    raw.execute("INSERT INTO actions (game_id, seq, actor_id, action, created_at) VALUES (99, 1, 1, 'end', 0)")
    raw.commit()
    raw.close()
    with pytest.raises(CopyError, match="holds 1 action of games it does not have: it is damaged"):
        await copy_games(source, dest)


async def test_games_are_copied_a_few_at_a_time(tmp_path: Path, backend: Backend,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy reads, writes and compares a chunk of games at a time (its memory does not grow with
    the number of games), and says how far it got."""
    monkeypatch.setattr(copy_module, "CHUNK", 3)
    source = str(tmp_path / "old.sqlite3")
    await _a_used_database(source)
    lines: list[str] = []
    copied = await copy_games(source, backend.target, say=lines.append)
    assert (copied.games, copied.actions) == (4, 75)
    assert any(line.strip().startswith("3 of 4 games") for line in lines)
    old, new = await Storage.open(source), await Storage.open(backend.target)
    try:
        assert await new.list_games() == await old.list_games()
        for game in await old.list_games():
            assert await new.list_actions(game.id) == await old.list_actions(game.id)
    finally:
        await old.close()
        await new.close()


async def test_a_source_that_changes_during_the_copy_writes_nothing(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiempo left running on the source: a game opened during the copy is seen, and nothing is written."""
    monkeypatch.setattr(copy_module, "CHUNK", 2)
    source, dest = str(tmp_path / "old.sqlite3"), str(tmp_path / "new.sqlite3")
    await _a_used_database(source)
    chunks, opened = copy_module._chunks, []

    async def meanwhile(storage: Storage) -> Any:
        async for chunk in chunks(storage):
            yield chunk
            if storage.path == source and not opened:  # after the first chunk, a /tiempo new
                opened.append(await storage.create_game(guild_id=1, channel_id=8, opener_id=100, seed=1))

    monkeypatch.setattr(copy_module, "_chunks", meanwhile)
    with pytest.raises(CopyError, match=r"changed during the copy .*nothing was written"):
        await copy_games(source, dest)
    async with await Storage.open(dest) as storage:
        assert await storage.count() == 0


async def test_the_players_results_and_ratings_go_with_their_games(tmp_path: Path, backend: Backend,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Results, ratings and rating changes (schema step 5) and the course's progress (step 6) are copied,
    a chunk of games (or of people) at a time, and read back."""
    from bot.storage.community import PlayerRecords, RatingChange, RatingRecord, ResultRecord

    monkeypatch.setattr(copy_module, "CHUNK", 1)
    source = str(tmp_path / "old.sqlite3")
    await _a_used_database(source)
    async with await Storage.open(source) as old:
        records = PlayerRecords(old.database)
        for game_id in (1, 2):
            game = await old.get_game(game_id)
            results = [ResultRecord(game_id, i, 1, game.channel_id, s.user_id, s.name, False, 3, i + 1, 10 - i, i == 0,
                                    True, 100.0 + game_id, ripples=i, built_faith=2) for i, s in enumerate(game.seats)]
            await records.record_game(results, lambda before, g=game_id: (
                [RatingChange(g, u, 1, 1000, 1000 + g, 25.5, 8.1) for u in before],
                [RatingRecord(1, u, f"p{u}", 25.0 + g / 3, 8.1, 1000 + g, g, 100.0 + g) for u in before]))
        await records.replace_ratings(await records.changes_of_game(1) + await records.changes_of_game(2),
                                      [*await records.all_ratings(),
                                       RatingRecord(2, 100, "ana", 26.0, 7.0, 1040, 1, 5.0)])
        want = ([await records.results_of_game(g) for g in (1, 2)], await records.all_ratings(),
                [await records.changes_of_game(g) for g in (1, 2)])
        for user, item in [(100, "lesson:ripples"), (100, "tip:paradox"), (7007, "lesson:cards")]:
            await old.progress.mark(user, item, now=5.0)
        learnt = (await old.database.fetchall("SELECT COUNT(*) FROM progress"))[0][0]  # (and the games' tips)
    copied = await copy_games(source, backend.target)
    assert learnt >= 3 and copied.records == 6 + 4 + 6 + learnt
    async with await Storage.open(backend.target) as new:
        assert {"lesson:ripples", "tip:paradox"} <= await new.progress.done(100)
        assert await new.progress.done(7007) == {"lesson:cards"}
        records = PlayerRecords(new.database)
        assert ([await records.results_of_game(g) for g in (1, 2)], await records.all_ratings(),
                [await records.changes_of_game(g) for g in (1, 2)]) == want


async def test_how_people_are_told_and_the_waiting_direct_messages_go_with_the_games(tmp_path: Path,
                                                                                      backend: Backend) -> None:
    """``/tiempo notify``'s choices and the direct outbox (schema step 7) are copied with their ids, and
    the copy's next direct message is numbered after the source's (its nonce is ``tiempo-dm-<id>``)."""
    from bot.storage import Letter

    source = str(tmp_path / "old.sqlite3")
    await _a_used_database(source)
    async with await Storage.open(source) as old:
        await old.notices.choose(100, "dm", now=1.0)
        await old.notices.choose(101, "off", now=1.0)
        game = await old.get_game(1)
        await old.mark_half_warned(1, posts=[Letter(100, "sent", "fb", 5.0, game.action_count),
                                             Letter(100, "due later", "fb", 9e9, game.action_count)])
        sent, _ = await old.notices.waiting(100)
        await old.notices.sent(sent.id)
        want = await old.notices.waiting()
    await copy_games(source, backend.target)
    async with await Storage.open(backend.target) as new:
        assert await new.notices.waiting() == want
        assert (await new.notices.mode(100), await new.notices.mode(101), await new.notices.mode(102)) == (
            "dm", "off", "channel")
        await new.mark_half_warned(1, posts=[Letter(100, "after", "fb", 5.0, game.action_count)])
        assert [w.id for w in await new.notices.waiting(100)] == [want[0].id + 1, want[0].id]
