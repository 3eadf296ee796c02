"""The rulebook's worked examples, T1–T24 of the digest's §9.1, as scenario tests in the notation.

Defaults (digest §9.0, and the notation's): 4 players Red White Green Blue, every cell plain, no
printed hamlets unless listed, stock = initial minus the tiles on the boards, supply = 25 minus the
cubes on the boards, 10 Ecus each unless stated."""

from __future__ import annotations

import pytest

from rules import (
    Age,
    Cards,
    Cell,
    Construct,
    DecisionKind,
    Kind,
    Payment,
    Populate,
    RuleError,
    Swap,
    apply,
    domains,
    legal_actions,
    pool,
)
from rules.events import (
    Destroyed,
    Downsized,
    IncomePaid,
    ParadoxRemoved,
    PowerCompared,
    RippleForbidden,
    ShadowRemoved,
)
from tests.support.scenario import board_line, play, refused, same_position
from tests.support.worked_examples import T13, T19, T20, T21

PLAIN = "map: plain 15x12\n"


# -- T1 Travelling (R26, A40) ---------------------------------------------------------------------

T1 = PLAIN + "active: Blue\nBlue: ecus=4\n"


def test_t1_travelling_r26_a40() -> None:
    s, _ = play(T1, "Blue travel 1 R\nBlue travel 2 F")
    same_position(s, PLAIN + "active: Blue\nturn: acted\nBlue: ecus=2 pawns=R,F\n")
    blue = s.active
    assert pool(s, blue, Age.REASON) == 2 and pool(s, blue, Age.FAITH) == 2 and pool(s, blue, Age.MIGHT) == 0


def test_t1b_travel_without_ecus_is_refused_r26() -> None:
    refused(PLAIN + "active: Blue\nBlue: ecus=0\n", "Blue travel 1 R", "no-ecus", "R26")


# -- T2 Constructing a Keep (R27, R28, R47, R50) --------------------------------------------------

T2 = PLAIN + "active: Green\nGreen: ecus=4 hand=MMRC\n"


def test_t2_constructing_a_keep_ripples_r27_r28_r47_r50() -> None:
    s, _ = play(T2, "Green build Keep B2 on M pay MM 1+1")
    same_position(s, PLAIN + """
        active: Green
        turn: acted
        Green: ecus=5 hand=RC played=1,1
        M: Keep[Green]@B2
        F: Keep[Green]@B2
        R: Keep-ruin@B2
        discard: MM
        """)
    assert s.players[2].supply == 23 and s.stock[Kind.KEEP] == 21


def test_t2b_keep_with_wrong_colours_is_refused_r27() -> None:
    refused(PLAIN + "active: Green\nGreen: hand=MRCC\n", "Green build Keep B2 on M pay MR 1+1", "wrong-colour", "R27")


def test_t2c_castle_with_split_pawns_is_refused_r17() -> None:
    refused(PLAIN + "active: Green\nGreen: pawns=M,F hand=MMMC\n", "Green build Castle B2 on M pay MMM 2+1",
            "allowance", "R17")


def test_t2d_control_cubes_mark_owners() -> None:
    s, _ = play(PLAIN + "M: Monastery[Red]@B6 Watchtower[Green]@E6 Town@H6\n")
    owners = {b.kind: b.owner for b in s.boards[Age.MIGHT].buildings.values()}
    assert owners == {Kind.MONASTERY: 0, Kind.WATCHTOWER: 2, Kind.TOWN: None}


# -- T3 Upgrading a Watchtower to a Keep (R29, R52) ------------------------------------------------

T3 = PLAIN + "active: Green\nGreen: ecus=4 hand=MM\nM: Watchtower[Green]@B2\n"


def test_t3_upgrade_watchtower_to_keep_keeps_the_cube_and_ripples_r29_r52() -> None:
    s, _ = play(T3, "Green upgrade B2 on M to Keep at B2 pay M 1+0")
    same_position(s, PLAIN + """
        active: Green
        turn: acted
        Green: ecus=5 hand=M played=1,0
        M: Keep[Green]@B2
        F: Keep[Green]@B2
        R: Keep-ruin@B2
        discard: M
        """)
    assert s.stock[Kind.KEEP] == 21 and s.stock[Kind.WATCHTOWER] == 20


