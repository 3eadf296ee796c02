"""The economy query (``rules.economy``): who controls each domain and what it would pay now (R74–R78,
A4, A34), each player's income outlook (R21, R73, R77), and what an action changes in both (R30, R53,
R60, R63–R65). The digest's income examples (T19–T21) are checked domain by domain, and over random
games the query agrees with the income the engine pays."""

from __future__ import annotations

import pytest

from rules import (
    Age,
    Cell,
    HarmKind,
    action_economy,
    apply,
    economy,
    economy_change,
    income,
    parse_action,
    parse_position,
    to_json,
)
from rules.events import TurnEnded
from tests.support.gameplay import random_game
from tests.support.scenario import play
from tests.support.worked_examples import T13, T19, T20, T21

PLAIN = "map: plain 15x12\n"


def _summary(state_text: str, age: Age) -> list[tuple[str, tuple[int, ...], int]]:
    e = economy(parse_position(state_text))
    return [(str(d.name), d.controllers, d.value) for d in e.domains[age]]


def test_t19_r74_each_might_domain_pays_the_owner_of_its_top_military_building() -> None:
    """T19: Red's Keep heads domain A (7) and her Watchtower domain B (4); Green's Watchtower is not the
    top of A, so Green controls nothing (R74)."""
    e = economy(parse_position(T19))
    assert [(str(d.name), d.controllers, d.value) for d in e.domains[Age.MIGHT]] == [("A1", (0,), 7), ("A8", (0,), 4)]
    a = e.domain_at(Age.MIGHT, Cell.parse("F2"))
    assert a is not None and a.head is not None and str(a.head.origin) == "A1" and a.head.kind.value == "Keep"
    assert e.outlooks[0].by_age == (11, 0, 0) and e.outlooks[0].total == 11
    assert e.outlooks[2].by_age == (0, 0, 0)  # Green


def test_t19b_r73_the_outlook_counts_only_boards_with_a_pawn() -> None:
    e = economy(parse_position(T19 + "Red: pawns=F,F\n"))
    assert e.outlooks[0].by_age == (11, 0, 0)  # what Might's domains would pay her
    assert e.outlooks[0].present == (False, True, False)
    assert e.outlooks[0].collect == (0, 0, 0) and e.outlooks[0].total == 0


def test_t20_r75_faith_is_controlled_by_the_top_religious_building() -> None:
    """T20: Green's Abbey heads the one Faith domain, worth City 3 + Town 2 + Hamlet 1; Red's Monastery
    and Keep control nothing there."""
    e = economy(parse_position(T20))
    [d] = e.domains[Age.FAITH]
    assert d.controllers == (0,) and d.value == 6 and d.head is not None and d.head.kind.value == "Abbey"
    assert e.outlooks[0].collect == (0, 6, 0) and e.outlooks[1].total == 0


def test_t21_r76_a4_a34_reason_is_controlled_by_the_cube_majority() -> None:
    """T21: White's two cubes against Red's one: White controls, worth 2 + 2 + 1 (ruins count one less, A4)."""
    assert _summary(T21, Age.REASON) == [("B2", (0,), 5)]
    e = economy(parse_position(T21))
    assert e.outlooks[0].total == 5 and e.outlooks[1].total == 0


def test_t21b_r76_a34_tied_majorities_both_control_and_each_collects_in_full() -> None:
    pos = T21.replace("Monastery-ruin@D4", "Monastery-ruin@D4 PH@C4{Red:1}")
    assert _summary(pos, Age.REASON) == [("B2", (0, 1), 5)]
    e = economy(parse_position(pos))
    assert e.outlooks[0].total == 5 and e.outlooks[1].total == 5


def test_r74_r76_a34_control_without_value_and_domains_that_pay_no_one() -> None:
    """A Keep with no Civil neighbour controls a domain worth 0 (R74); a Civil domain with no Military
    building pays no one (A34); on Reason the majority controls a domain without ruins, worth 0 (R76),
    and a domain without cubes has no controller (A34); renovation markers are not population."""
    pos = PLAIN + "M: Keep[Red]@A1 Town@E1\nR: Town@A1{White:1} Castle-ruin@E1+Red Town@H1\n"
    assert _summary(pos, Age.MIGHT) == [("A1", (0,), 0), ("E1", (), 0)]
    assert _summary(pos, Age.REASON) == [("A1", (1,), 0), ("E1", (), 0)]


