"""§3 of the digest, actions (R25–R33): the action matrix, travel, construct, the bonus, upgrade,
demolish, populate, renovate and the Hold'em swap, with the rulings on them (A5–A7, A12, A31–A33, A39,
A40, A42, A43). Positions use the notation's defaults."""

from __future__ import annotations

import pytest

from rules import Age, Cards, Kind
from tests.support.scenario import board_line, play, refused

PLAIN = "map: plain 15x12\n"


@pytest.mark.parametrize(
    ("actions", "code"),
    [
        ("Red build Keep A1 on R pay MM 1+1", "wrong-age"),
        ("Red upgrade B2 on R to Castle at A1 pay M 1+0", "wrong-age"),
        ("Red travel 1 M\nRed travel 2 M\nRed populate D4 pay C", "presence"),
        ("Red travel 1 M\nRed travel 2 M\nRed renovate B2 pay M", "presence"),
    ],
)
def test_r25_r58_the_action_matrix_by_board(actions: str, code: str) -> None:
    pos = PLAIN + "Red: pawns=R,R hand=MMCC\nR: Keep-ruin@B2 Town@D4\n"
    refused(pos, actions, code)


def test_r25_a31_the_action_matrix_refuses_wrong_boards() -> None:
    """R25/A31: no construction, upgrade or demolition on Reason."""
    pos = PLAIN + "Red: pawns=R,R hand=MMCC\nR: Town@D4\n"
    refused(pos, "Red build Hamlet A1 on R pay C", "wrong-age")
    refused(pos, "Red upgrade D4 on R to City at D4 pay C", "wrong-age")
    refused(pos, "Red demolish D4 on R pay C", "wrong-age")


def test_r26_a40_travel_may_jump_from_might_to_reason_and_never_stays() -> None:
    s, _ = play(PLAIN, "Red travel 1 R")
    assert s.players[0].pawns == [Age.REASON, Age.MIGHT] and s.players[0].ecus == 9
    refused(PLAIN, "Red travel 1 M", "same-board", "A40")


def test_r26_a40_travel_jumps_any_board_costs_one_each_time() -> None:
    """R26/A40: Might to Reason directly, back again, 1 Ecu per move, no allowance used."""
    s, _ = play(PLAIN, "Red travel 1 R\nRed travel 1 M\nRed travel 2 F")
    assert s.players[0].ecus == 7 and s.players[0].pawns == [Age.MIGHT, Age.FAITH]
    assert s.players[0].played == [0, 0]


def test_r27_r28_constructing_a_value_one_building_pays_no_bonus() -> None:
    s, _ = play(PLAIN + "Red: hand=C\n", "Red build Hamlet A1 on M")
    assert s.players[0].ecus == 10 and board_line(s, "F") == ""


def test_r27_r28_a43_bonuses_by_board_and_value() -> None:
    """R27–R28: value 1 pays nothing; value 2–3 pays +1 on Might, +2 on Faith; A43: a paradox victim's
    owner gets nothing back."""
    s, _ = play(PLAIN + "Red: pawns=F,F hand=RRR\n",
                "Red build Chapel A1 on F pay R 1+0\nRed build Monastery C1 on F pay RR 1+1")
    assert s.players[0].ecus == 12
    s, _ = play(PLAIN + "Red: hand=CCC\nF: Keep[White]@A1\n", "Red build City A1 on M pay CCC 2+1")
    assert s.players[0].ecus == 11 and s.players[1].ecus == 10 and s.players[1].supply == 25


