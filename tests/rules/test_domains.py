"""§6 of the digest, domain transformation (R59–R72): the resolution order, junctions and power,
downsizing and its shadow consequences, division mode, Reason, cubes on Reason, and who decides, with
the rulings on them (A19–A26, A28–A30, A44) and decision D17. Positions use the notation's defaults."""

from __future__ import annotations

import pytest

from rules import Age, Choose, DecisionKind, EndTurn, Kind, RuleError, apply, domains, legal_actions
from rules.events import CubeKept, Destroyed, Downsized, PowerCompared, Rippled, ShadowRemoved
from tests.support.scenario import board_line, play

PLAIN = "map: plain 15x12\n"

D17 = PLAIN + """
    Red: hand=CCC
    F: Keep[White]@F1 Keep[Blue]@H1 Hamlet@E2 Hamlet@E3 Hamlet@E4 Castle[Green]@F3
    F: Keep[Green]@C6 Watchtower[Green]@B6 Watchtower[Green]@C5 Watchtower[Green]@B7
    """

R59 = PLAIN + """
    active: Green
    Green: hand=CC
    M: Castle[Red]@A1 Watchtower[Red]@A4 Castle[White]@F1
    F: Castle[Red]@A1 Castle[White]@F1 Hamlet@H4 Keep[Blue]@I4
    """


def test_r59_r65_r72_a19_a23_a24_a25_faith_is_stabilised_before_the_ripple_arrives() -> None:
    """R59/A24: the Town's junction on Might downsizes White's Castle (4 > 3); White places the Keep
    (R72/A25), and its Faith shadow becomes a Keep on the same cells at once (R65), which ties with
    Blue's Keep (A19: placed anyway). Faith is stabilised in division mode, Green deciding (A23), before
    the Town's copy reaches Faith."""
    s, events = play(R59, "Green build Town D2 on M pay CC 1+1\nWhite choose G2")
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.kind is DecisionKind.DOWNSIZE_WHICH and d.player == 2 and d.age is Age.FAITH
    assert [str(c) for c in d.options] == ["G2", "I4"]
    assert not any(isinstance(e, Rippled) for e in events)
    s, events = play(R59, "Green build Town D2 on M pay CC 1+1\nWhite choose G2\nGreen choose I4\nBlue choose J5")
    assert s.pending is None
    assert board_line(s, "M") == "Castle[Red]@A1 Town@D2 Keep[White]@G2 Watchtower[Red]@A4"
    assert board_line(s, "F") == "Castle[Red]@A1 Town@D2 Keep[White]@G2 Hamlet@H4 Watchtower[Blue]@J5"
    assert board_line(s, "R") == "Town@D2"
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("Downsized") < kinds.index("Rippled")


def test_r61_a23_junction_mode_goes_on_to_the_second_family_while_the_domain_holds() -> None:
    """R61: on Might, Military then Religious, both by power while the merged domain stays whole: Red's
    side wins the Keeps 3 to 2; White keeps the Watchtower attached, so the Chapels (1 against 1) are
    still a junction tie, and Green, who caused it and owns neither, picks (A23)."""
    pos = PLAIN + """
        active: Green
        Green: hand=C
        M: Keep[Red]@A1 Watchtower[Red]@A3 Chapel[Red]@B3 Keep[White]@D1 Chapel[White]@D3
        """
    s, events = play(pos, "Green build Hamlet C2 on M pay C 1+0\nWhite choose D2")
    powers = [(e.family.value, [p for _, p in e.powers]) for e in events if isinstance(e, PowerCompared)]
    assert powers == [("M", [3, 2]), ("R", [1, 1])]
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.kind is DecisionKind.DOWNSIZE_WHICH and d.player == 2 and [str(c) for c in d.options] == ["B3", "D3"]


def test_r62_a21_only_the_involved_domains_are_compared_and_only_contenders_downsized() -> None:
    pos = PLAIN + """
        active: Green
        Green: hand=C
        M: Watchtower[Blue]@C1 Keep[Red]@A2 Keep[White]@D2 Watchtower[Red]@A4 Chapel[White]@D4
        """
    s, events = play(pos, "Green build Hamlet C2 on M pay C\nWhite choose D2")
    assert [[p for _, p in e.powers] for e in events if isinstance(e, PowerCompared)] == [[3, 2]]
    assert board_line(s, "M") == (
        "Watchtower[Blue]@C1 Keep[Red]@A2 Hamlet@C2 Watchtower[White]@D2 Watchtower[Red]@A4 Chapel[White]@D4"
    )