def test_r21_the_next_income_round_is_4_then_7() -> None:
    assert economy(parse_position(PLAIN + "round: 2\n")).next_income == 4
    assert economy(parse_position(PLAIN + "round: 4\n")).next_income == 4
    assert economy(parse_position(PLAIN + "round: 5\n")).next_income == 7


def test_r74_a_watchtower_joining_a_civil_domain_takes_its_taxes() -> None:
    """Red's Watchtower at F2 joins the printed hamlet's domain at F3 (R41): Red now controls it and
    would collect 1 more Ecu from Might (R74)."""
    pos = PLAIN + "hamlets: F3\nRed: hand=M\n"
    s = parse_position(pos)
    change = action_economy(s, parse_action("Red build Watchtower F2 on M pay M", s))
    shift = change.shift_at(Age.MIGHT, Cell.parse("F2"))
    assert shift is not None and not shift.founded and [str(d.name) for d in shift.before] == ["F3"]
    assert shift.after is not None and shift.after.controllers == (0,) and shift.after.value == 1
    assert shift.gained == (0,) and shift.lost == ()
    assert change.delta(0) == (1, 0, 0) and change.total_delta(0) == 1
    assert change.harms == () and not change.pending


def test_r41_r74_a_watchtower_alone_founds_a_domain_worth_nothing() -> None:
    s = parse_position(PLAIN + "Red: hand=M\n")
    change = action_economy(s, parse_action("Red build Watchtower F2 on M pay M", s))
    shift = change.shift_at(Age.MIGHT, Cell.parse("F2"))
    assert shift is not None and shift.founded and shift.after is not None and shift.after.value == 0
    assert change.delta(0) == (0, 0, 0)


def test_t13_r60_r63_r65_a_junction_downsizes_and_takes_control_from_another_player() -> None:
    """T13: Red's Hamlet at D1 joins Red's and White's Might domains; White's Keep is downsized (R63) and
    its Faith shadow removed (R65; a Keep controls nothing on Faith, R75); Red's Keep now heads the joined
    domain and White loses control of his. The effect is known once White has placed his Watchtower."""
    s, events = play(T13, "Red build Hamlet D1 on M pay C 1+0")
    first = economy_change(parse_position(T13), s, events)
    assert first.pending
    before = parse_position(T13)
    after, more = play(T13, "Red build Hamlet D1 on M pay C 1+0\nWhite choose E1")
    change = economy_change(before, after, more)
    assert not change.pending
    kinds = sorted((h.player, h.age, h.kind.value) for h in change.harms)
    assert kinds == [(1, Age.MIGHT, "control lost"), (1, Age.MIGHT, "downsized"), (1, Age.FAITH, "removed")]
    assert change.harmed(besides=0) == (1,)
    shift = change.shift_at(Age.MIGHT, Cell.parse("D1"))
    assert shift is not None and shift.joined and shift.after is not None
    assert [str(d.name) for d in shift.before] == ["A1", "E1"]
    assert shift.after.controllers == (0,) and shift.lost == (1,) and shift.after.value == 1
    assert change.delta(0) == (1, 0, 0)


def test_t10_r53_a_paradox_victim_is_a_harm_to_its_owner() -> None:
    pos = PLAIN + "active: Blue\nBlue: hand=RR\nF: Monastery[Green]@C3\nR: Monastery-ruin@C3\n"
    s = parse_position(pos)
    change = action_economy(s, parse_action("Blue build Monastery B2 on M pay RR 1+1", s))
    removed = [(h.player, h.age, h.building.kind.value) for h in change.harms if h.kind is HarmKind.REMOVED]
    assert removed == [(2, Age.FAITH, "Monastery")]
    assert change.harmed(besides=3) == (2,)


