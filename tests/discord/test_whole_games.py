"""End-to-end: the real bot (command tree, buttons, HTTP client, storage) against Discord played on
127.0.0.1 by tests/support/discord_sim.py. Players open, join and play whole games with slash commands and
buttons; we read every reply as Discord would show it."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from rules import Action, Construct, GameState, Travel, legal_actions
from tests.support.discord_play import (
    Clock,
    answer,
    make_bot,
    open_table,
    play_turn,
    public,
    random_ai,
    state_of,
    user_of,
)
from tests.support.discord_sim import EPHEMERAL, DiscordSim, SimUser

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
async def test_a_whole_three_player_game_from_new_to_the_final_ranking(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob", "cy")
    first_board = await sim.wait_for_message(lambda m: bool(m.attachments))
    assert "begins" in first_board.content and first_board.attachments[0].data.startswith(PNG)
    assert first_board.custom_id("My hand").startswith("tiempo:hand:")

    # every player sees their own hand, privately, and only theirs
    game_id, state = await state_of(bot, sim)
    for seat, user in enumerate(users):
        hand = await answer(sim, sim.slash("tiempo", "hand", user=user))
        assert hand.ephemeral and sim.interactions[hand.interaction_id or 0].user_id == user.id
        assert f"(`{state.players[seat].hand}`)" in hand.content

    rng = random.Random(5)
    for _ in range(400):
        _, state = await state_of(bot, sim)
        if state.finished:
            break
        await play_turn(sim, bot, users, rng)
    else:
        raise AssertionError("the game did not end")

    final = await sim.wait_for_message(lambda m: "is over" in m.content)
    assert final.attachments and final.attachments[0].data.startswith(PNG)
    assert "🥇" in final.content and "Ecus" in final.content
    assert final.custom_id("Rematch") == f"tiempo:rematch:{game_id}"
    assert f"what the AI would have played instead: `/tiempo records review game:{game_id}`." in final.content
    boards = [m for m in public(sim) if m.attachments]
    assert len(boards) >= 21 + 1  # the first board, one per turn of seven rounds for three players
    # no public message ever showed a hand; hands went to their owners only
    for m in public(sim):
        assert "Your hand" not in m.content and not m.ephemeral
    for m in sim.channel_messages(ephemeral=True):
        if "**Your hand:**" in m.content:
            assert m.flags & EPHEMERAL

    over = await answer(sim, sim.slash("tiempo", "cancel"))
    assert over.ephemeral and over.content.startswith(f"Game #{game_id} is already over. There is nothing to cancel.")
    rematch = await answer(sim, sim.click(final.custom_id("Rematch"), final, user=users[1]))
    assert not rematch.ephemeral and "rematch" in rematch.content and "White bob" in rematch.content
    others = [u for u in users if u is not users[1]]  # asked, not seated without a word, and pinged
    assert all(f"<@{u.id}>" in rematch.content for u in others) and "to play again" in rematch.content
    asked = next(r.json["data"] for r in reversed(sim.requests_to(r"/interactions/.*/callback$", "POST"))
                 if "asks for a rematch" in str(r.json.get("data", {}).get("content", "")))
    assert sorted(int(u) for u in asked["allowed_mentions"]["users"]) == sorted(u.id for u in others)
    assert "Seats: 1/" in rematch.content
    joined = await answer(sim, sim.click(final.custom_id("Rematch"), final, user=others[0]))  # a second press joins
    assert not joined.ephemeral and f"{others[0].name} joins as" in joined.content and "Seats: 2/" in joined.content
    opener = await answer(sim, sim.click(final.custom_id("Rematch"), final, user=users[1]))  # its own lobby
    assert opener.ephemeral and opener.content.startswith(f"You opened game #{game_id + 1}: start it with"), \
        opener.content
    again = await answer(sim, sim.click(final.custom_id("Rematch"), final, user=others[0]))  # seated already
    assert again.ephemeral and again.content.startswith(f"You are already seated in game #{game_id + 1}. Its opener "
                                                        "starts it with"), again.content


async def test_refusals_are_private_and_say_why(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    outsider = sim.add_user("dora")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    waiting = next(u for u in users if u is not mover)

    cases = [
        (sim.slash("tiempo", "end", user=waiting), f"It is {state.players[state.active].name}"),
        (sim.slash("tiempo", "end", user=outsider), "You are not playing in this game"),
        (sim.slash("tiempo", "build", {"kind": "Keep", "cell": "C44"}, user=mover), "C44"),
        (sim.slash("tiempo", "populate", {"cell": "A1"}, user=mover), ""),
        (sim.slash("tiempo", "choose", {"cell": "A1"}, user=mover), "no decision"),
        (sim.slash("tiempo", "new", user=outsider), "already has game"),
        (sim.slash("tiempo", "start", user=outsider), "already started"),
        (sim.slash("tiempo", "undo", user=mover), "Nothing to undo"),
    ]
    for payload, words in cases:
        reply = await answer(sim, payload)
        assert reply.ephemeral, reply.content
        assert words in reply.content, reply.content
        assert "Traceback" not in reply.content and reply.content
    _, after = await state_of(bot, sim)
    assert after.active == state.active and after.players[state.active].hand == state.players[state.active].hand

    # someone who did not open the game and may not manage the channel cannot cancel it
    reply = await answer(sim, sim.slash("tiempo", "cancel", user=users[1]))  # (the stand-in's members are ordinary)
    assert reply.ephemeral and "Only the player who opened" in reply.content
    asked = await answer(sim, sim.slash("tiempo", "cancel"))  # a game in play: asked first, privately
    assert asked.ephemeral and "Cancelling ends it for good" in asked.content
    assert "press Cancel the game" in asked.content
    _, still = await state_of(bot, sim)
    assert (await bot.service.storage.list_games())[0].status.value == "playing" and not still.finished
    reply = await answer(sim, sim.click("tiempo:cancel:1", asked))
    assert not reply.ephemeral and "cancelled" in reply.content


async def test_a_restart_mid_game_loses_nothing_and_old_buttons_work(sim: DiscordSim, tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    first = await sim.connect(make_bot(sim, db))
    users = await open_table(sim, first, "bob")
    rng = random.Random(2)
    for _ in range(3):
        await play_turn(sim, first, users, rng)
    game_id, before = await state_of(first, sim)
    old_board = next(m for m in public(sim) if m.attachments)
    await first.close()

    second = await sim.connect(make_bot(sim, db))
    game_id2, after = await state_of(second, sim)
    assert game_id2 == game_id and after.players == before.players and after.round == before.round
    user = users[1]
    hand = await answer(sim, sim.click(old_board.custom_id("My hand"), old_board, user=user))
    seat = next(i for i, p in enumerate(after.players) if p.name == user.name)
    assert hand.ephemeral and f"(`{after.players[seat].hand}`)" in hand.content
    await play_turn(sim, second, users, rng)
    _, later = await state_of(second, sim)
    assert later.turn > before.turn or later.pending is not None


@pytest.mark.slow
async def test_ai_seats_play_their_turns(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    await answer(sim, sim.slash("tiempo", "new", {"seats": 3}))
    for _ in range(2):
        added = await answer(sim, sim.slash("tiempo", "addbot", {"level": "random"}))
        assert "AI player (random)" in added.content
    full = await answer(sim, sim.slash("tiempo", "addbot", {"level": "random"}))
    assert full.ephemeral and "full" in full.content
    await answer(sim, sim.slash("tiempo", "start"))
    rng = random.Random(3)
    for _ in range(300):
        await bot.service.idle()
        _, state = await state_of(bot, sim)
        if state.finished:
            break
        await play_turn(sim, bot, [sim.user], rng)
    else:
        raise AssertionError("the game did not end")
    await sim.wait_for_message(lambda m: "is over" in m.content)
    ai_turns = [m for m in public(sim) if "ends the turn" in m.content and "Dice" in m.content]
    assert ai_turns and all(m.attachments for m in ai_turns)  # an AI's turn comes with the board
    assert any(re.search(r"Dice( \d)? \(\w+\) (builds|upgrades|demolishes|puts|travels|sends)", m.content)
               for m in ai_turns)  # and tells what the AI did, not only that it ended


async def test_turn_limit_warns_then_ends_the_turn(sim: DiscordSim, tmp_path: Path) -> None:
    clock = Clock()
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", clock=clock))
    users = await open_table(sim, bot, "bob", turn_minutes=10)
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    clock.now += 4 * 60
    await bot.service.tick()
    assert not any("half your turn" in m.content for m in public(sim))
    clock.now += 2 * 60
    await bot.service.tick()
    warning = await sim.wait_for_message(lambda m: "half your turn time" in m.content)
    assert f"<@{mover.id}>" in warning.content
    clock.now += 5 * 60
    await bot.service.tick()
    await sim.wait_for_message(lambda m: "Time is up" in m.content)
    _, after = await state_of(bot, sim)
    assert after.active != state.active or after.pending is not None


async def test_autocomplete_suggests_legal_cells(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    iid = sim.inject(sim.autocomplete("tiempo", "build", {"kind": "Watchtower", "age": "Might", "cell": ""},
                                      "cell", user=mover))
    cells = [c["value"] for c in await sim.choices(iid)]
    legal = {str(a.origin) for a in legal_actions(state) if isinstance(a, Construct)
             and a.kind.value == "Watchtower" and a.age.title == "Might"}
    assert 0 < len(cells) <= 25 and set(cells) <= legal
    iid = sim.inject(sim.autocomplete("tiempo", "end", {"discard": "x"}, "discard", user=mover))
    assert await sim.choices(iid) == [{"name": "Nothing you can play starts with 'x'.", "value": "x"}]
    iid = sim.inject(sim.autocomplete("tiempo", "end", {"discard": ""}, "discard", user=mover))
    offered = [c["value"] for c in await sim.choices(iid)]
    assert offered and all(set(o) <= set("MRC") for o in offered)


async def test_undo_takes_back_a_build(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    a = next(a for a in legal_actions(state) if isinstance(a, Construct))
    await answer(sim, sim.slash("tiempo", "build", {"kind": a.kind.value, "cell": str(a.origin),
                                                    "age": a.age.title}, user=mover))
    reply = await answer(sim, sim.slash("tiempo", "undo", user=mover))
    assert reply.ephemeral and reply.content.startswith("Undone")
    _, after = await state_of(bot, sim)
    assert after.players == state.players and after.boards == state.boards
    await sim.wait_for_message(lambda m: "takes back" in m.content)


@pytest.mark.slow  # a move slower than Discord's 3 s
async def test_a_quick_move_is_answered_at_once_and_a_slow_one_shows_thinking_in_time(
        sim: DiscordSim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move answered within ``ACK_S`` is one answer (no "thinking…" first: one request fewer); one
    that takes longer (a lock held elsewhere, a slow disk) is acknowledged with "thinking…" before
    Discord's 3 seconds, then answered. Either way the answer is private."""
    from tests.support.discord_sim import DEFERRED_MESSAGE, MESSAGE

    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    a = next(a for a in legal_actions(state) if isinstance(a, Construct))
    build = sim.slash("tiempo", "build", {"kind": a.kind.value, "cell": str(a.origin), "age": a.age.title},
                      user=mover)
    quick = sim.interactions[sim.inject(build)]
    reply = await sim.wait_for(lambda: sim.message(quick.answer_ids[-1]) if quick.answer_ids else None)
    assert quick.callback is not None and quick.callback["type"] == MESSAGE and reply.ephemeral
    assert "Your hand" in reply.content
    played = bot.service.play

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(2.6)
        return await played(*args, **kwargs)

    monkeypatch.setattr(bot.service, "play", slow)
    iid = sim.inject(sim.slash("tiempo", "end", user=mover))
    record = sim.interactions[iid]
    answered = await sim.wait_for(lambda: (m := sim.message(record.answer_ids[-1])) and not m.loading and m
                                  if record.answer_ids else None, timeout=15)
    assert record.refusals == [] and record.callback is not None and record.callback["type"] == DEFERRED_MESSAGE
    assert record.answered_after is not None and record.answered_after < 3.0
    assert answered.ephemeral and not answered.loading