def test_t3b_upgrade_footprint_may_extend_up_and_left_r29() -> None:
    s, _ = play(T3, "Green upgrade B2 on M to Keep at A1 pay M 1+0")
    assert board_line(s, "M") == "Keep[Green]@A1"


def test_t3c_upgrading_another_players_watchtower_is_refused_r29() -> None:
    refused(PLAIN + "active: Green\nGreen: hand=M\nM: Watchtower[White]@B2\n",
            "Green upgrade B2 on M to Keep at B2 pay M", "not-yours", "R29")


def test_t3d_skipping_a_level_costs_the_difference_and_pays_one_bonus_a7() -> None:
    s, _ = play(T3, "Green upgrade B2 on M to Castle at A1 pay MM 1+1")
    assert board_line(s, "M") == "Castle[Green]@A1"
    assert s.players[2].ecus == 5 and s.players[2].hand == Cards()


# -- T4 Upgrading a Chapel to a Monastery on Faith (R28, R29) -------------------------------------


def test_t4_upgrade_on_faith_pays_two_and_ripples_a_ruin_r28_r29() -> None:
    pos = PLAIN + "Red: ecus=4 pawns=F,M hand=R\nF: Chapel[Red]@D4\n"
    s, _ = play(pos, "Red upgrade D4 on F to Monastery at D4 pay R 1+0")
    same_position(s, PLAIN + """
        turn: acted
        Red: ecus=6 pawns=F,M played=1,0
        F: Monastery[Red]@D4
        R: Monastery-ruin@D4
        discard: R
        """)


# -- T5 Demolishing a Chapel (R30) ----------------------------------------------------------------

T5 = PLAIN + "hamlets: B5\nRed: ecus=4 pawns=F,R hand=RM\nF: Chapel[White]@C3 Monastery[White]@E5\n"


def test_t5_demolishing_a_chapel_r30() -> None:
    s, _ = play(T5, "Red demolish C3 on F pay R 1+0")
    same_position(s, PLAIN + """
        hamlets: B5
        turn: acted
        Red: ecus=3 pawns=F,R hand=M played=1,0
        F: Monastery[White]@E5
        discard: R
        """)
    assert s.players[1].supply == 24 and s.stock[Kind.CHAPEL] == 20


@pytest.mark.parametrize(
    ("action", "code", "rule"),
    [
        ("Red demolish B5 on F pay C 1+0", "printed-hamlet", "R30"),
        ("Red demolish E5 on F pay R 1+0", "too-big", "R30"),
        ("Red demolish C3 on F pay M 1+0", "wrong-colour", "R30"),
        ("Red demolish B5 on R pay C 0+1", "wrong-age", "A31"),
    ],
)
def test_t5_demolition_refusals_r30_a31(action: str, code: str, rule: str) -> None:
    refused(T5.replace("hand=RM", "hand=RMC"), action, code, rule)


def test_t5_demolishing_with_no_ecus_is_refused_r30() -> None:
    refused(T5.replace("ecus=4", "ecus=0"), "Red demolish C3 on F pay R 1+0", "no-ecus", "R30")


# -- T6 Four domains (§0, R40) ---------------------------------------------------------------------


def test_t6_four_domains_r40() -> None:
    s, _ = play(PLAIN + "M: Keep[Red]@B2 Town@D2 Watchtower[White]@F4 Hamlet@B6 Chapel[Green]@H2 Hamlet@H3\n")
    board = s.boards[Age.MIGHT]
    groups = domains(board, s.map).groups
    named = sorted(sorted(f"{board.buildings[i].kind.value}@{board.buildings[i].origin}" for i in g) for g in groups)
    assert named == sorted([
        ["Keep@B2", "Town@D2"],
        ["Watchtower@F4"],
        ["Hamlet@B6"],
        ["Chapel@H2", "Hamlet@H3"],
    ])


# -- T7 Two Chapels cannot be merged (R29c) ---------------------------------------------------------