def test_a21_only_domains_holding_a_tied_building_are_compared() -> None:
    """A21/R62: Blue's domain (Keep + 2 Watchtowers, power 4) joins too but holds no Castle, so only the
    two Castle domains (3 against 3) are compared and Green picks."""
    pos = PLAIN + """
        active: Green
        Green: hand=CCC
        M: Castle[Red]@A1 Castle[White]@G1 Keep[Blue]@D4 Watchtower[Blue]@F4 Watchtower[Blue]@F5
        """
    s, events = play(pos, "Green build City D1 on M pay CCC 2+1")
    assert [[p for _, p in e.powers] for e in events if isinstance(e, PowerCompared)] == [[3, 3]]
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.kind is DecisionKind.DOWNSIZE_WHICH and d.player == 2 and [str(c) for c in d.options] == ["A1", "G1"]


def test_r62_weaker_domains_lose_and_tied_strongest_p_own_goes() -> None:
    pos = PLAIN + """
        active: Red
        Red: hand=CC
        M: Keep[Red]@A1 Watchtower[Red]@A3 Keep[White]@E1 Watchtower[White]@F3 Keep[Blue]@C4
        """
    s, events = play(pos, "Red build Town C2 on M pay CC 1+1")
    assert sorted(p for e in events if isinstance(e, PowerCompared) for _, p in e.powers) == [2, 3, 3]
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.player == 0 and str(d.subject) == "A1"  # Red's own Keep goes first (R63: P first)
    s, _ = play(pos, "Red build Town C2 on M pay CC 1+1\nRed choose A1")
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.player == 3 and str(d.subject) == "C4"  # then Blue's, weaker
    s, _ = play(pos, "Red build Town C2 on M pay CC 1+1\nRed choose A1\nBlue choose C4")
    assert s.pending is None
    assert "Keep[White]@E1" in board_line(s, "M")


def test_r62_r63_a22_three_domains_tie_and_p_chooses_two_to_downsize() -> None:
    pos = PLAIN + """
        active: Green
        Green: hand=CC
        M: Keep[Red]@A1 Keep[White]@E1 Keep[Blue]@C4
        """
    s, _ = play(pos, "Green build Town C2 on M pay CC 1+1")
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.player == 2 and sorted(str(c) for c in d.options) == ["A1", "C4", "E1"]


def test_r62_d17_a_weaker_original_domain_loses_every_tied_building_it_holds() -> None:
    """R53, R60, R62: the City's copy removes Green's Castle, exposing two tied Keeps in one original
    domain (power 4); Green's domain (Keep + 3 Watchtowers, power 5) is stronger, so both Keeps of the
    weaker domain are downsized and Green's Keep stays the unique top (decision D17)."""
    s, events = play(D17, "Red build City E5 on M pay CCC 2+1")
    assert [[p for _, p in e.powers] for e in events if isinstance(e, PowerCompared)] == [[4, 5]]
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.kind is DecisionKind.PLACE_SMALLER and d.player == 1 and str(d.subject) == "F1"
    s, _ = play(D17, "Red build City E5 on M pay CCC 2+1\nWhite choose G1")
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.kind is DecisionKind.PLACE_SMALLER and d.player == 3 and str(d.subject) == "H1"
    s, _ = play(D17, "Red build City E5 on M pay CCC 2+1\nWhite choose G1\nBlue choose I2")
    assert s.pending is None
    assert board_line(s, "F") == (
        "Watchtower[White]@G1 Hamlet@E2 Watchtower[Blue]@I2 Hamlet@E3 Hamlet@E4 Watchtower[Green]@C5 City@E5 "
        "Watchtower[Green]@B6 Keep[Green]@C6 Watchtower[Green]@B7"
    )
    assert board_line(s, "R") == "City@E5"


def test_r62_d17_a_stronger_original_domain_keeps_one_of_its_tied_buildings() -> None:
    """R62, D17: when the domain holding the exposed tie is the strongest, its tied buildings are the
    contenders: all but one go, the active player choosing (he owns none of them)."""
    pos = D17.replace("Watchtower[Green]@B6 Watchtower[Green]@C5 Watchtower[Green]@B7", "")
    s, events = play(pos, "Red build City E5 on M pay CCC 2+1")
    assert [[p for _, p in e.powers] for e in events if isinstance(e, PowerCompared)] == [[4, 2]]
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.kind is DecisionKind.DOWNSIZE_WHICH and d.player == 0 and [str(c) for c in d.options] == ["F1", "H1"]
    s, _ = play(pos, "Red build City E5 on M pay CCC 2+1\nRed choose H1\nGreen choose C6\nBlue choose H2")
    assert s.pending is None
    assert "Keep[White]@F1" in board_line(s, "F") and "Watchtower[Blue]@H2" in board_line(s, "F")
    assert "Watchtower[Green]@C6" in board_line(s, "F")


