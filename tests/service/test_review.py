"""The review after the game (bot/service/review.py), at the service: each player's costliest turns by
the top level's ``analyse`` (a fixed number of play-outs, so the review depends on the game alone),
with the top level's turn instead and a picture; the same review every time; never worked out from
what the reviewed player could not see; refused with a sentence for a game not over, a stranger, a
game that does not exist and while it is being worked out."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from PIL import Image

from bot.ai import Analysis, analyse, best_choice
from bot.service import Caller, Picture, Refusal, Reply, Tiempo
from bot.service.replay import Step, Timeline
from bot.service.review import (
    TurnCost,
    better_words,
    costliest,
    own_actions,
    played_words,
    review_seed,
    reviewed_seats,
    seat_words,
    turn_cost,
    turn_pictures,
    turns_to_review,
)
from bot.storage import Storage
from bot.texts import who
from bot.words import PLAIN, render
from rules import (
    Choose,
    Construct,
    Exchange,
    Populate,
    Renovate,
    apply,
    keyed_seed,
    legal_actions,
    parse_action,
    parse_position,
    view_for,
)
from tests.support.gameplay import random_game
from tests.support.hidden import reshuffle_hidden
from tests.support.replayed import Silent, people, play_game

NAMES = ["ana", "ben"]
ANA, BEN = people(NAMES)
#: play-outs a turn in these tests, and common deals of the chosen plan and the turn played (the bot's
#: own review makes more)
ITERATIONS = 2
DEALS = 2


def plain(reply: Reply) -> str:
    return render(reply.text, PLAIN)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Game #1, two players, finished (random legal play); game #2, in play in channel 2."""
    path = tmp_path_factory.mktemp("review") / "games.sqlite3"
    asyncio.run(play_game(str(path), 5, NAMES, deal=keyed_seed(5)))
    asyncio.run(play_game(str(path), 8, ["dee", "eve"], actions=20, channel=2))
    return path


@pytest.fixture
async def service(stored: Path, tmp_path: Path) -> AsyncIterator[Tiempo]:
    path = tmp_path / "games.sqlite3"
    path.write_bytes(stored.read_bytes())
    storage = await Storage.open(str(path))
    tiempo = Tiempo(storage, Silent())
    tiempo.reviews.iterations = ITERATIONS
    tiempo.reviews.deals = DEALS
    try:
        yield tiempo
    finally:
        await tiempo.close()
        await storage.close()


@dataclass
class Reviewed:
    """Game #1's review worked out twice by one service (the tests share it): first for ben, the
    progress noted and every ``analyse`` call kept; then, its memory cleared, for ana; then for ben
    again, which comes from memory."""

    line: Timeline
    seen: list[tuple[int, int]]
    calls: list[tuple[tuple[object, ...], dict[str, object], Analysis]]
    first: tuple[Reply, ...]
    fresh: tuple[Reply, ...]
    fresh_calls: int
    again: tuple[Reply, ...]
    again_calls: int


@pytest.fixture(scope="module")
def reviewed(stored: Path, tmp_path_factory: pytest.TempPathFactory) -> Reviewed:
    async def work() -> Reviewed:
        path = tmp_path_factory.mktemp("reviewed") / "games.sqlite3"
        path.write_bytes(stored.read_bytes())
        storage = await Storage.open(str(path))
        service = Tiempo(storage, Silent())
        service.reviews.iterations = ITERATIONS
        service.reviews.deals = DEALS
        calls: list[tuple[tuple[object, ...], dict[str, object], Analysis]] = []
        analyse_before = service.reviews.analyse

        async def kept(*args: object, **kwargs: object) -> Analysis:
            got = await analyse_before(*args, **kwargs)
            calls.append((args, kwargs, got))
            return got

        service.reviews.analyse = kept
        seen: list[tuple[int, int]] = []

        async def progress(done: int, total: int) -> None:
            seen.append((done, total))

        try:
            first = await service.review(BEN, 1, progress)
            counted = len(calls)
            service.reviews._made.clear()  # worked out again
            fresh = await service.review(ANA, 1)
            fresh_calls = len(calls) - counted
            again = await service.review(BEN, 1)
            line = await service.replays.timeline(await service.storage.get_game(1))
            return Reviewed(line, seen, calls[:counted], first, fresh, fresh_calls, again,
                            len(calls) - counted - fresh_calls)
        finally:
            await service.close()
            await storage.close()

    return asyncio.run(work())


