"""The outbox: an action's channel posts are stored with it, sent after the commit outside the game's
lock (a slow channel delays its posts, not the game), and kept as they were (words, buttons, pictures)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.service import (
    Answers,
    Caller,
    ConfirmButton,
    HandButtons,
    LobbyButtons,
    Picture,
    PlayButton,
    Post,
    RematchButton,
    Tiempo,
    version_of,
)
from bot.service.messages import Outbox, SendLater, decode_post, encode_post
from bot.storage import DatabaseFaultError, Storage
from bot.words import Button, Code, Command, Here, Mention, Name, Strong, say, text
from rules import EndTurn, legal_actions


async def _flushed(courier: Any, channel_id: int = 1) -> None:
    """Wake the channel's sender and wait until it has sent what the outbox holds for the channel."""
    courier.kick(channel_id)
    await asyncio.wait_for(courier.flush(channel_id, timeout=10), 11)


def test_a_post_is_stored_as_it_was_made() -> None:
    words = say(" {c} {b} {code} {here}.", c=Command("build", "kind:Keep", or_button=True),
                b=Button("Rematch", "rematch", " below"), code=Code("MM 1+1"), here=Here(capital=True))
    bold = Strong(say("{name} — this server", name=Name("*Bo*")))  # (bold words holding a name)
    post = Post(text(Strong("Round 2."), " ", Mention(5, "Ana"), " ", Name("*Bo*"), words, " ", bold),
                png=b"\x89PNG one", filename="one.png",
                gallery=(Picture(b"\x89PNG two", "two.png", "Might: no change", False),),
                controls=(Answers(3, "12-abcdef", (("E4", "E4"), ("F4", "F4"))), PlayButton(3),
                          HandButtons(3, "12-abcdef"), LobbyButtons(4), RematchButton(3)),
                mentions=(5,))
    body = encode_post(post)
    assert decode_post(body.text, body.pictures) == post


def test_a_post_stored_before_posts_had_controls_is_read_with_its_buttons() -> None:
    """A running bot's outbox may hold posts stored in the older form (one field per kind of button)."""
    old = json.dumps({"text": ["Ben, which Keep?"], "png": None, "filename": "tiempo.png", "gallery": [],
                      "hand_game": 3, "lobby_game": None, "rematch_game": None, "choice_game": 3,
                      "version": "12-abcdef", "choices": [["E4: a Keep", "E4"], ["F4", "F4"]], "mentions": [5],
                      "play_game": 3, "live": "1-1"})
    assert decode_post(old) == Post(text("Ben, which Keep?"), controls=(
        Answers(3, "12-abcdef", (("E4: a Keep", "E4"), ("F4", "F4"))), PlayButton(3), HandButtons(3, "12-abcdef")),
        mentions=(5,), live="1-1")
    lobby = json.dumps({"text": ["Open."], "png": None, "filename": "tiempo.png", "gallery": [], "hand_game": None,
                        "lobby_game": 7, "rematch_game": None, "choice_game": None, "version": "", "choices": [],
                        "mentions": [], "play_game": None, "live": None})
    assert decode_post(lobby).controls == (LobbyButtons(7),)


def test_a_private_control_is_never_stored_in_the_outbox() -> None:
    with pytest.raises(ValueError):
        encode_post(Post(text("Sure?"), controls=(ConfirmButton(3, "12-abcdef", "T1>F"),)))


