"""Helpers for scenario tests written in the position/action notation (docs/notation.md)."""

from __future__ import annotations

import difflib

import pytest

from rules import Age, GameState, RuleError, apply, format_board, format_position, parse_action, parse_position
from rules.events import Event


def play(position: str, actions: str = "") -> tuple[GameState, list[Event]]:
    """Parse a position and apply the actions (one per line, '#' comments allowed)."""
    state = parse_position(position)
    events: list[Event] = []
    for line in actions.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            state, evs = apply(state, parse_action(line, state))
            events.extend(evs)
    return state, events


def refused(position: str, actions: str, code: str, rule: str | None = None) -> RuleError:
    """The last action is refused with ``code`` (and ``rule``); earlier ones are accepted. The state is
    left unchanged by the refusal."""
    lines = [ln for ln in (x.split("#", 1)[0].strip() for x in actions.splitlines()) if ln]
    state, _ = play(position, "\n".join(lines[:-1]))
    before = format_position(state)
    with pytest.raises(RuleError) as info:
        apply(state, parse_action(lines[-1], state))
    assert info.value.code == code, info.value
    if rule is not None:
        assert info.value.rule == rule, info.value
    assert format_position(state) == before
    return info.value


def same_position(actual: GameState, expected: str) -> None:
    """The whole position equals ``expected`` (parsed with the notation's defaults): nothing else changed."""
    want = format_position(parse_position(expected))
    got = format_position(actual)
    if want != got:
        diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "expected", "actual", lineterm=""))
        raise AssertionError("positions differ:\n" + diff)


def board_line(state: GameState, letter: str) -> str:
    """The buildings now on one board (``M``, ``F`` or ``R``), in the notation."""
    return format_board(state, Age.parse(letter))