def test_a_review_names_each_players_costliest_turns_with_the_top_levels_instead(reviewed: Reviewed) -> None:
    """Every turn judged as the review says it judges them: from the state at the turn's start, from
    its player's seat, the turn played as ``extra``, the game's seed for that turn, ``ITERATIONS``
    play-outs and ``DEALS`` common deals, each player's costliest named with the top level's turn."""
    line, parts = reviewed.line, reviewed.first
    turns = turns_to_review(line.steps, [0, 1])
    assert reviewed.seen == [(i, len(turns)) for i in range(1, len(turns) + 1)]
    assert len(reviewed.calls) == len(turns)
    for step, (args, kwargs, _) in zip(turns, reviewed.calls, strict=True):
        assert args == (step.before, step.player)
        assert {k: kwargs[k] for k in ("seed", "iterations", "extra", "deals")} == {
            "seed": review_seed(1, step), "iterations": ITERATIONS, "extra": [own_actions(step)], "deals": DEALS}
    costs = [turn_cost(step, got) for step, (_, _, got) in zip(turns, reviewed.calls, strict=True)]
    game = line.game
    by_step = {s.index: s for s in line.steps}
    seats = [next(i for i, s in enumerate(game.seats) if s.user_id == c.user_id) for c in (BEN, ANA)]
    assert len(parts) == 2
    for part, seat, name in zip(parts, seats, ("ben", "ana"), strict=True):
        said = plain(part)
        assert said.startswith(f"Game #1 — the review of {name} (")
        worst = costliest(costs, seat)
        assert worst and all(c.cost >= max(0.5, 2 * c.error) for c in worst)
        assert worst == sorted(worst, key=lambda c: -c.cost)
        assert all(c.cost >= o.cost for c in worst for o in costs if o.seat == seat and o not in worst and o.clear)
        headings = re.findall(r"^(\d)\. Round (\d), turn (\d+): about (\d+) Ecus? lost\.$", said, re.M)
        assert headings == [(str(i), str(c.round), str(c.step), str(max(1, round(c.cost))))
                            for i, c in enumerate(worst, 1)]
        assert said.count("\nPlayed: ") == said.count("\nThe top level would have played: ") == len(worst)
        assert said.endswith(f"\nTo see turn {worst[0].step} again: `replay game:1 step:{worst[0].step}` (a turn's "
                             "number is its step in the replay).")
        shown = line.steps[worst[0].step]  # (the replay's step N)
        assert (shown.index, shown.round, shown.player) == (worst[0].step, worst[0].round, seat)
        assert not part.public
        assert part.gallery == tuple(p for c in worst for p in turn_pictures(by_step[c.step], c, 1))
        for picture in part.gallery:
            with Image.open(io.BytesIO(picture.png)) as im:
                assert im.size == (1140, 680)
        # the costliest turn's analysis is the top level's own (bot.ai.analyse in this process)
        step = next(s for s in turns if s.index == worst[0].step)
        here = analyse(step.before, step.player, seed=review_seed(1, step), iterations=ITERATIONS,
                       extra=[own_actions(step)], deals=DEALS)
        assert turn_cost(step, here) == worst[0]
    assert "Then the turn ends." in plain(parts[0]) + plain(parts[1])


