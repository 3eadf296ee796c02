"""§5 of the digest, time rippling (R47–R58): what ripples, the chain, ownership of copies, the
forbidden ripple, old shadows, paradox, identity and tile shortage, with the rulings on them (A15–A18,
A41) and decision D16 (value-1 buildings have no shadows). Positions use the notation's defaults."""

from __future__ import annotations

import pytest

from rules import Age, DecisionKind, Kind, domains
from rules.events import (
    Destroyed,
    Downsized,
    ParadoxRemoved,
    PowerCompared,
    Rippled,
    RippleForbidden,
    RippleSkipped,
    ShadowRemoved,
)
from tests.support.scenario import board_line, play, refused, same_position

PLAIN = "map: plain 15x12\n"


def test_r47_r48_r49_r50_a_monastery_built_on_might_ripples_with_a_new_cube_then_a_ruin() -> None:
    """R47–R50: same cells, a new cube of the same owner on Faith, a cubeless ruin on Reason."""
    s, _ = play(PLAIN + "active: Green\nGreen: hand=RR\n", "Green build Monastery D5 on M")
    assert board_line(s, "F") == "Monastery[Green]@D5" and board_line(s, "R") == "Monastery-ruin@D5"
    assert s.players[2].supply == 23 and s.stock[Kind.MONASTERY] == 17


def test_r30_r47_r65_d16_destroying_a_watchtower_leaves_a_lookalike_faith_watchtower() -> None:
    """R30/R47: value-1 buildings never have shadows, so destroying one (R64) removes nothing on Faith,
    even a Watchtower of the same owner on the same cell there (decision D16)."""
    pos = PLAIN + """
        active: Blue
        Blue: hand=C
        M: Watchtower[Red]@A1 Hamlet@B1 Watchtower[White]@C1 Hamlet@B2 Keep[Green]@A3
        F: Watchtower[White]@C1
        """
    s, events = play(pos, "Blue demolish B2 on M pay C\nBlue choose C1")
    assert board_line(s, "M") == "Watchtower[Red]@A1 Hamlet@B1 Keep[Green]@A3"
    assert board_line(s, "F") == "Watchtower[White]@C1"
    assert not any(isinstance(e, ShadowRemoved) for e in events)
    assert s.players[1].supply == 24  # only the Might cube came back


def test_r48_r49_a_shadow_takes_the_same_cells_and_reason_only_follows_faith() -> None:
    s, events = play(PLAIN + "Red: hand=RR\nF: Monastery[White]@D1\n", "Red build Monastery B1 on M")
    assert [e.rule for e in events if isinstance(e, RippleForbidden)] == ["hierarchy"]
    assert not any(isinstance(e, Rippled) for e in events) and board_line(s, "R") == ""


def test_r49_r56_no_faith_copy_means_no_reason_copy() -> None:
    """R49/R56: a skipped Faith copy (no tile) leaves Reason alone too, though a tile is free for it."""
    s, events = play(PLAIN + "Red: hand=CC\nstock: Town=1\n", "Red build Town A1 on M")
    assert board_line(s, "F") == "" and board_line(s, "R") == ""
    assert [(e.age, e.reason) for e in events if isinstance(e, RippleSkipped)] == [(Age.FAITH, "tile")]


def test_a15_r51_victims_removed_first_can_split_faith_and_forbid_the_copy() -> None:
    pos = PLAIN + """
        active: Blue
        Blue: hand=MM
        F: Hamlet@A2 Watchtower[Green]@B2 Hamlet@C2 Hamlet@D2
        """
    s, events = play(pos, "Blue build Keep B2 on M")
    assert [e.rule for e in events if isinstance(e, RippleForbidden)] == ["dominion"]
    assert board_line(s, "F") == "Hamlet@A2 Watchtower[Green]@B2 Hamlet@C2 Hamlet@D2"
    assert board_line(s, "R") == ""


