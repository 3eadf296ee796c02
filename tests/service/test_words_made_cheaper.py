"""Words made a cheaper way read, character for character, as they did, over every position of seeded
random games (2-5 players, with and without Hold'em, on the tests' map and the default one): the private
hand's "You can:" (``describe_hand``) made from ``rules.openings`` as when it was made from the
legal-action listing; what an action costs its own player (``harms``) counted on the boards it changed,
or read from the action's economy change, as when it was counted on every board. And the scenes of the
cards drawn with an economy worked out from an earlier position (a preview's from the position it is
played on, an end of turn's from the turn's start) are those of a fresh count."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bot.discord import markdown
from bot.service.steps import buildings_lost, harms, income_lost
from bot.texts import _ACTION_WORDS, describe_hand
from render import make_scene
from rules import (
    Age,
    Choose,
    Construct,
    Demolish,
    GameState,
    Kind,
    Populate,
    Renovate,
    Upgrade,
    apply,
    economy,
    economy_change,
    from_json,
    income,
    legal_actions,
    load_map,
    to_json,
    with_article,
)
from rules import events as ev
from rules.events import Event
from tests.support.gameplay import random_game


def what_you_can_do_listed(actions: Sequence[object]) -> list[str]:
    """The "You can:" lines as they were made from ``legal_actions(s, outline=True)`` (before
    ``rules.openings``)."""
    where: dict[type, dict[Age, list[str]]] = {}
    kinds: set[type] = set()
    for a in actions:
        kinds.add(type(a))
        if isinstance(a, Construct):
            age, item = a.age, f"{a.kind.value} ({a.kind.level}×{a.kind.level})"
        elif isinstance(a, (Upgrade, Demolish)):
            age, item = a.age, str(a.target)
        elif isinstance(a, (Populate, Renovate)):
            age, item = Age.REASON, str(a.target)
        else:
            continue
        items = where.setdefault(type(a), {}).setdefault(age, [])
        if item not in items:
            items.append(item)

    def some(items: list[str], limit: int = 4) -> str:
        shown = items[:limit] + ([f"{len(items) - limit} more"] if len(items) > limit else [])
        return ", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else shown[0]

    order = [f"{k.value} ({k.level}×{k.level})" for k in Kind]
    out: list[str] = []
    for t, word in _ACTION_WORDS:
        if t not in kinds:
            continue
        if t is Construct:
            word = "build " + "; ".join(f"{with_article(some(sorted(names, key=order.index), 9))} on {age.title}"
                                        for age, names in sorted(where[t].items()))
        elif t in (Populate, Renovate):
            word += " " + some(where[t][Age.REASON])
        elif t in where:
            word += " " + "; ".join(f"{some(cells)} on {age.title}" for age, cells in sorted(where[t].items()))
        out.append(word)
    return out


def assert_hand_as_listed(s: GameState) -> str:
    """``describe_hand`` of the player whose turn it is, and its "You can:" as the listing made it."""
    hand = markdown(describe_hand(s, s.active))
    can = what_you_can_do_listed(legal_actions(s, outline=True))
    cards = [c for c in can if c.split()[0] in ("build", "upgrade", "demolish", "populate", "renovate")]
    others = [c for c in can if c not in cards]
    expected = [f"• {c}" for c in cards] + (["• " + " · ".join(others)] if others else [])
    lines = hand.split("\n")
    start = next(i for i, line in enumerate(lines) if line.endswith("You can:")) + 1
    assert lines[start:start + len(expected)] == expected
    assert start + len(expected) == len(lines) or not lines[start + len(expected)].startswith("•")
    return hand


def test_the_hand_of_a_new_game_says_what_the_listing_said() -> None:
    s = next(iter(random_game(1, 3, False))).before
    assert "• build" in assert_hand_as_listed(s)


@pytest.mark.slow
@pytest.mark.parametrize("map_name", ["test", "default"])
@pytest.mark.parametrize(("seed", "players", "holdem"), [(seed, 2 + seed % 4, seed % 3 == 2) for seed in range(6)])
def test_the_hand_says_what_the_listing_said_in_every_position(seed: int, players: int, holdem: bool,
                                                                map_name: str) -> None:
    told = 0
    for step in random_game(seed, players, holdem, load_map() if map_name == "default" else None):
        s = from_json(to_json(step.after))  # (as the bot reads a game)
        if s.finished or s.pending is not None:
            continue
        told += "more" in assert_hand_as_listed(s)
    assert told  # (lists long enough to be cut short)


def harms_on_every_board(before: GameState, after: GameState, player: int, events: Sequence[Event]) -> list[str]:
    """``harms`` as it was: the income lost counted on all three boards (and, as ``harms`` does, an
    answer's loss that every answer to its question would cause left out: repeated here, so this test
    checks the income part, and ``test_r64_an_answer_is_not_marked_for_what_every_answer_does`` the
    rest)."""
    out = buildings_lost(player, events)
    d = before.pending.decision if before.pending is not None else None
    if d is not None and d.player == player:
        out = [h for h in out if not all(h in buildings_lost(player, apply(before, Choose(player, o))[1])
                                         for o in d.options)]
    if before.pending is not None or after.pending is not None:
        return out
    was, now = (sum(income(s, player, age)[0] for age in Age) for s in (before, after))
    return out + income_lost(was, now)


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "players", "holdem"), [(seed, 3 + seed % 3, seed % 2 == 1) for seed in range(6)])
def test_the_harms_of_every_action_read_as_when_every_board_was_counted(seed: int, players: int, holdem: bool) -> None:
    """Every action of every fourth position (as the turn panel previews them), and every action played."""
    lowered = 0
    for n, step in enumerate(random_game(seed, players, holdem, load_map() if seed % 2 else None)):
        tried = [(step.action, step.after, step.events)]
        if n % 4 == 0:
            tried += [(a, *apply(step.before, a)) for a in legal_actions(step.before, outline=True)]
        for action, after, events in tried:
            for player in range(players):
                found = harms(step.before, after, player, events)
                assert found == harms_on_every_board(step.before, after, player, events), action
                change = economy_change(step.before, after, events)  # (as a list of places has it)
                assert harms(step.before, after, player, events, change) == found, action
                lowered += any(h.startswith("lowers your income") for h in found)
    assert lowered  # (some actions lower someone's income)


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "players", "holdem"), [(seed, 2 + seed % 4, seed % 2 == 0) for seed in range(4)])
def test_cards_drawn_with_an_economy_from_an_earlier_position_show_what_a_fresh_count_shows(
        seed: int, players: int, holdem: bool) -> None:
    """Every action of every third position (previews) and every turn's end."""
    began: GameState | None = None
    turn: list[Event] = []
    for n, step in enumerate(random_game(seed, players, holdem, load_map() if seed % 2 else None)):
        began = step.before if began is None else began
        turn += step.events
        tried = [(step.before, step.after, step.events)]
        if any(isinstance(e, ev.TurnEnded) for e in step.events):
            tried.append((began, step.after.clone(), turn))
            began, turn = None, []
        if n % 3 == 0:
            tried += [(step.before, *apply(step.before, a)) for a in legal_actions(step.before, outline=True)]
        for before, after, events in tried:
            economy(after, since=(before, economy(before)))
            for viewer in (None, 0):
                assert make_scene(after, viewer, events) == make_scene(after.clone(), viewer, events)