T7 = PLAIN + "active: Green\nGreen: ecus=4 pawns=F,F hand=RR\nF: Chapel[Green]@B2 Chapel[Green]@C3\n"


def test_t7_two_chapels_cannot_merge_into_one_monastery_r29() -> None:
    refused(T7, "Green upgrade B2 on F to Monastery at B2 pay R 1+0", "occupied", "R34")


def test_t7b_monastery_growing_away_is_legal_r29() -> None:
    s, _ = play(T7, "Green upgrade B2 on F to Monastery at A1 pay R 1+0")
    assert board_line(s, "F") == "Monastery[Green]@A1 Chapel[Green]@C3"
    assert board_line(s, "R") == "Monastery-ruin@A1"
    assert s.players[2].ecus == 6


# -- T8 Hierarchy and Dominion (R41–R43) --------------------------------------------------------------

T8 = PLAIN + """
    active: White
    White: pawns=M,M hand=MMMRRRCC
    M: Keep[Red]@B2 Abbey[Green]@D2 Town@B4 Hamlet@A6
    """


@pytest.mark.parametrize(
    ("action", "outcome"),
    [
        ("White build Watchtower A2 on M", "legal"),  # a: 1 < 2
        ("White build Castle G2 on M", "legal"),  # b: 3 > 2
        ("White build Keep G2 on M", "hierarchy"),  # c: 2 = top Military
        ("White build Chapel A3 on M", "legal"),  # d: 1 < 3
        ("White build Monastery G2 on M", "legal"),  # e: 2 < 3
        ("White build Abbey G2 on M", "hierarchy"),  # f: 3 = top Religious
        ("White build Keep H6 on M", "legal"),  # g: touches nothing
        ("White build Watchtower A5 on M", "dominion"),  # h: Town and Hamlet
        ("White build Hamlet A5 on M", "legal"),  # i: a junction
    ],
)
def test_t8_hierarchy_and_dominion_r41_r43(action: str, outcome: str) -> None:
    if outcome == "legal":
        play(T8, action)
    else:
        refused(T8, action, outcome, "R43" if outcome == "hierarchy" else "R41")


def test_t8j_upgrading_to_equal_the_top_keep_is_refused_r43() -> None:
    pos = T8.replace("Hamlet@A6", "Hamlet@A6 Watchtower[White]@G2")
    refused(pos, "White upgrade G2 on M to Keep at G2", "hierarchy", "R43")


def test_t8k_upgrading_above_the_top_keep_is_legal_a7() -> None:
    pos = T8.replace("Hamlet@A6", "Hamlet@A6 Watchtower[White]@G2")
    s, _ = play(pos, "White upgrade G2 on M to Castle at G2 pay MM 1+1")
    assert "Castle[White]@G2" in board_line(s, "M")
    assert s.players[1].ecus == 11


# -- T9 Which buildings ripple (R47–R50) ------------------------------------------------------------


def test_t9a_a_chapel_does_not_ripple_r47() -> None:
    s, _ = play(PLAIN + "active: Green\nGreen: hand=R\n", "Green build Chapel B2 on M")
    assert board_line(s, "F") == "" and board_line(s, "R") == ""
    assert s.players[2].ecus == 10 and s.stock[Kind.CHAPEL] == 19


def test_t9b_a_town_ripples_to_faith_and_reason_without_cubes_r47() -> None:
    s, _ = play(PLAIN + "active: Blue\nBlue: hand=CC\n", "Blue build Town D2 on M")
    assert board_line(s, "F") == "Town@D2" and board_line(s, "R") == "Town@D2"
    assert s.players[3].ecus == 11 and s.stock[Kind.TOWN] == 21


def test_t9c_a_keep_ripples_with_a_new_cube_and_as_a_ruin_r47_r50() -> None:
    s, _ = play(PLAIN + "Red: hand=MM\n", "Red build Keep G2 on M")
    assert board_line(s, "F") == "Keep[Red]@G2" and board_line(s, "R") == "Keep-ruin@G2"
    assert s.players[0].supply == 23 and s.players[0].ecus == 11 and s.stock[Kind.KEEP] == 21


