"""The turn panel on (simulated) Discord: a turn played with the Play button, select menus and
buttons only, the panel updated in place, and every message within Discord's limits."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.service.steps import path_to, step
from bot.texts import cards_in_words
from rules import Age, Cell, Construct, EndTurn, Swap, legal_actions
from tests.support.discord_play import (
    answer,
    make_bot,
    open_table,
    pick_to,
    public,
    state_of,
    tap,
    two_at_the_table,
    user_of,
)
from tests.support.discord_sim import DiscordSim


async def test_a_build_and_the_end_of_a_turn_by_taps_only(sim: DiscordSim, tmp_path: Path) -> None:
    bot, game_id, state, player = await two_at_the_table(sim, tmp_path)
    board_post = public(sim)[-1]
    assert f"tiempo:play:{game_id}" in board_post.custom_ids()

    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", board_post, user=player))
    assert panel.ephemeral and "What do you do?" in panel.content and "Round 1 of 7" in panel.content

    some = next(a for a in legal_actions(state) if isinstance(a, Construct) and a.kind.level == 2)
    found = path_to(state, state.active, some)
    suggested = step(state, state.active, found[:-1]).preview  # paid the way the panel suggests
    assert suggested is not None
    build = suggested.action
    target = path_to(state, state.active, build)
    panel, taps = await tap(sim, panel, player, target)
    assert taps <= 4, taps  # a kind, an area, a place, Confirm (and Play before: 5 taps)
    assert "Done." in panel.content and "What do you do?" in panel.content
    _, after = await state_of(bot, sim)
    board = after.boards[build.age]
    assert board.at(after.map.index(build.origin)) is not None  # built where the taps said

    end = min((a for a in legal_actions(after) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
    target = path_to(after, after.active, end)
    panel, taps = await tap(sim, panel, player, target)
    assert not end.discard.total and taps == 2  # "End your turn, keeping every card", then Confirm
    _, later = await state_of(bot, sim)
    assert later.active != state.active or later.turn != state.turn
    assert "It is bob" in panel.content or "It is alice" in panel.content
    assert " to play." not in panel.content  # whose turn it is, said once
    drawn = later.players[state.active].hand - (after.players[state.active].hand - end.discard)
    assert drawn.total and f"You drew {cards_in_words(drawn)} ({drawn})." in panel.content  # R20, privately


async def test_a_panel_from_before_the_game_moved_on_starts_again_from_the_menu(sim: DiscordSim,
                                                                             tmp_path: Path) -> None:
    _, game_id, state, player = await two_at_the_table(sim, tmp_path)
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", public(sim)[-1], user=player))
    build = next(a for a in legal_actions(state) if isinstance(a, Construct))
    await answer(sim, sim.slash("tiempo", "build", {"kind": build.kind.value, "cell": str(build.origin),
                                                    "age": build.age.title}, user=player))
    select = next(c for c in panel.custom_ids() if c.startswith("tiempo:pick:"))
    stale = await answer(sim, sim.click(select, panel, user=player, values=["build"]))
    assert "moved on" in stale.content and "What do you do?" in stale.content


async def test_someone_else_s_panel_waits_for_their_turn(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    game_id, state = await state_of(bot, sim)
    other = next(u for u in users if u.name != state.players[state.active].name)
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", public(sim)[-1], user=other))
    assert panel.ephemeral and "turn" in panel.content
    assert not any(c.startswith("tiempo:pick:") for c in panel.custom_ids())


async def test_a_slash_command_that_harms_the_player_asks_for_confirmation_first(sim: DiscordSim,
                                                                                tmp_path: Path) -> None:
    """Seed 24: bob moves first with a Religious and two Military cards. A Chapel on Faith at C1, then
    a Keep on Might at C1: its ripple would remove his own Chapel."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", seed_source=lambda: 24))
    users = await open_table(sim, bot, "bob")
    bob = users[1]
    for options in ({"pawn": 1, "to": "Faith"},):
        await answer(sim, sim.slash("tiempo", "travel", options, user=bob))
    await answer(sim, sim.slash("tiempo", "build", {"kind": "Chapel", "cell": "C1", "age": "Faith"}, user=bob))
    _, before = await state_of(bot, sim)
    warned = await answer(sim, sim.slash("tiempo", "build", {"kind": "Keep", "cell": "C1", "age": "Might"},
                                         user=bob))
    assert warned.ephemeral and "Nothing is played yet" in warned.content
    assert "removes your Chapel at C1 on Faith" in warned.content
    _, same = await state_of(bot, sim)
    assert same.turn == before.turn and same.boards[Age.MIGHT].at(same.map.index(Cell.parse("C1"))) is None
    confirm = next(c for c in warned.custom_ids() if c.startswith("tiempo:sure:"))
    done = await answer(sim, sim.click(confirm, warned, user=bob))
    assert done.id == warned.id and "Your hand" in done.content
    _, after = await state_of(bot, sim)
    keep = after.boards[Age.MIGHT].at(after.map.index(Cell.parse("C1")))
    assert keep is not None and keep.kind.value == "Keep"
    assert after.boards[Age.FAITH].at(after.map.index(Cell.parse("C1"))).kind.value == "Keep"  # the Chapel went

    await answer(sim, sim.slash("tiempo", "undo", user=bob))  # back to before the Keep
    # through the panel: the place is marked in the list before it is picked, and Confirm is red
    game_id, same = await state_of(bot, sim)
    post = next(m for m in reversed(public(sim)) if f"tiempo:play:{game_id}" in m.custom_ids())
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", post, user=bob))
    path = path_to(same, 1, next(a for a in legal_actions(same) if isinstance(a, Construct) and a.age is Age.MIGHT
                                 and a.kind.value == "Keep" and str(a.origin) == "C1"))
    listed: list[dict[str, Any]] = []
    panel, _ = await pick_to(sim, panel, bob, path, listed=listed)
    c1 = next(o for o in listed if o["value"] == "C1")
    assert c1["emoji"]["name"] == "⚠️" and "Removes your Chapel at C1 on Faith" in c1["description"]
    ok = next(c for c in panel.components_flat() if str(c.get("custom_id", "")).startswith("tiempo:ok:"))
    assert ok["style"] == 4 and "⚠️ This removes your Chapel at C1 on Faith." in panel.content  # danger: red

    again = await answer(sim, sim.slash("tiempo", "build", {"kind": "Keep", "cell": "C1", "age": "Might"}, user=bob))
    await answer(sim, sim.slash("tiempo", "undo", user=bob))  # and before the Chapel: the warning is stale
    stale = await answer(sim, sim.click(next(c for c in again.custom_ids() if c.startswith("tiempo:sure:")), again,
                                        user=bob))
    assert "moved on" in stale.content