@pytest.mark.parametrize(
    ("position", "action", "rule"),
    [
        ("Red: hand=RR\n", "Red build Keep B2 on M pay RR 1+1", "R27"),
        ("Red: hand=MMRR\n", "Red build Keep B2 on M pay RR 1+1", "R27"),
        ("Red: hand=R\nM: Watchtower[Red]@B2\n", "Red upgrade B2 on M to Keep pay R 1+0", "R29"),
        ("Red: hand=MR\nM: Watchtower[Red]@B2\n", "Red upgrade B2 on M to Keep pay R 1+0", "R29"),
        ("Red: hand=M\nM: Chapel[White]@B2\n", "Red demolish B2 on M pay M 1+0", "R30"),
        ("Red: hand=RM\nM: Chapel[White]@B2\n", "Red demolish B2 on M pay M 1+0", "R30"),
        ("Red: pawns=R,M hand=M\nR: Town@B2\n", "Red populate B2 pay M 1+0", "R31"),
        ("Red: pawns=R,M hand=MC\nR: Town@B2\n", "Red populate B2 pay M 1+0", "R31"),
        ("Red: pawns=R,M hand=R\nR: Keep-ruin@B2\n", "Red renovate B2 pay R 1+0", "R32"),
        ("Red: pawns=R,M hand=MR\nR: Keep-ruin@B2\n", "Red renovate B2 pay R 1+0", "R32"),
    ],
)
def test_r27_r29_r30_r31_r32_a_wrong_colour_cites_the_rule_of_the_action(position: str, action: str, rule: str) -> None:
    """Each card action's own rule says which colour pays for it: R27 construct, R29 upgrade, R30
    demolish, R31 populate, R32 renovate; a refusal for the wrong colour cites that rule, whether the
    hand lacks the colour or the payment offers another."""
    refused(PLAIN + position, action, "wrong-colour", rule)


@pytest.mark.parametrize(
    ("position", "action", "rule"),
    [
        ("players: Red White Green\nterrain: B2=f\nRed: hand=MMM\n", "Red build Keep B2 on M pay MMR 2+1", "R27"),
        ("players: Red White Green\nterrain: B3=f\nRed: hand=MM\nM: Watchtower[Red]@B2\n",
         "Red upgrade B2 on M to Keep pay MR 1+1", "R29"),
    ],
)
def test_r27_r29_r39_surcharge_cards_not_in_hand_cite_the_rule_of_the_action(
    position: str, action: str, rule: str
) -> None:
    """R39: the surcharge is paid in cards of any colour, but they must be in hand; the refusal cites
    the rule of the action being paid for."""
    refused(PLAIN + position, action, "not-in-hand", rule)


def test_r28_a_keep_built_on_faith_pays_two_and_ripples_only_to_reason() -> None:
    s, _ = play(PLAIN + "Red: pawns=F,F hand=MM\n", "Red build Keep A1 on F")
    assert s.players[0].ecus == 12 and board_line(s, "R") == "Keep-ruin@A1" and board_line(s, "M") == ""


def test_r29_a12_a42_anyone_may_upgrade_civil_buildings_and_printed_hamlets_including_shadows() -> None:
    pos = PLAIN + "hamlets: B2\nRed: pawns=F,F hand=CCCC\nF: Town@D4\nR: Town@D4\n"
    s, _ = play(pos, "Red upgrade B2 on F to Town at B2 pay C 1+0\nRed upgrade D4 on F to City at D4 pay C 0+1")
    assert board_line(s, "F") == "Town@B2 City@D4"
    assert board_line(s, "R") == "Town@B2 City@D4"
    assert s.stock[Kind.HAMLET] == 20  # a printed hamlet is not a tile (R3)


def test_r29_a42_faith_shadow_carrying_your_cube_is_yours_to_upgrade() -> None:
    pos = PLAIN + "Red: pawns=F,F hand=M\nM: Keep[Red]@A1\nF: Keep[Red]@A1\nR: Keep-ruin@A1\n"
    s, _ = play(pos, "Red upgrade A1 on F to Castle at A1 pay M 1+0")
    assert board_line(s, "M") == "Keep[Red]@A1" and board_line(s, "F") == "Castle[Red]@A1"
    assert board_line(s, "R") == "Castle-ruin@A1"


def test_r29_a7_a12_a42_civil_upgrades_by_anyone_with_one_bonus() -> None:
    """R29/A12/A42: anyone upgrades a Hamlet tile or a Civil shadow; A7: skipping to a City costs the
    difference (2 C) and pays one bonus."""
    s, _ = play(PLAIN + "Red: hand=CC\nM: Hamlet@B2\n", "Red upgrade B2 on M to City at A1 pay CC 1+1")
    assert board_line(s, "M") == "City@A1" and s.players[0].ecus == 11
    assert board_line(s, "F") == "City@A1" and board_line(s, "R") == "City@A1"
    assert s.stock[Kind.HAMLET] == 20 and s.stock[Kind.CITY] == 6
    refused(PLAIN + "Red: hand=M\nM: Keep[White]@A1\n", "Red upgrade A1 on M to Castle at A1 pay M", "not-yours", "R29")