class SlowChannel:
    """A channel that Discord slows down: each post waits until the test lets it through."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.posted: list[tuple[str | None, str]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        if nonce is not None:  # the outbox's posts (an action's announcement)
            await self.open.wait()
        self.posted.append((nonce, post.text.plain()))


ANA, BEN = Caller(1, 1, 100, "Ana"), Caller(1, 1, 101, "Ben")


async def _started(tmp_path: Path, channel: Outbox, *, turn_minutes: int | None = None,
                   clock: Callable[[], float] = time.time, before_start: Callable[[Storage], None] = lambda s: None
                   ) -> tuple[Storage, Tiempo]:
    """A game between Ana and Ben in channel 1, started (``before_start`` is told just before), with a
    courier that waits 0.1 s at most for the channel."""
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3, clock=clock)
    service.herald.courier.patience = 0.1
    await service.new(ANA, turn_minutes=turn_minutes)
    await service.join(BEN)
    before_start(storage)
    await service.start_game(ANA)
    return storage, service


async def _end_turn(storage: Storage, service: Tiempo) -> None:
    """The player to move ends the turn, discarding as little as they may."""
    game = await storage.active_game_in_channel(1)
    assert game is not None
    state = service.state_of(game)
    end = min((a for a in legal_actions(state) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
    who = ANA if state.players[end.player].name == "Ana" else BEN
    await service.moves.play_action(who, game.id, version_of(game), lambda s, p, a=end: a)


async def _sent(service: Tiempo, channel: SlowChannel | FlakyChannel) -> list[tuple[str | None, str]]:
    """The outbox's posts the channel got, once the courier is done and has taken them out of the
    outbox (10 s at most)."""
    await asyncio.wait_for(service.herald.courier.flush(1, timeout=10), timeout=11)
    await asyncio.wait_for(service.herald.courier.forgotten(), timeout=10)
    return [(n, words) for n, words in channel.posted if n is not None]


async def test_a_slow_channel_delays_its_posts_not_the_game(tmp_path: Path) -> None:
    channel = SlowChannel()
    storage, service = await _started(tmp_path, channel)
    try:
        for _ in range(3):  # three ends of turn, each answered though the channel holds every post
            await asyncio.wait_for(_end_turn(storage, service), timeout=10)
        assert [n for n, _ in channel.posted if n is not None] == []  # nothing got through yet
        waiting = await storage.posts.pending(1)
        assert len(waiting) == 4  # the first board, then three ends of turn
        channel.open.set()
        sent = await _sent(service, channel)
        assert [n for n, _ in sent] == [p.nonce for p in waiting]  # in order, each once
        assert "begins" in sent[0][1] and all("ends the turn" in words for _, words in sent[1:])
        assert await storage.posts.pending(1) == []
    finally:
        await service.close()
        await storage.close()


async def test_a_time_out_is_told_before_the_turn_it_ends_and_outside_the_lock(tmp_path: Path) -> None:
    """The "Time is up" note goes in the outbox with the first action the time-out plays: a slow
    channel does not hold the game, and the note comes before the board it explains."""
    channel = SlowChannel()
    now = [1_800_000_000.0]
    storage, service = await _started(tmp_path, channel, turn_minutes=1, clock=lambda: now[0])
    try:
        game = await storage.active_game_in_channel(1)
        assert game is not None
        now[0] += 120
        await asyncio.wait_for(service.turns.time_out(game.id), timeout=10)  # though the channel holds every post
        assert (await storage.get_game(game.id)).action_count > game.action_count
        channel.open.set()
        sent = [words for _, words in await _sent(service, channel)]
        assert "begins" in sent[0] and sent[1].startswith("Time is up for") and "ends the turn" in sent[2]
        assert len(sent) == 3 and await storage.posts.pending(1) == []
    finally:
        await service.close()
        await storage.close()


class FlakyChannel:
    """A channel whose first ``failures`` sends fail as Discord's outages do (the post may go later)."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.posted: list[tuple[str | None, str]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        if nonce is not None and self.failures > 0:
            self.failures -= 1
            raise SendLater("Discord answered 503")
        self.posted.append((nonce, post.text.plain()))


