"""The AI players: one class per level behind the ``AIPlayer`` protocol, the one list of levels
(``LEVELS``), and ``Players``, the players of one process.

A player is asked for one seat's action at a time::

    player = make_player("strong", workers=2)
    action = player.choose(state, seat, seed=game_seed + state.turn)        # budget_s=2.0 per turn
    ...
    player.close()                                                          # stops its helpers

It is asked whenever ``seat`` must act — the active player with no decision pending, or the player
a pending decision is addressed to (answered with ``Choose``) — and again after each action until
the seat's turn passes (an ``EndTurn``). It raises ``ValueError`` when ``seat`` has nothing to do.

**What it sees.** The first thing it does is project the state for ``seat`` (``rules.view_for``):
other hands and the deck order are hidden, only the multiset of unseen cards and the hand sizes are
known. Look-ahead deals the unseen cards at random from its own ``random.Random``, seeded from
``seed``, the level, ``iterations``, the seat and the view — never the global generator.

**Determinism.** With ``iterations`` given, the action depends only on the visible information,
``seed``, the level and ``iterations`` — given the same earlier calls to the same player (the strong
player's plan cache, below); a new player depends only on those four. With a wall-clock
``budget_s`` the strong player's action also depends on the machine's speed.

**What a player owns.** Random and greedy players own nothing. A strong player owns its plan cache,
its per-turn planning-time ledger, the typical length of its play-outs, and its helper processes
(``bot.ai.helpers.Helpers``, spawned at first use when it was made for more than one process,
stopped by ``close``). Two strong players share nothing.
"""

from __future__ import annotations

import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rules import Action, Exchange, GameState, RuleError, View, apply

from .common import end_turn, fingerprint, mix_seed, project
from .helpers import MAX_WORKERS, Helpers
from .levels import Clock, PlayoutTimes, Rounds, decide, greedy_action, play_rounds, random_action, strong_plan
from .search import Analysis, analyse, analyse_view, playout_kind, reach


class AIPlayer(Protocol):
    """An AI player of one level: ``choose`` returns one legal action for ``seat``."""

    level: str

    def choose(self, state: GameState, seat: int, *, seed: int, budget_s: float = 2.0,
               iterations: int | None = None) -> Action:
        """One legal action for ``seat``; ``budget_s`` is for a whole turn, ``iterations`` (strong
        only) a fixed number of play-outs instead. Raises ``ValueError`` when ``seat`` has nothing
        to do (the game is over, or it waits on another seat)."""
        ...

    def close(self) -> None:
        """Let go of what the player holds (a strong player's helper processes)."""
        ...


def look(state: GameState, seat: int, level: str, seed: int, iterations: int | None) -> tuple[View, str, random.Random]:
    """The seat's view, its fingerprint and the generator a level draws from; ``ValueError`` if
    ``seat`` has nothing to do."""
    if state.finished:
        raise ValueError("the game is over")
    if state.waiting_on != seat:
        raise ValueError(f"seat {seat} has nothing to do now (the game waits on seat {state.waiting_on})")
    view = project(state, seat)
    fp = fingerprint(view.state)
    return view, fp, random.Random(mix_seed(seed, level, iterations, seat, fp))


class RandomPlayer:
    """The ``random`` level: uniform among the legal actions of a kind, the kinds weighted so that
    games move on (``levels.random_action``)."""

    level = "random"

    def choose(self, state: GameState, seat: int, *, seed: int, budget_s: float = 2.0,
               iterations: int | None = None) -> Action:
        view, _, rng = look(state, seat, self.level, seed, iterations)
        return random_action(view, seat, rng)

    def close(self) -> None:
        pass


class GreedyPlayer:
    """The ``greedy`` level: the best immediate gain by the evaluation (``levels.greedy_action``)."""

    level = "greedy"

    def choose(self, state: GameState, seat: int, *, seed: int, budget_s: float = 2.0,
               iterations: int | None = None) -> Action:
        view, _, rng = look(state, seat, self.level, seed, iterations)
        return greedy_action(view, seat, rng)

    def close(self) -> None:
        pass


