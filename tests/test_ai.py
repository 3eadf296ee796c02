"""AI players (bot/ai): complete games between every level for 2–5 players, legality of every action,
decisions answered, the information each level may use, determinism, and the evaluation's income
against the engine's ``rules.income``."""

from __future__ import annotations

import ast
import contextlib
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bot.ai as ai
from bot.ai.evaluate import board_facts, score
from rules import (
    Action,
    Age,
    Cards,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Family,
    GameState,
    Options,
    Populate,
    Renovate,
    Upgrade,
    View,
    apply,
    income,
    legal_actions,
    new_game,
    view_for,
)

from .gameplay import random_game

AI_DIR = Path(__file__).resolve().parent.parent / "bot" / "ai"
STRONG_ITERATIONS = 2


def _play(levels: list[str], seed: int, holdem: bool = False) -> tuple[GameState, dict[str, int]]:
    """A whole game between ``levels`` (seat order); every action is checked against ``legal_actions``."""
    s = new_game([f"{lv}{i}" for i, lv in enumerate(levels)], seed=seed, options=Options(holdem=holdem))
    kinds: dict[str, int] = {}
    steps = 0
    while not s.finished:
        who = s.waiting_on
        a = ai.choose_action(s, who, levels[who], seed=seed + s.turn, iterations=STRONG_ITERATIONS)
        assert a in legal_actions(s), f"{levels[who]} chose {a}, which is not a legal action"
        if s.pending is not None:
            assert isinstance(a, Choose) and a.player == s.pending.decision.player
            kinds["Choose"] = kinds.get("Choose", 0) + 1
        s, _ = apply(s, a)  # raises RuleError if refused
        kinds[type(a).__name__] = kinds.get(type(a).__name__, 0) + 1
        steps += 1
        assert steps < 2000, "the game does not end"
    return s, kinds


@pytest.mark.parametrize(
    ("levels", "seed", "holdem"),
    [
        (["strong", "random"], 11, False),
        (["random", "greedy", "strong"], 12, False),
        (["greedy", "strong", "random", "greedy"], 13, True),
        (["random", "random", "greedy", "greedy", "strong"], 14, False),
    ],
)
def test_complete_games_between_all_levels_end_with_a_ranking(levels: list[str], seed: int, holdem: bool) -> None:
    s, kinds = _play(levels, seed, holdem)
    assert s.finished and s.round == 7
    assert s.winners, "a finished game names its winners (R22)"
    best = max(p.ecus for p in s.players)
    assert set(s.winners) == {i for i, p in enumerate(s.players) if p.ecus == best}
    assert kinds.get("EndTurn", 0) == 7 * len(levels), "every seat ended each of its 7 turns"
    assert kinds.get("Construct", 0) + kinds.get("Upgrade", 0) > 0


def test_greedy_and_strong_outscore_random_in_a_seeded_game() -> None:
    s, _ = _play(["random", "greedy", "strong"], 21)
    assert s.players[1].ecus > s.players[0].ecus
    assert s.players[2].ecus > s.players[0].ecus


# ---------------------------------------------------------------------------------------------
# Decisions


def _decision_positions() -> list[GameState]:
    """Positions waiting on a decision, from seeded random games on the default map: the first few
    addressed to the active player and the first few addressed to another player."""
    own: list[GameState] = []
    other: list[GameState] = []
    for seed in range(40):
        for step in random_game(seed, 3 + seed % 3, holdem=False):
            s = step.after
            if s.pending is None or s.finished:
                continue
            if s.pending.decision.player == s.active and len(own) < 3:
                own.append(s)
            elif s.pending.decision.player != s.active and len(other) < 3:
                other.append(s)
        if len(own) >= 3 and len(other) >= 3:
            break
    return own + other


DECISIONS = _decision_positions()


def test_decision_positions_include_another_players_decision() -> None:
    assert any(s.pending is not None and s.pending.decision.player != s.active for s in DECISIONS)
    assert any(s.pending is not None and s.pending.decision.player == s.active for s in DECISIONS)


