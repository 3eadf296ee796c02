"""AI players for Tiempo: ``choose_action(state, seat, level, seed=...)`` returns one legal action.

Pure CPU code (no Discord, no storage, no asyncio): the bot calls it in a worker process (or a thread).

    LEVELS = ("random", "greedy", "strong")
    action = choose_action(state, seat, "strong", seed=game_seed + state.turn)

It is called whenever ``seat`` must act — the active player with no decision pending, or the
player a pending decision is addressed to (answered with ``Choose``) — and again after each action
until the seat's turn passes (an ``EndTurn``).

**What it sees.** The first thing it does is project the state for ``seat``
(``rules.serial.view_for``): other hands and the deck order are hidden, only the multiset of unseen
cards and the hand sizes are known. Look-ahead deals the unseen cards at random from its own
``random.Random``, seeded from ``seed`` and the view — never the global generator.

**Determinism.** With ``iterations`` given, the result depends only on the visible information,
``seed``, ``level`` and ``iterations`` — given the same earlier calls in the turn (see the plan cache
below); with the cache empty (``clear_cache()``), only on those four. With a wall-clock
``budget_s`` the ``strong`` level's result also depends on the machine's speed.

**Budget.** ``budget_s`` is for a whole turn. ``strong`` plans the rest of its turn at once and
remembers the plan (a small, thread-safe cache keyed by the view it expects to see before each step,
the seat, the level, the seed and ``iterations``), so the later calls of the turn are answered from
the plan at no cost. Planning takes at most 65% of ``budget_s`` at the start of a turn and 20% when it
has to plan again in the middle of one (after a paid exchange, whose draw it could not foresee, or
after another player's decision), and never more than 85% of ``budget_s`` in all for one turn (the
time spent is added up per turn, so this holds even if the caller passes a new seed at every call;
the plan is only found again with the same seed). Decisions take a few milliseconds.
"""

from __future__ import annotations

import random
import threading
import time
from collections import OrderedDict

from rules import Action, Exchange, GameState, RuleError, apply

from .common import end_turn, fingerprint, mix_seed, project
from .levels import decide, greedy_action, random_action, strong_plan

LEVELS: tuple[str, ...] = ("random", "greedy", "strong")

#: shares of ``budget_s`` (per turn) for the strong level's plan at the start of a turn and for a
#: new plan in the middle of one
START_SHARE = 0.65
REPLAN_SHARE = 0.2
#: the most of ``budget_s`` one turn may spend planning in all
TURN_CAP = 0.85

_CACHE_SIZE = 512
_cache: OrderedDict[tuple[object, ...], Action] = OrderedDict()
#: planning time already spent in a turn (``_turn_key``), so that a turn keeps to its budget even
#: when the caller passes a new seed at every call
_spent: OrderedDict[tuple[object, ...], tuple[float, float]] = OrderedDict()
#: a turn's planning time is added up over calls at most this long after its first planning
TURN_WINDOW_S = 20.0
_lock = threading.Lock()


def clear_cache() -> None:
    """Forget the remembered plans (tests use it to check that a decision depends only on the view)."""
    with _lock:
        _cache.clear()
        _spent.clear()


def _remember(key: tuple[object, ...], action: Action) -> None:
    with _lock:
        _cache[key] = action
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


def _recall(key: tuple[object, ...]) -> Action | None:
    with _lock:
        return _cache.get(key)


def choose_action(
    state: GameState,
    seat: int,
    level: str,
    *,
    seed: int,
    budget_s: float = 2.0,
    iterations: int | None = None,
    workers: int = 1,
) -> Action:
    """One legal action for ``seat`` at ``level`` (one of ``LEVELS``). Raises ``ValueError`` for an
    unknown level or when ``seat`` has nothing to do (not its turn and no decision of its own).
    ``workers`` is how many processes the strong level's play-outs may use at once (this one and
    ``workers - 1`` helpers, ``bot.ai.helpers``); the action does not depend on it."""
    if level not in LEVELS:
        raise ValueError(f"{level!r} is not an AI level: use one of {', '.join(LEVELS)}")
    if state.finished:
        raise ValueError("the game is over")
    if state.waiting_on != seat:
        raise ValueError(f"seat {seat} has nothing to do now (the game waits on seat {state.waiting_on})")
    view = project(state, seat)
    fp = fingerprint(view.state)
    rng = random.Random(mix_seed(seed, level, iterations, seat, fp))
    if level == "random":
        return random_action(view, seat, rng)
    if level == "greedy":
        return greedy_action(view, seat, rng)

    key_tail = (seat, level, seed, iterations)
    cached = _recall((fp, *key_tail))
    if cached is not None:
        return cached
    if view.state.pending is not None:
        return decide(view, seat, rng, samples=2)
    s = view.state
    fresh_turn = not (s.acted or s.exchanged or s.swapped)
    turn = _turn_key(s, seat)
    now = time.monotonic()
    with _lock:
        first, spent = _spent.get(turn, (now, 0.0))
    if now - first > TURN_WINDOW_S:  # the same key long after: another game's turn
        first, spent = now, 0.0
    time_s = max(0.0, min(budget_s * (START_SHARE if fresh_turn else REPLAN_SHARE), budget_s * TURN_CAP - spent))
    began = time.perf_counter()
    actions = strong_plan(view, seat, rng, time_s=time_s, iterations=iterations, workers=workers)
    with _lock:
        _spent[turn] = (first, spent + time.perf_counter() - began)
        _spent.move_to_end(turn)
        while len(_spent) > _CACHE_SIZE:
            _spent.popitem(last=False)
    return _store_plan(view.state, seat, actions, key_tail)


def _turn_key(s: GameState, seat: int) -> tuple[object, ...]:
    """What identifies one turn of one game well enough to add up the planning time spent in it:
    the seats, the map, the first player, the turn counter, and what the other players cannot change during this
    turn (their Ecus and pawns). Two games can still share a key (two first turns); entries older
    than ``TURN_WINDOW_S`` are therefore taken for another game's."""
    others = tuple((p.ecus, tuple(p.pawns)) for i, p in enumerate(s.players) if i != seat)
    return (tuple((p.name, p.colour) for p in s.players), s.map.name, s.first, s.turn, seat, others)


def _store_plan(s: GameState, seat: int, actions: list[Action], key_tail: tuple[object, ...]) -> Action:
    """Remember the plan under the view expected before each of its steps; return its first step."""
    if not actions:
        return end_turn(s, seat)
    first = actions[0]
    cur = s
    for a in actions:
        _remember((fingerprint(project(cur, seat).state), *key_tail), a)
        if isinstance(a, Exchange):
            return first
        try:
            cur, _ = apply(cur, a)
        except RuleError:
            return first
        if cur.pending is not None and cur.pending.decision.player != seat:
            return first
    if cur.pending is None and not cur.finished and cur.active == seat:
        _remember((fingerprint(project(cur, seat).state), *key_tail), end_turn(cur, seat))
    return first


__all__ = ["LEVELS", "choose_action", "clear_cache"]