# -- T10 Temporal paradox (R51, R53, A15, A16) --------------------------------------------------------


def test_t10_temporal_paradox_removes_the_overlapped_monastery_r51_r53_a15_a16() -> None:
    pos = PLAIN + "active: Blue\nBlue: hand=RR\nF: Monastery[Green]@C3\nR: Monastery-ruin@C3\n"
    s, events = play(pos, "Blue build Monastery B2 on M pay RR 1+1")
    same_position(s, PLAIN + """
        active: Blue
        turn: acted
        Blue: ecus=11 played=1,1
        M: Monastery[Blue]@B2
        F: Monastery[Blue]@B2
        R: Monastery-ruin@B2
        discard: RR
        """)
    assert s.players[2].supply == 25 and s.players[2].ecus == 10
    assert [(type(e).__name__, e.age, e.building.origin.col) for e in events
            if isinstance(e, (ParadoxRemoved, ShadowRemoved))] == [
        ("ParadoxRemoved", Age.FAITH, 2), ("ShadowRemoved", Age.REASON, 2)]


# -- T11, T12 Forbidden ripples (R51, A30) ---------------------------------------------------------------


def test_t11_ripple_blocked_by_dominion_keeps_the_bonus_r51_a43() -> None:
    pos = PLAIN + "active: Blue\nBlue: hand=RR\nF: Hamlet@B2 Hamlet@E2\n"
    s, events = play(pos, "Blue build Monastery C2 on M pay RR 1+1")
    assert board_line(s, "M") == "Monastery[Blue]@C2"
    assert board_line(s, "F") == "Hamlet@B2 Hamlet@E2" and board_line(s, "R") == ""
    assert s.players[3].ecus == 11 and s.players[3].supply == 24 and s.stock[Kind.MONASTERY] == 19
    assert [e.rule for e in events if isinstance(e, RippleForbidden)] == ["dominion"]


def test_t12_ripple_blocked_by_hierarchy_r51() -> None:
    pos = PLAIN + "active: Blue\nBlue: hand=RR\nF: Monastery[Green]@E2\nR: Monastery-ruin@E2\n"
    s, events = play(pos, "Blue build Monastery C2 on M pay RR 1+1")
    assert board_line(s, "F") == "Monastery[Green]@E2" and board_line(s, "R") == "Monastery-ruin@E2"
    assert s.players[3].ecus == 11
    assert [e.rule for e in events if isinstance(e, RippleForbidden)] == ["hierarchy"]


def test_t12b_ripple_above_a_chapel_is_allowed_r51() -> None:
    pos = PLAIN + "active: Blue\nBlue: hand=RR\nF: Chapel[Green]@E2\n"
    s, _ = play(pos, "Blue build Monastery C2 on M pay RR 1+1")
    assert board_line(s, "F") == "Monastery[Blue]@C2 Chapel[Green]@E2"
    assert board_line(s, "R") == "Monastery-ruin@C2"


# -- T13 Junction decided by power (R60–R62, R64, R65) -----------------------------------------------------

def test_t13_junction_decided_by_power_3_to_2_r60_r62_r64_r65() -> None:
    s, events = play(T13, "Red build Hamlet D1 on M pay C 1+0")
    assert s.pending is not None
    d = s.pending.decision
    assert d.kind is DecisionKind.PLACE_SMALLER and d.player == 1 and d.result is Kind.WATCHTOWER
    assert [str(c) for c in d.options] == ["E1", "F1", "E2", "F2"]
    assert next(e.powers for e in events if isinstance(e, PowerCompared))[0][1] == 3
    s, events = play(T13, "Red build Hamlet D1 on M pay C 1+0\nWhite choose E1")
    same_position(s, PLAIN + """
        turn: acted
        Red: played=1,0
        M: Keep[Red]@A1 Watchtower[Green]@C1 Hamlet@D1 Watchtower[White]@E1
        F: Keep[Red]@A1
        R: Keep-ruin@A1
        discard: C
        """)
    assert s.stock[Kind.KEEP] == 21 and s.stock[Kind.WATCHTOWER] == 18 and s.stock[Kind.HAMLET] == 19
    assert s.players[1].supply == 24 and s.players[0].ecus == 10
    assert len(domains(s.boards[Age.MIGHT], s.map).groups) == 1