#: strong: shares of ``budget_s`` (per turn) for the plan at the start of a turn and for a new plan
#: in the middle of one
START_SHARE = 0.65
REPLAN_SHARE = 0.2
#: strong: the most of ``budget_s`` one turn may spend planning in all
TURN_CAP = 0.85
#: master: the share of ``budget_s`` for the search at the start of a turn (a turn's calls after it
#: are answered from the plan; the median turn stays under 0.75 × ``budget_s``: the longer turns,
#: ``MASTER_REACH_SHARE``, are two of seven)
MASTER_START_SHARE = 0.7
#: master: the share at the start of a turn whose play-outs go on through the next income (``search.reach``:
#: rounds 3 and 6), and the most of ``budget_s`` one turn may spend searching in all: the defaults of
#: ``MasterPlayer.reach_share`` and ``MasterPlayer.turn_cap``. Such a play-out costs about twice a short
#: one, and those turns are where more play-outs change the choice most; two turns of seven, so the
#: median turn keeps to ``MASTER_START_SHARE``. Measured against ``MASTER_START_SHARE`` and strong's
#: ``TURN_CAP`` on two machines (docs/ai.md, "The turns before an income search longer"): +0.029
#: (s.e. 0.017) wins with three players over 392 games, +0.009 (0.018) with four over 348, +0.025
#: (0.066) head to head over 60; the slowest turn 1.9–2.1 s of a 2 s budget
MASTER_REACH_SHARE = 0.9
MASTER_TURN_CAP = 0.95
#: strong: a turn's planning time is added up over calls at most this long after its first planning
TURN_WINDOW_S = 20.0
#: strong: how many planned steps, and how many turns' planning times, a player remembers
CACHE_SIZE = 512


