"""Commands to actions: seats, refusals that say why, default payments, undo by replay."""

from __future__ import annotations

import pytest

from bot.play import Refusal, Seat, act, action_text, can_undo, replay, seat_of, start
from rules import Age, Colour, Construct, legal_actions

SEATS = [Seat(101, "Ana", Colour.RED), Seat(202, "Ben", Colour.WHITE), Seat(303, "Cy", Colour.GREEN)]


def game():  # type: ignore[no-untyped-def]
    s = start(SEATS, seed=1)
    return s, SEATS[s.active].user_id


def test_action_text_from_slash_options() -> None:
    assert action_text("build", {"kind": "Keep", "cell": "b2", "age": "M", "pay": None}) == "build Keep b2 on M"
    assert action_text("build", {"kind": "Keep", "cell": "B2", "age": None}) == "build Keep B2"
    assert action_text("upgrade", {"cell": "B2", "age": "F", "kind": "Castle", "at": "A1", "pay": "MM 1+1"}) == (
        "upgrade B2 on F to Castle at A1 pay MM 1+1")
    assert action_text("end", {"discard": "MC"}) == "end discard MC"
    with pytest.raises(Refusal, match="needs the option cell"):
        action_text("build", {"kind": "Keep"})


def test_r11_r72_only_the_seated_active_player_may_act_and_is_told_why() -> None:
    s, user = game()
    with pytest.raises(Refusal, match="not playing in this game"):
        act(s, SEATS, 999, "end", {})
    other = next(seat.user_id for seat in SEATS if seat.user_id != user)
    with pytest.raises(Refusal, match=r"It is .* turn, not yours"):
        act(s, SEATS, other, "end", {})
    with pytest.raises(Refusal, match="no decision"):
        act(s, SEATS, user, "choose", {"cell": "A1"})


def test_bad_cells_and_rule_errors_come_back_as_sentences() -> None:
    s, user = game()
    with pytest.raises(Refusal, match="C44 is not a cell: columns A–O, rows 1–12"):
        act(s, SEATS, user, "build", {"kind": "Hamlet", "cell": "C44", "age": "M"})
    with pytest.raises(Refusal, match="Nothing can be constructed on Reason"):
        act(s, SEATS, user, "build", {"kind": "Hamlet", "cell": "C9", "age": "R"})


def test_a_legal_build_with_the_default_payment_is_played() -> None:
    s, user = game()
    build = next(a for a in legal_actions(s) if isinstance(a, Construct) and a.kind.level == 1)
    new, events, action = act(s, SEATS, user, "build",
                              {"kind": build.kind.value, "cell": str(build.origin), "age": build.age.letter})
    assert isinstance(action, Construct) and action.origin == build.origin
    assert new.boards[Age.MIGHT if build.age is Age.MIGHT else Age.FAITH].at(s.map.index(build.origin)) is not None
    assert can_undo(new, events, action) is None
    assert replay(s, [action]) == new
    ended, events, end = act(new, SEATS, user, "end", {})
    assert can_undo(ended, events, end) is not None  # a draw revealed cards


def test_seat_of_ignores_ai_seats() -> None:
    seats = [*SEATS, Seat(101, "Bot", Colour.BLUE, ai="greedy")]
    assert seat_of(seats, 101) == 0