def test_r63_simultaneous_downsizings_go_clockwise_from_the_active_player() -> None:
    board = "M: Keep[Red]@B4 Watchtower[Red]@A4 Keep[Green]@D2 Keep[Blue]@F5\n"
    s, _ = play(PLAIN + "active: White\nWhite: hand=CC\n" + board, "White build Town D4 on M pay CC 1+1")
    assert s.pending.decision.player == 2  # type: ignore[union-attr]  # Green comes before Blue after White
    s, _ = play(PLAIN + "active: White\nWhite: hand=CC\n" + board, "White build Town D4 on M pay CC 1+1\n"
                "Green choose D2")
    assert s.pending.decision.player == 3  # type: ignore[union-attr]
    s, _ = play(PLAIN + "active: Blue\nBlue: hand=CC\n" + board, "Blue build Town D4 on M pay CC 1+1")
    assert s.pending.decision.player == 3  # type: ignore[union-attr]  # starting with P: Blue first


def test_r64_a20_downsizing_skips_a_missing_tile_or_destroys() -> None:
    pos = PLAIN + "Red: hand=C\nM: Castle[Red]@A1 Watchtower[Red]@A4 Castle[White]@E1\n"
    s, events = play(pos + "stock: Keep=0\n", "Red build Hamlet D2 on M pay C\nWhite choose E1")
    assert [(e.old.kind, e.new.kind) for e in events if isinstance(e, Downsized)] == [(Kind.CASTLE, Kind.WATCHTOWER)]
    s, events = play(pos + "stock: Keep=0 Watchtower=0\n", "Red build Hamlet D2 on M pay C")
    assert s.pending is None
    assert [e.building.kind for e in events if isinstance(e, Destroyed)] == [Kind.CASTLE]
    assert s.players[1].supply == 25


def test_r64_r65_a20_castle_falls_to_a_watchtower_and_its_shadows_go() -> None:
    """A20: no Keep tile, so White's Castle becomes a Watchtower; R65: a level-1 result removes the
    identical Faith Castle and its Reason ruin (marker back to Red)."""
    pos = PLAIN + """
        Red: hand=C
        M: Castle[Red]@A1 Watchtower[Red]@A4 Castle[White]@E1
        F: Castle[White]@E1
        R: Castle-ruin@E1+Red
        stock: Keep=0
        """
    s, _ = play(pos, "Red build Hamlet D2 on M pay C\nWhite choose G3")
    assert board_line(s, "M") == "Castle[Red]@A1 Hamlet@D2 Watchtower[White]@G3 Watchtower[Red]@A4"
    assert board_line(s, "F") == "" and board_line(s, "R") == ""
    assert s.players[0].supply == 25 - 2 and s.players[1].supply == 24


def test_r64_r65_a_destroyed_keep_still_takes_its_faith_shadow_along() -> None:
    """R64–R65: a Keep destroyed for want of a Watchtower tile removes its identical Faith shadow and
    the Reason ruin."""
    pos = PLAIN + """
        Red: hand=C
        M: Keep[Red]@A1 Watchtower[Green]@C1 Keep[White]@E1
        F: Keep[White]@E1
        R: Keep-ruin@E1
        stock: Watchtower=0
        """
    s, events = play(pos, "Red build Hamlet D1 on M pay C 1+0")
    assert board_line(s, "M") == "Keep[Red]@A1 Watchtower[Green]@C1 Hamlet@D1"
    assert board_line(s, "F") == "" and board_line(s, "R") == ""
    assert [e.age for e in events if isinstance(e, ShadowRemoved)] == [Age.FAITH, Age.REASON]


def test_r65_a19_a_downsizing_replacement_is_placed_even_if_it_breaks_faith_hierarchy() -> None:
    pos = PLAIN + """
        active: Green
        Green: hand=C
        M: Castle[Red]@A1 Watchtower[Red]@A4 Castle[White]@E1
        F: Castle[Red]@A1 Castle[White]@E1 Hamlet@G4 Keep[Blue]@H4
        """
    s, _ = play(pos, "Green build Hamlet D2 on M pay C\nWhite choose F2")
    assert s.pending is not None and s.pending.decision.age is Age.FAITH
    assert "Keep[White]@F2" in board_line(s, "F")


