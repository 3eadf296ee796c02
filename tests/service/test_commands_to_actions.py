"""Commands to actions: seats, refusals that say why, default payments, undo by replay."""

from __future__ import annotations

import pytest

from bot.play import Refusal, act, action_text, seat_of, start, undo_span
from bot.storage import SeatRecord
from rules import Age, Construct, Exchange, apply, legal_actions, parse_action, parse_position

SEATS = [SeatRecord(101, "Ana", "Red"), SeatRecord(202, "Ben", "White"), SeatRecord(303, "Cy", "Green")]


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
    seat = s.active
    assert undo_span(new, seat, [(action, events)]) == 1
    assert apply(s, action)[0] == new
    ended, end_events, end = act(new, SEATS, user, "end", {})
    with pytest.raises(Refusal, match="Nothing of yours"):  # the turn is over
        undo_span(ended, seat, [(action, events), (end, end_events)])
    exchange = next(a for a in legal_actions(s) if isinstance(a, Exchange))
    drawn, drawn_events = apply(s, exchange)
    with pytest.raises(Refusal, match="drew cards"):  # a draw revealed cards
        undo_span(drawn, seat, [(exchange, drawn_events)])


def test_seat_of_ignores_ai_seats() -> None:
    seats = [*SEATS, SeatRecord(101, "Bot", "Blue", ai_level="greedy")]
    assert seat_of(seats, 101) == 0


JUNCTION = """
map: plain 15x12
players: Red White Green
active: Green
Green: hand=CC
M: Keep[Red]@A1 Watchtower[Red]@A3 Chapel[Red]@B3 Keep[White]@D1 Chapel[White]@D3
"""


def test_undo_takes_back_an_action_with_the_answers_given_to_its_questions() -> None:
    """R61, A23: Green's Hamlet joins two domains; White answers where the smaller building goes. Green
    may take back the Hamlet, and White's answer goes with it (nothing hidden was revealed)."""
    s0 = parse_position(JUNCTION)
    build = parse_action("Green build Hamlet C2 on M pay C 1+0", s0)
    s1, e1 = apply(s0, build)
    assert s1.pending is not None and s1.pending.decision.player == 1
    answer = parse_action("White choose D2", s1)
    s2, e2 = apply(s1, answer)
    done = [(build, e1), (answer, e2)]
    assert undo_span(s2, 2, done) == 2  # the Hamlet and White's answer
    assert undo_span(s1, 2, done[:1]) == 1  # with the question still open, the Hamlet alone
    with pytest.raises(Refusal, match="Nothing of yours"):
        undo_span(s2, 1, done)  # White cannot take back Green's action
    with pytest.raises(Refusal, match="Nothing to undo"):
        undo_span(s0, 2, [])


def test_without_age_the_one_possible_board_is_used_and_two_are_asked_about() -> None:
    pos = "map: plain 15x12\nplayers: Red White Green\nRed: hand=MMRC pawns=M,F\n"
    both = parse_position(pos)
    with pytest.raises(Refusal) as asked:
        act(both, SEATS, 101, "build", {"kind": "Watchtower", "cell": "C4"})
    assert "say which with `age:`" in str(asked.value) and "'on M'" not in str(asked.value)
    faith_taken = parse_position(pos + "F: Chapel[White]@C4\n")
    new, _, action = act(faith_taken, SEATS, 101, "build", {"kind": "Watchtower", "cell": "C4"})
    assert isinstance(action, Construct) and action.age is Age.MIGHT
    assert new.boards[Age.MIGHT].at(new.map.index(action.origin)) is not None
    with pytest.raises(Refusal, match="Castle"):  # legal on neither board: the first pawn's board says why
        act(both, SEATS, 101, "build", {"kind": "Castle", "cell": "C4"})