@pytest.mark.parametrize("level", ai.LEVELS)
def test_every_level_answers_a_pending_decision_with_one_of_its_options(level: str) -> None:
    for s in DECISIONS:
        assert s.pending is not None
        d = s.pending.decision
        a = ai.choose_action(s, d.player, level, seed=3, iterations=STRONG_ITERATIONS)
        assert isinstance(a, Choose) and a.player == d.player and a.cell in d.options
        apply(s, a)


def test_a_seat_with_nothing_to_do_or_an_unknown_level_is_refused() -> None:
    s = new_game(["a", "b", "c"], seed=1)
    with pytest.raises(ValueError, match="nothing to do"):
        ai.choose_action(s, (s.active + 1) % 3, "greedy", seed=1)
    with pytest.raises(ValueError, match="not an AI level"):
        ai.choose_action(s, s.active, "clever", seed=1)


# ---------------------------------------------------------------------------------------------
# Information hiding and determinism


def _reshuffle_hidden(s: GameState, seat: int, rng: random.Random) -> GameState:
    """The same position for ``seat`` with what it cannot see dealt differently: the cards of the
    other hands and of the draw pile shuffled among them (sizes kept), and a new generator state.
    A pending decision's saved state gets the same hands and deck (plus the interrupted action's
    cards for its actor), as in a real game."""
    t = s.clone()
    pool: list[Family] = list(t.deck)
    for j, p in enumerate(t.players):
        if j != seat:
            pool.extend(p.hand.families())
    rng.shuffle(pool)
    k = 0
    hands: dict[int, Cards] = {}
    for j, p in enumerate(t.players):
        if j == seat:
            continue
        size = p.hand.total
        hand = Cards()
        for f in pool[k:k + size]:
            hand = hand + Cards.of(f)
        k += size
        p.hand = hands[j] = hand
    t.deck = pool[k:]
    t.rng = rng.getrandbits(64)
    if t.pending is not None:
        import dataclasses

        base = t.pending.base.clone()
        act = t.pending.action
        for j, hand in hands.items():
            spent = act.payment.cards if (
                j == base.active and isinstance(act, (Construct, Upgrade, Demolish, Populate, Renovate))) else Cards()
            base.players[j].hand = hand + spent
        base.deck = list(t.deck)
        base.rng = t.rng
        t.pending = dataclasses.replace(t.pending, base=base)
    return t


def _hidden_positions() -> list[GameState]:
    """Positions from a seeded greedy game (turn starts and mid-turn) plus the decision positions."""
    out: list[GameState] = []
    s = new_game(["a", "b", "c", "d"], seed=5)
    n = 0
    while not s.finished:
        if s.pending is None and n % 9 == 0 and s.round in (1, 3, 4, 6, 7):
            out.append(s)
        s, _ = apply(s, ai.choose_action(s, s.waiting_on, "greedy", seed=5))
        n += 1
    return out[:7] + DECISIONS


HIDDEN = _hidden_positions()


@pytest.mark.parametrize("level", ai.LEVELS)
def test_a_decision_does_not_change_when_hidden_information_does(level: str) -> None:
    """Other hands and the deck order are hidden (R24): dealing them differently, consistently with
    what the seat sees, must not change the action, for the same seed and iterations."""
    rng = random.Random(99)
    for s in HIDDEN:
        seat = s.waiting_on
        alternatives = [_reshuffle_hidden(s, seat, rng) for _ in range(2)]
        for t in alternatives:
            assert view_for(t, seat).state == view_for(s, seat).state
        assert any(
            t.deck != s.deck or any(t.players[j].hand != s.players[j].hand for j in range(len(s.players)))
            for t in alternatives
        ), "the reshuffle changed nothing hidden"
        ai.clear_cache()
        expected = ai.choose_action(s, seat, level, seed=8, iterations=STRONG_ITERATIONS)
        for t in alternatives:
            assert apply(t, expected), "the action is legal in the other deal too"
            ai.clear_cache()
            got = ai.choose_action(t, seat, level, seed=8, iterations=STRONG_ITERATIONS)
            assert got == expected, f"{level} changed its action when only hidden cards changed"