def test_r65_faith_castle_downsized_turns_a_renovated_reason_castle_into_a_plain_keep_ruin() -> None:
    pos = PLAIN + """
        active: Green
        Green: hand=C pawns=F,F
        F: Castle[Red]@A1 Watchtower[Red]@A4 Castle[White]@E1
        R: Castle-renov@A1 Castle-renov@E1
        """
    s, _ = play(pos, "Green build Hamlet D2 on F pay C 1+0\nWhite choose F2")
    assert board_line(s, "F") == "Castle[Red]@A1 Hamlet@D2 Keep[White]@F2 Watchtower[Red]@A4"
    assert board_line(s, "R") == "Castle-renov@A1 Keep-ruin@F2"


def test_r30_r66_r67_a_demolition_that_splits_a_domain_is_resolved_in_division_mode() -> None:
    pos = PLAIN + """
        active: Blue
        Blue: hand=C
        M: Watchtower[Red]@A1 Hamlet@B1 Watchtower[White]@C1 Hamlet@B2 Keep[Green]@A3
        """
    s, _ = play(pos, "Blue demolish B2 on M pay C")
    assert s.pending is not None
    d = s.pending.decision
    assert d.kind is DecisionKind.DOWNSIZE_WHICH and d.player == 3 and [str(c) for c in d.options] == ["A1", "C1"]
    s, events = play(pos, "Blue demolish B2 on M pay C\nBlue choose C1")
    assert [e.building.owner for e in events if isinstance(e, Destroyed)] == [1]
    assert board_line(s, "M") == "Watchtower[Red]@A1 Hamlet@B1 Keep[Green]@A3"


def test_r66_r67_r68_three_tied_watchtowers_take_two_rounds_of_the_loop() -> None:
    """R66: a demolition splits a domain; R67: three tied Watchtowers around a Hamlet, P owns none, so he
    picks twice; R68: the cascade ends."""
    pos = PLAIN + """
        active: Green
        Green: hand=C
        M: Keep[Green]@B1 Hamlet@B3 Hamlet@B4 Watchtower[Red]@A4 Watchtower[White]@C4 Watchtower[Blue]@B5
        """
    s, _ = play(pos, "Green demolish B3 on M pay C")
    assert [str(c) for c in s.pending.decision.options] == ["A4", "C4", "B5"]  # type: ignore[union-attr]
    s, _ = play(pos, "Green demolish B3 on M pay C\nGreen choose C4")
    assert [str(c) for c in s.pending.decision.options] == ["A4", "B5"]  # type: ignore[union-attr]
    s, _ = play(pos, "Green demolish B3 on M pay C\nGreen choose C4\nGreen choose A4")
    assert s.pending is None
    assert board_line(s, "M") == "Keep[Green]@B1 Hamlet@B4 Watchtower[Blue]@B5"
    assert s.players[0].supply == 25 and s.players[1].supply == 25 and s.players[3].supply == 24


def test_r67_the_active_players_own_building_goes_first_in_division_mode() -> None:
    pos = PLAIN + "Red: hand=C\nM: Watchtower[Red]@A1 Hamlet@B1 Watchtower[White]@C1 Hamlet@B2 Keep[Green]@A3\n"
    s, events = play(pos, "Red demolish B2 on M pay C")
    assert s.pending is None
    assert [e.building.owner for e in events if isinstance(e, Destroyed)] == [0]


def test_r67_r72_p_picks_which_of_two_split_domains_is_resolved_first() -> None:
    pos = PLAIN + """
        active: Blue
        Blue: hand=C
        M: Keep[Green]@E3 Hamlet@E5 Watchtower[White]@C5 Watchtower[Red]@D5 Watchtower[Red]@E6 Watchtower[White]@E7
        """
    s, _ = play(pos, "Blue demolish E5 on M pay C")
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.kind is DecisionKind.DOMAIN_ORDER and d.player == 3 and [str(c) for c in d.options] == ["C5", "E6"]
    s, _ = play(pos, "Blue demolish E5 on M pay C\nBlue choose E6")
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.kind is DecisionKind.DOWNSIZE_WHICH and [str(c) for c in d.options] == ["E6", "E7"]
    s, events = play(pos, "Blue demolish E5 on M pay C\nBlue choose E6\nBlue choose E7\nBlue choose C5")
    assert s.pending is None
    assert [str(e.building.origin) for e in events if isinstance(e, Destroyed)] == ["E7", "C5"]
    assert board_line(s, "M") == "Keep[Green]@E3 Watchtower[Red]@D5 Watchtower[Red]@E6"


def test_r69_a30_a44_a_ruin_may_join_reason_domains_and_equal_ruins_stay() -> None:
    pos = PLAIN + "Red: hand=MM\nR: Keep-ruin@A1 Keep-ruin@E1\n"
    s, events = play(pos, "Red build Keep C1 on M")
    assert board_line(s, "R") == "Keep-ruin@A1 Keep-ruin@C1 Keep-ruin@E1"
    assert len(domains(s.boards[Age.REASON], s.map).groups) == 1
    assert s.pending is None and not any(isinstance(e, (Downsized, Destroyed)) for e in events)