def test_r53_r75_a_paradox_that_removes_a_civil_building_from_a_domain_harms_its_controller() -> None:
    """Blue's Town ripples onto Faith's Hamlet at A2 (R53), which leaves Green's Chapel domain: Green still
    controls it (R75), but it is worth 1 less. Nothing of Green's was removed, and Green did not lose
    control, yet Green's income outlook fell: a harm of its own kind."""
    pos = PLAIN + "active: Blue\nBlue: hand=CCC pawns=M,M\nF: Chapel[Green]@A1 Town@B1 Hamlet@A2\nGreen: pawns=F,F\n"
    s = parse_position(pos)
    change = action_economy(s, parse_action("Blue build Town A2 on M pay CC 1+1", s))
    assert [(h.player, h.age, h.kind, str(h.building.origin), h.lost) for h in change.harms] == [
        (2, Age.FAITH, HarmKind.WORTH_LESS, "A1", 1)]
    assert change.harmed(besides=3) == (2,) and change.delta(2) == (0, -1, 0)
    # a domain that grows is no harm: the same Town put where it ripples onto empty ground
    grows = action_economy(s, parse_action("Blue build Town B1 on M pay CC 1+1", s))
    assert not grows.harms and grows.delta(2) == (0, 0, 0)


def test_r78_a_board_left_unsettled_by_a_question_leaves_its_other_domains_unharmed() -> None:
    """Digest T13 with Green's and Blue's domains elsewhere on Might: Red's Hamlet leaves White a
    question, and until it is answered the board pays no one (R78). Green's and Blue's domains are not
    worth less for that: nothing of theirs changed."""
    pos = T13.replace("M: Keep[Red]@A1 Watchtower[Green]@C1 Keep[White]@E1",
                      "M: Keep[Red]@A1 Watchtower[Green]@C1 Keep[White]@E1 Watchtower[Green]@A8 Town@B8 "
                      "Watchtower[Blue]@J8 Hamlet@K8")
    assert pos != T13
    s = parse_position(pos)
    change = action_economy(s, parse_action("Red build Hamlet D1 on M pay C 1+0", s))
    assert change.pending and not change.after.settled[Age.MIGHT]
    assert not [h for h in change.harms if h.kind is HarmKind.WORTH_LESS]
    assert change.harmed(besides=0) == (1,)  # (White, whose Keep the question is about)


def test_r30_demolishing_another_players_chapel_harms_its_owner() -> None:
    pos = PLAIN + "Red: hand=R pawns=F,F\nF: Chapel[White]@A1 Town@B1\nWhite: pawns=F,F\n"
    s = parse_position(pos)
    change = action_economy(s, parse_action("Red demolish A1 on F pay R", s))
    assert sorted((h.player, h.kind.value) for h in change.harms) == [(1, "control lost"), (1, "removed")]
    assert change.delta(1) == (0, -2, 0)


def test_r31_r76_populating_takes_the_majority_on_reason() -> None:
    """Red's second cube beats White's one: White loses control of the Reason domain, Red gains it."""
    pos = PLAIN + "Red: hand=C pawns=R,R\nR: Town@A1{White:1,Red:1} Keep-ruin@C1\n"
    s = parse_position(pos)
    change = action_economy(s, parse_action("Red populate A1 pay C", s))
    shift = change.shift_at(Age.REASON, Cell.parse("A1"))
    assert shift is not None and shift.gained == () and shift.lost == (1,)
    assert shift.after is not None and shift.after.controllers == (0,)
    assert [(h.player, h.kind) for h in change.harms] == [(1, HarmKind.CONTROL_LOST)]
    assert change.delta(0) == (0, 0, 0) and change.delta(1) == (0, 0, -1)