async def test_a_board_post_discord_fails_to_take_goes_out_after_the_outage(sim: DiscordSim, tmp_path: Path) -> None:
    """Discord answers 503 to the after-turn post: the post is kept and sent again a moment later, once."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    before = len(public(sim))
    sim.failing_posts = 1
    reply = await answer(sim, sim.slash("tiempo", "end", user=mover), timeout=15)
    assert reply.ephemeral
    post = await sim.wait_for_message(lambda m: "ends the turn" in m.content, timeout=15)
    assert sim.failing_posts == 0 and post.gallery()  # the board, with its cards
    assert len([m for m in public(sim)[before:] if "ends the turn" in m.content]) == 1
    await bot.service.herald.courier.forgotten()  # (taken out of the outbox a moment after it went out)
    assert await bot.service.storage.posts.pending(sim.channel.id) == []


async def test_autocomplete_offers_the_ways_to_pay(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    a = next(a for a in legal_actions(state) if isinstance(a, Construct))
    iid = sim.inject(sim.autocomplete("tiempo", "build", {"kind": a.kind.value, "cell": str(a.origin),
                                                          "age": a.age.title, "pay": ""}, "pay", user=mover))
    choices = await sim.choices(iid)
    offered = [c["value"] for c in choices]
    same = [b for b in legal_actions(state) if isinstance(b, Construct) and (b.kind, b.origin, b.age)
            == (a.kind, a.origin, a.age)]
    assert len(offered) == len({(b.payment.cards, b.payment.pawns) for b in same}) > 0
    for c in choices:  # each says what its form means: "MM 1+1 — 2 Military cards, 1 card through each pawn"
        assert c["name"].startswith(f"{c['value']} — ") and " card" in c["name"] and "pawn" in c["name"], c
    reply = await answer(sim, sim.slash("tiempo", "build", {"kind": a.kind.value, "cell": str(a.origin),
                                                            "age": a.age.title, "pay": offered[-1]}, user=mover))
    assert reply.ephemeral and "**Your hand:**" in reply.content


async def test_two_quick_commands_cannot_both_spend_the_same_cards(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    game_id, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    ends = [sim.inject(sim.slash("tiempo", "end", user=mover)) for _ in range(2)]
    replies = []
    for iid in ends:
        record = sim.interactions[iid]
        await sim.wait_for(lambda r=record: r.answer_ids and not sim.message(r.answer_ids[-1]).loading)
        replies.append(sim.message(record.answer_ids[-1]).content)
    assert sum("It is" in r and "turn, not yours" in r for r in replies) == 1, replies
    game = await bot.service.storage.get_game(game_id)
    assert game.action_count == 1  # one end of turn, not two


async def test_a_returning_player_gets_a_recap_with_the_hand(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob", "cy")
    rng = random.Random(9)
    _, state = await state_of(bot, sim)
    first = user_of(users, state, state.active)
    await play_turn(sim, bot, users, rng)
    for _ in range(2):
        await play_turn(sim, bot, users, rng)
    _, now = await state_of(bot, sim)
    assert now.pending is None and now.players[now.active].name == first.name
    hand = await answer(sim, sim.slash("tiempo", "hand", user=first))
    assert hand.ephemeral and hand.content.startswith("**Since your last turn:**")
    others = [p.name for p in now.players if p.name != first.name]
    assert all(f"{name} (" in hand.content.split("**Your hand:**")[0] for name in others)


async def test_turn_limits_resume_after_a_restart(sim: DiscordSim, tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.sqlite3"
    first = await sim.connect(make_bot(sim, db, clock=clock))
    users = await open_table(sim, first, "bob", turn_minutes=5)
    _, state = await state_of(first, sim)
    await first.close()
    clock.now += 6 * 60
    second = await sim.connect(make_bot(sim, db, clock=clock))
    await second.service.tick()
    timeout = await sim.wait_for_message(lambda m: "Time is up" in m.content)
    board = await sim.wait_for_message(lambda m: m.id > timeout.id and bool(m.attachments))
    _, after = await state_of(second, sim)
    assert after.active != state.active
    assert f"<@{user_of(users, after, after.active).id}>" in board.content


async def test_a_shard_process_drives_only_the_games_of_its_own_servers(sim: DiscordSim, tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.sqlite3"
    first = await sim.connect(make_bot(sim, db, clock=clock))
    await open_table(sim, first, "bob", turn_minutes=5)
    _, state = await state_of(first, sim)
    await first.close()
    clock.now += 6 * 60
    ours = (sim.guild.id >> 22) % 2
    other = await sim.connect(make_bot(sim, db, {"shard_count": 2, "shard_id": 1 - ours}, clock=clock))
    await other.service.tick()  # not its server: the time-out is left to the game's own shard
    _, same = await state_of(other, sim)
    assert same.active == state.active and not any("Time is up" in m.content for m in public(sim))
    await other.close()
    own = await sim.connect(make_bot(sim, db, {"shard_count": 2, "shard_id": ours}, clock=clock))
    await own.service.tick()
    await sim.wait_for_message(lambda m: "Time is up" in m.content)


async def test_the_invite_link_is_logged_at_start(sim: DiscordSim, tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("INFO", logger="tiempo.discord"):
        await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
        await sim.wait_for(lambda: any("Invite it with" in r.getMessage() for r in caplog.records))
    line = next(r.getMessage() for r in caplog.records if "Invite it with" in r.getMessage())
    assert f"client_id={sim.application_id}" in line and "applications.commands" in line
    assert "permissions=" in line and "permissions=8&" not in line  # never administrator


async def test_an_unexpected_error_gets_an_apology_and_a_log_line(sim: DiscordSim, tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    await open_table(sim, bot, "bob")
    game_id, _ = await state_of(bot, sim)

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("a bug")

    bot.service.status = broken  # type: ignore[method-assign]
    with caplog.at_level("ERROR", logger="tiempo.discord"):
        reply = await answer(sim, sim.slash("tiempo", "status"))
    assert reply.ephemeral and reply.content.startswith("Something went wrong on our side. A move counts only if")
    assert "KeyError" not in reply.content and "Traceback" not in reply.content
    (record,) = [r for r in caplog.records if r.name == "tiempo.discord"]
    assert f"/tiempo status failed (game #{game_id}" in record.getMessage() and record.exc_info is not None


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
    return out


@pytest.mark.slow
async def test_an_all_ai_table_plays_a_whole_game_with_the_real_ai(sim: DiscordSim, tmp_path: Path) -> None:
    """Random, greedy and strong seats; the strong one thinks in the AI worker process, whose
    play-outs are shared with a helper process of its own (``ai_processes = 2``)."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", {"ai_think_seconds": 0.4, "ai_processes": 2},
                                     choose_ai=None, ai_process=True))
    assert bot.service.seats.processes == 2
    await answer(sim, sim.slash("tiempo", "new", {"seats": 3}))
    for level in ("strong", "greedy"):
        await answer(sim, sim.slash("tiempo", "addbot", {"level": level}))
    full = await answer(sim, sim.slash("tiempo", "join", user=sim.add_user("bob")))
    assert full.ephemeral and "full" in full.content
    left = await answer(sim, sim.slash("tiempo", "leave"))
    assert not left.ephemeral and "alice leaves" in left.content
    added = await answer(sim, sim.slash("tiempo", "addbot", {"level": "random"}))
    assert "Dice" in added.content
    await answer(sim, sim.slash("tiempo", "start"))  # the opener starts it without a seat, to watch
    final = await sim.wait_for_message(lambda m: "is over" in m.content, timeout=240)
    assert "🥇" in final.content
    _, state = await state_of(bot, sim)
    assert state.finished and len([m for m in public(sim) if m.attachments]) >= 1 + 21
    names = {p.name for p in state.players}
    assert names == {"Oracle", "Magpie", "Dice"}
    worker = bot.service.seats._worker
    assert worker is not None and worker.pid is not None
    assert _children(worker.pid), "the AI worker started no helper process"