def test_r3_r70a_a28_a_paradox_on_a_town_over_a_printed_hamlet_uncovers_it_and_leaves_one_cube() -> None:
    pos = PLAIN + """
        hamlets: B2
        active: Blue
        Blue: hand=MM
        F: Town@B2
        R: Town@B2{Red:2,White:1}
        """
    s, events = play(pos, "Blue build Keep C3 on M")
    assert [(e.player, str(e.cell)) for e in events if isinstance(e, CubeKept)] == [(0, "B2")]
    assert board_line(s, "R") == "PH@B2{Red:1} Keep-ruin@C3"
    assert board_line(s, "F") == "Keep[Blue]@C3" and s.boards[Age.FAITH].at(s.map.index(s.map.hamlets[0])).printed
    assert s.players[0].supply == 24 and s.players[1].supply == 25


def test_r70a_a28_on_a_tie_the_active_players_cubes_come_off_first() -> None:
    pos = PLAIN + """
        hamlets: B2
        active: Blue
        Blue: hand=MM
        F: Town@B2
        R: Town@B2{Red:1,Blue:1,White:1}
        """
    _s, events = play(pos, "Blue build Keep C3 on M")
    assert [e for e in events if isinstance(e, CubeKept)] == []
    pos = pos.replace("{Red:1,Blue:1,White:1}", "{Blue:2,Red:2,White:1}")
    _, events = play(pos, "Blue build Keep C3 on M")
    assert [e.player for e in events if isinstance(e, CubeKept)] == [0]


def test_r70a_a28_the_active_player_with_the_most_cubes_keeps_his_cube() -> None:
    pos = PLAIN + """
        hamlets: B2
        Blue: hand=MM
        F: Town@B2
        R: Town@B2{Blue:2,White:1}
        active: Blue
        """
    s, _ = play(pos, "Blue build Keep C3 on M")
    assert board_line(s, "R") == "PH@B2{Blue:1} Keep-ruin@C3"


def test_r70a_a28_a_tie_without_the_active_player_leaves_no_cube() -> None:
    """A28: Red and White tie on the paradoxed Town; Blue (P) has no cube there to take off, the tie
    stands, and nobody keeps a cube on the hamlet."""
    pos = PLAIN + "hamlets: B2\nactive: Blue\nBlue: hand=MM\nF: Town@B2\nR: Town@B2{Red:1,White:1}\n"
    s, _ = play(pos, "Blue build Keep C3 on M")
    assert board_line(s, "R") == "Keep-ruin@C3"
    assert s.players[0].supply == 25 and s.players[1].supply == 25


def test_r71_a26_removed_pieces_go_back_to_stock_and_supply() -> None:
    s, _ = play(PLAIN + "active: Blue\nBlue: hand=RR\nF: Monastery[Green]@C3\nR: Monastery-ruin@C3\n",
                "Blue build Monastery B2 on M")
    assert s.players[2].supply == 25 and s.stock[Kind.MONASTERY] == 17


def test_r71_a26_a29_removed_pieces_return_and_caps_hold() -> None:
    """R71/A26: a paradoxed Town's cubes go back to their owners and its tiles to stock; A29 (D5): a
    Town's three cubes fit on the City that replaces it."""
    pos = PLAIN + "active: Blue\nBlue: hand=MM\nF: Town@B2\nR: Town@B2{Red:2,White:1}\n"
    s, _ = play(pos, "Blue build Keep A1 on M")
    assert board_line(s, "R") == "Keep-ruin@A1" and s.players[0].supply == 25 and s.players[1].supply == 25
    assert s.stock[Kind.TOWN] == 24


def test_r72_only_the_addressed_player_answers_and_nothing_else_happens_meanwhile() -> None:
    pos = PLAIN + """
        Red: hand=C
        M: Keep[Red]@A1 Watchtower[Green]@C1 Keep[White]@E1
        """
    s, _ = play(pos, "Red build Hamlet D1 on M pay C")
    with pytest.raises(RuleError) as info:
        apply(s, Choose(0, s.pending.decision.options[0]))  # type: ignore[union-attr]
    assert info.value.code == "not-your-decision"
    with pytest.raises(RuleError) as info:
        apply(s, EndTurn(0))
    assert info.value.code == "decision-pending"
    assert all(isinstance(a, Choose) and a.player == 1 for a in legal_actions(s))