def test_r31_r76_boards_an_action_leaves_alone_are_reused_and_agree_with_a_fresh_count() -> None:
    """Populating (R31) changes Reason only: Might and Faith are taken from the economy before, and the
    whole equals the economy worked out afresh (R76)."""
    pos = PLAIN + "Red: hand=C pawns=R,R\nM: Keep[Red]@A1 Town@C1\nR: Town@A1{White:1} Keep-ruin@C1\n"
    s = parse_position(pos)
    known = economy(s)
    after, events = apply(s, parse_action("Red populate A1 pay C", s))
    change = economy_change(s, after, events, known=known)
    assert change.after.domains[Age.MIGHT] is known.domains[Age.MIGHT]
    assert change.after.domains[Age.REASON] is not known.domains[Age.REASON]
    assert change.after == economy(after)
    assert change.after.domain_at(Age.REASON, Cell.parse("B1")) is not None
    [reason] = change.after.domains[Age.REASON]
    assert reason.controllers == (0, 1) and reason.value == 1  # a tie: each would collect in full (A34)


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "players"), [(3, 2), (11, 3), (29, 5)])
def test_r73_r78_the_outlook_agrees_with_the_income_the_engine_pays_through_random_games(
        seed: int, players: int) -> None:
    """Over random games, every player's outlook on every settled board is what the engine's ``income``
    would pay them now, and controllers are as the rules say (R74–R76, R78)."""
    for step in random_game(seed, players, holdem=False):
        s = step.after
        e = economy(s)
        for age in Age:
            if not e.settled[age]:
                assert s.pending is not None
                continue
            for p in range(players):
                assert e.outlooks[p].by_age[age] == income(s, p, age)[0]
            for d in e.domains[age]:
                assert d.value == 0 or d.controllers
                if age is not Age.REASON:
                    assert len(d.controllers) <= 1
        change = economy_change(step.before, s, step.events)
        assert change.after == e  # the boards it took from the position before are unchanged
        for h in change.harms:
            assert 0 <= h.player < players


def test_the_economy_of_a_position_is_remembered_until_it_changes() -> None:
    """A position's economy is remembered: asked again, the same answer without working it out; a
    board changed in place (its version raised), a pawn moved or a round passed gives the economy of
    the position as it is now, the one a fresh copy gives."""
    text = PLAIN + "round: 3\nRed: pawns=M,F\nWhite: pawns=M,M\nM: Keep[White]@G1 Hamlet@I1\n"
    state = play(text)[0]
    first = economy(state)
    assert economy(state) is first and first.outlooks[1].total == 1
    state.players[1].pawns[:] = [Age.FAITH, Age.FAITH]  # White leaves Might: its domain does not count (R73)
    assert economy(state).outlooks[1].total == 0 and economy(state) == economy(state.clone())
    state.round = 5
    assert economy(state).next_income == 7 and first.next_income == 4
    state = play(text)[0]
    assert economy(state).domains[Age.MIGHT]
    board = state.boards[Age.MIGHT]
    for b in list(board.buildings.values()):
        board.take(b.id)  # in place: the version is raised
    assert economy(state).domains[Age.MIGHT] == () and economy(state) == economy(state.clone())


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "players", "holdem"), [(5, 2, False), (8, 3, True), (13, 4, False), (21, 5, True)])
def test_the_economy_worked_out_from_the_turns_start_is_the_one_worked_out_afresh(
        seed: int, players: int, holdem: bool) -> None:
    """At every action, the economy worked out from the position its turn began from (as an end of turn
    does, for what it cost the others and then for its cards) equals the economy of a fresh copy."""
    began, known = None, None
    for step in random_game(seed, players, holdem):
        if began is None or known is None:
            began = step.before.clone()
            known = economy(began)
        after = step.after.clone()  # (a new object: nothing remembered for it)
        assert economy(after, since=(began, known)) == economy(after.clone())
        if any(isinstance(e, TurnEnded) for e in step.events):
            began, known = None, None


def test_the_economy_of_a_position_is_kept_on_it_for_as_long_as_it_lives() -> None:
    """Asked again after many other positions, a position's economy is the one worked out first (kept on
    the position); a clone starts without it, and the position's value (its equality, its snapshot)
    is unchanged by it; a pawn moved in place gives the economy as it is now."""
    text = PLAIN + "round: 3\nRed: pawns=M,F\nWhite: pawns=M,M\nM: Keep[White]@G1 Hamlet@I1\n"
    state = play(text)[0]
    snapshot = to_json(state)
    first = economy(state)
    for _ in range(40):
        economy(state.clone())
    assert economy(state) is first
    copy = state.clone()
    assert copy.economy_kept is None and copy == state and to_json(state) == snapshot
    state.players[1].pawns[:] = [Age.FAITH, Age.FAITH]
    assert economy(state) is not first and economy(state).outlooks[1].total == 0