async def test_upgrade_without_at_finds_the_place_or_asks_for_it(sim: DiscordSim, tmp_path: Path) -> None:
    """R29: the bigger building covers the old one; with several legal places the player is asked to say
    which (and offered them), with one it is used."""
    from rules import Upgrade

    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    rng = random.Random(4)
    for _ in range(60):  # play until an upgrade exists whose target cell is not a legal top-left cell
        _, state = await state_of(bot, sim)
        ups = [a for a in legal_actions(state) if isinstance(a, Upgrade)]
        by_target: dict[tuple[Any, ...], set[str]] = {}
        for a in ups:
            by_target.setdefault((a.age, a.target, a.kind), set()).add(str(a.origin))
        odd = [(key, origins) for key, origins in by_target.items() if str(key[1]) not in origins]
        if odd and state.pending is None:
            break
        await play_turn(sim, bot, users, rng)
    else:
        raise AssertionError("no upgrade away from its own cell came up")
    (age, target, kind), origins = odd[0]
    mover = user_of(users, state, state.active)
    options = {"cell": str(target), "to": kind.value, "age": age.title}
    iid = sim.inject(sim.autocomplete("tiempo", "upgrade", {**options, "at": ""}, "at", user=mover))
    assert {c["value"] for c in await sim.choices(iid)} == origins
    reply = await answer(sim, sim.slash("tiempo", "upgrade", options, user=mover))
    assert reply.ephemeral
    if len(origins) > 1:
        assert "add `at:`" in reply.content and all(o in reply.content for o in origins), reply.content
    else:
        assert "**Your hand:**" in reply.content, reply.content
        _, after = await state_of(bot, sim)
        assert any(b.kind is kind and str(b.origin) in origins for b in after.boards[age].buildings.values())