@pytest.mark.parametrize("faith_owner", ["Red", "White"])
def test_r51_r52_r54_d16_a_value_one_lookalike_on_faith_is_a_victim_not_the_old_shadow(faith_owner: str) -> None:
    """R52/R54: a Watchtower never ripples, so the Faith Watchtower under Red's new Keep is a paradox
    victim whoever owns it, never the old shadow. Without it the Keep would join the two Faith
    Hamlets, so the copy is refused (R51) and Faith and Reason stay exactly as they were."""
    faith = f"F: Hamlet@B2 Watchtower[{faith_owner}]@C2 Hamlet@C3\n"
    s, events = play(PLAIN + "Red: hand=M\nM: Watchtower[Red]@C2\n" + faith,
                     "Red upgrade C2 on M to Keep at C1 pay M 1+0")
    same_position(s, PLAIN + "turn: acted\nRed: ecus=11 played=1,0\nM: Keep[Red]@C1\n" + faith + "discard: M\n")
    assert [e.rule for e in events if isinstance(e, RippleForbidden)] == ["dominion"]
    assert not any(isinstance(e, (Rippled, ParadoxRemoved)) for e in events)


def test_a17_forbidden_upgrade_ripple_leaves_the_old_shadow_and_its_renovation() -> None:
    pos = PLAIN + """
        Red: hand=M
        M: Keep[Red]@A1
        F: Keep[Red]@A1 Castle[White]@D1
        R: Keep-renov@A1
        """
    s, events = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert [e.rule for e in events if isinstance(e, RippleForbidden)] == ["hierarchy"]
    assert board_line(s, "F") == "Keep[Red]@A1 Castle[White]@D1"
    assert board_line(s, "R") == "Keep-renov@A1"
    assert s.players[0].ecus == 11


def test_r52_r54_a17_an_upgrade_replaces_the_identical_shadow_and_destroys_the_rest() -> None:
    pos = PLAIN + """
        Red: hand=M
        M: Keep[Red]@A1
        F: Keep[Red]@A1 Chapel[White]@C2
        R: Keep-renov@A1
        """
    s, events = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "F") == "Castle[Red]@A1" and board_line(s, "R") == "Castle-ruin@A1"
    assert [e.building.kind for e in events if isinstance(e, ParadoxRemoved)] == [Kind.CHAPEL]
    assert s.players[0].supply == 23  # the Faith cube moved across, no new one


def test_r52_r54_r55_a18_a_monastery_upgrade_replaces_its_renovated_reason_shadow_with_an_abbey_ruin() -> None:
    """R52/R55: the identical Faith shadow keeps its cube on the Abbey; the renovated Reason Monastery
    (R54: renovation ignored by the identity test) becomes a plain Abbey ruin."""
    pos = PLAIN + "Red: hand=R\nM: Monastery[Red]@A1\nF: Monastery[Red]@A1\nR: Monastery-renov@A1\n"
    s, events = play(pos, "Red upgrade A1 on M to Abbey at A1 pay R 1+0")
    assert board_line(s, "F") == "Abbey[Red]@A1" and board_line(s, "R") == "Abbey-ruin@A1"
    assert not any(isinstance(e, ParadoxRemoved) for e in events)
    assert s.players[0].supply == 23 and s.stock[Kind.MONASTERY] == 20 and s.stock[Kind.ABBEY] == 6


def test_r52_r53_r54_d16_a_hamlet_tile_lookalike_under_a_town_copy_is_a_paradox_victim() -> None:
    """R52/R54: a Hamlet tile has no shadow; the Faith Hamlet tile under the Town's copy is removed by
    paradox (R53) rather than replaced, while a printed hamlet there would only be covered."""
    s, events = play(PLAIN + "Red: hand=C\nM: Hamlet@B2\nF: Hamlet@B2\n", "Red upgrade B2 on M to Town at B2 pay C 1+0")
    same_position(s, PLAIN + """
        turn: acted
        Red: ecus=11 played=1,0
        M: Town@B2
        F: Town@B2
        R: Town@B2
        discard: C
        """)
    assert [(e.age, e.building.kind) for e in events if isinstance(e, ParadoxRemoved)] == [(Age.FAITH, Kind.HAMLET)]
    assert [e.replaced for e in events if isinstance(e, Rippled)] == [None, None]