class StrongPlayer:
    """The ``strong`` level (``levels.strong_plan``): plans the rest of its turn at once and
    remembers the plan, so that the later calls of the turn are answered from it at no cost.

    **Budget.** ``budget_s`` is for a whole turn. Planning takes at most ``START_SHARE`` of it at
    the start of a turn and ``REPLAN_SHARE`` when it has to plan again in the middle of one (after a
    paid exchange, whose draw it could not foresee, or after another player's decision), and never
    more than ``TURN_CAP`` of it in all for one turn (the time spent is added up per turn, so this
    holds even if the caller passes a new seed at every call; the plan is only found again with the
    same seed). Decisions take a few milliseconds. Time is read from ``clock``.

    The plan cache is keyed by the view expected before each step, the seat, the seed and
    ``iterations``. With ``workers`` above 1, ``workers - 1`` helper processes play some of the
    play-outs; the action does not depend on how many. Thread-safe."""

    level = "strong"
    start_share = START_SHARE
    replan_share = REPLAN_SHARE
    turn_cap = TURN_CAP

    def __init__(self, *, workers: int = 1, clock: Clock = time.perf_counter) -> None:
        if not 1 <= workers <= MAX_WORKERS:
            raise ValueError(f"a strong player uses 1 to {MAX_WORKERS} processes, not {workers}")
        self.workers = workers
        #: the helper processes of its play-outs (none with one process), spawned at first use
        self.helpers = Helpers(workers - 1, preload=play_rounds.__module__) if workers > 1 else None
        #: the typical length of a play-out in recent plans, by number of players
        self.playout_times = PlayoutTimes()
        self._clock = clock
        self._plans: OrderedDict[tuple[object, ...], Action] = OrderedDict()
        #: planning time already spent in a turn (``_turn_key``): (first planned at, seconds spent)
        self._spent: OrderedDict[tuple[object, ...], tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def choose(self, state: GameState, seat: int, *, seed: int, budget_s: float = 2.0,
               iterations: int | None = None) -> Action:
        view, fp, rng = look(state, seat, self.level, seed, iterations)
        key_tail = (seat, seed, iterations)
        cached = self._recall((fp, *key_tail))
        if cached is not None:
            return cached
        if view.state.pending is not None:
            return decide(view, seat, rng, samples=2)
        s = view.state
        fresh_turn = not (s.acted or s.exchanged or s.swapped)
        turn = _turn_key(s, seat)
        now = self._clock()
        with self._lock:
            first, spent = self._spent.get(turn, (now, 0.0))
        if now - first > TURN_WINDOW_S:  # the same key long after: another game's turn
            first, spent = now, 0.0
        share = self._start_share(s) if fresh_turn else self.replan_share
        time_s = max(0.0, min(budget_s * share, budget_s * self.turn_cap - spent))
        began = self._clock()
        actions = self._plan(view, seat, rng, time_s, iterations)
        with self._lock:
            self._spent[turn] = (first, spent + self._clock() - began)
            self._spent.move_to_end(turn)
            while len(self._spent) > CACHE_SIZE:
                self._spent.popitem(last=False)
        return self._store_plan(view.state, seat, actions, key_tail)

    def _start_share(self, s: GameState) -> float:
        """The share of the budget for the plan at the start of a turn in position ``s``."""
        return self.start_share

    def _plan(self, view: View, seat: int, rng: random.Random, time_s: float, iterations: int | None) -> list[Action]:
        """The plan for the rest of the turn (``levels.strong_plan``)."""
        return strong_plan(view, seat, rng, time_s=time_s, iterations=iterations, helpers=self.helpers,
                           clock=self._clock, times=self.playout_times)

    def start_helpers(self) -> None:
        """Start the helper processes now, not at the first play-outs (which would lose the
        helpers' rounds to their start-up)."""
        if self.helpers is not None:
            self.helpers.start()

    def close(self) -> None:
        """Stop the helper processes for good (the player still plays, alone)."""
        if self.helpers is not None:
            self.helpers.close()

    def _remember(self, key: tuple[object, ...], action: Action) -> None:
        with self._lock:
            self._plans[key] = action
            self._plans.move_to_end(key)
            while len(self._plans) > CACHE_SIZE:
                self._plans.popitem(last=False)

    def _recall(self, key: tuple[object, ...]) -> Action | None:
        with self._lock:
            return self._plans.get(key)

    def _store_plan(self, s: GameState, seat: int, actions: list[Action], key_tail: tuple[object, ...]) -> Action:
        """Remember the plan under the view expected before each of its steps; return its first step."""
        if not actions:
            return end_turn(s, seat)
        first = actions[0]
        cur = s
        for a in actions:
            self._remember((fingerprint(project(cur, seat).state), *key_tail), a)
            if isinstance(a, Exchange):
                return first
            try:
                cur, _ = apply(cur, a)
            except RuleError:
                return first
            if cur.pending is not None and cur.pending.decision.player != seat:
                return first
        if cur.pending is None and not cur.finished and cur.active == seat:
            self._remember((fingerprint(project(cur, seat).state), *key_tail), end_turn(cur, seat))
        return first


class MasterPlayer(StrongPlayer):
    """The ``master`` level (``search``): information-set Monte Carlo tree search over whole-turn
    plans from the seat's view, with progressive widening and play-outs cut at the seat's next turn.
    It plans and remembers its plans as ``StrongPlayer`` does (its own budget shares: ``start_share``,
    ``reach_share``, ``turn_cap``), in one process:
    ``workers`` is accepted for the common signature and not used. ``analyse`` is the interface
    for a hint or a review (``search.Analysis``)."""

    level = "master"
    start_share = MASTER_START_SHARE
    reach_share = MASTER_REACH_SHARE
    turn_cap = MASTER_TURN_CAP

    def __init__(self, *, workers: int = 1, clock: Clock = time.perf_counter) -> None:
        super().__init__(workers=1, clock=clock)

    def _start_share(self, s: GameState) -> float:
        """More of the budget for a turn whose play-outs go on through the next income."""
        return self.reach_share if reach(s) is not None else self.start_share

    def _plan(self, view: View, seat: int, rng: random.Random, time_s: float, iterations: int | None) -> list[Action]:
        kind = playout_kind(view.state)  # players, and how far it reaches: a longer reach, a longer play-out
        typical = self.playout_times.typical(kind) if iterations is None else 0.0
        analysis, found = analyse_view(view, seat, rng, time_s=time_s, iterations=iterations, clock=self._clock,
                                       typical=typical)
        if iterations is None and found is not None:
            self.playout_times.record(kind, typical, Rounds(done=found.playouts, spent=found.spent))
        return list(analysis.best.actions)

    def analyse(self, state: GameState, seat: int, *, seed: int, budget_s: float = 2.0,
                iterations: int | None = None, extra: Sequence[Sequence[Action]] = (), deals: int = 0) -> Analysis:
        """``search.analyse`` on this player's clock (see there)."""
        return analyse(state, seat, seed=seed, budget_s=budget_s, iterations=iterations, clock=self._clock,
                       extra=extra, deals=deals)


def _turn_key(s: GameState, seat: int) -> tuple[object, ...]:
    """What identifies one turn of one game well enough to add up the planning time spent in it:
    the seats, the map, the first player, the turn counter, and what the other players cannot change
    during this turn (their Ecus and pawns). Two games can still share a key (two first turns);
    entries older than ``TURN_WINDOW_S`` are therefore taken for another game's."""
    others = tuple((p.ecus, tuple(p.pawns)) for i, p in enumerate(s.players) if i != seat)
    return (tuple((p.name, p.colour) for p in s.players), s.map.name, s.first, s.turn, seat, others)


# ---------------------------------------------------------------------------------------------
# The levels


@dataclass(frozen=True)
class Level:
    """One AI level: its name (what commands and settings say), the name its seats carry in a game,
    a few words on how it plays, and how to make a player of it for up to ``workers`` processes whose
    budget is read from ``clock`` (``make(workers, clock)``)."""

    name: str
    display: str
    description: str
    make: Callable[[int, Clock], AIPlayer]


#: the levels, weakest first: every list of levels (commands, options, the service) is made from it
LEVELS: tuple[Level, ...] = (
    Level("random", "Dice", "at random", lambda workers, clock: RandomPlayer()),
    Level("greedy", "Magpie", "sensible", lambda workers, clock: GreedyPlayer()),
    Level("strong", "Oracle", "looks ahead", lambda workers, clock: StrongPlayer(workers=workers, clock=clock)),
    Level("master", "Sibyl", "searches whole turns", lambda workers, clock: MasterPlayer(workers=workers, clock=clock)),
)
LEVEL_NAMES: tuple[str, ...] = tuple(lv.name for lv in LEVELS)
#: the level a lobby seats unless told
DEFAULT_LEVEL = "greedy"
#: the levels as a lobby offers them: the default first, the one that plays at random last
OFFERED: tuple[Level, ...] = tuple(sorted(LEVELS, key=lambda lv: (lv.name != DEFAULT_LEVEL, lv.name == "random")))


def get_level(name: str) -> Level:
    """The level called ``name``; ``ValueError`` with a sentence naming the levels if there is none."""
    for lv in LEVELS:
        if lv.name == name:
            return lv
    raise ValueError(f"{name!r} is not an AI level: the levels are {', '.join(LEVEL_NAMES[:-1])} and "
                     f"{LEVEL_NAMES[-1]}")


def make_player(level: str, *, workers: int = 1, clock: Clock = time.perf_counter) -> AIPlayer:
    """A new player of ``level`` whose play-outs may use ``workers`` processes (strong only) and
    whose budget is read from ``clock`` (strong and master; ``time.perf_counter`` by default, a
    benchmark may give ``time.thread_time``: a budget of CPU seconds)."""
    return get_level(level).make(workers, clock)


class Players:
    """The AI players of one process: one per level, made when first asked for and kept until
    ``close``, so that a strong player's plans, play-out times and helpers last from one call to
    the next. ``choose`` is how the table service and self-play ask for an action. Their budgets
    are read from ``clock`` (``make_player``). Thread-safe."""

    def __init__(self, *, workers: int = 1, clock: Clock = time.perf_counter) -> None:
        self.workers = workers
        self.clock = clock
        self._players: dict[str, AIPlayer] = {}
        self._closed = False
        self._lock = threading.Lock()

    def player(self, level: str) -> AIPlayer:
        """The player of ``level``; ``ValueError`` for an unknown level."""
        with self._lock:
            if self._closed:
                raise RuntimeError("these AI players are closed")
            player = self._players.get(level)
            if player is None:
                player = self._players[level] = make_player(level, workers=self.workers, clock=self.clock)
            return player

    def choose(self, state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0,
               iterations: int | None = None) -> Action:
        """``seat``'s action by the player of ``level`` (``AIPlayer.choose``)."""
        return self.player(level).choose(state, seat, seed=seed, budget_s=budget_s, iterations=iterations)

    def close(self) -> None:
        """Close every player (a strong player's helpers stop); no player is made afterwards."""
        with self._lock:
            self._closed = True
            players, self._players = list(self._players.values()), {}
        for player in players:
            player.close()


__all__ = [
    "LEVELS",
    "LEVEL_NAMES",
    "AIPlayer",
    "GreedyPlayer",
    "Level",
    "MasterPlayer",
    "Players",
    "RandomPlayer",
    "StrongPlayer",
    "get_level",
    "make_player",
]
