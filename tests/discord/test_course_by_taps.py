"""End-to-end, under the Discord stand-in: ``/tiempo learn`` played by taps (the list, a lesson's
selects, Confirm), a wrong move and its retry, updated in place like the turn panel, with the lesson's
picture; and the first-time tips of a real game, given once per person. We read every message."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from PIL import Image

from bot.service import Caller, version_of
from bot.service.course import COURSE
from bot.service.steps import SEP, path_to
from rules import Age, Construct, EndTurn, legal_actions, parse_action
from tests.support.course_play import wrong_move
from tests.support.discord_play import answer, make_bot, open_table, public
from tests.support.discord_sim import DiscordSim, SimMessage, SimUser


async def pick_to(sim: DiscordSim, shown: SimMessage, key: str, target: tuple[str, ...]) -> SimMessage:
    """Pick through a lesson's selects until its Confirm names ``target``; each pick edits the message."""
    while True:
        assert len(shown.content) <= 2000 and all(len(c) <= 100 for c in shown.custom_ids())
        confirm = next((c for c in shown.custom_ids() if c.startswith(f"tiempo:learn-ok:{key}:")), None)
        if confirm is not None and confirm.rsplit(":", 1)[1] == SEP.join(target):
            return shown
        select = next(c for c in shown.custom_ids() if c.startswith(f"tiempo:learn:{key}:"))
        at = select.rsplit(":", 1)[1]
        done = tuple(at.split(SEP)) if at else ()
        assert target[:len(done)] == done, (done, target)
        menu = next(c for c in shown.components_flat() if c.get("custom_id") == select)
        values = [o["value"] for o in menu["options"]]
        value = next(v for v in values if target[len(done):len(done) + len(v.split(SEP))] == tuple(v.split(SEP)))
        updated = await answer(sim, sim.click(select, shown, values=[value]))
        assert updated.id == shown.id and updated.ephemeral  # in place
        shown = updated


async def confirm(sim: DiscordSim, shown: SimMessage) -> SimMessage:
    ok = next(c for c in shown.custom_ids() if c.startswith("tiempo:learn-ok:"))
    after = await answer(sim, sim.click(ok, shown))
    assert after.id == shown.id and after.ephemeral
    return after


def picture(message: SimMessage) -> Image.Image:
    """The message's first PNG, as Discord would show it."""
    assert message.attachments, message.content
    image = Image.open(io.BytesIO(message.attachments[0].data))
    image.load()
    return image


async def test_a_lesson_by_taps_a_wrong_move_and_the_right_one(sim: DiscordSim, tmp_path: Path) -> None:
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    course = await answer(sim, sim.slash("tiempo", "learn"))
    assert course.ephemeral and "**Learn Khronos**" in course.content and "13 short lessons" in course.content
    assert {"tiempo:learn-go", "tiempo:learn:cards"} <= set(course.custom_ids())  # a select of lessons, Start

    key = "ripples"
    lesson = COURSE[key]
    shown = await answer(sim, sim.click("tiempo:learn-go", course, values=[key]))
    assert shown.id == course.id and "Lesson 6 of 13: Ripples" in shown.content and "Your move:" in shown.content
    assert "tiempo:learn" in shown.custom_ids()  # Lessons
    board = picture(shown)
    if os.environ.get("TIEMPO_KEEP_PICTURES"):  # to look at it: the full size, and fitted into 550×350
        board.save(tmp_path / "lesson.png")
    assert board.width >= 400 and board.height >= 250

    state = lesson.state_at(0)
    wrong = wrong_move(lesson, 0)
    shown = await pick_to(sim, shown, key, path_to(state, state.waiting_on, wrong))
    assert "tiempo:learn-back:ripples:0:" in " ".join(shown.custom_ids())
    retried = await confirm(sim, shown)
    assert "but not this lesson's move" in retried.content and "Try again." in retried.content
    assert "tiempo:learn:ripples:0:" in retried.custom_ids()  # the move again, from the start

    right = parse_action(lesson.tasks[0].answer, state)
    shown = await pick_to(sim, retried, key, path_to(state, state.waiting_on, right))
    done = await confirm(sim, shown)
    assert "Well played." in done.content and "Lesson done." in done.content, done.content
    assert "tiempo:learn:paradox" in done.custom_ids()  # Next lesson
    result = picture(done)
    assert result.width >= 400

    listed = await answer(sim, sim.click("tiempo:learn", done))
    assert listed.id == done.id and "1 of 13 lessons done" in listed.content
    menu = next(c for c in listed.components_flat() if c.get("custom_id") == "tiempo:learn-go")
    assert any(o["label"].startswith("✓ 6.") for o in menu["options"])


async def play(bot: Any, sim: DiscordSim, users: list[SimUser], game_id: int, pick: Any) -> None:
    """The player to move plays ``pick(state, legal actions)`` by the service's one play path."""
    game = await bot.service.storage.get_game(game_id)
    state = bot.service.state_of(game)
    action = pick(state, [a for a in legal_actions(state) if a.player == state.waiting_on])
    user = next(u for u in users if u.id == game.seats[action.player].user_id)
    await bot.service.moves.play_action(Caller(sim.guild.id, sim.channel.id, user.id, user.name), game_id,
                                        version_of(game), lambda s, p, a=action: a)
    await bot.service.idle()


def ripple(state: Any, actions: list[Any]) -> Any:
    """A Keep or Castle on Might (it ripples), else the end of the turn."""
    builds = [a for a in actions if isinstance(a, Construct) and a.age is Age.MIGHT and a.kind.level >= 2]
    return builds[0] if builds else end(state, actions)


def end(state: Any, actions: list[Any]) -> Any:
    return min((a for a in actions if isinstance(a, EndTurn)), key=lambda a: a.discard.total)


async def test_a_first_ripple_is_explained_once_to_each_person_in_one_line(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob", seats=2)
    for _ in range(2):  # each player's turn: a rippling building, then the end of the turn
        await play(bot, sim, users, 1, ripple)
        await play(bot, sim, users, 1, end)
    posts = [m.content for m in public(sim)]
    tips = [line for post in posts for line in post.split("\n") if "💡" in line]
    assert tips == ["alice and bob: 💡 A building of value 2 or 3 rippled: its shadow went to the later Ages "
                    "(a ruin on Reason). Learn more: `/tiempo learn`, lesson 6 (Ripples)."], tips  # one line for both
    turn_post = next(p for p in posts if "💡" in p)
    assert turn_post.index("💡") < turn_post.index("your turn")  # told with the turn, before whose turn it is


async def test_a_game_opened_without_tips_gives_none(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob", seats=2, tips=False)
    for _ in range(2):
        await play(bot, sim, users, 1, ripple)
        await play(bot, sim, users, 1, end)
    assert not [m for m in public(sim) if "💡" in m.content]
    assert (await bot.service.storage.get_game(1)).options["tips"] is False