def test_the_same_game_gets_the_same_review_and_the_second_time_at_once(reviewed: Reviewed) -> None:
    assert reviewed.again_calls == 0  # remembered
    assert [plain(p) for p in reviewed.again] == [plain(p) for p in reviewed.fresh[::-1]]  # the asker's part first
    assert [p.gallery for p in reviewed.again] == [p.gallery for p in reviewed.fresh[::-1]]
    # worked out again (the memory cleared): the same review
    assert reviewed.fresh_calls == len(reviewed.calls) > 0
    assert [plain(p) for p in reviewed.fresh] == [plain(p) for p in reviewed.first[::-1]]
    assert [p.gallery for p in reviewed.fresh] == [p.gallery for p in reviewed.first[::-1]]


async def test_a_review_is_refused_with_a_sentence(service: Tiempo) -> None:
    cases = [
        (Caller(1, 1, 555, "zed"), 1, "You did not play in game #1: its review is for its players."),
        (Caller(1, 2, 100, "dee"), None, "Game #2 is still being played: a review comes once a game is over."),
        (ANA, 99, "There is no game #99."),
        (Caller(1, 77, 100, "ana"), None, "No game is in play or over at this table. Name one by its number: "
                                          "`review game:12` (a game's number is in its posts"),
    ]
    for caller, game_id, words in cases:
        with pytest.raises(Refusal) as refused:
            await service.review(caller, game_id)
        assert str(refused.value).startswith(words), str(refused.value)