async def test_confirm_on_a_panel_from_before_the_game_moved_on_redraws_it(sim: DiscordSim, tmp_path: Path) -> None:
    bot, game_id, state, player = await two_at_the_table(sim, tmp_path)
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", public(sim)[-1], user=player))
    builds = [a for a in legal_actions(state) if isinstance(a, Construct)]
    target = path_to(state, state.active, builds[0])
    panel, _ = await pick_to(sim, panel, player, target)  # to the preview of the first build
    other = next(a for a in builds if a.origin != builds[0].origin and a.age == builds[0].age)
    await answer(sim, sim.slash("tiempo", "build", {"kind": other.kind.value, "cell": str(other.origin),
                                                    "age": other.age.title}, user=player))
    ok = next(c for c in panel.custom_ids() if c.startswith("tiempo:ok:"))
    redrawn = await answer(sim, sim.click(ok, panel, user=player))
    assert redrawn.id == panel.id and "moved on" in redrawn.content and "What do you do?" in redrawn.content
    _, after = await state_of(bot, sim)
    assert after.boards[builds[0].age].at(after.map.index(builds[0].origin)) is None  # the stale build was not played


async def test_the_board_post_and_the_preview_show_cards_that_lead_with_the_boards_that_changed(
        sim: DiscordSim, tmp_path: Path) -> None:
    bot, game_id, state, player = await two_at_the_table(sim, tmp_path)
    start = public(sim)[-1]
    assert start.v2 and sorted(name.rsplit("-", 1)[1] for g in start.gallery() for name in g) == [
        "faith.png", "might.png", "reason.png"]  # every Age, though nothing changed yet
    assert f"tiempo:play:{game_id}" in start.custom_ids() and "your turn" in start.content

    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", start, user=player))
    assert panel.gallery() == []  # the menu shows no picture
    build = next(a for a in legal_actions(state) if isinstance(a, Construct) and a.age is Age.MIGHT)
    preview, _ = await pick_to(sim, panel, player, path_to(state, state.active, build))
    lead, *rest = preview.gallery()
    assert lead == [f"tiempo-{game_id}-preview-might.png"]  # the board it is played on, alone and large
    assert all(name.startswith(f"tiempo-{game_id}-preview-") for g in rest for name in g)

    ok = next(c for c in preview.custom_ids() if c.startswith("tiempo:ok:"))
    panel = await answer(sim, sim.click(ok, preview, user=player))
    assert panel.gallery() == [] and panel.filenames == []  # the preview's pictures went with it
    _, after = await state_of(bot, sim)
    end = min((a for a in legal_actions(after) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
    await tap(sim, panel, player, path_to(after, after.active, end))
    board = public(sim)[-1]
    galleries = board.gallery()
    assert galleries[0] == [f"tiempo-{game_id}-v2-might.png"]  # the board the turn changed leads, alone
    assert sorted(n.rsplit("-", 1)[1] for g in galleries for n in g) == ["faith.png", "might.png", "reason.png"]


async def test_a_panel_drawn_before_an_undo_and_another_action_is_stale(sim: DiscordSim, tmp_path: Path) -> None:
    """Undo lowers the number of actions: after an undo and another action, a panel drawn after the
    first action has the same count but shows another position. Its Confirm plays nothing."""
    bot, game_id, state, player = await two_at_the_table(sim, tmp_path)
    board_post = public(sim)[-1]
    builds = [a for a in legal_actions(state) if isinstance(a, Construct)]
    first = builds[0]
    second = next(a for a in builds if a.origin != first.origin and a.age == first.age)

    def slash_build(a: Construct) -> dict[str, str]:
        return {"kind": a.kind.value, "cell": str(a.origin), "age": a.age.title}

    await answer(sim, sim.slash("tiempo", "build", slash_build(first), user=player))
    _, built = await state_of(bot, sim)
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", board_post, user=player))
    end = min((a for a in legal_actions(built) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
    panel, _ = await pick_to(sim, panel, player, path_to(built, built.active, end))  # the end of the turn, previewed
    await answer(sim, sim.slash("tiempo", "undo", user=player))
    await answer(sim, sim.slash("tiempo", "build", slash_build(second), user=player))
    _, other = await state_of(bot, sim)
    assert other.turn == built.turn and other != built  # the same number of actions, another position

    ok = next(c for c in panel.custom_ids() if c.startswith("tiempo:ok:"))
    redrawn = await answer(sim, sim.click(ok, panel, user=player))
    assert redrawn.id == panel.id and "moved on" in redrawn.content and "What do you do?" in redrawn.content
    _, after = await state_of(bot, sim)
    assert after == other  # the turn was not ended from the stale panel


async def test_undo_from_the_panel_says_what_it_took_back_without_repeating_the_hand(sim: DiscordSim,
                                                                                  tmp_path: Path) -> None:
    """The panel's header already shows the hand: after Undo the panel says, in one line, what was
    taken back, and shows the hand once (a phone shows little at a time)."""
    bot, game_id, state, player = await two_at_the_table(sim, tmp_path)
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", public(sim)[-1], user=player))
    build = next(a for a in legal_actions(state) if isinstance(a, Construct))
    panel, _ = await tap(sim, panel, player, path_to(state, state.active, build))
    undo = next(c for c in panel.custom_ids() if c.startswith("tiempo:undo:"))
    undone = await answer(sim, sim.click(undo, panel, user=player))
    assert undone.id == panel.id and undone.content.startswith("**Undone.** It was: ")
    said = undone.content.split("\n")[0]  # e.g. "… It was: bob (White) builds a Watchtower at A1 on Might with MC."
    assert " builds " in said and f"{build.kind.value} at {build.origin}" in said, said
    assert "Your hand" not in undone.content and undone.content.count(" · hand: ") == 1
    assert "What do you do?" in undone.content
    _, after = await state_of(bot, sim)
    assert after == state


@pytest.mark.slow  # a pick slower than Discord's 3 s
async def test_a_slow_pick_is_acknowledged_in_time_and_the_panel_updated_after(sim: DiscordSim, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A pick answered after Discord's 3 seconds (a game's lock held, a picture to draw) would fail
    ("This interaction failed"): the click is acknowledged first, and the panel edited when ready."""
    bot, game_id, _, player = await two_at_the_table(sim, tmp_path)
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", public(sim)[-1], user=player))
    shown = bot.service.panel

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(3.5)
        return await shown(*args, **kwargs)

    monkeypatch.setattr(bot.service, "panel", slow)
    select = next(c for c in panel.custom_ids() if c.startswith("tiempo:pick:"))
    iid = sim.inject(sim.click(select, panel, user=player, values=["end"]))
    await sim.wait_for(lambda: sim.message(panel.id).content != panel.content, timeout=10)
    record = sim.interactions[iid]
    assert record.refusals == [] and record.answered_after is not None and record.answered_after < 3.0
    assert "End your turn" in sim.message(panel.id).content


async def test_board_now_shows_each_age_as_a_card_that_reads_in_the_chat(sim: DiscordSim, tmp_path: Path) -> None:
    """"Board now" answers privately with the scores in words and the three Ages as cards (the board a
    turn changed first and large); ``/tiempo board age:`` with that Age's card alone."""
    _, game_id, state, player = await two_at_the_table(sim, tmp_path)
    board_post = public(sim)[-1]
    now = await answer(sim, sim.click(f"tiempo:board:{game_id}", board_post, user=player))
    assert now.ephemeral and now.v2 and now.content.startswith(f"**Game #{game_id}**") and "Ecus" in now.content
    assert [[n.rsplit("-", 1)[1] for n in g] for g in now.gallery()] == [["might.png"], ["faith.png"],
                                                                         ["reason.png"]]  # nothing changed yet
    sizes = {Image.open(io.BytesIO(a.data)).size for a in now.attachments}
    assert sizes == {(1140, 680)}  # landscape cards: about 550×328 in the chat
    build = next(a for a in legal_actions(state) if isinstance(a, Construct))
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", board_post, user=player))
    preview, _ = await pick_to(sim, panel, player, path_to(state, state.active, build))
    await answer(sim, sim.click(next(c for c in preview.custom_ids() if c.startswith("tiempo:ok:")), preview,
                                user=player))
    now = await answer(sim, sim.click(f"tiempo:board:{game_id}", board_post, user=player))
    lead, *rest = now.gallery()
    built = build.age.title.lower()
    assert lead == [f"tiempo-{game_id}-now-{built}.png"]  # a board this turn changed leads (its ripple may follow)
    assert sorted(n for g in [lead, *rest] for n in g) == [f"tiempo-{game_id}-now-{a}.png"
                                                           for a in ("faith", "might", "reason")]
    one = await answer(sim, sim.slash("tiempo", "board", {"age": "Reason"}, user=player))
    assert one.ephemeral and one.content.startswith("Reason — game #") and one.gallery() == [
        [f"tiempo-{game_id}-now-reason.png"]]


async def test_a_holdem_turn_by_taps_shows_the_face_up_reserve_to_everyone(sim: DiscordSim, tmp_path: Path) -> None:
    """R33: the reserve is face up. The turn post, Board now, My hand and the status show it; a swap
    by taps is told in the channel, and the next turn post shows the reserve as it is then."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob", holdem=True)
    game_id, state = await state_of(bot, sim)
    reserve = f"Reserve (face up): {cards_in_words(state.reserve)} ({state.reserve})."
    board_post = public(sim)[-1]
    assert reserve in board_post.content
    other = next(u for u in users if u.name != state.players[state.active].name)
    now = await answer(sim, sim.click(f"tiempo:board:{game_id}", board_post, user=other))
    assert now.ephemeral and reserve in now.content
    hand = await answer(sim, sim.click(f"tiempo:hand:{game_id}", board_post, user=other))
    assert hand.ephemeral and reserve in hand.content
    status = await answer(sim, sim.slash("tiempo", "status", user=other))
    assert reserve in status.content

    player = user_of(users, state, state.active)
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", board_post, user=player))
    swap = next(a for a in legal_actions(state) if isinstance(a, Swap))
    panel, _ = await tap(sim, panel, player, path_to(state, state.active, swap))
    _, after = await state_of(bot, sim)
    assert after.reserve == state.reserve - swap.take + swap.give
    await sim.wait_for_message(lambda m: f"gives {cards_in_words(swap.give)} ({swap.give}) to the reserve" in m.content)
    end = min((a for a in legal_actions(after) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
    panel, _ = await tap(sim, panel, player, path_to(after, after.active, end))
    _, later = await state_of(bot, sim)
    turn_post = await sim.wait_for_message(lambda m: m.id > board_post.id and "your turn" in m.content)
    assert f"Reserve (face up): {cards_in_words(later.reserve)} ({later.reserve})." in turn_post.content
