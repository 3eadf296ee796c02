"""The review after the game: for each player of a finished game, the three turns that cost them most
by the AI's top level (``master``), what it would have played instead, the difference in expected
Ecus, and a picture of its turn.

* **Which turns.** Each player's own turns (the replay's steps, bot/service/replay.py), each judged
  from the position at the turn's start and from that player's view only (``bot.ai.analyse``: their
  own hand, the other hands and the deck as counts), the turn they played passed as ``extra`` and its
  cost read from ``Analysis.cost``: the expected Ecus it loses against the best plan on the same
  deals. The turn played is the player's own actions in it (their answers to decisions included,
  the others' left out, the end of the turn left out as every plan's is). A turn in which the AI
  (keeping the seat warm) or the turn clock played any of the player's own actions for them, their
  end of turn included (``Step.played_for``: stored as ``PLAYED_FOR_SEAT``), is not theirs to answer
  for: it is left out, and their part says how many were. A game stored before that mark has none.
* **Clear of the noise.** The search chooses its plan as the master level (and a hint at the same
  play-outs) would, the turn played taking no part in that choice; then the chosen plan and the turn
  played are played out on ``REVIEW_DEALS`` common deals, and a turn is named only if its cost is at
  least ``LEAST_COST`` and ``CLEAR_SIGMAS`` standard errors (``Analysis.cost_error``): a turn the
  top level would have played itself costs nothing, and a few unlucky deals blame no turn.
* **Reproducible.** A fixed number of play-outs a turn (``REVIEW_ITERATIONS``) and a seed made of
  the game and the turn: the same game gets the same review every time, so it is worked out again
  rather than stored (the last few are kept in memory).
* **Off the event loop.** One ``analyse`` call a turn through ``AISeats.analyse`` (the AI worker
  process, else a thread), turn after turn, so the AI seats of games in play think between them; a
  ``progress(done, total)`` callback after each.
* **What is shown.** The turn played as the channel heard it (its narration), the top level's turn
  in the same words, and the Age card its turn changes (drawn for no viewer: no hand, the deck as a
  count). Only a finished game is reviewed, and only for its players; its text may name the cards a
  player paid with, as the channel heard at the time, and a finished game's hands are open in its
  replay anyway (docs/ai.md).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from render import age_card, changed_ages
from rules import Action, Age, Choose, EndTurn, Exchange, GameState, RuleError, apply
from rules import events as ev

from ..ai import Analysis, analyse, best_choice
from ..play import Refusal, RefusalCode
from ..storage import GameRecord, Status
from ..texts import count, ecu_word, narration, who
from ..words import PLAIN, Command, Strong, Text, lines, render, say
from .games import find_seat, is_ai
from .messages import Caller, Picture, Reply
from .replay import Replays, Step, Timeline
from .steps import answer_words

log = logging.getLogger("tiempo.review")

#: play-outs of the top level's search for each turn reviewed, and the common deals on which its
#: chosen plan and the turn played are then both played out (the anchor too): a five-player game
#: (35 turns) takes about two minutes on one core, and the review depends on the game alone
REVIEW_ITERATIONS = 24
REVIEW_DEALS = 10
#: the turns named for each player
COSTLIEST = 3
#: a turn that cost less than this (expected Ecus), or less than this many standard errors of its
#: cost, is not named
LEAST_COST = 0.5
CLEAR_SIGMAS = 2.0
#: reviews kept in memory (a finished game's never changes)
REVIEWS_KEPT = 8

#: ``AISeats.analyse``: the master level's analysis, off the event loop
Analyse = Callable[..., Awaitable[Analysis]]
#: awaited after each turn analysed: (turns done, turns in all)
Progress = Callable[[int, int], Awaitable[None]]


@dataclass(frozen=True)
class TurnCost:
    """One turn reviewed: the replay's step, whose it was, what they played, what the top level
    would have played instead, how many expected Ecus the difference cost them, and the standard
    error of that (the search's noise)."""

    step: int
    round: int
    seat: int
    cost: float
    played: tuple[Action, ...]
    better: tuple[Action, ...]
    error: float = 0.0

    @property
    def clear(self) -> bool:
        """Whether the cost is clear of the noise: at least ``LEAST_COST`` and ``CLEAR_SIGMAS``
        standard errors."""
        return self.cost >= max(LEAST_COST, CLEAR_SIGMAS * self.error)


def own_actions(step: Step) -> tuple[Action, ...]:
    """The turn a player played, as a plan of the search: their own actions in the step (their
    answers to decisions included), without the end of the turn."""
    return tuple(a for _, a in step.actions if a.player == step.player and not isinstance(a, EndTurn))


def played_for_them(step: Step) -> bool:
    """Whether the AI or the turn clock played any of the player's own actions in the turn (their end
    of turn included) for them (``Step.played_for``)."""
    return any(i in step.played_for and a.player == step.player for i, (_, a) in enumerate(step.actions))


def _whole_turns(steps: Sequence[Step], seats: Sequence[int]) -> list[Step]:
    """The complete turns of ``seats`` that began with the player to act (no decision pending)."""
    return [s for s in steps[1:] if s.complete and s.player in seats and s.before.pending is None
            and not s.before.finished and s.before.waiting_on == s.player]


def turns_to_review(steps: Sequence[Step], seats: Sequence[int]) -> list[Step]:
    """The complete turns of ``seats`` that began with the player to act (no decision pending) and
    that the player played themselves (not ``played_for_them``)."""
    return [s for s in _whole_turns(steps, seats) if not played_for_them(s)]


def turns_played_for(steps: Sequence[Step], seat: int) -> int:
    """How many of the turns of ``seat`` a review would cover the AI or the turn clock played (in part)
    for them (``played_for_them``), so that it leaves them out."""
    return sum(played_for_them(s) for s in _whole_turns(steps, [seat]))


def review_seed(base: int, step: Step) -> int:
    """The search's seed for a turn: the game's ``base`` and the turn, never the game's deal."""
    return base * 1_000_003 + 500_000 + step.index


def turn_cost(step: Step, analysis: Analysis) -> TurnCost:
    """What ``analysis`` (made with the turn played as ``extra``) says the turn cost."""
    played = own_actions(step)
    cost = analysis.cost(played)
    error = analysis.cost_error(played)
    return TurnCost(step.index, step.round, step.player, cost or 0.0, played, analysis.best.actions,
                    error if error is not None else 0.0)


def costliest(costs: Sequence[TurnCost], seat: int, n: int = COSTLIEST) -> list[TurnCost]:
    """The ``n`` turns of ``seat`` that cost most, of those whose cost is clear of the noise
    (``TurnCost.clear``), costliest first."""
    mine = [c for c in costs if c.seat == seat and c.clear]
    return sorted(mine, key=lambda c: (-c.cost, c.step))[:n]


#: what one action did: the position after it, its events and, for an answer to a question, who chose what
Done = tuple[GameState, list[ev.Event], Text | None]

#: an answer's consequences said in a review (a cascade of downsizings can be long)
ANSWER_LINES = 3


def _chose(before: GameState, a: Action) -> Text | None:
    """``Ana chose H3: Oracle's Keep.`` for an answer to a question; None for any other action."""
    if not isinstance(a, Choose) or before.pending is None:
        return None
    return say("{who} chose {answer}.", who=who(before, a.player), answer=answer_words(before, a))


def _plan_played_out(before: GameState, actions: Sequence[Action]) -> tuple[list[Done], bool]:
    """Each of ``actions`` played from ``before`` with its events, up to an exchange (whose draw is
    hidden), a refused action, or another player's decision; and whether an exchange stopped it."""
    s = before
    done: list[Done] = []
    for a in actions:
        if isinstance(a, Exchange):
            return done, True
        if s.pending is not None and s.pending.decision.player != a.player:
            break
        try:
            after, events = apply(s, a)
        except RuleError:
            break
        done.append((after, _told(events), _chose(s, a)))
        s = after
    return done, False


def _told(events: Sequence[ev.Event]) -> list[ev.Event]:
    """An action's events as the channel hears them (the next turn's beginning aside)."""
    return [e for e in events if not isinstance(e, ev.TurnBegan)]


def _sentences(done: Sequence[Done]) -> Text:
    """What each action did in one sentence: the first of its narration (the rest, its ripples and
    domains, the picture shows); an answer to a question says who chose what, then what it did (a few
    sentences: each building it downsized or destroyed)."""
    out = Text()
    for s, events, chose in done:
        told = narration(s, events)
        said = [chose, *told[:ANSWER_LINES]] if chose is not None else told[:1]
        for line in said:
            out = say("{out} {line}", out=out, line=line) if out else say("{line}", line=line)
    return out


def _played(step: Step) -> list[Done]:
    """The player's own actions in the turn, each with the position after it and its events."""
    return [(after, _told(events), _chose(before, a)) for before, a in step.actions if a.player == step.player
            and not isinstance(a, EndTurn) for after, events in (apply(before, a),)]


def played_words(step: Step) -> Text:
    """The turn played, as the channel heard it (the player's own actions)."""
    told = _sentences(_played(step))
    return told if told else say("{who} ended the turn without acting.", who=who(step.before, step.player))


def better_words(step: Step, better: Sequence[Action]) -> Text:
    """The top level's turn instead, in the narration's words."""
    done, exchanged = _plan_played_out(step.before, better)
    told = _sentences(done)
    if exchanged:
        head = next(a for a in better if isinstance(a, Exchange))
        swap = say("{who} pays 2 Ecus to exchange {cards} and plays the rest of the turn with what they draw.",
                   who=who(step.before, step.player), cards=count(head.cards.total, "card"))
        return say("{told} {swap}", told=told, swap=swap) if told else swap
    if not told:
        return say("{who} ends the turn at once.", who=who(step.before, step.player))
    last = done[-1][0]
    if last.pending is not None and not last.finished:  # it stops at a question: the answer reckoned on
        return say("{told} {answer} Then the turn ends.", told=_asked(told, done[-1]), answer=_answer(last))
    return say("{told} Then the turn ends.", told=told)


def _asked(told: Text, last: Done) -> Text:
    """``told`` ending with the question the plan's last action asks (said if its first sentence was
    another)."""
    s, events, chose = last
    assert s.pending is not None
    question = narration(s, [ev.DecisionRequested(s.pending.decision)])[0]
    said = narration(s, events)[:ANSWER_LINES if chose is not None else 1]  # (as ``_sentences`` said them)
    if any(render(say("{x}", x=line), PLAIN) == render(say("{x}", x=question), PLAIN) for line in said):
        return told
    return say("{told} {question}", told=told, question=question)


def _answer(s: GameState) -> Text:
    """The answer to the pending decision the top level's play-outs reckon on (``best_choice``)."""
    assert s.pending is not None
    return say("The top level reckons on {who} choosing {cell}.", who=who(s, s.pending.decision.player),
               cell=str(best_choice(s).cell))


def turn_words(step: Step, cost: TurnCost, place: int) -> Text:
    """One turn of a review: where, how much, what was played, what the top level would play."""
    ecus = max(1, round(cost.cost))
    where = Strong(render(say("{place}. Round {round}, turn {turn}:", place=place, round=cost.round, turn=cost.step),
                          PLAIN))
    head = say("{where} about {ecus} {word} lost.", where=where, ecus=ecus, word=ecu_word(ecus))
    return lines([head, say("Played: {played}", played=played_words(step)),
                  say("The top level would have played: {better}", better=better_words(step, cost.better))])


def seat_words(steps: Sequence[Step], costs: Sequence[TurnCost], seat: int, iterations: int, title: str,
               game_id: int | None = None) -> Text:
    """A player's part of the review of the game told by ``steps`` (``title``: "Game #12"): their
    costliest turns (or that none cost much); with ``game_id`` (a stored game), how to see one of those
    turns again in the replay, whose steps the turns' numbers are."""
    final = steps[-1].after
    name = who(final, seat)
    if iterations == 1:
        head = say("{game} — the review of {who}'s turns by the AI's top level, each from what they saw then "
                   "(one imagined game a turn):", game=Strong(title), who=name)
    else:
        head = say("{game} — the review of {who}'s turns by the AI's top level, each from what they saw then "
                   "({n} imagined games a turn; a hint imagines its own, so the two may suggest different turns):",
                   game=Strong(title), who=name, n=iterations)
    skipped = _played_for_words(turns_played_for(steps, seat), name)
    worst = costliest(costs, seat)
    if not worst:
        return lines([head, *skipped, say("No turn of {who}'s clearly cost half an Ecu or more by its reckoning "
                                          "(beyond the luck of its imagined games): well played.", who=name)])
    by_index = {s.index: s for s in steps}
    again = [] if game_id is None else [say("To see turn {turn} again: {replay} (a turn's number is its step in the "
                                            "replay).", turn=worst[0].step,
                                            replay=Command("replay", f"game:{game_id} step:{worst[0].step}"))]
    return lines([head, *skipped, *(turn_words(by_index[c.step], c, i) for i, c in enumerate(worst, 1)), *again])


def _played_for_words(n: int, name: Text) -> list[Text]:
    """That ``n`` of the player's turns were played for them, and so are not reviewed (nothing for none)."""
    if n == 0:
        return []
    if n == 1:
        return [say("The AI or the turn clock played one of {who}'s turns for them (in whole or in part): it is "
                    "not reviewed.", who=name)]
    return [say("The AI or the turn clock played {n} of {who}'s turns for them (in whole or in part): they are "
                "not reviewed.", n=n, who=name)]


def review_costs(steps: Sequence[Step], seats: Sequence[int], *, base: int, iterations: int = REVIEW_ITERATIONS,
                 deals: int = REVIEW_DEALS, progress: Callable[[int, int], None] | None = None) -> list[TurnCost]:
    """The cost of every turn of ``seats`` in the game told by ``steps``, worked out here and now (self-play:
    ``bot.ai.analyse`` in this process; the bot's ``Reviews`` asks the AI worker instead)."""
    turns = turns_to_review(steps, seats)
    costs = []
    for done, step in enumerate(turns, 1):
        costs.append(turn_cost(step, analyse(step.before, step.player, seed=review_seed(base, step),
                                             iterations=iterations, extra=[own_actions(step)], deals=deals)))
        if progress is not None:
            progress(done, len(turns))
    return costs


def turn_pictures(step: Step, cost: TurnCost, game_id: int) -> tuple[Picture, ...]:
    """The Age cards of the top level's turn, drawn for no viewer (no hand, the deck as a count), its
    changes ringed: one for each Age it builds on (or upgrades, demolishes, populates, renovates)
    where it differs from the turn played, in the order it does so, else the Age it changes first
    where it differs (a travel), else the first it changes at all; when its turn changes no board (it
    would have ended the turn), the card the turn as played changed, ringed the same way."""
    done, _ = _plan_played_out(step.before, cost.better)
    after, events = _after(step.before, done)
    played = {a for _, a in step.actions if a.player == step.player}
    # (done may stop short of the plan: at an exchange, whose draw is hidden)
    differs = [e for (_, said, _), a in zip(done, cost.better, strict=False) if a not in played for e in said]
    ages = _built_on(differs) or _first_changed(after, differs)[:1] or _first_changed(after, events)[:1]

    def name(age: Age) -> str:
        return f"tiempo-{game_id}-review-{cost.step}-{age.title.lower()}.png"

    if ages:
        heading = render(say("Instead, round {round}", round=cost.round), PLAIN)
        return tuple(Picture(age_card(after, age, None, events, heading=heading), name(age),
                             render(say("{age}: the top level's turn in round {round}, what it changes ringed",
                                        age=age.title, round=cost.round), PLAIN))
                     for age in ages)
    after, events = _after(step.before, _played(step))
    age = next(iter(_first_changed(after, events)), Age.MIGHT)
    heading = render(say("Round {round}, as played", round=cost.round), PLAIN)
    what = say("{age}: turn {turn} as played, what it changed ringed", age=age.title, turn=cost.step)
    return (Picture(age_card(after, age, None, events, heading=heading), name(age), render(what, PLAIN)),)


def _built_on(events: Sequence[ev.Event]) -> list[Age]:
    """The Ages on which ``events`` put up, upgrade or pull down a building (not a ripple's copy), or
    populate or renovate one (on Reason), in the order they first do."""
    return list(dict.fromkeys(e.age if isinstance(e, (ev.Built, ev.Upgraded, ev.Demolished)) else Age.REASON
                              for e in events if isinstance(e, (ev.Built, ev.Upgraded, ev.Demolished, ev.Populated,
                                                                ev.MarkerPlaced, ev.Renovated))))


def _after(before: GameState, done: Sequence[Done]) -> tuple[GameState, list[ev.Event]]:
    """Where actions done from ``before`` led, and all their events."""
    return (done[-1][0] if done else before), [e for _, said, _ in done for e in said]


def _first_changed(s: GameState, events: Sequence[ev.Event]) -> list[Age]:
    """The Ages ``events`` change (``render.changed_ages``), the one the first building went up on (or
    came down, or was upgraded) first."""
    ages = changed_ages(s, events) if events else []
    first = next((e.age for e in events if isinstance(e, (ev.Built, ev.Upgraded, ev.Demolished))), None)
    return sorted(ages, key=lambda a: a != first)


def reviewed_seats(game: GameRecord) -> list[int]:
    """The seats a review covers: the people's (an AI seat's turns are the top level's own kind)."""
    return [i for i, s in enumerate(game.seats) if not is_ai(s)]


@dataclass(frozen=True)
class Made:
    """A game's review as worked out: each turn's cost, and the pictures drawn so far (``drawing``: one
    asker draws a turn's pictures while another waits for them, rather than both drawing them)."""

    costs: tuple[TurnCost, ...]
    play_outs: int
    pictures: dict[int, tuple[Picture, ...]] = dataclasses.field(default_factory=dict)
    drawing: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock, compare=False, repr=False)