def test_t13b_the_owner_may_cut_the_watchtower_off_r64_a25() -> None:
    s, _ = play(T13, "Red build Hamlet D1 on M pay C 1+0\nWhite choose F2")
    assert board_line(s, "M") == "Keep[Red]@A1 Watchtower[Green]@C1 Hamlet@D1 Watchtower[White]@F2"
    assert len(domains(s.boards[Age.MIGHT], s.map).groups) == 2


# -- T14 A tie and a cascade (R61–R64, A22, A23) ----------------------------------------------------------

T14 = PLAIN + """
    active: Green
    Green: hand=C
    M: Keep[Red]@A1 Chapel[Green]@B3 Keep[White]@D1 Chapel[White]@E3
    F: Keep[Red]@A1 Keep[White]@D1
    R: Keep-ruin@A1 Keep-ruin@D1
    """


def test_t14_tie_then_cascade_r61_r64_a22_a23() -> None:
    s, _ = play(T14, "Green build Hamlet C2 on M pay C 1+0")
    assert s.pending is not None
    d = s.pending.decision
    assert d.kind is DecisionKind.DOWNSIZE_WHICH and d.player == 2 and [str(c) for c in d.options] == ["A1", "D1"]
    s, events = play(T14, "Green build Hamlet C2 on M pay C 1+0\nGreen choose A1\nRed choose B2")
    same_position(s, PLAIN + """
        active: Green
        turn: acted
        Green: played=1,0
        M: Watchtower[Red]@B2 Hamlet@C2 Keep[White]@D1 Chapel[White]@E3
        F: Keep[White]@D1
        R: Keep-ruin@D1
        discard: C
        """)
    assert [e.building.kind for e in events if isinstance(e, Destroyed)] == [Kind.CHAPEL]
    assert s.players[2].supply == 25 and s.players[2].ecus == 10


def test_t14b_a_split_ends_junction_mode_and_the_chapel_survives_r61_r67() -> None:
    s, _ = play(T14, "Green build Hamlet C2 on M pay C 1+0\nGreen choose A1\nRed choose A1")
    assert s.pending is None
    assert board_line(s, "M") == "Watchtower[Red]@A1 Keep[White]@D1 Hamlet@C2 Chapel[Green]@B3 Chapel[White]@E3"
    assert len(domains(s.boards[Age.MIGHT], s.map).groups) == 3


# -- T15 A Castle junction with a renovation marker (R62, R64, R65, R70c) -----------------------------------

T15 = PLAIN + """
    active: Green
    Green: hand=C
    M: Castle[Red]@A1 Watchtower[Red]@A4 Castle[White]@E1
    F: Castle[Red]@A1 Castle[White]@E1
    R: Castle-ruin@A1 Castle-ruin@E1+Red
    """


def test_t15_castle_downsized_replaces_its_shadows_and_returns_the_marker_r62_r65_r70c() -> None:
    s, _ = play(T15, "Green build Hamlet D2 on M pay C 1+0\nWhite choose E1")
    same_position(s, PLAIN + """
        active: Green
        turn: acted
        Green: played=1,0
        M: Castle[Red]@A1 Hamlet@D2 Keep[White]@E1 Watchtower[Red]@A4
        F: Castle[Red]@A1 Keep[White]@E1
        R: Castle-ruin@A1 Keep-ruin@E1
        discard: C
        """)
    assert s.stock[Kind.CASTLE] == 9 - 3 and s.stock[Kind.KEEP] == 21
    assert s.players[0].supply == 25 - 3 and s.players[1].supply == 23


# -- T16 Division after a downsizing (R59, R61, R65, R67, A23, A24) ---------------------------------------

