"""End-to-end, as players would meet them: a decision answered by its buttons (and refused to others,
before and after a restart), a thread as its own table, a channel manager's cancel, the limits of undo,
the Hold'em swap, lobby edge cases, refusals that say how to fix the command, and cell autocompletion
filtered by what is typed. The bot runs against the Discord stand-in (tests/support/discord_sim.py)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bot.service import Caller, Refusal, version_of
from bot.texts import cards_in_words
from rules import (
    Action,
    Cell,
    Choose,
    Construct,
    Exchange,
    GameState,
    Kind,
    Swap,
    Travel,
    legal_actions,
    parse_action,
)
from tests.support.decisions import DECISION_SEED, TO_THE_DECISION, play
from tests.support.discord_play import answer, make_bot, open_table, pick_to, state_of, user_of
from tests.support.discord_sim import DiscordSim, SimChannel, SimUser
from tests.support.gameplay import choose

MANAGE_CHANNELS = 1 << 4

LEAKS = ("Traceback", "Error", "Exception", "rules.", "bot.")


async def cells(sim: DiscordSim, command: str, options: dict[str, Any], user: SimUser) -> list[str]:
    iid = sim.inject(sim.autocomplete("tiempo", command, options, "cell", user=user))
    return [c["value"] for c in await sim.choices(iid)]


async def why(sim: DiscordSim, command: str, options: dict[str, Any], user: SimUser) -> str:
    """The one entry cell completion offers when nothing fits: the reason, never a silent empty list."""
    iid = sim.inject(sim.autocomplete("tiempo", command, options, "cell", user=user))
    choices = await sim.choices(iid)
    assert len(choices) == 1, choices
    return str(choices[0]["name"])


def no_hand_in_public(sim: DiscordSim, state: GameState, channel: SimChannel | None = None) -> None:
    for m in sim.channel_messages(channel):
        assert "**Your hand:**" not in m.content and "(`" not in m.content, m.content
        for p in state.players:
            if p.hand.total >= 3:
                assert f"`{p.hand}`" not in m.content


async def test_a_decision_belongs_to_its_player_and_its_buttons_outlive_a_restart(sim: DiscordSim,
                                                                                  tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    bot = await sim.connect(make_bot(sim, db, seed_source=lambda: DECISION_SEED))
    users = await open_table(sim, bot, "bob")
    alice, bob = users
    for text in TO_THE_DECISION:
        _, state = await state_of(bot, sim)
        await play(sim, bot, users, parse_action(text, state))
    game_id, state = await state_of(bot, sim)
    assert state.pending is not None and state.pending.decision.player == 0
    options = [str(c) for c in state.pending.decision.options]
    assert options == ["L4", "O5"]

    # the question is public, names its player, and carries one button per answer
    asker = next(m for m in reversed(sim.channel_messages()) if m.custom_ids()
                 and m.custom_ids()[0].startswith(f"tiempo:choose:{game_id}:"))
    assert f"<@{alice.id}>, which of these Chapels on Might is destroyed?" in asker.content  # as the panel asks
    version = version_of(await bot.service.storage.get_game(game_id))
    assert version.startswith(f"{len(TO_THE_DECISION)}-")
    buttons = {c["custom_id"]: c["label"] for c in asker.components_flat()
               if c.get("custom_id", "").startswith("tiempo:choose:")}
    assert list(buttons) == [f"tiempo:choose:{game_id}:{version}:{c}" for c in options]
    # each answer names the building it picks and its owner ("L4: bob's Keep")
    for label, cell in zip(buttons.values(), options, strict=True):
        b = state.boards[state.pending.decision.age].at(state.map.index(Cell.parse(cell)))
        assert b is not None and b.owner is not None
        assert label == f"{cell}: {state.players[b.owner].name}'s {b.kind.value}"
    button = {cell: f"tiempo:choose:{game_id}:{version}:{cell}" for cell in options}

    # anyone else who presses it is told, privately, whose decision it is
    refused = await answer(sim, sim.click(button["L4"], asker, user=bob))
    assert refused.ephemeral and refused.content.startswith("Waiting for alice (Red) to choose")
    outsider = sim.add_user("dora")
    refused = await answer(sim, sim.click(button["L4"], asker, user=outsider))
    assert refused.ephemeral and "not playing" in refused.content
    # its player cannot do anything else first, and is told how to answer
    first = await answer(sim, sim.slash("tiempo", "end", user=alice))
    assert first.ephemeral and first.content.startswith("First choose") and "/tiempo choose" in first.content
    # `choose` completes with the answers, for its player only
    assert await cells(sim, "choose", {"cell": ""}, alice) == options
    assert await why(sim, "choose", {"cell": ""}, bob) == "There is no question for you to answer."
    _, still = await state_of(bot, sim)
    assert still.pending is not None

    # a new process on the same database: the button on the old message still answers
    await bot.close()
    bot = await sim.connect(make_bot(sim, db, seed_source=lambda: DECISION_SEED))
    chosen = await answer(sim, sim.click(button["L4"], asker, user=alice))
    # answered as the panel answers: what was done, then the panel as the game is now, with Undo
    assert chosen.ephemeral and chosen.content.startswith("**Done.** You answered L4.\n**Round 3 of 7**")
    assert "What do you do?" in chosen.content and any(c.startswith("tiempo:undo:") for c in chosen.custom_ids())
    _, after = await state_of(bot, sim)
    assert after.pending is None and after.active == 0
    told = await sim.wait_for_message(lambda m: m.id > asker.id and "L4" in m.content
                                      and ("destroyed" in m.content or "downsized" in m.content))
    assert not told.ephemeral

    # the same button again: the question was answered; the clicker reads the game as it is now
    stale = await answer(sim, sim.click(button["O5"], asker, user=alice))
    assert stale.ephemeral and "already answered" in stale.content and "Round 3 of 7" in stale.content
    _, unchanged = await state_of(bot, sim)
    assert unchanged == after
    no_hand_in_public(sim, after)


class ThreadChannel(SimChannel):
    """A public thread under another channel, as Discord describes it in an interaction."""

    parent_id: int = 0

    def payload(self) -> dict[str, Any]:
        data = super().payload()
        data.update(type=11, parent_id=str(self.parent_id), owner_id=str(self.parent_id), message_count=0,
                    member_count=1, rate_limit_per_user=0,
                    thread_metadata={"archived": False, "auto_archive_duration": 1440, "locked": False,
                                     "archive_timestamp": "2024-01-01T00:00:00+00:00"})
        return data


async def test_a_thread_is_a_table_of_its_own_and_a_channel_manager_may_cancel(sim: DiscordSim,
                                                                               tmp_path: Path) -> None:
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    bob, cy, dora = (sim.add_user(n) for n in ("bob", "cy", "dora"))
    thread = ThreadChannel(sim.snowflake(), "side", sim.guild.id)
    thread.parent_id = sim.channel.id
    sim.channels[thread.id] = thread

    lobby = await answer(sim, sim.slash("tiempo", "new", {"seats": 2}))
    assert "game #1" in lobby.content
    opened = await answer(sim, sim.slash("tiempo", "new", {"seats": 2}, user=cy, channel=thread))
    assert not opened.ephemeral and "game #2" in opened.content
    await answer(sim, sim.slash("tiempo", "join", user=dora, channel=thread))
    started = await answer(sim, sim.slash("tiempo", "start", user=cy, channel=thread))
    assert started.ephemeral and "Game #2 started" in started.content
    board = await sim.wait_for_message(lambda m: bool(m.attachments), channel=thread)
    assert "Game #2 begins" in board.content
    assert not any(m.attachments for m in sim.channel_messages())  # nothing of it in the parent channel

    # the parent channel's lobby is untouched: still one game there, not started
    busy = await answer(sim, sim.slash("tiempo", "new", user=dora))
    assert busy.ephemeral and "already has game #1" in busy.content
    waiting = await answer(sim, sim.slash("tiempo", "status"))
    assert waiting.ephemeral and "Game #1 has not started yet" in waiting.content

    # bob neither opened nor sits at the thread's table, but may manage the channel: he may cancel it
    payload = sim.slash("tiempo", "cancel", user=bob, channel=thread)
    payload["member"]["permissions"] = str(MANAGE_CHANNELS)
    asked = await answer(sim, payload)  # the game is in play: he confirms first
    assert asked.ephemeral and "Game #2 is being played" in asked.content
    click = sim.click("tiempo:cancel:2", asked, user=bob)
    click["member"]["permissions"] = str(MANAGE_CHANNELS)
    cancelled = await answer(sim, click)
    assert not cancelled.ephemeral and cancelled.content == "Game #2 was cancelled by bob."
    assert cancelled.channel_id == thread.id
    gone = await answer(sim, sim.slash("tiempo", "end", user=dora, channel=thread))
    assert gone.ephemeral and gone.content == "Game #2 was cancelled. Open another with `/tiempo new`.", gone.content
    # the old board's button still shows dora her cards, saying the game was cancelled
    hand = await answer(sim, sim.click(board.custom_id("My hand"), board, user=dora))
    assert hand.ephemeral and hand.content.startswith("Game #2 was cancelled.") and "**Your hand:**" in hand.content


async def test_undo_takes_back_only_your_own_actions_of_this_turn_that_drew_nothing(sim: DiscordSim,
                                                                                      tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, start = await state_of(bot, sim)
    mover = user_of(users, start, start.active)
    other = next(u for u in users if u is not mover)

    nothing = await answer(sim, sim.slash("tiempo", "undo", user=mover))
    assert nothing.ephemeral and "Nothing to undo" in nothing.content
    travel = next(a for a in legal_actions(start) if isinstance(a, Travel))
    await play(sim, bot, users, travel)
    refused = await answer(sim, sim.slash("tiempo", "undo", user=other))
    assert refused.ephemeral and "Nothing of yours to undo" in refused.content
    undone = await answer(sim, sim.slash("tiempo", "undo", user=mover))
    assert undone.ephemeral and undone.content.startswith("Undone.") and "**Your hand:**" in undone.content
    _, back = await state_of(bot, sim)
    assert back == start
    await sim.wait_for_message(lambda m: "takes back" in m.content)

    exchange = min((a for a in legal_actions(back) if isinstance(a, Exchange)), key=lambda a: a.cards.total)
    await play(sim, bot, users, exchange)
    _, drawn = await state_of(bot, sim)
    refused = await answer(sim, sim.slash("tiempo", "undo", user=mover))
    assert refused.ephemeral and "drew cards" in refused.content
    _, after = await state_of(bot, sim)
    assert after == drawn


async def test_a_holdem_swap_is_told_in_the_channel_and_the_hand_goes_to_its_owner(sim: DiscordSim,
                                                                                    tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob", holdem=True)
    lobby = next(m for m in sim.channel_messages() if "Hold'em variant" in m.content)
    assert lobby.content.endswith("The game has started: its first board is below.") and not lobby.custom_ids()
    _, state = await state_of(bot, sim)
    swap = next(a for a in legal_actions(state) if isinstance(a, Swap))
    reply = await play(sim, bot, users, swap)
    _, after = await state_of(bot, sim)
    assert f"(`{after.players[swap.player].hand}`)" in reply.content
    assert f"Reserve (face up): {cards_in_words(after.reserve)} ({after.reserve})." in reply.content  # R33
    told = await sim.wait_for_message(lambda m: "to the reserve" in m.content)
    assert told.content == f"{user_of(users, state, swap.player).name} ({state.players[swap.player].colour.value}) " \
        f"gives {cards_in_words(swap.give)} ({swap.give}) to the reserve and takes {cards_in_words(swap.take)} " \
        f"({swap.take}) from it."
    # a swap is a phase-I action: a second one is refused with the rule
    again = next((a for a in legal_actions(after) if isinstance(a, Swap)), None)
    assert again is None
    no_hand_in_public(sim, after)


async def test_lobby_edge_cases_are_refused_privately_with_the_reason(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    bob, cy = sim.add_user("bob"), sim.add_user("cy")
    lobby = await answer(sim, sim.slash("tiempo", "new", {"seats": 2}))

    async def refused(payload: dict[str, Any], words: str) -> None:
        reply = await answer(sim, payload)
        assert reply.ephemeral and words in reply.content, reply.content
        assert not any(w in reply.content for w in LEAKS), reply.content

    await refused(sim.slash("tiempo", "start"), "needs at least 2 players")
    await refused(sim.slash("tiempo", "join"), "already seated")
    await refused(sim.slash("tiempo", "leave", user=bob), "not seated")
    await refused(sim.slash("tiempo", "hand"), "has not started yet")
    await refused(sim.slash("tiempo", "end"), "has not started yet")
    lobby = await answer(sim, sim.slash("tiempo", "join", user=bob))  # the newest lobby has the buttons
    await refused(sim.slash("tiempo", "join", user=cy), "is full")
    await refused(sim.click(lobby.custom_id("Join"), lobby, user=cy), "is full")
    await refused(sim.slash("tiempo", "start", user=bob), "Only the player who opened game #1")  # (a member)
    await answer(sim, sim.slash("tiempo", "start"))
    assert sim.message(lobby.id).custom_ids() == []  # started: the lobby's buttons went
    with pytest.raises(Refusal, match="already started"):  # a Join button kept (sent before a restart)
        await bot.service.join(Caller(sim.guild.id, sim.channel.id, cy.id, cy.name), 1)
    await refused(sim.slash("tiempo", "join", user=cy), "already started")
    await refused(sim.slash("tiempo", "leave", user=bob), "cannot be left now. To have the AI play your turns until "
                  "you are back, `/tiempo me away` (`/tiempo me back` takes the seat back).")
    await refused(sim.slash("tiempo", "leave", user=cy), "You are not seated in game #1.")  # (an onlooker)
    await refused(sim.slash("tiempo", "new", user=cy), "already has game #1")


async def test_the_start_button_closes_its_lobby(sim: DiscordSim, tmp_path: Path) -> None:
    """Started by its button, the lobby message says who plays and loses its Join, Leave and Start
    buttons (they could only be refused now); only the opener may start it."""
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    bob = sim.add_user("bob")
    lobby = await answer(sim, sim.slash("tiempo", "new"))
    await answer(sim, sim.click(lobby.custom_id("Join"), lobby, user=bob))
    refused = await answer(sim, sim.click(lobby.custom_id("Start"), lobby, user=bob))  # (an ordinary member)
    assert refused.ephemeral and "Only the player who opened game #1" in refused.content
    assert sim.message(lobby.id).custom_ids() == [f"tiempo:lobby:1:{w}" for w in ("join", "leave", "start")]
    started = await answer(sim, sim.click(lobby.custom_id("Start"), lobby))
    assert started.id == lobby.id and not started.ephemeral
    assert started.content == "Game #1 started: alice (Red), bob (White). Its first board is posted below."
    assert started.custom_ids() == []
    board = await sim.wait_for_message(lambda m: "begins" in m.content)
    assert board.id > lobby.id


async def test_refused_commands_say_what_was_wrong_and_how_to_fix_it(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    me = state.players[state.active]
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("build", {"kind": "Keep", "cell": "Z1"}, "Z1 is not a cell: columns A–O, rows 1–12"),
        ("build", {"kind": "Keep", "cell": "hello"}, "'hello' is not a cell: columns A–O, rows 1–12"),
        ("build", {"kind": "Watchtower", "cell": "A1", "pay": "XYZ"}, "write M, R and C, e.g. MMRC"),
        ("build", {"kind": "Chapel", "cell": "H6", "age": "Faith"}, "no pawn on Faith: travel there first"),
        ("end", {"discard": "MMMMM"}, f"You cannot discard MMMMM: your hand is {me.hand}"),
        ("exchange", {"cards": "Q"}, "write M, R and C"),
        ("swap", {"take": "CC", "give": "RR"}, "without the Hold'em reserve"),
        ("travel", {"pawn": 1, "to": me.pawns[0].title}, f"Pawn 1 is already on {me.pawns[0].title}"),
        ("upgrade", {"cell": "A1", "to": "City"}, "There is no building at A1"),
        ("upgrade", {"cell": "B2", "to": "Town", "at": "Q99"}, "Q99 is not a cell"),
        ("renovate", {"cell": "A1"}, "no pawn on Reason: travel there first"),
    ]
    for command, options, words in cases:
        reply = await answer(sim, sim.slash("tiempo", command, options, user=mover))
        assert reply.ephemeral and words in reply.content, (command, options, reply.content)
        assert not any(w in reply.content for w in LEAKS), reply.content
    _, after = await state_of(bot, sim)
    assert after == state
    assert len([m for m in sim.channel_messages() if not m.attachments and "joins" not in m.content]) == 0


async def test_cell_completion_is_filtered_by_what_is_typed_and_capped_at_25(sim: DiscordSim,
                                                                             tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    other = next(u for u in users if u is not mover)
    legal = {str(a.origin) for a in legal_actions(state) if isinstance(a, Construct) and a.kind.value == "Hamlet"}
    assert len(legal) > 25

    offered = await cells(sim, "build", {"kind": "Hamlet", "cell": ""}, mover)
    assert len(offered) == 25 and set(offered) <= legal and len(set(offered)) == 25
    typed = await cells(sim, "build", {"kind": "Hamlet", "cell": "b1"}, mover)
    assert typed and set(typed) <= legal and all(c.startswith("B1") for c in typed)
    assert set(typed) == {c for c in legal if c.startswith("B1")}
    colour = state.players[state.active].colour.value
    assert await why(sim, "build", {"kind": "Hamlet", "cell": ""}, other) == f"It is {mover.name} ({colour})'s turn."
    assert await why(sim, "populate", {"cell": ""}, mover) == "You cannot populate anything now."  # no pawn on Reason


async def test_cell_completion_says_why_it_has_nothing(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    held = state.players[state.active].hand
    lacking = next(k for k in ("Castle", "Abbey", "City") if held.count(Kind.parse(k).family) < 3)
    reason = await why(sim, "build", {"kind": lacking, "cell": ""}, mover)
    assert reason.startswith(f"No {lacking} fits: it needs 3 ") and "you hold" in reason


async def test_undo_takes_back_an_action_that_raised_a_question_with_its_answer(sim: DiscordSim,
                                                                               tmp_path: Path) -> None:
    """Seed 41, played by the random player of tests/support/gameplay.py: the 44th action is alice's Hamlet,
    which asks her a question. She answers it, then takes the Hamlet back: the answer goes too, and the
    channel is told."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", seed_source=lambda: 41))
    users = await open_table(sim, bot, "bob")
    game_id, state = await state_of(bot, sim)
    rng = random.Random(41)
    service = bot.service

    async def act_as(action: Action) -> None:
        user = users[action.player]
        caller = Caller(sim.guild.id, sim.channel.id, user.id, user.name)
        version = version_of(await service.storage.get_game(game_id))
        await service.moves.play_action(caller, game_id, version, lambda s, seat: action)

    for _ in range(43):
        _, state = await state_of(bot, sim)
        await act_as(choose(rng, state, legal_actions(state)))
    _, before = await state_of(bot, sim)
    hamlet = choose(rng, before, legal_actions(before))
    assert isinstance(hamlet, Construct) and hamlet.player == 0
    await act_as(hamlet)
    _, asked = await state_of(bot, sim)
    assert asked.pending is not None and asked.pending.decision.player == 0
    await act_as(Choose(0, asked.pending.decision.options[0]))

    undone = await answer(sim, sim.slash("tiempo", "undo", user=users[0]))
    assert undone.ephemeral and undone.content.startswith("Undone.")
    _, back = await state_of(bot, sim)
    assert back == before
    told = await sim.wait_for_message(lambda m: "takes back" in m.content)
    assert "The answers given to it are taken back too" in told.content and "chose" in told.content