@pytest.mark.slow  # waits out the pauses between tries
async def test_a_post_discord_fails_to_take_is_sent_again_in_its_place(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    """An outage of Discord's loses no post and reorders none: the channel's posts wait, and go out
    in order once it is over (a pause of 1 s, then 2 s, ...)."""
    channel = FlakyChannel(failures=2)
    storage, service = await _started(tmp_path, channel)
    try:
        await _end_turn(storage, service)
        waiting = [p.nonce for p in await storage.posts.pending(1)]
        assert len(waiting) == 2  # the first board and the end of the turn, both held by the outage
        assert [n for n, _ in await _sent(service, channel)] == waiting  # each once, in order
        assert await storage.posts.pending(1) == []
        assert sum("wait (Discord answered 503)" in r.getMessage() for r in caplog.records) == 2
    finally:
        await service.close()
        await storage.close()


async def test_an_outbox_that_cannot_read_the_database_tries_again(tmp_path: Path) -> None:
    """A database error while the channel's posts are read stops nothing for good: they go out after a pause."""
    channel = FlakyChannel(failures=0)
    failures = [RuntimeError("disk I/O error")]

    def flaky(storage: Storage) -> None:
        pending = storage.posts.pending

        async def flaky_pending(*args: Any, **kwargs: Any) -> Any:
            if failures:
                raise failures.pop()
            return await pending(*args, **kwargs)

        storage.posts.pending = flaky_pending  # type: ignore[method-assign]

    storage, service = await _started(tmp_path, channel, before_start=flaky)
    try:
        assert ["begins" in words for _, words in await _sent(service, channel)] == [True]
        assert failures == []
    finally:
        await service.close()
        await storage.close()


@pytest.mark.slow  # waits out the pauses between tries: 1 s, then 2 s
async def test_a_sent_post_the_database_fails_to_forget_is_not_sent_again(tmp_path: Path,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    """Taking a sent post out of the outbox fails (a full disk, not a busy database): it stays there
    until that works, and is never sent again meanwhile (Discord forgets a nonce in minutes); the log
    has a warning, no traceback. (Two failures: the second try, after the doubled pause, still finds
    the post sent.)"""
    channel = FlakyChannel(failures=0)
    failures = [DatabaseFaultError("the disk is full")] * 2

    def full_disk(storage: Storage) -> None:
        sent = storage.posts.sent

        async def failing_sent(*post_ids: int) -> None:
            if failures:
                raise failures.pop()
            await sent(*post_ids)

        storage.posts.sent = failing_sent  # type: ignore[method-assign]

    storage, service = await _started(tmp_path, channel, before_start=full_disk)
    try:
        for _ in range(20):  # a pause of 0.5 s, then 1 s, ... between tries
            if not failures and not await storage.posts.pending(1):
                break
            service.herald.courier.kick(1)  # (a kick, as the timers give: the post is not sent again)
            await asyncio.sleep(0.5)
        assert [("begins" in words) for _, words in await _sent(service, channel)] == [True]  # once
        assert await storage.posts.pending(1) == [] and not service.herald.courier.sent._done
        assert all(r.exc_info is None for r in caplog.records if r.name.startswith("tiempo"))
        assert any("the disk is full" in r.getMessage() for r in caplog.records)
    finally:
        await service.close()
        await storage.close()


class BrokenPostChannel(FlakyChannel):
    """A channel where one post can never be sent (discord.py refuses it before sending: too many files)."""

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        if "ends the turn" in post.text.plain():
            raise ValueError("files parameter must be a list of up to 10 elements")
        await super().post(channel_id, post, nonce)


async def test_a_post_that_can_never_be_sent_is_dropped_and_the_others_go(tmp_path: Path,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    channel = BrokenPostChannel(failures=0)
    storage, service = await _started(tmp_path, channel)
    try:
        for _ in range(2):
            await _end_turn(storage, service)
        assert [("begins" in words) for _, words in await _sent(service, channel)] == [True]
        assert await storage.posts.pending(1) == []  # the two broken ones dropped, logged
        assert sum("cannot be sent; it is dropped" in r.getMessage() for r in caplog.records) == 2
        await service.herald.courier.close()
        service.herald.courier.kick(1)  # after close, a kick starts nothing
        assert all(t.done() for t in service.herald.courier._tasks.values())
    finally:
        await service.close()
        await storage.close()


async def test_posts_of_a_commit_reported_as_failed_yet_stored_go_out(tmp_path: Path) -> None:
    """A commit the database stored but reported as failed (the connection lost while committing):
    the player hears of a failure, yet the action is in the log, so its posts are sent too."""
    channel = FlakyChannel(failures=0)
    storage, service = await _started(tmp_path, channel)
    try:
        assert len(await _sent(service, channel)) == 1  # the first board
        append = storage.append_action

        async def stored_then_lost(*args: Any, **kwargs: Any) -> Any:
            await append(*args, **kwargs)
            raise ConnectionResetError("the connection was lost while committing")

        storage.append_action = stored_then_lost  # type: ignore[method-assign]
        with pytest.raises(ConnectionResetError):
            await _end_turn(storage, service)
        storage.append_action = append  # type: ignore[method-assign]
        game = await storage.active_game_in_channel(1)
        assert game is not None and game.action_count == 1  # the end of the turn was stored
        assert ["ends the turn" in words for _, words in (await _sent(service, channel))[1:]] == [True]
        assert await storage.posts.pending(1) == []
    finally:
        await service.close()
        await storage.close()


async def test_the_timers_send_what_the_outbox_holds(tmp_path: Path) -> None:
    """Posts stored while no sender was told of them (by another process, or before a failure) go out
    at the next tick of the timers, not only after a restart."""
    channel = FlakyChannel(failures=0)
    storage, service = await _started(tmp_path, channel)
    try:
        await _sent(service, channel)
        game = await storage.active_game_in_channel(1)
        assert game is not None
        await storage.append_action(game.id, game.next_seq, 100, "Ana end", game.snapshot or "",
                                    posts=[encode_post(Post(text("Stored elsewhere.")))])
        await asyncio.sleep(0.05)
        assert [p.body for p in await storage.posts.pending(1)] != []  # nobody sends it yet…
        await service.tick()
        assert [words for _, words in await _sent(service, channel)][-1:] == ["Stored elsewhere."]  # …the tick does
        assert await storage.posts.pending(1) == []
    finally:
        await service.close()
        await storage.close()


class EditableChannel:
    """A channel whose messages the bot can edit (Discord): each message's words as they are now."""

    def __init__(self, gone: set[int] | None = None) -> None:
        self.messages: list[str] = []
        self.gone = gone or set()  # messages deleted meanwhile: an edit of one fails

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> int:
        self.messages.append(post.text.plain())
        return len(self.messages) - 1

    async def edit(self, channel_id: int, message_id: int, post: Post) -> bool:
        if message_id in self.gone:
            return False
        self.messages[message_id] = post.text.plain()
        return True


async def _courier_sends(channel: Outbox, posts: list[Post], tmp_path: Path) -> None:
    """``posts`` stored in the outbox of a game in channel 1, and sent by a courier."""
    from bot.service.courier import Courier

    tmp_path.mkdir(exist_ok=True)
    async with await Storage.open(str(tmp_path / "c.sqlite3")) as storage:
        game = await storage.create_game(guild_id=1, channel_id=1, opener_id=1, seed=1)
        for post in posts:
            await storage.mark_half_warned(game.id, posts=[encode_post(post)])
        courier = Courier(storage, channel, lambda guild: True)
        await _flushed(courier)
        await asyncio.wait_for(courier.forgotten(), 11)
        await courier.close()
        assert await storage.posts.pending(1) == []


async def test_a_turn_played_action_by_action_grows_one_message(tmp_path: Path) -> None:
    """The posts of one turn's actions are added to the turn's message while it is the channel's last
    (an edit); any other post (a question, the board) ends it, and so does another turn."""
    channel = EditableChannel()
    await _courier_sends(channel, [
        Post(text("Ana builds a Keep."), live="1-1"), Post(text("Ana travels."), live="1-1"),
        Post(text("Ben, which Keep?")), Post(text("Ben chooses E1."), live="1-1"),
        Post(text("↩️ Ana takes back her travel."), live="1-1"), Post(text("Ana ends the turn; the board.")),
        Post(text("Ben builds a Chapel."), live="1-2")], tmp_path)
    assert channel.messages == ["Ana builds a Keep.\nAna travels.", "Ben, which Keep?",
                                "Ben chooses E1.\n↩️ Ana takes back her travel.", "Ana ends the turn; the board.",
                                "Ben builds a Chapel."]
    channel = EditableChannel()  # another turn's live post right after: a message of its own
    await _courier_sends(channel, [Post(text("Ana builds."), live="1-1"), Post(text("Ben builds."), live="1-2")],
                         tmp_path / "next")
    assert channel.messages == ["Ana builds.", "Ben builds."]


async def test_a_live_post_the_outbox_failed_to_forget_is_added_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database failed to take a sent post out of the outbox: the courier takes it out later and
    meanwhile never sends it again (a post added to a live message by an edit has no nonce: sent
    again, its line would be there twice)."""
    from bot.storage.outbox import PostQueue

    failures = ["two"]  # (the courier tries again after a pause of 0.5 s)
    sent = PostQueue.sent

    async def flaky_sent(self: Any, *post_ids: int) -> None:
        bodies = [p.body for p in await self.pending(1) if p.id in post_ids]
        if failures and any(failures[0] in body for body in bodies):
            failures.pop()
            raise RuntimeError("the connection was lost")
        await sent(self, *post_ids)

    monkeypatch.setattr(PostQueue, "sent", flaky_sent)
    channel = EditableChannel()
    await _courier_sends(channel, [Post(text("one"), live="1-1"), Post(text("two"), live="1-1"),
                                   Post(text("three"), live="1-1")], tmp_path)
    assert failures == [] and channel.messages == ["one\ntwo\nthree"]


async def test_a_live_message_that_is_gone_or_full_is_followed_by_a_new_one(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.service import courier

    channel = EditableChannel(gone={0})  # the first message was deleted before the second action
    await _courier_sends(channel, [Post(text("one"), live="1-1"), Post(text("two"), live="1-1"),
                                   Post(text("three"), live="1-1")], tmp_path)
    assert channel.messages == ["one", "two\nthree"]
    monkeypatch.setattr(courier, "LIVE_MAX", 12)
    channel = EditableChannel()
    await _courier_sends(channel, [Post(text("first line"), live="1-1"), Post(text("second line"), live="1-1")],
                         tmp_path / "again")  # (a folder of its own: another database)
    assert channel.messages == ["first line", "second line"]  # together they are too long for one


class RewritableChannel(EditableChannel):
    """A channel whose every message the bot can rewrite, words and buttons (Discord)."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons: list[tuple[str, ...]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> int:
        self.buttons.append(tuple(type(c).__name__ for c in post.controls))
        return await super().post(channel_id, post, nonce)

    async def rewrite(self, channel_id: int, message_id: int, post: Post) -> bool:
        self.messages[message_id] = post.text.plain()
        self.buttons[message_id] = tuple(type(c).__name__ for c in post.controls)
        return True


def _asking(words: str) -> Post:
    return Post(text(words), controls=(Answers(1, "3-abc", (("E1", "E1"),)), PlayButton(1), HandButtons(1)),
                key="ask-1")


async def test_a_settled_post_loses_its_buttons_and_its_call_to_act(tmp_path: Path) -> None:
    """A keyed post settled later keeps its words but its last line (replaced by the note) and loses
    its buttons but My hand; a new post of the same key settles the one before it; a retracting live
    post takes the place of the live message's last line; nothing settles what was never sent."""
    channel = RewritableChannel()
    await _courier_sends(channel, [
        Post(text("Ana travels."), live="1-1"), Post(text("↩️ Ana takes back her travel."), live="1-1",
                                                     retracts=True),
        _asking("The board.\nBen, which Keep?"), Post(text("✅ Ben answered: E1."), settles="ask-1"),
        _asking("Cy, which Town?"), _asking("Di, which Hamlet?"),
        Post(text("never sent"), settles="ask-2")], tmp_path)
    assert channel.messages == ["↩️ Ana takes back her travel.", "The board.\n✅ Ben answered: E1.",
                                "Cy, which Town?", "Di, which Hamlet?"]
    assert channel.buttons == [(), ("HandButtons",), ("HandButtons",), ("Answers", "PlayButton", "HandButtons")]


async def test_settling_on_a_channel_that_cannot_edit_posts_nothing(tmp_path: Path) -> None:
    """The console: keyed posts are posted as any other, and settling them posts nothing."""
    class Terminal:
        def __init__(self) -> None:
            self.printed: list[str] = []

        async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
            self.printed.append(post.text.plain())

    channel = Terminal()
    await _courier_sends(channel, [_asking("Ben, which Keep?"), Post(text("✅ Ben answered: E1."), settles="ask-1")],
                         tmp_path)
    assert channel.printed == ["Ben, which Keep?"]


def test_a_post_s_pictures_are_stored_as_binary_and_read_back_as_they_were() -> None:
    """Schema step 10: the outbox keeps a post's pictures as their bytes, one after the other (the JSON
    gives each one's size, no base64 in it); reading them back gives the same pictures in their
    places, the lead and the others with their descriptions, and a post without pictures has none."""
    png_one, png_two = bytes(range(256)) * 3, b"\x89PNG\r\n\x1a\n two"
    post = Post(say("{who}, your turn.", who=Mention(5, "ana")), png=b"\x89PNG board", gallery=(
        Picture(png_one, "tiempo-1-v3-might.png", "Might: what changed is ringed in gold", True),
        Picture(png_two, "tiempo-1-v3-faith.png", "Faith: no change", False)),
        controls=(PlayButton(1), HandButtons(1, "3-abcdef")), mentions=(5,), key="think-1-3")
    body = encode_post(post)
    assert body.pictures == b"\x89PNG board" + png_one + png_two
    assert json.loads(body.text)["png"] == len(b"\x89PNG board") and "base64" not in body.text
    assert [g["png"] for g in json.loads(body.text)["gallery"]] == [len(png_one), len(png_two)]
    assert decode_post(body.text, body.pictures) == post
    assert encode_post(Post(text("no picture"))).pictures is None
    with pytest.raises(ValueError):  # pictures cut short: the post cannot be read (it is dropped, logged)
        decode_post(body.text, body.pictures[:-1])


def _old_form(post: Post) -> str:
    """``post`` as the outbox stored it before schema step 10: its pictures in base64 in the JSON."""
    import base64

    body = encode_post(post)
    data = json.loads(body.text)
    pictures = decode_post(body.text, body.pictures)
    data["png"] = base64.b64encode(pictures.png).decode() if pictures.png is not None else None
    for stored, picture in zip(data["gallery"], pictures.gallery, strict=True):
        stored["png"] = base64.b64encode(picture.png).decode()
    return json.dumps(data)


def test_a_post_stored_with_its_pictures_in_base64_is_read_with_them() -> None:
    """A post stored before schema step 10 (pictures in base64 in the JSON) reads as it was made."""
    post = Post(text("The board."), png=b"\x89PNG one", gallery=(Picture(b"\x89PNG two", "two.png", "Faith", False),),
                controls=(HandButtons(1, "3-abcdef"),))
    assert decode_post(_old_form(post)) == post


class PictureChannel:
    """A channel that keeps what it was sent, pictures included."""

    def __init__(self) -> None:
        self.posts: list[Post] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> int:
        self.posts.append(post)
        return len(self.posts)


async def test_posts_stored_in_the_old_form_and_the_new_are_sent_with_their_pictures(tmp_path: Path) -> None:
    """An outbox left by the bot before schema step 10 (pictures in base64) is sent after the upgrade as
    it was made, in order with the posts stored since (pictures as binary)."""
    from bot.service.courier import Courier

    old = Post(text("Stored before."), png=b"\x89PNG old", gallery=(Picture(b"\x89PNG old two", "b.png", "B", False),))
    new = Post(text("Stored after."), gallery=(Picture(b"\x89PNG new", "c.png", "C", True),))
    channel = PictureChannel()
    async with await Storage.open(str(tmp_path / "c.sqlite3")) as storage:
        game = await storage.create_game(guild_id=1, channel_id=1, opener_id=1, seed=1)
        await storage.posts.add(game, [_old_form(old), encode_post(new)], 1.0)
        courier = Courier(storage, channel, lambda guild: True)
        await _flushed(courier)
        await asyncio.wait_for(courier.forgotten(), 11)
        await courier.close()
        assert await storage.posts.pending(1) == []
        assert channel.posts == [old, new]
        assert await storage.posts.pending(1) == []


# -- sent posts taken out of the outbox together ----------------------------------------------------


class Nonces:
    """A channel that records each post's channel and nonce (Discord's outbox, as the courier sees it)."""

    def __init__(self) -> None:
        self.posted: list[tuple[int, str | None]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        self.posted.append((channel_id, nonce))


async def _stored(storage: Storage, channels: dict[int, int]) -> dict[int, list[str]]:
    """``channels[c]`` posts stored for a game in each channel ``c``; their nonces, per channel."""
    for channel_id, count in channels.items():
        game = await storage.create_game(guild_id=1, channel_id=channel_id, opener_id=1, seed=1)
        for i in range(count):
            await storage.mark_half_warned(game.id, posts=[encode_post(Post(text(f"post {i}")))])
    return {c: [p.nonce for p in await storage.posts.pending(c, limit=100)] for c in channels}


async def test_the_posts_sent_meanwhile_are_taken_out_of_the_outbox_in_one_transaction(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A quiet bot takes a sent post out at once; posts sent within ``forget_after`` of that, to
    several channels, are taken out together, in one transaction; until then they stay in the outbox,
    and a kick (the timers') sends none of them again."""
    from bot.service.courier import Courier
    from bot.storage.outbox import PostQueue

    calls: list[tuple[int, ...]] = []
    sent = PostQueue.sent

    async def counted(self: Any, *post_ids: int) -> None:
        calls.append(post_ids)
        await sent(self, *post_ids)

    monkeypatch.setattr(PostQueue, "sent", counted)
    channel = Nonces()
    async with await Storage.open(str(tmp_path / "c.sqlite3")) as storage:
        courier = Courier(storage, channel, lambda guild: True)
        courier.sent.forget_after = 60.0  # (the test says when: ``forgotten``)
        await _stored(storage, {3: 1})
        courier.kick(3)
        await asyncio.wait_for(courier.flush(3, timeout=10), 11)
        for _ in range(100):  # taken out at once, with no sweep before it
            if not await storage.posts.pending(3):
                break
            await asyncio.sleep(0.01)
        assert await storage.posts.pending(3) == [] and len(calls) == 1
        nonces = await _stored(storage, {1: 3, 2: 2})
        courier.kick(1)
        courier.kick(2)
        await asyncio.wait_for(asyncio.gather(courier.flush(1, timeout=10), courier.flush(2, timeout=10)), 11)
        assert len(await storage.posts.pending(1)) == 3 and len(await storage.posts.pending(2)) == 2
        await _flushed(courier)
        assert sorted(channel.posted[1:]) == sorted((c, n) for c, ns in nonces.items() for n in ns)  # each once
        assert [n for c, n in channel.posted if c == 1] == nonces[1]  # in order
        await asyncio.wait_for(courier.forgotten(), 10)
        assert len(calls) == 2 and len(calls[1]) == 5
        assert await storage.posts.pending(1) == [] and await storage.posts.pending(2) == []
        await courier.close()


async def test_a_crash_before_sent_posts_are_taken_out_sends_them_again_with_their_nonce(tmp_path: Path) -> None:
    """The process ends (kill -9) after posts went out but before they were taken out of the outbox (at
    most ``forget_after`` later): the next start sends them again with the same nonces, which Discord
    enforces, so they are not posted twice. A stop (``close``) takes them out first: nothing is sent again."""
    from bot.service.courier import Courier

    async with await Storage.open(str(tmp_path / "c.sqlite3")) as storage:
        nonces = await _stored(storage, {1: 2})
        first, again = Nonces(), Nonces()
        crashed = Courier(storage, first, lambda guild: True)
        never = asyncio.Event()

        async def killed_first(*post_ids: int) -> None:  # the process dies before this commits
            await never.wait()

        crashed.sent.storage = SimpleNamespace(posts=SimpleNamespace(sent=killed_first))  # type: ignore[assignment]
        crashed.kick(1)
        await asyncio.wait_for(crashed.flush(1, timeout=10), 11)
        assert crashed.sent._sweeper is not None
        crashed.sent._sweeper.cancel()  # killed: nothing after this runs
        crashed.sent._done.clear()
        restarted = Courier(storage, again, lambda guild: True)
        await restarted.resume()
        await asyncio.wait_for(restarted.flush(1, timeout=10), 11)
        assert first.posted == again.posted == [(1, n) for n in nonces[1]]
        await restarted.close()  # a stop: what it sent is taken out, the sweep never came
        assert await storage.posts.pending(1) == []
        assert restarted.sent._sweeper is not None and restarted.sent._sweeper.cancelled()


async def test_taking_sent_posts_out_fails_and_the_channel_keeps_its_order_sending_none_twice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The batch's transaction fails (a full disk) while more posts come than the courier reads at a
    time: the posts already sent are skipped, never sent again; the new ones go out in order; once the
    database works again, all are taken out. A warning in the log, no traceback."""
    from bot.service import courier as courier_module
    from bot.service.courier import Courier
    from bot.storage.outbox import PostQueue

    monkeypatch.setattr(courier_module, "PENDING_BATCH", 2)
    monkeypatch.setattr(courier_module, "FORGET_RETRY_S", 0.01)
    full = [True]  # until the test frees the disk
    sent = PostQueue.sent

    async def failing(self: Any, *post_ids: int) -> None:
        if full[0]:
            raise DatabaseFaultError("the disk is full")
        await sent(self, *post_ids)

    monkeypatch.setattr(PostQueue, "sent", failing)
    channel = Nonces()
    async with await Storage.open(str(tmp_path / "c.sqlite3")) as storage:
        nonces = (await _stored(storage, {1: 5}))[1]
        courier = Courier(storage, channel, lambda guild: True)
        courier.sent.forget_after = 0.0
        await _flushed(courier)
        game = await storage.active_game_in_channel(1)
        assert game is not None
        for i in range(3):
            await storage.mark_half_warned(game.id, posts=[encode_post(Post(text(f"later {i}")))])
        later = [p.nonce for p in await storage.posts.pending(1, limit=100)][-3:]
        courier.kick(1)  # (five sent posts still in the outbox come first: more than a read's 2)
        await asyncio.wait_for(courier.flush(1, timeout=10), 11)
        assert len(await storage.posts.pending(1, limit=100)) == 8
        full[0] = False
        await asyncio.wait_for(courier.forgotten(), 10)
        assert channel.posted == [(1, n) for n in [*nonces, *later]]
        assert await storage.posts.pending(1) == []
        await courier.close()
    assert all(r.exc_info is None for r in caplog.records if r.name.startswith("tiempo"))
    assert any("the disk is full" in r.getMessage() for r in caplog.records)


async def test_a_post_taken_out_while_a_read_of_the_outbox_was_under_way_is_not_sent_again(tmp_path: Path) -> None:
    """A read of the channel's posts begun before a sweep took a sent post out of the outbox returns
    that post (PostgreSQL reads on another connection): it is not sent again."""
    from bot.service.courier import Courier

    channel = Nonces()
    async with await Storage.open(str(tmp_path / "c.sqlite3")) as storage:
        first = (await _stored(storage, {1: 1}))[1]
        courier = Courier(storage, channel, lambda guild: True)
        courier.sent.forget_after = 60.0
        await _flushed(courier)
        assert channel.posted == [(1, first[0])]
        read, started, release = storage.posts.pending, asyncio.Event(), asyncio.Event()

        async def slow_read(*args: Any, **kwargs: Any) -> Any:
            rows = await read(*args, **kwargs)  # (the post sent is still there)
            started.set()
            await release.wait()
            return rows

        storage.posts.pending = slow_read  # type: ignore[method-assign]
        game = await storage.active_game_in_channel(1)
        assert game is not None
        await storage.mark_half_warned(game.id, posts=[encode_post(Post(text("later")))])
        courier.kick(1)
        await asyncio.wait_for(started.wait(), 10)
        await asyncio.wait_for(courier.forgotten(), 10)  # the sent post taken out meanwhile
        release.set()
        await asyncio.wait_for(courier.flush(1, timeout=10), 11)
        storage.posts.pending = read  # type: ignore[method-assign]
        later = [p.nonce for p in await storage.posts.pending(1)]
        assert len(later) == 1 and channel.posted == [(1, first[0]), (1, later[0])]
        await courier.close()