def test_strong_with_more_play_outs_still_ignores_hidden_cards() -> None:
    """The same check with enough play-outs for the Monte Carlo comparison to weigh in, where a
    leak through the sampled deals would show most."""
    rng = random.Random(5)
    for s in (HIDDEN[2], HIDDEN[4]):
        seat = s.waiting_on
        ai.clear_cache()
        expected = ai.choose_action(s, seat, "strong", seed=12, iterations=8)
        t = _reshuffle_hidden(s, seat, rng)
        ai.clear_cache()
        assert ai.choose_action(t, seat, "strong", seed=12, iterations=8) == expected


def test_the_reshuffle_does_change_what_a_player_who_could_see_it_would_do() -> None:
    """Control for the test above: a level given the whole state (projected for nobody) would see the
    difference — the deals really differ where it matters (another player's hand)."""
    rng = random.Random(7)
    s = HIDDEN[0]
    seat = s.waiting_on
    other = (seat + 1) % len(s.players)
    hands = {_reshuffle_hidden(s, seat, rng).players[other].hand for _ in range(20)}
    assert len(hands) > 1


@pytest.mark.parametrize("level", ai.LEVELS)
def test_same_view_seed_and_iterations_give_the_same_action(level: str) -> None:
    for s in HIDDEN[:4]:
        ai.clear_cache()
        a = ai.choose_action(s, s.waiting_on, level, seed=4, iterations=STRONG_ITERATIONS)
        ai.clear_cache()
        b = ai.choose_action(s, s.waiting_on, level, seed=4, iterations=STRONG_ITERATIONS)
        assert a == b


def test_random_level_depends_on_the_seed() -> None:
    s = HIDDEN[1]
    picks = {ai.choose_action(s, s.waiting_on, "random", seed=k) for k in range(30)}
    assert len(picks) > 3


def test_strong_follows_its_plan_through_the_turn_and_ends_it() -> None:
    s = new_game(["a", "b", "c"], seed=31)
    seat = s.active
    ai.clear_cache()
    actions = []
    while not s.finished and s.active == seat:
        a = ai.choose_action(s, s.waiting_on, "strong", seed=1, iterations=STRONG_ITERATIONS)
        actions.append(a)
        s, _ = apply(s, a)
        assert len(actions) < 30
    assert isinstance(actions[-1], EndTurn)
    assert any(isinstance(a, (Construct, Upgrade)) for a in actions)


@pytest.mark.parametrize("same_seed", [True, False])
def test_a_strong_turn_keeps_to_its_time_budget(same_seed: bool) -> None:
    """The budget is per turn, also when the caller passes a new seed at every call (no plan is
    found again then): a turn at 0.5 s plans for at most 0.45 s and takes well under 1.5 s even on a
    busy machine."""
    s = new_game(["a", "b", "c", "d"], seed=41)
    for _ in range(30):  # into round 2, with buildings on the board
        s, _ = apply(s, ai.choose_action(s, s.waiting_on, "greedy", seed=1))
    seat = s.active
    ai.clear_cache()
    start = time.perf_counter()
    calls = 0
    while not s.finished and s.waiting_on == seat and s.active == seat:
        s, _ = apply(s, ai.choose_action(s, seat, "strong", seed=2 if same_seed else calls, budget_s=0.5))
        calls += 1
    assert calls >= 2
    assert time.perf_counter() - start < 1.5


def _turn_start(players: int, seed: int, steps: int) -> GameState:
    s = new_game([f"p{i}" for i in range(players)], seed=seed)
    for _ in range(steps):
        s, _ = apply(s, ai.choose_action(s, s.waiting_on, "greedy", seed=1))
    while s.pending is not None or s.acted:
        s, _ = apply(s, ai.choose_action(s, s.waiting_on, "greedy", seed=1))
    return s