def test_r52_r70b_a_civil_upgrade_moves_the_population_onto_the_new_tile() -> None:
    pos = PLAIN + "hamlets: B2\nRed: hand=C\nR: PH@B2{White:1}\n"
    s, _ = play(pos, "Red upgrade B2 on M to Town at B2 pay C")
    assert board_line(s, "R") == "Town@B2{White:1}" and s.players[1].supply == 24


def test_r52_r70b_a_town_upgraded_to_a_city_keeps_its_three_cubes() -> None:
    """R52/R70b: population moves onto the City; the Town tiles go back."""
    pos = PLAIN + "Red: hand=C\nM: Town@A1\nF: Town@A1\nR: Town@A1{Red:1,White:2}\n"
    s, _ = play(pos, "Red upgrade A1 on M to City at A1 pay C 1+0")
    assert board_line(s, "R") == "City@A1{Red:1,White:2}" and s.stock[Kind.TOWN] == 24


def test_r3_r52_r70a_a12_a16_d4_upgrading_a_printed_hamlet_through_a_faith_town_over_it() -> None:
    """R52/D4: Faith's Town over the hamlet is a paradox victim (R53), and so is its Reason shadow (A16);
    R70a: Red, with the most cubes, keeps one on the uncovered hamlet (R3), which is then the old
    building the new Town replaces, so the cube moves onto it."""
    pos = PLAIN + "hamlets: B2\nRed: hand=C\nF: Town@A1\nR: Town@A1{Red:2,White:1}\n"
    s, events = play(pos, "Red upgrade B2 on M to Town at B2 pay C")
    assert board_line(s, "M") == board_line(s, "F") == "Town@B2"
    assert board_line(s, "R") == "Town@B2{Red:1}"
    assert [p.supply for p in s.players] == [24, 25, 25, 25]
    assert s.stock[Kind.TOWN] == 24 - 3 and s.stock[Kind.HAMLET] == 20
    assert [e.age for e in events if isinstance(e, ParadoxRemoved)] == [Age.FAITH]


def test_r52_r60_r62_a_civil_upgrade_copy_joins_faith_domains_through_its_old_shadow() -> None:
    """R52/R60: the City's copy replaces the Faith Town; the Town's domain (Red's Keep) and White's domain
    are the originals; 2 against 2 is a tie and Red, the active player, loses his own Keep first (R62)."""
    pos = PLAIN + "Red: hand=C\nM: Town@C2\nF: Keep[Red]@A2 Town@C2 Keep[White]@F3\nR: Town@C2{White:1}\n"
    s, events = play(pos, "Red upgrade C2 on M to City at C2 pay C")
    assert [[p for _, p in e.powers] for e in events if isinstance(e, PowerCompared)] == [[2, 2]]
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.kind is DecisionKind.PLACE_SMALLER and d.player == 0 and str(d.subject) == "A2"
    s, _ = play(pos, "Red upgrade C2 on M to City at C2 pay C\nRed choose B3")
    assert board_line(s, "F") == "City@C2 Watchtower[Red]@B3 Keep[White]@F3"
    assert board_line(s, "R") == "City@C2{White:1}"


def test_r53_a16_paradox_takes_the_victims_reason_shadow_and_its_marker() -> None:
    """R53/A16/R70c: Green's Faith Castle under Blue's copy goes, with its Reason ruin and Red's marker."""
    pos = PLAIN + """
        active: Blue
        Blue: hand=RR
        F: Castle[Green]@B2
        R: Castle-ruin@B2+Red
        """
    s, _ = play(pos, "Blue build Monastery A1 on M")
    assert board_line(s, "F") == "Monastery[Blue]@A1" and board_line(s, "R") == "Monastery-ruin@A1"
    assert s.players[0].supply == 25 and s.players[2].supply == 25 and s.stock[Kind.CASTLE] == 9