async def test_a_second_asker_while_a_review_is_worked_out_waits_for_the_same_review(
        service: Tiempo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked for again before it is ready (another player of the game, at once after the first), the
    review is worked out once: the second asker waits for it, with a progress note of their own; each
    turn's pictures are drawn once."""
    from bot.service import review as reviewing

    drawn: list[int] = []

    def counted(step: Step, cost: TurnCost, game_id: int) -> tuple[Picture, ...]:
        drawn.append(step.index)
        return turn_pictures(step, cost, game_id)

    monkeypatch.setattr(reviewing, "turn_pictures", counted)
    service.reviews.iterations, service.reviews.deals = ITERATIONS, DEALS
    analyse_before, gate, calls = service.reviews.analyse, asyncio.Event(), []

    async def held(*args: object, **kwargs: object) -> Analysis:
        calls.append(args)
        await gate.wait()
        return await analyse_before(*args, **kwargs)

    service.reviews.analyse = held
    seen: dict[str, list[tuple[int, int]]] = {"ana": [], "ben": []}

    def note(name: str) -> Callable[[int, int], Awaitable[None]]:
        async def progress(done: int, total: int) -> None:
            seen[name].append((done, total))
        return progress

    first = asyncio.create_task(service.review(ANA, 1, note("ana")))
    while not calls:  # the first is under way, held at its first turn
        await asyncio.sleep(0.01)
    second = asyncio.create_task(service.review(BEN, 1, note("ben")))
    await asyncio.sleep(0.05)
    assert not second.done()  # waiting, not refused
    gate.set()
    ana, ben = await first, await second
    game = await service.storage.get_game(1)
    turns = turns_to_review((await service.replays.timeline(game)).steps, reviewed_seats(game))
    assert len(calls) == len(turns)  # worked out once
    assert [plain(p) for p in ana] == [plain(p) for p in ben[::-1]]  # the same review, each asker's part first
    assert plain(ana[0]).startswith("Game #1 — the review of ana (") and plain(ben[0]).startswith(
        "Game #1 — the review of ben (")
    assert seen["ana"][-1] == seen["ben"][-1] == (len(turns), len(turns)) and seen["ben"]
    assert drawn and sorted(drawn) == sorted(set(drawn))  # (both parts shown, no turn drawn twice)


def test_a_turn_is_named_only_if_its_cost_is_clear_of_the_search_noise() -> None:
    """Named: a cost of half an Ecu or more and at least two standard errors; a turn the top level
    plays itself costs 0 and is never named."""
    def turn(step: int, cost: float, error: float) -> TurnCost:
        return TurnCost(step, 1, 0, cost, (), (), error)

    costs = [turn(1, 9.0, 5.0), turn(2, 3.0, 1.4), turn(3, 0.4, 0.0), turn(4, 0.6, 0.3), turn(5, 0.0, 0.0),
             turn(6, 2.0, float("inf"))]
    assert [c.step for c in costliest(costs, 0)] == [2, 4]


def _dealt_again(step: Step, rng: random.Random) -> Step:
    """The step with what its player could not see at its start dealt differently, its actions played
    again from there."""
    before = reshuffle_hidden(step.before, step.player, rng)
    assert view_for(before, step.player).state == view_for(step.before, step.player).state
    s, pairs, events = before, [], []
    for _, a in step.actions:
        pairs.append((s, a))
        s, said = apply(s, a)
        events += said
    return dataclasses.replace(step, before=before, after=s, actions=tuple(pairs), events=tuple(events))


async def test_a_review_never_reveals_what_the_reviewed_player_could_not_see(service: Tiempo) -> None:
    """The other hands and the deck dealt differently at a reviewed turn's start: the same cost, the
    same words and the same picture."""
    line = await service.replays.timeline(await service.storage.get_game(1))
    turns = [s for s in turns_to_review(line.steps, [0, 1]) if not any(isinstance(a, Exchange) for a in own_actions(s))]
    rng = random.Random(3)
    for step in (turns[2], turns[len(turns) // 2]):
        seed = review_seed(1, step)
        cost = turn_cost(step, analyse(step.before, step.player, seed=seed, iterations=ITERATIONS,
                                       extra=[own_actions(step)], deals=DEALS))
        other = _dealt_again(step, rng)
        assert any(other.before.players[j].hand != step.before.players[j].hand for j in (0, 1) if j != step.player)
        again = turn_cost(other, analyse(other.before, other.player, seed=seed, iterations=ITERATIONS,
                                         extra=[own_actions(other)], deals=DEALS))
        assert again == cost
        shown = dataclasses.replace(cost, cost=max(1.0, cost.cost), error=0.0)  # (a turn shown, whatever it cost)
        words = render(seat_words(_with(line.steps, step), [shown], step.player, ITERATIONS, "Game #1"), PLAIN)
        words_again = render(seat_words(_with(line.steps, other), [shown], step.player, ITERATIONS, "Game #1"), PLAIN)
        assert words == words_again and "Played: " in words
        assert turn_pictures(step, shown, 1) == turn_pictures(other, shown, 1)


def _with(steps: tuple[Step, ...], step: Step) -> tuple[Step, ...]:
    return tuple(step if s.index == step.index else s for s in steps)


@pytest.mark.slow  # (a process started: the full suite runs it)
async def test_the_ai_worker_process_judges_a_turn_played_as_this_process_does(service: Tiempo) -> None:
    """``AIWorker.submit_analysis`` passes the turn played on (``extra``): the same analysis, the same cost."""
    from bot.ai import AIWorker

    line = await service.replays.timeline(await service.storage.get_game(1))
    step = turns_to_review(line.steps, [0, 1])[3]
    worker = AIWorker()
    try:
        got = worker.submit_analysis(step.before, step.player, seed=9, iterations=ITERATIONS,
                                     extra=[own_actions(step)]).result(timeout=120)
    finally:
        worker.close()
    here = analyse(step.before, step.player, seed=9, iterations=ITERATIONS, extra=[own_actions(step)])
    assert got == here and got.cost(own_actions(step)) is not None


async def test_the_picture_shows_the_age_where_the_top_levels_turn_differs_from_the_one_played(
        service: Tiempo) -> None:
    """A better turn that begins as the played one did (a build on one Age) and then builds on the
    other Age: its picture is of the Age where the two turns differ."""
    line = await service.replays.timeline(await service.storage.get_game(1))
    tried = 0
    for step in turns_to_review(line.steps, [0, 1]):
        played = own_actions(step)
        if not played or not isinstance(played[0], Construct):
            continue
        first = played[0]
        after, _ = apply(step.before, first)
        elsewhere = [a for a in legal_actions(after) if isinstance(a, Construct) and a.age != first.age
                     and a not in played]
        if not elsewhere:
            continue
        cost = TurnCost(step.index, after.round, step.player, 3.0, played, (first, elsewhere[0]))
        (picture,) = turn_pictures(step, cost, 1)  # (its first action is the one played: not drawn)
        assert picture.description.startswith(f"{elsewhere[0].age.title}: the top level's turn")
        assert picture.filename == f"tiempo-1-review-{step.index}-{elsewhere[0].age.title.lower()}.png"
        tried += 1
    assert tried >= 1


async def test_a_top_level_turn_that_builds_on_two_ages_is_drawn_on_both_in_its_order(service: Tiempo) -> None:
    """The top level's turn builds on one Age, then on another, neither as played: one card for
    each, in the order it builds, each ringing what it changes (review item of a two-board turn)."""
    line = await service.replays.timeline(await service.storage.get_game(1))
    tried = 0
    for step in turns_to_review(line.steps, [0, 1]):
        played = own_actions(step)
        firsts = [a for a in legal_actions(step.before) if isinstance(a, Construct) and a not in played]
        for first in firsts[:3]:
            after, _ = apply(step.before, first)
            second = next((a for a in legal_actions(after) if isinstance(a, Construct) and a.age != first.age
                           and a not in played), None)
            if second is None:
                continue
            cost = TurnCost(step.index, step.before.round, step.player, 3.0, played, (first, second))
            pictures = turn_pictures(step, cost, 1)
            assert [p.filename for p in pictures] == [f"tiempo-1-review-{step.index}-{a.age.title.lower()}.png"
                                                      for a in (first, second)]
            assert [p.description.split(":")[0] for p in pictures] == [first.age.title, second.age.title]
            assert pictures[0].png != pictures[1].png
            tried += 1
            break
        if tried >= 2:
            break
    assert tried >= 1


async def test_a_top_level_turn_that_populates_or_renovates_on_reason_is_drawn_on_reason(service: Tiempo) -> None:
    """A turn of the top level whose one difference is a cube put on a building of Reason (or a ruin
    renovated) is drawn on Reason's card."""
    line = await service.replays.timeline(await service.storage.get_game(1))
    tried = 0
    for step in turns_to_review(line.steps, [0, 1]):
        played = own_actions(step)
        reason = next((a for a in legal_actions(step.before) if isinstance(a, (Populate, Renovate))
                       and a not in played), None)
        if reason is None:
            continue
        cost = TurnCost(step.index, step.before.round, step.player, 3.0, played, (reason,))
        assert [p.filename for p in turn_pictures(step, cost, 1)] == [f"tiempo-1-review-{step.index}-reason.png"]
        tried += 1
    assert tried >= 1


def test_the_top_levels_turn_that_leaves_a_question_says_the_answer_it_reckons_on() -> None:
    """A plan that ends at another player's decision (where a downsized Keep goes) does not end on the
    bare question: it says the answer the top level's play-outs give it, then that the turn ends."""
    from types import SimpleNamespace

    steps = list(random_game(28, 4, holdem=False))
    st = steps[81]
    assert st.after.pending is not None and st.after.pending.decision.player == st.action.player
    which = Choose(st.action.player, st.after.pending.decision.options[0])  # which of its two is downsized
    s, _ = apply(st.after, which)
    assert s.pending is not None and s.pending.decision.player != st.action.player
    step = cast(Step, SimpleNamespace(before=st.before, player=st.action.player))
    said = render(better_words(step, [st.action, which]), PLAIN)
    cell = best_choice(s).cell
    whom = render(who(s, s.pending.decision.player), PLAIN)
    assert "must choose where the downsized Keep" in said
    assert said.endswith(f"The top level reckons on {whom} choosing {cell}. Then the turn ends."), said


def test_r62_a_turn_with_the_players_own_answer_says_what_they_chose_in_the_turn_played_and_instead() -> None:
    """The player's own answer to a question of their move (which of two buildings is downsized) is said
    ("Ana chose E4: …'s Keep."), in the turn played and in the top level's: otherwise two turns that differ
    only by the answer read the same."""
    from types import SimpleNamespace

    steps = list(random_game(28, 4, holdem=False))
    st = steps[81]
    assert st.after.pending is not None and st.after.pending.decision.player == st.action.player
    options = st.after.pending.decision.options
    mover = render(who(st.before, st.action.player), PLAIN)
    answered = [(st.before, st.action), (st.after, Choose(st.action.player, options[0]))]
    step = cast(Step, SimpleNamespace(before=st.before, player=st.action.player, actions=answered))
    played = render(played_words(step), PLAIN)
    instead = render(better_words(step, [st.action, Choose(st.action.player, options[1])]), PLAIN)
    assert f"{mover} chose {options[0]}" in played and f"{mover} chose {options[1]}" in instead, (played, instead)
    assert played != instead


async def test_the_review_counts_its_play_outs_in_words_one_or_many(service: Tiempo) -> None:
    """The review's heading says how many play-outs a turn it made, in a player's words: "one imagined
    game", "2 imagined games", not those of a hint."""
    line = await service.replays.timeline(await service.storage.get_game(1))
    seat = line.steps[0].player
    one = render(seat_words(line.steps, [], seat, 1, "Game #1"), PLAIN)
    two = render(seat_words(line.steps, [], seat, 2, "Game #1"), PLAIN)
    assert "(one imagined game a turn)" in one and "games" not in one.split("\n")[0]
    assert "(2 imagined games a turn; a hint imagines its own, so the two may suggest different turns)" in two


async def test_a_review_that_fails_refuses_those_waiting_and_is_worked_out_again_at_the_next_ask(
        service: Tiempo) -> None:
    service.reviews.iterations, service.reviews.deals = ITERATIONS, DEALS
    analyse_before, gate, calls = service.reviews.analyse, asyncio.Event(), []

    async def failing(*args: object, **kwargs: object) -> Analysis:
        calls.append(args)
        await gate.wait()
        raise RuntimeError("the AI worker died")

    service.reviews.analyse = failing
    first = asyncio.create_task(service.review(ANA, 1))
    while not calls:
        await asyncio.sleep(0.01)
    second = asyncio.create_task(service.review(BEN, 1))
    await asyncio.sleep(0.05)
    gate.set()
    with pytest.raises(RuntimeError):  # (the first asker's own failure: the front end says sorry)
        await first
    with pytest.raises(Refusal) as refused:
        await second
    assert str(refused.value) == "The review of game #1 could not be worked out; ask again."
    assert service.reviews._running == {}
    service.reviews.analyse = analyse_before  # asked again: worked out afresh
    again = await service.review(BEN, 1)
    assert plain(again[0]).startswith("Game #1 — the review of ben (")


def test_r67_a_plan_ending_on_an_answer_whose_sentences_ask_the_next_question_asks_it_once() -> None:
    """Red's demolition splits two ties (R66, R67): Red says which domain goes first, which tells the tie
    and asks the next question among the answer's sentences; the question is not said a second time."""
    from bot.service import review

    pos = ("map: plain 15x12\nplayers: Red White Green Blue\nRed: hand=CC ecus=5\n"
           "M: Watchtower[White]@D1 Hamlet@E1 Watchtower[Green]@F1 Hamlet@E2 Hamlet@E3 Hamlet@E4 Hamlet@E5 "
           "Watchtower[White]@D5 Watchtower[Green]@F5 Keep[Blue]@A3 Hamlet@C3 Hamlet@D3\n")
    s = parse_position(pos)
    demolish = parse_action("Red demolish E3 on M pay C", s)
    asked, events = apply(s, demolish)
    assert asked.pending is not None
    answer = Choose(0, asked.pending.decision.options[0])
    after, more = apply(asked, answer)
    done = [(asked, review._told(events), None), (after, review._told(more), review._chose(asked, answer))]
    said = render(review._asked(review._sentences(done), done[-1]), PLAIN)
    assert said.count("Red must choose which Military building on Might is downsized") == 1, said
    assert "Red chose " in said, said