@pytest.mark.parametrize(("players", "rounds"), [(3, 2), (4, 1)])
def test_strong_play_outs_reach_its_next_turn_or_one_round_further(players: int, rounds: int) -> None:
    """With three players a play-out goes on for one more round after the seat's next turn; with
    four it stops at the seat's next turn."""
    from bot.ai.levels import _play_on, _play_out_turn

    s = _turn_start(players, seed=43, steps=3 * players)
    seat, turn = s.active, s.turn
    end = _play_on(_play_out_turn(s, seat, []), seat)
    assert end.active == seat and end.pending is None and not end.acted
    assert end.turn == turn + rounds * players


# ---------------------------------------------------------------------------------------------
# Play-outs shared with helper processes


def _plans_for(s: GameState) -> tuple[View, int, list[list[Action]]]:
    from bot.ai.common import project
    from bot.ai.levels import beam_plans

    seat = s.active
    view = project(s, seat)
    plans = beam_plans(view.state, seat, width=3, depth=3, deadline=float("inf"), keep=3)
    return view, seat, [p.actions for p in plans]


def test_play_out_rounds_come_out_the_same_in_whichever_process_plays_them() -> None:
    """A round's deal depends on the seed and the round alone: two processes playing the even and
    the odd rounds find exactly what one process playing them all finds."""
    from bot.ai.levels import play_rounds

    view, seat, moves = _plans_for(_turn_start(4, seed=47, steps=8))
    assert len(moves) >= 2
    alone = play_rounds(view, seat, moves, 5, 10, None)
    evens = play_rounds(view, seat, moves, 5, 10, None, first=0, step=2)
    odds = play_rounds(view, seat, moves, 5, 10, None, first=1, step=2)
    assert len(alone) == 10 and set(evens).isdisjoint(odds)
    assert {**evens, **odds} == alone
    assert odds and all(r % 2 for r, _ in odds) and not any(r % 2 for r, _ in evens)


def test_a_play_out_is_only_begun_if_it_would_end_by_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The typical length of a play-out (remembered per player count) must fit before the deadline."""
    from bot.ai import levels

    view, seat, moves = _plans_for(_turn_start(3, seed=48, steps=6))
    monkeypatch.setattr(levels, "_playout_s", {})
    assert levels.play_rounds(view, seat, moves, 5, None, time.time() - 1.0) == {}
    levels._playout_s[3] = 60.0
    assert levels.play_rounds(view, seat, moves, 5, None, time.time() + 30.0) == {}
    levels._playout_s.clear()
    assert levels.play_rounds(view, seat, moves, 5, None, time.time() + 0.2)
    assert 0 < levels._playout_s[3] < 60.0, "the length of this plan's play-outs is remembered"


def test_strong_plays_the_same_with_a_helper_process() -> None:
    """``workers=2`` hands half the rounds to a helper process; with a fixed number of play-outs the
    action is the one a single process finds."""
    from bot.ai import helpers

    positions = [_turn_start(4, seed=49, steps=10), _turn_start(3, seed=50, steps=9)]
    try:
        for s in positions:
            ai.clear_cache()
            alone = ai.choose_action(s, s.active, "strong", seed=3, iterations=12)
            ai.clear_cache()
            shared = ai.choose_action(s, s.active, "strong", seed=3, iterations=12, workers=2)
            assert shared == alone
        assert helpers._pool is not None and helpers._size == 1, "no helper process was used"
    finally:
        helpers.shutdown()


def test_strong_plays_on_alone_when_its_helpers_fail(monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """A helper that cannot be started, or whose answer is an error, costs only its rounds."""
    import concurrent.futures

    from bot.ai import helpers

    s = _turn_start(3, seed=51, steps=9)
    ai.clear_cache()
    alone = ai.choose_action(s, s.active, "strong", seed=3, iterations=6)
    monkeypatch.setattr(helpers, "start", lambda n: None)
    ai.clear_cache()
    assert ai.choose_action(s, s.active, "strong", seed=3, iterations=6, workers=2) == alone

    broken: concurrent.futures.Future[int] = concurrent.futures.Future()
    broken.set_exception(concurrent.futures.process.BrokenProcessPool("helper died"))
    late: concurrent.futures.Future[int] = concurrent.futures.Future()
    done: concurrent.futures.Future[int] = concurrent.futures.Future()
    done.set_result(7)
    with caplog.at_level("WARNING", logger="bot.ai.helpers"):
        assert helpers.collect(helpers.Batch(None, [broken, late, done]), time.time() - helpers.GRACE_S) == [7]
    assert "late" in caplog.text


def test_with_a_fixed_number_of_play_outs_the_rounds_a_helper_missed_are_played_by_the_caller(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``iterations`` promises the same action whatever happens to the helpers."""
    import concurrent.futures

    from bot.ai import helpers

    s = _turn_start(4, seed=52, steps=10)
    ai.clear_cache()
    alone = ai.choose_action(s, s.active, "strong", seed=3, iterations=12)

    def dead_helper(n: int, fn: object, *args: object) -> helpers.Batch:
        died: concurrent.futures.Future[object] = concurrent.futures.Future()
        died.set_exception(RuntimeError("a bug in the helper"))
        return helpers.Batch(None, [died])

    monkeypatch.setattr(helpers, "submit", dead_helper)
    ai.clear_cache()
    assert ai.choose_action(s, s.active, "strong", seed=3, iterations=12, workers=2) == alone