async def test_payment_completion_without_a_cell_asks_for_the_cell(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    iid = sim.inject(sim.autocomplete("tiempo", "build", {"kind": "Hamlet", "pay": ""}, "pay", user=mover))
    assert [c["name"] for c in await sim.choices(iid)] == ["Set cell: first."]


async def test_a_panel_of_a_cancelled_game_says_so_once(sim: DiscordSim, tmp_path: Path) -> None:
    """A Confirm on a panel drawn before the game was cancelled plays nothing and says the game was
    cancelled, once (not "Game #1 is cancelled." and then "Game #1 is over.")."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    game_id, state = await state_of(bot, sim)
    player = user_of(users, state, state.active)
    post = next(m for m in reversed(sim.channel_messages()) if f"tiempo:play:{game_id}" in m.custom_ids())
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", post, user=player))
    ended, _ = await pick_to(sim, panel, player, ("end", "-"))
    confirm = next(c for c in ended.custom_ids() if c.startswith("tiempo:ok:"))
    asked = await answer(sim, sim.slash("tiempo", "cancel"))
    done = await answer(sim, sim.click(f"tiempo:cancel:{game_id}", asked))
    assert done.content == f"Game #{game_id} was cancelled by {sim.user.name}.", done.content
    again = await answer(sim, sim.click(f"tiempo:cancel:{game_id}", asked))  # (a second press of the button)
    assert again.content == f"Game #{game_id} was cancelled.", again.content
    told = await answer(sim, sim.click(confirm, ended, user=player))
    assert told.content == f"Game #{game_id} was cancelled.", told.content
    _, after = await state_of(bot, sim)
    assert after.turn == state.turn and after.active == state.active  # nothing was played