@dataclass
class _Job:
    """A review being worked out: what it will be, and every asker's progress note."""

    made: asyncio.Future[Made]
    listeners: list[Progress]


class Reviews:
    """Works out a finished game's review in the AI worker and shows it to one of its players; a
    second asker while it is worked out waits for the same review (with their own progress note)."""

    def __init__(self, replays: Replays, analyse: Analyse, *, render_pictures: bool = True,
                 iterations: int | None = None, deals: int | None = None) -> None:
        self.replays = replays
        self.analyse = analyse
        self.render_pictures = render_pictures
        #: play-outs a turn (None: ``REVIEW_ITERATIONS``; tests use a few)
        self.iterations = iterations
        #: common deals of the chosen plan and the turn played (None: ``REVIEW_DEALS``)
        self.deals = deals
        self._made: OrderedDict[tuple[int, int], Made] = OrderedDict()
        self._running: dict[tuple[int, int], _Job] = {}

    @property
    def play_outs(self) -> int:
        return self.iterations if self.iterations is not None else REVIEW_ITERATIONS

    async def review(self, caller: Caller, game_id: int | None = None,
                     progress: Progress | None = None) -> tuple[Reply, ...]:
        """The review of a finished game for one of its players, one reply per player reviewed, the
        caller's first. Refused (``Replays.find``'s refusals, and) for a game not over, a caller who
        did not play in it. Asked while the game's review is being worked out for someone else, it waits
        for that one."""
        game = await self.replays.find(caller, game_id, "review")
        if game.status is not Status.FINISHED:
            how = "still being played" if game.status is Status.PLAYING else "cancelled before its end"
            raise Refusal(say("Game #{id} is {how}: a review comes once a game is over. {replay} shows it so far.",
                              id=game.id, how=how, replay=Command("replay", f"game:{game.id}")),
                          RefusalCode.NOT_ALLOWED)
        seat = find_seat(game, caller)
        if seat is None:
            raise Refusal(say("You did not play in game #{id}: its review is for its players.", id=game.id),
                          RefusalCode.NOT_SEATED)
        line = await self.replays.timeline(game)
        made = await self.made(line, progress)
        seats = reviewed_seats(game)
        order = [seat, *(s for s in seats if s != seat)]
        return tuple([await self._part(line, made, s) for s in order])

    async def made(self, line: Timeline, progress: Progress | None) -> Made:
        """The game's review: remembered, or worked out turn after turn off the event loop, or (being worked
        out for someone else) waited for. Should the work fail or its first asker be cancelled (the bot
        stopping), those waiting are refused with a sentence, and the next ask works it out again."""
        game = line.game
        key = (game.id, game.action_count)
        kept = self._made.get(key)
        if kept is not None:
            self._made.move_to_end(key)
            return kept
        job = self._running.get(key)
        if job is not None:  # asked for by someone else already: the same review, when it is ready
            if progress is not None:
                job.listeners.append(progress)
            try:
                return await asyncio.shield(job.made)
            finally:  # (a waiter cancelled is told no more of the progress)
                if progress in job.listeners:
                    job.listeners.remove(progress)
        job = self._running[key] = _Job(asyncio.get_running_loop().create_future(), [] if progress is None
                                        else [progress])
        job.made.add_done_callback(lambda f: f.cancelled() or f.exception())  # (read, with or without a waiter)
        try:
            costs = await self._costs(line, job.listeners)
        except BaseException:
            job.made.set_exception(Refusal(say("The review of game #{id} could not be worked out; ask again.",
                                               id=game.id), RefusalCode.NOT_ALLOWED))
            raise
        finally:
            del self._running[key]
        made = self._made[key] = Made(tuple(costs), self.play_outs)
        job.made.set_result(made)
        while len(self._made) > REVIEWS_KEPT:
            self._made.popitem(last=False)
        return made

    async def _costs(self, line: Timeline, listeners: list[Progress]) -> list[TurnCost]:
        """Each turn's cost, worked out one after the other; after each, every asker's progress note
        (a note that fails, its message gone, is dropped: no reason to stop)."""
        turns = turns_to_review(line.steps, reviewed_seats(line.game))
        costs = []
        for done, step in enumerate(turns, 1):
            analysis = await self.analyse(step.before, step.player, seed=review_seed(line.game.id, step),
                                          budget_s=0.0, iterations=self.play_outs, extra=[own_actions(step)],
                                          deals=self.deals if self.deals is not None else REVIEW_DEALS)
            costs.append(turn_cost(step, analysis))
            for progress in list(listeners):
                try:
                    await progress(done, len(turns))
                except Exception:
                    log.warning("review of game %s: progress not shown", line.game.id, exc_info=True)
                    listeners.remove(progress)
        return costs

    async def _part(self, line: Timeline, made: Made, seat: int) -> Reply:
        """One player's part: their costliest turns in words, each with its pictures."""
        words = seat_words(line.steps, made.costs, seat, made.play_outs, f"Game #{line.game.id}", line.game.id)
        if not self.render_pictures:
            return Reply(words)
        steps = {s.index: s for s in line.steps}
        gallery: list[Picture] = []
        for c in costliest(made.costs, seat):
            async with made.drawing:
                if c.step not in made.pictures:
                    made.pictures[c.step] = await asyncio.to_thread(turn_pictures, steps[c.step], c, line.game.id)
            gallery.extend(made.pictures[c.step])
        return Reply(words, gallery=tuple(gallery))


def _between(items: Sequence[Text], gap: Text) -> list[Text]:
    return [x for i, item in enumerate(items) for x in ([gap, item] if i else [item])]


def together(parts: Sequence[Reply]) -> Reply:
    """The parts of a review as one reply (a front end with no limit on a message's pictures)."""
    return Reply(lines(_between([p.text for p in parts], Text())), gallery=tuple(p for r in parts for p in r.gallery))


__all__ = [
    "COSTLIEST",
    "REVIEW_DEALS",
    "REVIEW_ITERATIONS",
    "Reviews",
    "TurnCost",
    "better_words",
    "costliest",
    "own_actions",
    "played_for_them",
    "played_words",
    "review_costs",
    "review_seed",
    "seat_words",
    "together",
    "turn_cost",
    "turn_pictures",
    "turns_played_for",
    "turns_to_review",
]