def test_r54_a18_shadow_with_another_owner_is_not_identical() -> None:
    pos = PLAIN + "Red: hand=M\nM: Keep[Red]@A1\nF: Keep[White]@A1\nR: Keep-ruin@A1\n"
    s, events = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "F") == "Castle[Red]@A1"
    assert [(e.age, e.building.kind) for e in events if isinstance(e, ParadoxRemoved)] == [(Age.FAITH, Kind.KEEP)]
    assert board_line(s, "R") == "Castle-ruin@A1" and s.players[1].supply == 25


def test_r55_upgrading_a_keep_with_a_renovated_reason_shadow_gives_a_plain_castle_ruin() -> None:
    s, _ = play(PLAIN + "Red: hand=M\nM: Keep[Red]@A1\nF: Keep[Red]@A1\nR: Keep-renov@A1\n",
                "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "R") == "Castle-ruin@A1"


def test_r56_a41_skipped_upgrade_ripple_leaves_the_old_shadow() -> None:
    pos = PLAIN + "Red: hand=M\nM: Keep[Red]@A1\nF: Keep[Red]@A1\nR: Keep-ruin@A1\nstock: Castle=1\n"
    s, events = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "F") == "Keep[Red]@A1" and board_line(s, "R") == "Keep-ruin@A1"
    assert [e.reason for e in events if isinstance(e, RippleSkipped)] == ["tile"]


def test_r56_a41_reason_tile_missing_keeps_the_old_reason_shadow() -> None:
    pos = PLAIN + "Red: hand=M\nM: Keep[Red]@A1\nF: Keep[Red]@A1\nR: Keep-renov@A1\nstock: Castle=2\n"
    s, events = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "F") == "Castle[Red]@A1" and board_line(s, "R") == "Keep-renov@A1"
    assert [(e.age, e.reason) for e in events if isinstance(e, RippleSkipped)] == [(Age.REASON, "tile")]


def test_r57_r60_a_civil_ripple_joins_faith_domains_and_religious_power_decides_first() -> None:
    pos = PLAIN + """
        Red: hand=CC
        F: Monastery[White]@A1 Chapel[White]@A3 Keep[Blue]@A4 Monastery[Green]@E1 Keep[Green]@E3
        """
    s, events = play(pos, "Red build Town C2 on M pay CC 1+1")
    compared = [(e.family.value, [p for _, p in e.powers]) for e in events if isinstance(e, PowerCompared)]
    assert compared[0] == ("R", [3, 2])
    assert s.pending is not None and s.pending.decision.player == 2  # Green places the Chapel


def test_r57_r69_a30_a44_a_civil_ripple_joins_reason_domains_without_downsizing() -> None:
    """R57/R69/A44: on Reason a Town's copy joins two domains holding equal ruins; nothing is downsized."""
    pos = PLAIN + "Red: hand=CC\nR: Castle-ruin@A1 Castle-ruin@F1\n"
    s, events = play(pos, "Red build Town D1 on M")
    assert board_line(s, "R") == "Castle-ruin@A1 Town@D1 Castle-ruin@F1"
    assert len(domains(s.boards[Age.REASON], s.map).groups) == 1
    assert not any(isinstance(e, (Downsized, Destroyed)) for e in events)


def test_r58_reason_takes_no_construction_only_shadows() -> None:
    refused(PLAIN + "Red: pawns=R,R hand=CC\n", "Red build Town A1 on R pay CC 1+1", "wrong-age", "R25")


def test_r58_faith_may_hold_its_own_constructions_and_shadows() -> None:
    """R58: Faith holds its own buildings beside Might's shadows; Reason takes no construction."""
    s, _ = play(PLAIN + "Red: pawns=M,F hand=MMCC\n",
                "Red build Keep A1 on M pay MM 2+0\nRed build Town D1 on F pay CC 0+2")
    assert board_line(s, "F") == "Keep[Red]@A1 Town@D1" and board_line(s, "R") == "Keep-ruin@A1 Town@D1"