def test_helpers_that_keep_failing_are_left_alone_for_a_while(monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """A helper that cannot start (or keeps dying) is tried again at the next turns, then not for
    ``PAUSE_S``: no traceback and no new process every turn for months."""
    import concurrent.futures

    from bot.ai import helpers

    starts: list[int] = []

    def cannot_start(*args: object, **kwargs: object) -> None:
        starts.append(1)
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", cannot_start)
    monkeypatch.setattr(helpers, "_pool", None)
    monkeypatch.setattr(helpers, "_failures", 0)
    monkeypatch.setattr(helpers, "_paused_until", 0.0)
    with caplog.at_level("WARNING", logger="bot.ai.helpers"):
        for _ in range(10):
            assert helpers.submit(1, int).futures == []
    assert len(starts) == helpers.FAILURES
    assert "thinking alone for 10 minutes" in caplog.text and "Traceback" not in caplog.text
    monkeypatch.setattr(helpers, "_paused_until", 0.0)
    assert helpers.submit(1, int).futures == [] and len(starts) == helpers.FAILURES + 1


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, which has exited and awaits its reaping, is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    with contextlib.suppress(OSError):
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def test_a_helper_ends_when_the_process_that_started_it_is_killed() -> None:
    """A killed AI worker must not leave its helper processes behind (the bot starts a new worker)."""
    root = Path(__file__).resolve().parent.parent
    code = (
        "import multiprocessing, time\n"
        "from bot.ai import helpers\n"
        "if __name__ == '__main__':\n"
        "    helpers.start(1)\n"
        "    time.sleep(1.0)\n"
        "    print(*[p.pid for p in multiprocessing.active_children()], flush=True)\n"
        "    time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=root, stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        children = [int(x) for x in parent.stdout.readline().split()]
        assert children and all(_running(c) for c in children)
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    while any(_running(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(c) for c in children), "a helper outlived its parent"


def test_a_pool_worker_with_helpers_still_ends_when_its_pool_shuts_down() -> None:
    """The bot's AI worker is itself a pool's worker: at its exit it waits for its children before any
    atexit handler runs, so its helpers must be stopped first, or the bot never stops."""
    import concurrent.futures
    import multiprocessing
    import threading

    from .ai_worker import strong_turn_with_a_helper

    pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    helper_pids = pool.submit(strong_turn_with_a_helper).result(timeout=60)
    assert helper_pids and all(_running(p) for p in helper_pids)
    closing = threading.Thread(target=pool.shutdown, daemon=True)
    closing.start()
    closing.join(timeout=30)
    assert not closing.is_alive(), "the worker did not end: its helpers kept it waiting"
    assert not any(_running(p) for p in helper_pids)


def test_helpers_are_not_started_from_a_daemonic_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    from bot.ai import helpers

    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True, raising=False)
    monkeypatch.setattr(helpers, "_cannot", False)
    monkeypatch.setattr(helpers, "_pool", None)
    assert helpers.submit(1, int).futures == []
    assert helpers._cannot and helpers._pool is None


def test_default_workers_is_one_per_core_at_most_two(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from bot.ai import helpers

    for cores, expected in ((0, 1), (1, 1), (2, 2), (16, 2)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, c=cores: set(range(c)), raising=False)
        assert helpers.default_workers() == expected
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    for count, expected in ((None, 1), (1, 1), (8, 2)):
        monkeypatch.setattr(os, "cpu_count", lambda c=count: c)
        assert helpers.default_workers() == expected


# ---------------------------------------------------------------------------------------------
# The evaluation


def test_evaluation_income_is_the_engines_income() -> None:
    """``board_facts`` reads each board once for every player; it must agree with ``rules.income``
    (R73–R77) in every position of random games."""
    checked = 0
    for seed in (2, 3):
        for step in random_game(seed, 2 + seed, holdem=False):
            s = step.after
            if s.finished or step.before.turn % 2:
                continue
            for age in Age:
                f = board_facts(s, age)
                for p in range(len(s.players)):
                    assert f.income[p] == income(s, p, age)[0]
                    checked += 1
    assert checked > 100


def test_evaluation_prefers_more_income_and_more_ecus() -> None:
    s = new_game(["a", "b"], seed=3)
    me = s.active
    richer = s.clone()
    richer.players[me].ecus += 3
    assert score(richer, me) > score(s, me)
    poorer_rival = s.clone()
    poorer_rival.players[1 - me].ecus -= 3
    assert score(poorer_rival, me) > score(s, me)


def test_strong_rivalry_is_aimed_at_the_best_placed_rival() -> None:
    """With ``lead`` = 1 (the strong level), only the best-placed rival counts: taking Ecus from the
    leader gains, taking them from a trailing player does not; with ``lead`` = 0 (greedy) both do."""
    from dataclasses import replace

    from bot.ai.evaluate import DEFAULT
    from bot.ai.levels import STRONG_WEIGHTS

    assert STRONG_WEIGHTS.lead == 1.0 and DEFAULT.lead == 0.0
    s = new_game(["a", "b", "c", "d"], seed=3)
    me = s.active
    leader, trailer = [j for j in range(4) if j != me][:2]
    s.players[leader].ecus += 20
    robbed_leader = s.clone()
    robbed_leader.players[leader].ecus -= 3
    robbed_trailer = s.clone()
    robbed_trailer.players[trailer].ecus -= 3
    w = replace(DEFAULT, lead=1.0)
    assert score(robbed_leader, me, w) == pytest.approx(score(s, me, w) + 3 * w.rivalry)
    assert score(robbed_trailer, me, w) == pytest.approx(score(s, me, w))
    assert score(robbed_trailer, me) > score(s, me)


def test_bot_ai_imports_no_discord_storage_or_asyncio() -> None:
    allowed = {"rules", "bot"} | set(sys.stdlib_module_names)
    forbidden = {"discord", "aiosqlite", "asyncio"}
    for path in AI_DIR.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                root = name.split(".")[0]
                assert root not in forbidden, f"{path.name} imports {name}"
                assert root in allowed, f"{path.name} imports {name}"
