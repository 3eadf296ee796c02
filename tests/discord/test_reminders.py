"""Reminders that reach the player (``/tiempo notify``, issue 21): on the Discord stand-in, a player who
chose direct messages gets one with a Play button that opens their panel; a player whose direct
messages are closed is mentioned in the channel instead, and told why once; a reminder due later waits
in the direct outbox across a restart and is sent once. At the service: ``off`` and ``dm`` take the
turn post's ping away, a player who acts in time is not reminded, and the console keeps the choice but
says that direct messages are Discord's."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.discord import TiempoBot
from bot.service import Caller, Post, Refusal, Tiempo
from bot.service.steps import path_to
from bot.storage import Storage
from bot.words import PLAIN, Mention, render, say
from rules import EndTurn, legal_actions
from tests.support.discord_play import Clock, answer, make_bot, play_turn, public, state_of, tap, user_of
from tests.support.discord_sim import DiscordSim, SimMessage, SimUser
from tests.support.service_play import Silent, seated_game


def dms(sim: DiscordSim, user: SimUser) -> list[SimMessage]:
    """The bot's direct messages to ``user``."""
    return sim.channel_messages(sim.dm_channel(user))


def pinged(sim: DiscordSim, message: SimMessage) -> list[int]:
    """The users the bot allowed ``message`` to ping (its ``allowed_mentions``)."""
    body = next(r.json for r in sim.requests_to(rf"/channels/{message.channel_id}/messages$", "POST")
                if isinstance(r.json, dict) and r.json.get("nonce") == message.payload.get("nonce"))
    return [int(u) for u in body.get("allowed_mentions", {}).get("users", [])]


async def choose(sim: DiscordSim, user: SimUser, mode: str) -> SimMessage:
    reply = await answer(sim, sim.slash("tiempo", "me notify", {"mode": mode}, user=user))
    assert reply.ephemeral and "Saved, for every game on every server." in reply.content
    return reply