async def test_card_autocompletion_follows_the_turn_and_the_reserve(sim: DiscordSim, tmp_path: Path) -> None:
    """R13, R33: exchange and swap are offered to the player to move; swap takes one colour of the reserve."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob", holdem=True)
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    waiting = next(u for u in users if u is not mover)

    async def offered(command: str, options: dict[str, str], focused: str, user: SimUser) -> list[str]:
        iid = sim.inject(sim.autocomplete("tiempo", command, options, focused, user=user))
        return [c["value"] for c in await sim.choices(iid)]

    assert await offered("exchange", {"cards": ""}, "cards", waiting) == ["?"]  # with why: not their turn
    mine = await offered("exchange", {"cards": ""}, "cards", mover)
    assert mine and all(set(x) <= set(str(state.players[state.active].hand)) for x in mine)
    takes = await offered("swap", {"take": "", "give": ""}, "take", mover)
    assert takes and all(len(set(t)) == 1 and t[0] in str(state.reserve) for t in takes)


def dying_ai(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0,
             marker: str = "") -> Action:
    """An AI whose first call kills the process it runs in (the worker), then plays like random_ai."""
    if not os.path.exists(marker):
        Path(marker).write_text("died once")
        os._exit(1)
    return random_ai(state, seat, level, seed=seed, budget_s=budget_s)


@pytest.mark.slow
async def test_a_dead_ai_worker_is_replaced_and_the_game_goes_on(sim: DiscordSim, tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    marker = tmp_path / "died"
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", ai_process=True,
                               choose_ai=functools.partial(dying_ai, marker=str(marker))))
    await answer(sim, sim.slash("tiempo", "new", {"seats": 2}))
    await answer(sim, sim.slash("tiempo", "addbot", {"level": "random"}))
    await answer(sim, sim.slash("tiempo", "leave"))
    await answer(sim, sim.slash("tiempo", "addbot", {"level": "random"}))
    with caplog.at_level("ERROR", logger="tiempo.service"):
        await answer(sim, sim.slash("tiempo", "start"))
        await sim.wait_for_message(lambda m: "is over" in m.content, timeout=120)
    assert marker.read_text() == "died once"
    assert any("worker process died" in r.getMessage() for r in caplog.records)
    assert not any("playing a safe action" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
async def test_an_ai_turn_cut_by_a_restart_is_played_after_it(sim: DiscordSim, tmp_path: Path) -> None:
    """The bot stops while an AI seat is thinking; the next start lets it play, and the game goes on."""
    release = threading.Event()
    thinking = threading.Event()

    def stuck_ai(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0) -> Action:
        thinking.set()
        release.wait(10)
        return random_ai(state, seat, level, seed=seed, budget_s=budget_s)

    db = tmp_path / "t.sqlite3"
    first = await sim.connect(make_bot(sim, db, choose_ai=stuck_ai))
    await answer(sim, sim.slash("tiempo", "new", {"seats": 2}))
    await answer(sim, sim.slash("tiempo", "addbot", {"level": "random"}))
    await answer(sim, sim.slash("tiempo", "start"))
    _, state = await state_of(first, sim)
    if state.players[state.active].name == "alice":
        await answer(sim, sim.slash("tiempo", "end"))
    await sim.wait_for(thinking.is_set, what="the AI to start thinking")
    before = (await state_of(first, sim))[1]
    await first.close()
    release.set()

    second = await sim.connect(make_bot(sim, db))
    await sim.wait_for(lambda: any(re.search(r"Dice \(\w+\) ends the turn", m.content) for m in public(sim)),
                       what="the AI's turn after the restart")
    await second.service.idle()
    _, after = await state_of(second, sim)
    assert after.turn > before.turn and after.players[after.active].name == "alice"


async def test_a_turn_played_action_by_action_is_told_in_one_message_that_grows(sim: DiscordSim,
                                                                                 tmp_path: Path) -> None:
    """A player's actions before the end of their turn are added to one channel message (edited in
    place, as they happen) instead of one message an action; taking one back is told there too, in
    place of the line of what it took back; the
    end of the turn is the board post, a new message."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    user = user_of(users, state, state.active)
    before = len(public(sim))
    build = next(a for a in legal_actions(state) if isinstance(a, Construct))
    await answer(sim, sim.slash("tiempo", "build", {"kind": build.kind.value, "cell": str(build.origin),
                                                    "age": build.age.title}, user=user))
    _, after = await state_of(bot, sim)
    travel = next((a for a in legal_actions(after) if isinstance(a, Travel)), None)
    assert travel is not None
    await answer(sim, sim.slash("tiempo", "travel", {"pawn": travel.pawn + 1, "to": travel.to.title}, user=user))
    await answer(sim, sim.slash("tiempo", "undo", user=user))
    (live,) = public(sim)[before:]  # one message for the three
    lines = live.content.splitlines()
    # the undo's line takes the place of the travel's: the account does not stutter
    assert len(lines) == 2 and "builds" in lines[0]
    assert "takes back their last action: “" in lines[1] and lines[1].endswith("”.")
    assert lines[1].count("sends pawn") == 1
    assert live.edits == 2
    # once players have written below it, the turn goes on in a new message (an edit above would go unseen)
    sim.chat(users[0], "nice one")
    await answer(sim, sim.slash("tiempo", "travel", {"pawn": travel.pawn + 1, "to": travel.to.title}, user=user))
    *_, chat, again = public(sim)
    assert chat.content == "nice one" and "sends pawn" in again.content and again.id > chat.id
    assert sim.message(live.id).content == live.content
    await answer(sim, sim.slash("tiempo", "end", user=user))
    board = await sim.wait_for_message(lambda m: m.id > again.id and "ends the turn" in m.content)
    assert board.gallery() and sim.message(again.id).content == again.content  # the board is a post of its own
