"""The course (``/tiempo learn``): every lesson played by taps through the service, its own move and a wrong
one; progress kept per person; typed moves the rules refuse; the first-time tips (docs/course.md)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import Caller, LessonControls, LessonView, Post, Reply, Tiempo
from bot.service.course import COURSE, LESSONS, first_tip, tips_on
from bot.service.steps import path_to
from bot.storage import Storage
from bot.words import PLAIN, Text, render
from rules import Age, Construct, GameState, Kind, apply, income, legal_actions, parse_action, parse_position
from rules import events as ev
from tests.support.course_play import wrong_move

ANA = Caller(1, 1, 101, "Ana")
BEN = Caller(1, 1, 202, "Ben")


class Silent:
    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        return None


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Tiempo]:
    storage = await Storage.open(str(tmp_path / "learn.db"))
    tiempo = Tiempo(storage, Silent(), render=False, seed_source=lambda: 1)
    try:
        yield tiempo
    finally:
        await tiempo.close()
        await storage.close()


def words(t: Text) -> str:
    return render(t, PLAIN)


def view(reply: object) -> LessonView:
    assert isinstance(reply, Reply)
    controls = reply.control(LessonControls)
    assert controls is not None
    return controls.view


async def tap(service: Tiempo, caller: Caller, key: str, stage: int, path: tuple[str, ...]) -> Reply:
    """Open the lesson and pick ``path`` one key at a time, as the buttons would, checking that each key
    is offered; then Confirm."""
    reply = await service.learn_lesson(caller, key, stage)
    shown = view(reply)
    for _ in range(len(path) + 1):
        if shown.path == path:
            break
        rest = path[len(shown.base):]
        picked = [c.key for c in shown.choices if tuple(c.key.split(".")) == rest[:len(c.key.split("."))]]
        assert picked, (key, rest, [c.key for c in shown.choices])
        reply = await service.learn_lesson(caller, key, stage, (*shown.base, *picked[0].split(".")))
        shown = view(reply)
    assert shown.confirm
    done = await service.learn_confirm(caller, key, stage, shown.path)
    assert isinstance(done, Reply)
    return done


def test_the_course_has_the_lessons_of_the_issue() -> None:
    assert len(LESSONS) >= 10
    assert [lesson.key for lesson in LESSONS] == ["cards", "terrain", "building", "domains", "hierarchy", "ripples",
                                                  "paradox", "blocked", "junction", "cascade", "reason", "income",
                                                  "holdem"]


@pytest.mark.parametrize("key", [lesson.key for lesson in LESSONS])
async def test_each_lesson_played_by_taps_is_explained_and_marked_done(service: Tiempo, key: str) -> None:
    lesson = COURSE[key]
    for stage, task in enumerate(lesson.tasks):
        state = lesson.state_at(stage)
        path = path_to(state, state.waiting_on, parse_action(task.answer, state))
        reply = await tap(service, ANA, key, stage, path)
        said = words(reply.text)
        assert "Well played." in said and words(task.result) in said
        assert said.count("• ") >= 1  # the engine's events, narrated
    assert "Lesson done." in said
    assert any(c.label.startswith("✓ ") and c.key == key for c in view(await service.learn(ANA)).choices)
    assert not any(c.label.startswith("✓ ") for c in view(await service.learn(BEN)).choices)  # per person


@pytest.mark.parametrize("key", [lesson.key for lesson in LESSONS])
async def test_a_wrong_move_by_taps_gets_the_reason_and_a_retry(service: Tiempo, key: str) -> None:
    lesson = COURSE[key]
    state = lesson.state_at(0)
    action = wrong_move(lesson, 0)
    reason = lesson.tasks[0].verdict(state, action, apply(state, action)[1])
    assert reason is not None
    reply = await service.learn_confirm(ANA, key, 0, path_to(state, state.waiting_on, action))
    said = words(reply.text)
    assert "but not this lesson's move: " + words(reason) in said and "Try again." in said
    shown = view(reply)
    assert shown.lesson == key and shown.stage == 0 and shown.path == () and shown.choices  # the move again, by taps
    assert not any(c.label.startswith("✓ ") for c in view(await service.learn(ANA)).choices)


def test_the_numbers_the_lessons_give_are_the_engines() -> None:
    def after(key: str, stage: int) -> tuple[GameState, list[ev.Event]]:
        lesson = COURSE[key]
        state = lesson.state_at(stage)
        return apply(state, parse_action(lesson.tasks[stage].answer, state))

    renovated, _ = after("reason", 1)
    assert income(renovated, 0, Age.REASON) == (2, 1)  # "would pay you 2 Ecus"
    castle, _ = after("hierarchy", 0)
    assert income(castle, 1, Age.MIGHT)[0] == 2 and income(castle, 0, Age.MIGHT)[0] == 0  # "pays you, no longer Red"
    _, paid = after("income", 0)
    assert [(e.age, e.amount) for e in paid if isinstance(e, ev.IncomePaid)] == [(Age.MIGHT, 11)]
    terrain = COURSE["terrain"].state_at(0)
    costs = {str(a.origin): a.payment.cards.total for a in legal_actions(terrain)
             if isinstance(a, Construct) and a.kind is Kind.TOWN}
    assert costs["A2"] == 3 and costs["C3"] == 2 and costs["A1"] == 2  # mountain +1; river, forest (4 players) +0


async def test_the_list_shows_progress_and_a_finished_course_suggests_a_real_game(service: Tiempo) -> None:
    first = await service.learn(ANA)
    assert view(first).next == "cards" and len(view(first).choices) == len(LESSONS)
    # each lesson listed with the first sentence of its idea, in a player's words: no rule numbers
    for choice, lesson in zip(view(first).choices, LESSONS, strict=True):
        assert lesson.idea.plain().startswith(choice.detail.rstrip("…")) and len(choice.detail) <= 100, choice
        assert not re.search(r"\b[RTA]\d", choice.detail), choice
    for lesson in LESSONS:
        for stage, task in enumerate(lesson.tasks):
            state = lesson.state_at(stage)
            last = await tap(service, ANA, lesson.key, stage,
                             path_to(state, state.waiting_on, parse_action(task.answer, state)))
    assert view(last).next is None
    assert "You have finished the course" in words(last.text) and "`new`" in words(last.text)
    assert "every lesson" in words((await service.learn(ANA)).text)
    again = await service.learn_reset(ANA)
    assert view(again).next == "cards" and "cleared" in words(again.text)


async def test_after_one_lesson_the_next_is_offered(service: Tiempo) -> None:
    lesson = COURSE["ripples"]
    state = lesson.state_at(0)
    reply = await tap(service, ANA, "ripples", 0, path_to(state, 0, parse_action(lesson.tasks[0].answer, state)))
    assert view(reply).next == "paradox" and "Next: Paradoxes" in words(reply.text)  # the lesson after it
    course = await service.learn(ANA)
    assert "1 of 13 lessons done. Next: Cards and pawns." in words(course.text)  # the list: the first not done
    assert view(course).next == "cards"


async def test_a_lesson_of_two_tasks_goes_on_to_the_second(service: Tiempo) -> None:
    lesson = COURSE["reason"]
    state = lesson.state_at(0)
    reply = await tap(service, ANA, "reason", 0, path_to(state, 0, parse_action(lesson.tasks[0].answer, state)))
    shown = view(reply)
    assert shown.stage == 1 and shown.retry and words(lesson.tasks[1].prompt) in words(reply.text)
    assert "Lesson done." not in words(reply.text)


async def test_a_question_of_a_lesson_is_answered_by_taps_and_a_wrong_answer_retried(service: Tiempo) -> None:
    lesson = COURSE["cascade"]
    first = await tap(service, ANA, "cascade", 0, ("build", "HAMLET", "M", "a00", "C2", "C10"))
    shown = view(first)
    assert shown.stage == 1 and {c.key for c in shown.choices} == {"A1", "D1"}  # the question at once
    wrong = await service.learn_confirm(ANA, "cascade", 1, ("choose", "D1"))
    assert words(wrong.text).startswith("Legal, but not this lesson's move: " + words(lesson.tasks[1].why_not))
    assert view(wrong).stage == 1 and {c.key for c in view(wrong).choices} == {"A1", "D1"}
    right = await service.learn_confirm(ANA, "cascade", 1, ("choose", "A1"))
    said = words(right.text)
    assert "Red's Keep at A1 on Might is downsized to a Watchtower at B2." in said
    assert "Green's Chapel at B3 on Might is destroyed." in said and "Lesson done." in said


async def test_a_typed_move_the_rules_refuse_gets_the_rules_sentence(service: Tiempo) -> None:
    reply = await service.learn_typed(ANA, "hierarchy", 0, "build Keep F2 on M")  # next to Red's Keep: R43
    said = words(reply.text)
    assert said.startswith("The rules refuse that move: Rule of Hierarchy: ") and "\nTry again.\n" in said
    assert view(reply).stage == 0 and view(reply).path == ()
    unread = await service.learn_typed(ANA, "hierarchy", 0, "build Kep F2 on M")
    assert words(unread.text).startswith("That move cannot be read: 'Kep' is not a building")
    wrong = await service.learn_typed(ANA, "hierarchy", 0, "build Castle H6 on M")  # legal, apart from the domain
    assert words(wrong.text).startswith("Legal, but not this lesson's move: that Castle stands apart")
    ok = await service.learn_typed(ANA, "hierarchy", 0, "build Castle F1 on M")
    assert "Well played." in words(ok.text)


async def test_an_unknown_lesson_or_a_stale_path_is_answered(service: Tiempo) -> None:
    from bot.play import Refusal

    with pytest.raises(Refusal):
        await service.learn_lesson(ANA, "nosuch")
    reply = await service.learn_lesson(ANA, "cards", 0, ("build", "CASTLE"))
    assert "pick again" in words(reply.text) and view(reply).path == ()


async def test_a_lesson_is_found_by_its_number_in_the_list(service: Tiempo) -> None:
    """``learn 1``, as the list numbers them, is the first lesson; a number past the last is refused."""
    from bot.play import Refusal
    from bot.service.course import LESSONS

    for n in (1, len(LESSONS)):
        assert view(await service.learn_lesson(ANA, str(n))).lesson == LESSONS[n - 1].key
    for wrong in ("0", str(len(LESSONS) + 1)):
        with pytest.raises(Refusal, match=f"There is no lesson {wrong}"):
            await service.learn_lesson(ANA, wrong)


async def test_lesson_pictures_are_drawn(tmp_path: Path) -> None:
    storage = await Storage.open(str(tmp_path / "pics.db"))
    tiempo = Tiempo(storage, Silent(), render=True, seed_source=lambda: 1)
    try:
        first = await tiempo.learn_lesson(ANA, "paradox")
        assert len(first.gallery) == 1 and first.gallery[0].png.startswith(b"\x89PNG")
        lesson = COURSE["paradox"]
        path = path_to(lesson.state_at(0), 3, parse_action(lesson.tasks[0].answer, lesson.state_at(0)))
        done = await tiempo.learn_confirm(ANA, "paradox", 0, path)
        assert done.gallery[0].filename.endswith("result-faith.png")  # the lesson's board first
        assert len(done.gallery) == 3  # Might, Faith and Reason all changed
    finally:
        await tiempo.close()
        await storage.close()


# -- first-time tips ------------------------------------------------------------------------------


def events_of(position: str, move: str) -> list[ev.Event]:
    state = parse_position(position)
    return apply(state, parse_action(move, state))[1]


PARADOX = events_of(COURSE["paradox"].position, COURSE["paradox"].tasks[0].answer)


def test_a_first_paradox_gets_one_line_pointing_to_its_lesson() -> None:
    tip = first_tip(PARADOX, set())
    assert tip is not None and tip.key == "paradox" and tip.lesson == "paradox"
    assert "\n" not in words(tip.text) and "`learn`" in words(tip.text) and "lesson 7" in words(tip.text)
    then = first_tip(PARADOX, {"paradox"})  # the paradox seen: the ripple of the same move is next
    assert then is not None and then.key == "ripple"
    assert first_tip(PARADOX, {"paradox", "ripple"}) is None


def test_junction_and_income_tips() -> None:
    junction = events_of(COURSE["junction"].position, COURSE["junction"].tasks[0].answer)
    assert (tip := first_tip(junction, set())) is not None and tip.key == "junction"
    income = events_of(COURSE["income"].position, "Red end")
    assert (tip := first_tip(income, set())) is not None and tip.key == "income"
    assert first_tip(events_of(COURSE["cards"].position, "Blue travel 1 F"), set()) is None


async def test_a_tip_is_given_once_per_person(service: Tiempo) -> None:
    first = await service.first_time_tip(101, PARADOX)
    assert first is not None and first.key == "paradox"
    second = await service.first_time_tip(101, PARADOX)
    assert second is not None and second.key == "ripple"
    assert await service.first_time_tip(101, PARADOX) is None
    other = await service.first_time_tip(202, PARADOX)
    assert other is not None and other.key == "paradox"


def test_tips_are_on_unless_the_game_turns_them_off() -> None:
    assert tips_on({}) and tips_on({"holdem": True, "tips": True}) and not tips_on({"tips": False})


def test_r62_a_lessons_answer_that_only_asks_the_next_question_keeps_the_questions_picture() -> None:
    """Lesson 10 (a tie: Green chooses which Keep is downsized, then its owner places it): the preview of
    Green's answer changes no board yet, so it shows the question's board, the choices ringed, not none."""
    from bot.service.lessons import step_pictures
    from bot.service.steps import step
    from rules import Choose

    lesson = next(lesson for lesson in LESSONS if lesson.key == "cascade")
    s = parse_position(lesson.position)
    asked, _ = apply(s, parse_action(lesson.tasks[0].answer, s))
    assert asked.pending is not None
    seat = asked.pending.decision.player
    answer = Choose(seat, asked.pending.decision.options[0])
    (picture,) = step_pictures(lesson, asked, seat, step(asked, seat, path_to(asked, seat, answer)))
    assert picture.filename == "tiempo-lesson-10-question-might.png" and "choices are ringed" in picture.description
    (picture,) = step_pictures(lesson, asked, seat, step(asked, seat, ("choose",)))  # (the question itself)
    assert picture.filename == "tiempo-lesson-10-question-might.png"