async def dm_table(sim: DiscordSim, tmp_path: Path, *, closed: bool = False, **config: Any
                   ) -> tuple[TiempoBot, list[SimUser]]:
    """alice and bob, both having chosen ``notify dm`` (``closed``: and closed their direct messages), at
    a started game."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", config))
    bob = sim.add_user("bob")
    if closed:
        sim.closed_dms.update((sim.user.id, bob.id))
    for user in (sim.user, bob):
        await choose(sim, user, "dm")
    lobby = await answer(sim, sim.slash("tiempo", "new", {}))
    await answer(sim, sim.click(lobby.custom_id("Join"), lobby, user=bob))
    await answer(sim, sim.slash("tiempo", "start"))
    return bot, [sim.user, bob]


async def test_a_player_who_chose_dm_gets_a_direct_message_whose_play_button_opens_their_panel(
        sim: DiscordSim, tmp_path: Path) -> None:
    bot, users = await dm_table(sim, tmp_path, reminder_minutes=0)
    game_id, state = await state_of(bot, sim)
    player, other = user_of(users, state, state.active), user_of(users, state, 1 - state.active)
    board = next(m for m in reversed(public(sim)) if "your turn" in m.content)
    assert f"<@{player.id}>" in board.content and pinged(sim, board) == []  # named, not pinged

    dm = await sim.wait_for_message(channel=sim.dm_channel(player))
    assert dm.content.splitlines() == [
        "**Tiempo**",
        f"It is your turn in game #{game_id}.",
        f"Round 1 of 7, in #general on **Test Server** "
        f"(https://discord.com/channels/{sim.guild.id}/{sim.channel.id}).",
        "Your turn panel opens here when you press Play; only you see it."]
    assert dm.custom_ids() == [f"tiempo:play:{game_id}"] and not dm.attachments
    assert dms(sim, other) == []  # not their turn

    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", dm, user=player))
    assert panel.ephemeral and panel.channel_id == dm.channel_id
    assert "What do you do?" in panel.content and "Round 1 of 7" in panel.content
    assert any(c.startswith(f"tiempo:pick:{game_id}:") for c in panel.custom_ids())
    stranger = await answer(sim, sim.click(f"tiempo:play:{game_id}", dm, user=sim.add_user("cy")))
    assert "You are not playing in this game" in stranger.content

    end = min((a for a in legal_actions(state) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
    panel, _ = await tap(sim, panel, player, path_to(state, state.active, end))  # the turn played from the DM
    assert panel.channel_id == dm.channel_id and f"It is {other.name}" in panel.content
    ended = await sim.wait_for_message(lambda m: f"{player.name} (" in m.content and "ends the turn" in m.content)
    assert f"<@{other.id}>, your turn" in ended.content and pinged(sim, ended) == []
    their = await sim.wait_for_message(channel=sim.dm_channel(other))
    assert f"It is your turn in game #{game_id}." in their.content

    await bot.service.tick()  # sent once: nothing is left to send
    await bot.service.herald.courier.letters_sent()
    assert len(dms(sim, player)) == 1 and len(dms(sim, other)) == 1
    assert await bot.service.storage.notices.waiting() == []


async def test_closed_direct_messages_fall_back_to_the_channel_s_mention_told_once(sim: DiscordSim,
                                                                                  tmp_path: Path) -> None:
    bot, users = await dm_table(sim, tmp_path, closed=True, reminder_minutes=0)
    rng = random.Random(3)
    told: dict[int, int] = {}
    for _ in range(3):  # the first player's turn, the second's, and the first's again
        game_id, state = await state_of(bot, sim)
        player = user_of(users, state, state.waiting_on)
        fallback = await sim.wait_for_message(
            lambda m, mark=f"<@{player.id}>, game #{game_id} waits on you (round {state.round}": mark in m.content)
        assert pinged(sim, fallback) == [player.id] and f"tiempo:play:{game_id}" in fallback.custom_ids()
        assert fallback.content.startswith(f"<@{player.id}>, game #{game_id} waits on you (round ")
        told[player.id] = told.get(player.id, 0) + ("I could not send you a direct message" in fallback.content)
        await play_turn(sim, bot, users, rng)
        await bot.service.herald.courier.letters_sent()
    assert told == {users[0].id: 1, users[1].id: 1}  # each told why once, in three reminders
    assert all(dms(sim, u) == [] for u in users)
    telling = next(m for m in public(sim) if "I could not send you a direct message" in m.content)
    assert telling.content.splitlines()[-1] == (
        "I could not send you a direct message: your direct messages are closed to me, so you are mentioned "
        "here instead. To get them, allow direct messages from this server's members (Privacy Settings), or "
        "choose `/tiempo me notify mode:channel` to be mentioned here without trying.")


async def test_a_reminder_due_later_waits_in_the_outbox_across_a_restart_and_is_sent_once(
        sim: DiscordSim, tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.sqlite3"
    first = await sim.connect(make_bot(sim, db, clock=clock))
    bob = sim.add_user("bob")
    for user in (sim.user, bob):
        await choose(sim, user, "dm")
    lobby = await answer(sim, sim.slash("tiempo", "new", {}))
    await answer(sim, sim.click(lobby.custom_id("Join"), lobby, user=bob))
    await answer(sim, sim.slash("tiempo", "start"))
    _, state = await state_of(first, sim)
    player = user_of([sim.user, bob], state, state.active)
    (waiting,) = await first.service.storage.notices.waiting()
    assert waiting.user_id == player.id and waiting.due_at == clock.now + 10 * 60
    clock.now += 9 * 60
    await first.service.tick()
    await first.service.herald.courier.letters_sent()
    assert dms(sim, player) == []  # not yet: ten minutes to act
    await first.close()

    clock.now += 2 * 60
    second = await sim.connect(make_bot(sim, db, clock=clock))
    await second.service.tick()
    dm = await sim.wait_for_message(channel=sim.dm_channel(player))
    assert "It is your turn in game #" in dm.content
    for _ in range(2):
        await second.service.tick()
        await second.service.herald.courier.letters_sent()
    assert len(dms(sim, player)) == 1 and await second.service.storage.notices.waiting() == []


# -- at the service -----------------------------------------------------------------------------


class Letters(Silent):
    """An outbox that also sends direct messages: it keeps the channel's posts and the DMs."""

    def __init__(self) -> None:
        self.posts: list[Post] = []
        self.dms: list[tuple[int, Post]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        self.posts.append(post)

    async def direct(self, user_id: int, post: Post, nonce: str | None = None) -> None:
        self.dms.append((user_id, post))


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    s = await Storage.open(str(tmp_path / "t.sqlite3"))
    yield s
    await s.close()


PEOPLE = [Caller(7, 1, 100, "ana"), Caller(7, 1, 200, "ben")]


async def test_a_player_who_acts_within_reminder_minutes_gets_no_direct_message(storage: Storage) -> None:
    clock = Clock()
    outbox = Letters()
    service = Tiempo(storage, outbox, render=False, seed_source=lambda: 6, clock=clock)
    try:
        for p in PEOPLE:
            await service.notify(p, "dm")
        game = await seated_game(service, storage, PEOPLE)
        state = service.state_of(game)
        first = PEOPLE[state.active]
        assert [w.user_id for w in await storage.notices.waiting()] == [first.user_id]
        clock.now += 5 * 60
        await service.play(first, "end", {"discard": None})  # acted (and ended the turn) within ten minutes
        clock.now += 6 * 60
        await service.tick()
        await service.herald.courier.letters_sent()
        assert outbox.dms == []
        second = PEOPLE[1 - state.active]
        assert [w.user_id for w in await storage.notices.waiting()] == [second.user_id]  # the next player's
        clock.now += 5 * 60
        await service.tick()
        await service.herald.courier.letters_sent()
        assert [u for u, _ in outbox.dms] == [second.user_id]
    finally:
        await service.close()


async def test_off_takes_the_ping_away_and_sends_nothing(storage: Storage) -> None:
    outbox = Letters()
    service = Tiempo(storage, outbox, render=False, seed_source=lambda: 6, reminder_minutes=0)
    try:
        for p in PEOPLE:
            reply = await service.notify(p, "off")
            assert "without a mention" in render(reply.text, PLAIN) and "no direct message" in render(reply.text, PLAIN)
        await seated_game(service, storage, PEOPLE)
        await service.herald.courier.flush(1)
        turn = next(p for p in outbox.posts if "your turn" in render(p.text, PLAIN))
        assert turn.mentions == () and outbox.dms == [] and await storage.notices.waiting() == []
        now = await service.notify(PEOPLE[0])
        assert render(now.text, PLAIN).startswith("The channel names you without a mention (your turns")
        with pytest.raises(Refusal, match="is not a choice: channel, dm, off"):
            await service.notify(PEOPLE[0], "pigeon")
    finally:
        await service.close()


async def test_a_post_that_tells_someone_what_another_turn_cost_them_pings_them_only_as_they_chose(
        storage: Storage) -> None:
    """A 💥 line names the player another's turn hurt: with ``channel`` it pings them, with ``dm`` or
    ``off`` it names them without a ping (as their turn does); the player the game waits on is told as
    before (``dm``: a direct message)."""
    service = Tiempo(storage, Letters(), render=False, seed_source=lambda: 6, reminder_minutes=0)
    try:
        game = await seated_game(service, storage, PEOPLE)
        state = service.state_of(game)
        mover, other = PEOPLE[state.active], PEOPLE[1 - state.active]
        post = Post(say("💥 {who}: your Keep was removed.", who=Mention(other.user_id, other.name)),
                    mentions=(other.user_id, mover.user_id))
        for mode, pinged_now in (("channel", (other.user_id, mover.user_id)), ("dm", (mover.user_id,)),
                                 ("off", (mover.user_id,))):
            await service.notify(other, mode)
            told = await service.herald.reminders.apply(game, state, [post])
            assert [p.mentions for p in told if isinstance(p, Post)] == [pinged_now], mode
        await service.notify(mover, "dm")
        await service.notify(other, "dm")  # (hurt, not waited on: named, not pinged, and no letter)
        told = await service.herald.reminders.apply(game, state, [post])
        assert [p.mentions for p in told if isinstance(p, Post)] == [()]
        assert [p.user_id for p in told if not isinstance(p, Post)] == [mover.user_id]  # the waited-on: a letter
    finally:
        await service.close()


async def test_at_the_console_dm_is_kept_but_the_player_is_named_as_before(storage: Storage) -> None:
    outbox = Silent()  # the terminal's outbox sends no direct messages
    service = Tiempo(storage, outbox, render=False, seed_source=lambda: 6, reminder_minutes=0)
    try:
        reply = await service.notify(PEOPLE[0], "dm")
        assert "Mentions and direct messages exist only on Discord" in render(reply.text, PLAIN)
        assert await storage.notices.mode(PEOPLE[0].user_id) == "dm"
        await service.notify(PEOPLE[1], "dm")
        await seated_game(service, storage, PEOPLE)
        assert await storage.notices.waiting() == []
    finally:
        await service.close()


async def test_half_time_of_a_turn_limit_sends_a_direct_message_at_once(storage: Storage) -> None:
    clock = Clock()
    outbox = Letters()
    service = Tiempo(storage, outbox, render=False, seed_source=lambda: 6, clock=clock, reminder_minutes=60)
    try:
        for p in PEOPLE:
            await service.notify(p, "dm")
        await service.new(PEOPLE[0], turn_minutes=30)
        await service.join(PEOPLE[1])
        await service.start_game(PEOPLE[0])
        game = await storage.active_game_in_channel(1)
        assert game is not None
        first = PEOPLE[service.state_of(game).active]
        clock.now += 16 * 60
        await service.tick()
        await service.herald.courier.letters_sent()
        await service.herald.courier.flush(1)
        ((to, dm),) = outbox.dms
        assert to == first.user_id
        assert render(dm.text, PLAIN).splitlines()[1:3] == [
            f"Half your turn time is gone in game #{game.id}: about 14 min left.", "Round 1 of 7, in channel 1."]
        warning = next(p for p in outbox.posts if "half your turn time is gone" in render(p.text, PLAIN))
        assert warning.mentions == ()  # named in the channel, not pinged
        assert [w.user_id for w in await storage.notices.waiting()] == [first.user_id]  # the hour's reminder
    finally:
        await service.close()