T16 = PLAIN + """
    active: Green
    Green: hand=C
    M: Keep[Red]@A1 Watchtower[Red]@A3 Keep[White]@D1 Abbey[Red]@F1 Monastery[Red]@C3 Monastery[Blue]@C5
    F: Keep[Red]@A1 Keep[White]@D1 Abbey[Red]@F1 Monastery[Red]@C3 Monastery[Blue]@C5
    R: Keep-ruin@A1 Keep-ruin@D1 Abbey-ruin@F1 Monastery-ruin@C3 Monastery-ruin@C5
    """


def test_t16_division_after_a_downsizing_r59_r61_r65_r67_a23_a24() -> None:
    s, _ = play(T16, "Green build Hamlet C1 on M pay C 1+0\nWhite choose D1")
    assert s.pending is not None
    d = s.pending.decision
    assert d.kind is DecisionKind.DOWNSIZE_WHICH and d.player == 2 and d.age is Age.MIGHT
    assert [str(c) for c in d.options] == ["C3", "C5"]
    # the Faith consequences of step 1 are already applied, the Faith violation not yet resolved
    assert "Keep[White]" not in board_line(s, "F") and "Keep-ruin@D1" not in board_line(s, "R")
    s, events = play(T16, "Green build Hamlet C1 on M pay C 1+0\nWhite choose D1\nGreen choose C5\nBlue choose C5")
    same_position(s, PLAIN + """
        active: Green
        turn: acted
        Green: played=1,0
        M: Keep[Red]@A1 Hamlet@C1 Watchtower[White]@D1 Abbey[Red]@F1 Watchtower[Red]@A3
        M: Monastery[Red]@C3 Chapel[Blue]@C5
        F: Keep[Red]@A1 Abbey[Red]@F1 Monastery[Red]@C3
        R: Keep-ruin@A1 Abbey-ruin@F1 Monastery-ruin@C3
        discard: C
        """)
    assert [(e.old.kind, e.new.kind) for e in events if isinstance(e, Downsized)] == [
        (Kind.KEEP, Kind.WATCHTOWER), (Kind.MONASTERY, Kind.CHAPEL)]
    assert s.stock[Kind.KEEP] == 21 and s.stock[Kind.MONASTERY] == 17
    assert len(domains(s.boards[Age.MIGHT], s.map).groups) == 3


# -- T17 Populating (R31, A5, A33) ---------------------------------------------------------------------

T17 = PLAIN + """
    hamlets: B2
    Red: pawns=R,M hand=CC
    White: pawns=R,M hand=CC
    R: Town@D2
    """


def test_t17_populating_r31_a5_a33() -> None:
    s, _ = play(T17, "Red populate B2 pay C\nRed populate D2 pay C")
    assert board_line(s, "R") == "PH@B2{Red:1} Town@D2{Red:1}"
    assert s.players[0].supply == 23
    s, _ = play(T17, "Red populate B2 pay C\nRed populate D2 pay C\nRed end\nWhite populate D2\nWhite populate D2")
    assert board_line(s, "R") == "PH@B2{Red:1} Town@D2{Red:1,White:2}"
    assert s.players[1].supply == 23
    with pytest.raises(RuleError) as info:  # the Town holds 3, its cap
        apply(s, Populate(1, Cell.parse("D2"), Payment(Cards(c=1), (1, 0))))
    assert info.value.code == "full"


@pytest.mark.parametrize(
    ("actions", "code", "rule"),
    [
        ("Red populate B2 pay C\nRed populate B2 pay C", "full", "R31"),
        ("Red populate D2 pay M", "wrong-colour", "R31"),
        ("Red travel 1 M\nRed populate D2 pay C", "presence", "R15"),
    ],
)
def test_t17_populating_refusals_r31(actions: str, code: str, rule: str) -> None:
    pos = T17.replace("Red: pawns=R,M hand=CC", "Red: pawns=R,M hand=CCMC")
    refused(pos, actions, code, rule)


# -- T18 Renovating (R32, A6, A32) ------------------------------------------------------------------------

T18 = PLAIN + """
    Red: pawns=R,M hand=MR
    White: pawns=R,M hand=R
    R: Keep-ruin@B2 Abbey-ruin@E2
    """