def test_r31_a33_populate_needs_a_cube_in_supply_r45() -> None:
    pos = PLAIN + "Red: pawns=R,R hand=C cubes=0\nR: Town@D4\n"
    refused(pos, "Red populate D4 pay C", "no-cube", "R45")


def test_r31_a5_a33_a_city_holds_five_cubes_from_anyone() -> None:
    """R31/A5/A33: a City's cap is 5 counting every player's cubes; one Civil card per cube."""
    pos = PLAIN + "players: Red White\nRed: pawns=R,R hand=CCCC\nWhite: pawns=R,R hand=CC\nR: City@A1\n"
    s, _ = play(pos, "Red populate A1\nRed populate A1\nRed populate A1\nRed populate A1\nRed end\nWhite populate A1")
    assert board_line(s, "R") == "City@A1{Red:4,White:1}"
    refused(pos, "Red populate A1\nRed populate A1\nRed populate A1\nRed populate A1\nRed end\nWhite populate A1\n"
                 "White populate A1", "full", "R31")


def test_r32_castle_ruin_takes_two_cards_once_a_marker_is_down_only_one_more() -> None:
    pos = PLAIN + "Red: pawns=R,R hand=MMM\nR: Castle-ruin@A1+White\n"
    refused(pos, "Red renovate A1 pay MM", "wrong-cards", "R32")
    s, _ = play(pos, "Red renovate A1 pay M")
    assert board_line(s, "R") == "Castle-renov@A1" and s.players[1].supply == 25


def test_r32_r45_a_marker_needs_a_cube() -> None:
    refused(PLAIN + "Red: pawns=R,R hand=MM cubes=0\nR: Castle-ruin@A1\n", "Red renovate A1 pay M", "no-cube", "R45")


def test_r32_a6_a32_renovation_instalments_across_pawns_and_players() -> None:
    """R32/A10: a Castle ruin's two cards may be paid one at a time, through different pawns in one turn
    or by different players; the marker goes back to its owner; A32: no Ecus, no owner. A6: a Keep
    ruin takes one Military card, a Monastery ruin one Religious card."""
    pos = PLAIN + "players: Red White\nRed: pawns=R,M hand=MMRC\nWhite: pawns=R,R hand=M\n" \
        "R: Castle-ruin@A1 Keep-ruin@E1 Monastery-ruin@H1\n"
    s, _ = play(pos, "Red renovate A1 pay M 1+0\nRed travel 2 R\nRed renovate A1 pay M 0+1")
    assert board_line(s, "R").startswith("Castle-renov@A1") and s.players[0].supply == 25
    assert s.players[0].ecus == 9  # the travel only
    s, _ = play(pos, "Red renovate A1 pay M 1+0\nRed renovate H1 pay R 1+0\nRed end\nWhite renovate A1 pay M")
    assert board_line(s, "R") == "Castle-renov@A1 Keep-ruin@E1 Monastery-renov@H1"
    assert s.players[0].supply == 25 and s.players[1].supply == 25
    refused(pos, "Red renovate E1 pay R 1+0", "wrong-colour")


def test_r33_a39_the_swap_comes_after_the_exchange_and_before_any_action() -> None:
    pos = PLAIN + "options: holdem\nreserve: MRC\nRed: hand=MMRC\n"
    play(pos, "Red exchange M\nRed swap take C give M")
    refused(pos, "Red swap take C give M\nRed exchange M", "phase", "R13")
    refused(pos, "Red travel 1 F\nRed swap take C give M", "phase", "R33")
    refused(PLAIN + "Red: hand=MMRC\n", "Red swap take C give M", "no-holdem", "R33")


def test_r33_a39_swap_needs_as_many_cards_in_hand_as_taken() -> None:
    """R33/A39: take k cards of one colour, give k of any colours from the hand."""
    pos = PLAIN + "options: holdem\nreserve: CCM\nRed: hand=R\n"
    refused(pos, "Red swap take CC give RR", "not-in-hand", "R33")
    s, _ = play(pos, "Red swap take C give R")
    assert s.players[0].hand == Cards.parse("C") and s.reserve == Cards.parse("MRC")
