"""The course as the service serves it: the list of lessons with a person's progress, a lesson's step
(its idea, its move picked by taps as on the turn panel), the check of the move, and the first-time
tips of a real game.

A lesson keeps no state between taps: its controls carry the lesson, the task (``stage``) and the
panel path (``LessonView``), and the position is rebuilt from the lesson's data (bot/service/course.py).
Only what a person finished is stored (``Storage.progress``: ``lesson:<key>`` and ``tip:<key>``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from render import age_card, changed_ages, places_card, places_zoom
from rules import Action, Age, GameState, NotationError, RuleError, apply, parse_action
from rules import events as ev

from ..play import Refusal
from ..storage import Storage
from ..texts import narration
from ..words import Button, Command, Strong, Text, lines, say, text
from .course import COURSE, LESSONS, Lesson, Task, Tip, first_tip, lesson_number, next_lesson, play_lines
from .messages import Caller, Control, LessonControls, LessonView, Picture, Reply
from .steps import Choice, Places, StalePath, Step, step, step_words

log = logging.getLogger("tiempo.lessons")

#: the progress items
LESSON_ITEM, TIP_ITEM = "lesson:", "tip:"


def _reply(body: Text, *, gallery: tuple[Picture, ...] = (), view: LessonView | None = None,
           controls: tuple[Control, ...] | None = None) -> Reply:
    """A private answer of the course, with its controls (``LessonControls``)."""
    return Reply(body, gallery=gallery, controls=controls if controls is not None else
                 (LessonControls(view),) if view is not None else ())


def _lesson(key: str) -> Lesson:
    """The lesson named ``key``, or numbered ``key`` (``1`` for the first, as the list of lessons shows)."""
    lesson = COURSE.get(key)
    if lesson is None and key.strip().isdigit() and 1 <= int(key) <= len(LESSONS):
        lesson = LESSONS[int(key) - 1]
    if lesson is None:
        raise Refusal(say("There is no lesson {key}. See the lessons with {learn}.", key=key,
                          learn=Command("learn")))
    return lesson


def _task(lesson: Lesson, stage: int) -> Task:
    if not 0 <= stage < len(lesson.tasks):
        raise Refusal(say("That lesson has no such step; start it again from {learn}.", learn=Command("learn")))
    return lesson.tasks[stage]


def _heading(lesson: Lesson) -> Text:
    """``Lesson 6 of 13: Ripples`` (the worked example and rules it comes from are the project's numbers,
    which a player never sees elsewhere: ``Lesson.example`` and ``.rules`` keep them for the tests)."""
    return text(Strong(say("Lesson {n} of {total}: ", n=lesson_number(lesson.key), total=len(LESSONS)).plain()
                       + lesson.title.plain()))


def _first_sentence(words: Text, limit: int = 100) -> str:
    """The first sentence of ``words``, within ``limit`` characters (a menu option's description)."""
    plain = words.plain()
    end = plain.find(". ")
    first = plain if end < 0 else plain[:end + 1]
    return first if len(first) <= limit else first[:limit - 1] + "…"


class Lessons:
    """Serves the course: lessons by taps, checked and explained, and each person's progress."""

    def __init__(self, storage: Storage, *, render: bool = True) -> None:
        self.storage = storage
        self.render = render

    # -- the list --------------------------------------------------------------------------------

    async def course(self, caller: Caller, note: Text | str = "") -> Reply:
        """The lessons, those done ticked, and the first not done to start."""
        done = await self._done(caller.user_id)
        left = [lesson for lesson in LESSONS if lesson.key not in done]
        choices = tuple(Choice(lesson.key, f"{'✓ ' if lesson.key in done else ''}{i}. {lesson.title.plain()}"[:100],
                               _first_sentence(lesson.idea))
                        for i, lesson in enumerate(LESSONS, start=1))
        if not left:
            status = say("You have done every lesson. Play a real game: {new}. Any lesson can be played again "
                         "from the list.", new=Command("new"))
        elif len(left) == len(LESSONS):
            status = say("{n} short lessons, each one idea of Khronos played on a small board, by the same taps "
                         "as a real game. Start with the first, or pick any.", n=len(LESSONS))
        else:
            status = say("{done} of {n} lessons done. Next: {title}.", done=len(LESSONS) - len(left), n=len(LESSONS),
                         title=left[0].title)
        body = lines([x for x in (note, text(Strong(say("Learn Khronos").plain())), status) if x])
        return _reply(body, view=LessonView(question=say("Pick a lesson").plain(), choices=choices,
                                                   next=left[0].key if left else None))

    async def reset(self, caller: Caller) -> Reply:
        """Forget the caller's lessons (the tips stay seen), then the list."""
        await self.storage.progress.forget(caller.user_id, LESSON_ITEM)
        return await self.course(caller, say("Your progress is cleared: every lesson is new again."))

    # -- a lesson ------------------------------------------------------------------------------

    async def show(self, caller: Caller, key: str, stage: int = 0, path: Sequence[str] = (),
                   note: Text | str = "", *, heading: bool = True) -> Reply:
        """Lesson ``key`` at task ``stage``, the move picked so far by ``path``: the idea, the task, the
        panel's step and its picture."""
        lesson = _lesson(key)
        task = _task(lesson, stage)
        state = lesson.state_at(stage)
        seat = state.waiting_on
        if state.pending is not None and (not path or path[0] != "choose"):
            path = ("choose",)  # a question waits: its answers at once, as on the turn panel
        try:
            current = step(state, seat, path)
        except StalePath:
            note, current = say("That pick does not lead to a move here; pick again from the start."), step(state, seat)
        gallery = await self._pictures(lesson, state, seat, current)
        move = text(Strong(say("Your move:").plain()), " ", task.prompt)  # (no space inside the bold: markdown)
        body = lines([x for x in (note, _heading(lesson) if heading else "", lesson.idea if stage == 0 else "", move,
                                  *step_words(current, state)) if x])
        return _reply(body, gallery=gallery, view=LessonView(
            lesson.key, stage, current.path, current.next_base, current.question, current.choices,
            current.back if current.path else None, current.preview is not None, retry=stage > 0))

    async def confirm(self, caller: Caller, key: str, stage: int, path: Sequence[str]) -> Reply:
        """Check the move ``path`` names: the lesson's move is played and explained (and the lesson
        marked done after its last task); another move gets the reason and the task again."""
        lesson = _lesson(key)
        _task(lesson, stage)
        state = lesson.state_at(stage)
        try:
            current = step(state, state.waiting_on, path, with_preview=False)
        except StalePath:
            return await self.show(caller, key, stage, (), say("That pick does not lead to a move here."))
        if current.preview is None:
            raise Refusal(say("Pick the rest of the move first."))
        return await self._judge(caller, lesson, stage, state, current.preview.action)

    async def typed(self, caller: Caller, key: str, stage: int, move: str) -> Reply:
        """The move typed in the notation, without the player (``build Keep B2 on M``): a move the rules
        refuse gets the rule's sentence, another is checked as ``confirm`` does."""
        lesson = _lesson(key)
        _task(lesson, stage)
        state = lesson.state_at(stage)
        colour = state.players[state.waiting_on].colour.value
        try:
            action = parse_action(f"{colour} {move.strip()}", state)
            apply(state, action)
        except RuleError as err:
            refused = say("The rules refuse that move: {why}", why=str(err))
            return await self.show(caller, key, stage, (), lines([refused, say("Try again.")]))
        except NotationError as err:
            unread = say("That move cannot be read: {why}", why=str(err))
            return await self.show(caller, key, stage, (), lines([unread, say("Try again.")]))
        return await self._judge(caller, lesson, stage, state, action)

    async def _judge(self, caller: Caller, lesson: Lesson, stage: int, state: GameState,
                     action: Action) -> Reply:
        task = lesson.tasks[stage]
        after, events = apply(state, action)
        wrong = task.verdict(state, action, events)
        if wrong is not None:
            would = narration(after, [e for e in events if not isinstance(e, ev.TurnBegan)])[:4]
            shown: list[Text | str] = [say("{legal}, but not this lesson's move: {why}", legal=Strong("Legal"),
                                           why=wrong)]
            if would:
                shown += [say("It would have done this:"), *["• " + line for line in would]]
            note = lines([*shown, say("Try again.")])
            return await self.show(caller, lesson.key, stage, (), note)
        after, more = play_lines(after, task.then)
        events = [*events, *more]
        done_lines = narration(after, [e for e in events if not isinstance(e, (ev.TurnBegan, ev.DecisionRequested))])
        gallery = await self._results(lesson, after, state.waiting_on, events)
        head = lines([_heading(lesson), text(Strong(say("Well played.").plain())),
                      *["• " + line for line in done_lines], task.result])
        if stage + 1 < len(lesson.tasks):
            following = await self.show(caller, lesson.key, stage + 1, heading=False)
            return _reply(lines([head, following.text]), gallery=gallery + following.gallery,
                               controls=following.controls)
        newly = await self.storage.progress.mark(caller.user_id, LESSON_ITEM + lesson.key)
        done = await self._done(caller.user_id)
        after_this = next_lesson(lesson.key, done)
        if after_this is None:
            end = say("{done} You have finished the course: every lesson is done. Now play a real game with "
                      "friends or AI players: {new}.", done=Strong(say("Lesson done.").plain()), new=Command("new"))
        else:
            end = say("{done} Next: {title} ({next}).", done=Strong(say("Lesson done.").plain()),
                      title=_lesson(after_this).title, next=Button(say("Next lesson").plain(), f"learn {after_this}"))
        if not newly and after_this is not None:
            end = end + say(" (You had done this one before.)")
        return _reply(lines([head, end]), gallery=gallery,
                           view=LessonView(lesson.key, stage, retry=True, next=after_this))

    # -- tips ---------------------------------------------------------------------------------

    async def tip(self, user_id: int, events: Sequence[ev.Event]) -> Tip | None:
        """The first-time tip ``events`` give ``user_id`` (marked seen, so it is given once), or None."""
        found = first_tip(events, await self._done(user_id, TIP_ITEM))
        if found is not None and not await self.storage.progress.mark(user_id, TIP_ITEM + found.key):
            return None  # (given meanwhile, by another process)
        return found

    # -- helpers --------------------------------------------------------------------------------

    async def _done(self, user_id: int, prefix: str = LESSON_ITEM) -> set[str]:
        """The keys of the lessons (or, with ``TIP_ITEM``, the tips) ``user_id`` has done."""
        return {item[len(prefix):] for item in await self.storage.progress.done(user_id) if item.startswith(prefix)}

    async def _pictures(self, lesson: Lesson, state: GameState, seat: int, current: Step) -> tuple[Picture, ...]:
        if not self.render:
            return ()
        try:
            return await asyncio.to_thread(step_pictures, lesson, state, seat, current)
        except Exception:
            log.exception("could not draw lesson %s's pictures", lesson.key)
            return ()

    async def _results(self, lesson: Lesson, after: GameState, seat: int,
                       events: Sequence[ev.Event]) -> tuple[Picture, ...]:
        if not self.render:
            return ()
        try:
            return await asyncio.to_thread(result_pictures, lesson, after, seat, events)
        except Exception:
            log.exception("could not draw lesson %s's result", lesson.key)
            return ()


def places_pictures(state: GameState, places: Places, seat: int, heading: str, stem: str) -> tuple[Picture, ...]:
    """A list of places' pictures, in a lesson and in the turn panel (``stem``: the files' names begin
    so): their board, each ringed and named (the board alone for a list of its areas); first, when they
    lie in one part of it, that part closer, where their names read on a phone (the whole card's are a
    few pixels high there)."""
    age = places.age.title
    card = Picture(places_card(state, places.age, places.cells, places.kind, seat, heading=heading, areas=places.areas),
                   f"{stem}-places-{age.lower()}.png",
                   say("{age}: the places in the list are ringed and named", age=age).plain() if places.cells
                   else say("{age} as it stands: each area boxed, with how many places it holds", age=age).plain())
    closer = places_zoom(state, places.age, places.cells, places.kind, seat, heading=heading)
    if closer is None:
        return (card,)
    return (Picture(closer, f"{stem}-places-{age.lower()}-closer.png",
                    say("{age}: the places in the list, closer", age=age).plain()), card)


def step_pictures(lesson: Lesson, state: GameState, seat: int, current: Step) -> tuple[Picture, ...]:
    """A lesson step's picture: the lesson's board; the places of a list ringed; a move's preview."""
    n = lesson_number(lesson.key)
    heading = say("Lesson {n}", n=n).plain()
    ages: list[Age] = []
    if current.preview is not None and current.preview.after is not None:
        after, events = current.preview.after, current.preview.events
        ages = sorted(changed_ages(after, events), key=lambda a: a is not lesson.age)
    if ages:  # (an answer that only asks the next question changes no board: the question's, below)
        return tuple(Picture(age_card(after, age, seat, events, heading=say("Preview").plain()),
                             f"tiempo-lesson-{n}-preview-{age.title.lower()}.png",
                             say("{age} after this move: what it changes is ringed", age=age.title).plain(),
                             lead=i == 0) for i, age in enumerate(ages))
    if current.places is not None:
        return places_pictures(state, current.places, seat, heading, f"tiempo-lesson-{n}")
    if state.pending is not None:  # (a question: its board, the choices ringed)
        age = Age(state.pending.decision.age)
        return (Picture(age_card(state, age, seat),
                        f"tiempo-lesson-{n}-question-{age.title.lower()}.png",
                        say("{age}: the choices are ringed and listed on the right", age=age.title).plain()),)
    return (Picture(age_card(state, lesson.age, seat), f"tiempo-lesson-{n}-{lesson.key}.png",
                    say("{age}, the board of lesson {n}", age=lesson.age.title, n=n).plain()),)


def result_pictures(lesson: Lesson, after: GameState, seat: int, events: Sequence[ev.Event]) -> tuple[Picture, ...]:
    """The boards the lesson's move changed, changes ringed, and the lesson's own board first, even
    unchanged (a forbidden ripple leaves Faith as it was; income is counted from Might), unless the
    lesson has no ``pictures_result`` (a swap changes no board)."""
    n = lesson_number(lesson.key)
    ages = sorted(set(changed_ages(after, events)) | ({lesson.age} if lesson.pictures_result else set()),
                  key=lambda a: (a is not lesson.age, a))
    return tuple(Picture(age_card(after, age, seat, events, heading=say("Lesson {n}: result", n=n).plain()),
                         f"tiempo-lesson-{n}-result-{age.title.lower()}.png",
                         say("{age} after your move: what changed is ringed", age=age.title).plain(),
                         lead=i == 0) for i, age in enumerate(ages))


__all__ = ["Lessons", "result_pictures", "step_pictures"]