def test_t18_renovating_r32_a6_a32() -> None:
    s, _ = play(T18, "Red renovate B2 pay M\nRed renovate E2 pay R")
    assert board_line(s, "R") == "Keep-renov@B2 Abbey-ruin@E2+Red"
    assert s.players[0].supply == 24
    values = sorted(b.income_value for b in s.boards[Age.REASON].buildings.values())
    assert values == [2, 2]
    s, _ = play(T18, "Red renovate B2 pay M\nRed renovate E2 pay R\nRed end\nWhite renovate E2 pay R")
    assert board_line(s, "R") == "Keep-renov@B2 Abbey-renov@E2"
    assert s.players[0].supply == 25
    assert [p.ecus for p in s.players] == [10, 10, 10, 10]


def test_t18b_an_abbey_ruin_renovated_in_one_action_uses_no_marker_r32() -> None:
    s, _ = play(T18.replace("hand=MR", "hand=RR"), "Red renovate E2 pay RR")
    assert board_line(s, "R") == "Keep-ruin@B2 Abbey-renov@E2"
    assert s.players[0].supply == 25


# -- T19–T21 Income (R21, R73–R76) ----------------------------------------------------------------------------

def test_t19_income_on_might_r21_r73_r74() -> None:
    s, events = play(T19, "Red end")
    assert [(e.age, e.amount, e.domains) for e in events if isinstance(e, IncomePaid)] == [(Age.MIGHT, 11, 2)]
    assert s.players[0].ecus == 21
    s, events = play(T19 + "first: Green\nactive: Green\n", "Green end")
    assert [e.amount for e in events if isinstance(e, IncomePaid)] == [0]


def test_t19b_no_income_from_a_board_without_a_pawn_r73() -> None:
    s, events = play(T19 + "Red: pawns=F,F\n", "Red end")
    assert [(e.age, e.amount) for e in events if isinstance(e, IncomePaid)] == [(Age.FAITH, 0)]
    assert s.players[0].ecus == 10


def test_t20_income_on_faith_r75() -> None:
    s, events = play(T20, "Green end")
    assert [(e.age, e.amount) for e in events if isinstance(e, IncomePaid)] == [(Age.MIGHT, 0), (Age.FAITH, 6)]
    assert s.players[0].ecus == 16
    s, events = play(T20, "Green end\nRed end")
    assert [(e.player, e.age, e.amount) for e in events if isinstance(e, IncomePaid)][-2:] == [
        (1, Age.MIGHT, 0), (1, Age.FAITH, 0)]


def test_t21_income_on_reason_r76_a4_a34() -> None:
    s, events = play(T21, "White end\nRed end")
    paid = [(e.player, e.amount) for e in events if isinstance(e, IncomePaid)]
    assert paid == [(0, 5), (1, 0)]
    assert [s.players[0].ecus, s.players[1].ecus] == [15, 10]


def test_t21b_tied_majorities_each_collect_in_full_r76_a34() -> None:
    pos = T21.replace("Monastery-ruin@D4", "Monastery-ruin@D4 PH@C4{Red:1}")
    _s, events = play(pos, "White end\nRed end")
    assert [(e.player, e.amount) for e in events if isinstance(e, IncomePaid)] == [(0, 5), (1, 5)]


# -- T22 Hold'em reserve (R33, A39) ----------------------------------------------------------------------

T22 = PLAIN + "options: holdem\nreserve: MCC\nRed: hand=RRMC\n"


def test_t22_holdem_swaps_r33_a39() -> None:
    s, _ = play(T22)
    swaps = legal_actions(s, types=[Swap])
    assert {(str(a.take), str(a.give)) for a in swaps if isinstance(a, Swap)} == {
        ("M", "M"), ("M", "R"), ("M", "C"),
        ("C", "M"), ("C", "R"), ("C", "C"),
        ("CC", "RR"), ("CC", "MR"), ("CC", "RC"), ("CC", "MC"),
    }
    s, _events = play(T22, "Red swap take CC give RR")
    assert s.players[0].hand == Cards.parse("MCCC") and s.reserve == Cards.parse("MRR")
    assert s.players[0].ecus == 10


@pytest.mark.parametrize(
    ("actions", "code"),
    [
        ("Red swap take MC give RR", "swap-colours"),
        ("Red swap take MCC give RRM", "swap-colours"),
        ("Red swap take M give R\nRed swap take C give R", "once"),
    ],
)
def test_t22_holdem_refusals_r33(actions: str, code: str) -> None:
    refused(T22, actions, code, "R33")


# -- T23 Geography (R35–R39, A11) -----------------------------------------------------------------------

GEO = "map: plain 15x12\nterrain: B2=~ E2=f H2=m K2=M N2=R B6=f C6=m\n"


def costs(players: str, kind: Kind, origin: str, pawns: str = "M,M", hand: str = "MMMMCCCC") -> set[int] | None:
    """The card counts of every legal way to build ``kind`` at ``origin`` on Might (None: not legal)."""
    pos = GEO + f"players: {players}\nRed: pawns={pawns} hand={hand}\n"
    s, _ = play(pos)
    found = {
        a.payment.cards.total
        for a in legal_actions(s, types=[Construct], ages=[Age.MIGHT], kinds=[kind])
        if isinstance(a, Construct) and str(a.origin) == origin
    }
    return found or None


P2, P3, P4, P5 = "Red White", "Red White Green", "Red White Green Blue", "Red White Green Blue Yellow"


@pytest.mark.parametrize(
    ("row", "players", "kind", "origin", "pawns", "expected"),
    [
        ("a", P4, Kind.HAMLET, "B2", "M,M", None),
        ("b", P4, Kind.KEEP, "A1", "M,M", None),
        ("c", P4, Kind.TOWN, "A1", "M,M", {2}),
        ("d", P4, Kind.KEEP, "D1", "M,M", {2}),
        ("e", P3, Kind.KEEP, "D1", "M,M", {3}),
        ("f", P3, Kind.KEEP, "D1", "M,F", None),
        ("g", P2, Kind.KEEP, "G1", "M,M", {4}),
        ("h", P4, Kind.KEEP, "G1", "M,M", {3}),
        ("i", P5, Kind.KEEP, "G1", "M,M", {2}),
        ("j", P2, Kind.KEEP, "B5", "M,M", None),
        ("k", P4, Kind.WATCHTOWER, "K2", "M,M", {2}),
        ("l", P3, Kind.KEEP, "M1", "M,M", None),
        ("m", P3, Kind.TOWN, "M1", "M,M", {2}),
    ],
)
def test_t23_geography_r35_r39_a11(row: str, players: str, kind: Kind, origin: str, pawns: str,
                                   expected: set[int] | None) -> None:
    assert costs(players, kind, origin, pawns) == expected, row


def test_t23n_upgrading_a_keep_on_forest_pays_the_surcharge_again_r39_a11() -> None:
    pos = GEO + f"players: {P3}\nRed: hand=MC\nM: Keep[Red]@D1\n"
    s, _ = play(pos, "Red upgrade D1 on M to Castle at D1 pay MC 1+1")
    assert board_line(s, "M") == "Castle[Red]@D1"
    refused(pos, "Red upgrade D1 on M to Castle at D1 pay M 1+0", "wrong-cards", "R25")


# -- T24 Starting state (R9, R10) ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("holdem", [False, True])
def test_t24_starting_state_r9_r10(players: int, holdem: bool) -> None:
    from rules import Options, new_game

    s = new_game([f"P{i}" for i in range(players)], seed=players * 10 + holdem, options=Options(holdem=holdem))
    for p in s.players:
        assert p.pawns == [Age.MIGHT, Age.MIGHT] and p.supply == 25 and p.ecus == 4 and p.hand.total == 4
    assert len(s.deck) == 55 - 4 * players - (3 if holdem else 0)
    if holdem:
        assert s.reserve == Cards(1, 1, 1)
    assert sum(s.stock.values()) == 155
    for board in s.boards:
        assert sorted(b.origin for b in board.buildings.values()) == sorted(s.map.hamlets)
        assert all(b.printed for b in board.buildings.values())
    assert len(s.map.hamlets) == 10
    assert s.round == 1 and s.active == s.first
