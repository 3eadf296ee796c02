"""§4 of the digest, construction on Might and Faith (R34–R46): empty cells, terrain and surcharges,
domains, the Rules of Dominion and Hierarchy, the stock and cube limits, with the rulings on them (A11,
A13, A14, A27). Positions use the notation's defaults."""

from __future__ import annotations

from rules import Age, Cell, Construct, Kind, domains, legal_actions, placements
from rules.events import RippleForbidden, RippleSkipped
from tests.support.scenario import board_line, play, refused

PLAIN = "map: plain 15x12\n"

P2, P3, P4, P5 = "Red White", "Red White Green", "Red White Green Blue", "Red White Green Blue Yellow"

GEO = "map: plain 15x12\nterrain: B1=f C1=f A2=m E1=~ G1=M H1=R\n"


def build_cost(players: str, kind: str, origin: str, hand: str = "MMMMCCCC") -> int | None:
    """The number of cards of the one legal way to construct ``kind`` at ``origin`` (None: illegal)."""
    s, _ = play(GEO + f"players: {players}\nRed: hand={hand}\n")
    found = {a.payment.cards.total for a in legal_actions(s, types=[Construct], ages=[Age.MIGHT])
             if isinstance(a, Construct) and a.kind.value == kind and str(a.origin) == origin}
    assert len(found) <= 1
    return found.pop() if found else None


def test_r34_terrain_does_not_fill_a_cell_but_a_printed_hamlet_does() -> None:
    pos = "map: plain 15x12\nterrain: A1=m\nhamlets: C1\nplayers: Red White Green Blue Yellow\nRed: hand=MM\n"
    play(pos, "Red build Watchtower A1 on M")
    refused(pos, "Red build Watchtower C1 on M", "occupied", "R34")


def test_r34_r40_printed_hamlets_fill_cells_and_join_domains_corners_do_not() -> None:
    """R34: a printed hamlet makes its cell non-empty; R40/§0: it links domains by edges, never corners."""
    pos = PLAIN + "hamlets: B1\nRed: hand=MM\nM: Watchtower[White]@A1 Watchtower[Green]@C2\n"
    s, _ = play(pos)
    assert len(domains(s.boards[Age.MIGHT], s.map).groups) == 2  # A1-B1 joined; C2 touches B1 at a corner
    refused(pos, "Red build Watchtower B1 on M", "occupied", "R34")


def test_r35_r39_a11_upgrading_a_hamlet_onto_the_river_and_the_forest() -> None:
    """R35: a Hamlet becomes a Town over a river cell; R39: the surcharge is judged on the new
    footprint, even for an upgrade."""
    pos = GEO + f"players: {P3}\nRed: hand=CC\nM: Hamlet@D2\n"
    s, _ = play(pos, "Red upgrade D2 on M to Town at D1 pay C 1+0")  # covers E1 (river): no surcharge
    assert board_line(s, "M") == "Town@D1"
    refused(pos, "Red upgrade D2 on M to Town at C1 pay C 1+0", "wrong-cards", "R25")  # C1 is forest: +1
    s, _ = play(pos, "Red upgrade D2 on M to Town at C1 pay CC 1+1")
    assert board_line(s, "M") == "Town@C1"


def test_r36_r35_a_river_cell_mixed_with_plain_is_still_river() -> None:
    pos = "map: plain 15x12\nterrain: A1=W\nRed: hand=CCC\n"
    refused(pos, "Red build Hamlet A1 on M", "river", "R35")
    play(pos, "Red build Town A1 on M pay CC 1+1")


def test_r36_r37_r38_r39_a11_surcharges_by_player_count() -> None:
    """R37: forest +1 with 2–3 players only; R38: mountain +2/+2/+1/0; R39/A11: once per action however
    many cells, forest and mountain add up; R36: river+forest is river, forest+mountain is mountain."""
    # a Keep at B1 covers B1 C1 (forest) B2 C2 (plain): +1 with 2-3 players, once for two forest cells
    assert [build_cost(p, "Keep", "B1") for p in (P2, P3, P4, P5)] == [3, 3, 2, 2]
    # a Keep at A1 covers A1 B1 (forest) A2 (mountain) B2: +3 / +3 / +1 / 0
    assert [build_cost(p, "Keep", "A1", "MMMMMCCC") for p in (P2, P3, P4, P5)] == [None, None, 3, 2]
    # a Watchtower on G1 (forest+mountain) is mountain only: +2 / +1 / 0
    assert [build_cost(p, "Watchtower", "G1") for p in (P3, P4, P5)] == [3, 2, 1]
    # H1 (river+forest) is river: no Hamlet, but a Town pays no surcharge
    assert build_cost(P3, "Hamlet", "H1") is None and build_cost(P3, "Town", "H1") == 2


def test_r37_r38_a11_forest_and_mountain_surcharges_add_up_for_two_players() -> None:
    pos = "map: plain 15x12\nterrain: A1=f B1=m\nplayers: Red White\nRed: hand=CCCCC\n"
    s, _ = play(pos)
    assert not [a for a in legal_actions(s, types=[Construct], kinds=[Kind.TOWN])
                if isinstance(a, Construct) and str(a.origin) == "A1"]  # 2 + 1 + 2 = 5 cards, more than 4
    err = refused(pos, "Red build Town A1 on M pay CCCC 2+2", "allowance", "R17")
    assert "5 cards" in str(err)
    s, _ = play(pos.replace("players: Red White", "players: Red White Green Blue"), "Red build Town A1 on M")
    assert s.players[0].hand.total == 5 - 3  # 4 players: mountain +1, forest nothing


def test_r41_a_civil_construction_may_join_domains() -> None:
    s, _ = play(PLAIN + "Red: hand=C\nM: Watchtower[White]@A1 Chapel[Green]@C1\n", "Red build Hamlet B1 on M")
    assert len(domains(s.boards[Age.MIGHT], s.map).groups) == 1


def test_r41_r42_r43_a13_a14_dominion_and_hierarchy_for_constructs_and_upgrades() -> None:
    """R41: an M/R building may not touch two domains; R42/A13: an upgrade's own domain counts unless it
    stands alone; R43/A14: equal to the top is refused, above or below is fine, the upgraded building
    does not compare against itself."""
    pos = PLAIN + "Red: hand=MMMM\nM: Keep[Red]@A1 Watchtower[White]@D1 Watchtower[Green]@A4\n"
    refused(pos, "Red build Watchtower C1 on M", "dominion", "R41")  # A1's domain and D1's
    refused(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0", "dominion", "R42")  # D1 and A4
    s, _ = play(pos.replace("Watchtower[Green]@A4", ""), "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "M") == "Castle[Red]@A1 Watchtower[White]@D1"  # a lone building may meet one domain
    pos2 = PLAIN + "Red: hand=MMM\nM: Keep[Red]@A1 Watchtower[Red]@A3\n"
    refused(pos2, "Red upgrade A3 on M to Keep at A3 pay M 1+0", "hierarchy", "R43")
    s, _ = play(pos2, "Red upgrade A3 on M to Castle at A3 pay MM 1+1")
    assert board_line(s, "M") == "Keep[Red]@A1 Castle[Red]@A3"


def test_r42_a13_lone_building_may_grow_into_one_domain_but_not_join_two() -> None:
    pos = PLAIN + "Red: hand=MM\nM: Watchtower[Red]@B2 Hamlet@D2 Hamlet@B4\n"
    play(pos.replace("Hamlet@B4", ""), "Red upgrade B2 on M to Keep at B2 pay M 1+0")  # grows into the D2 hamlet
    refused(pos, "Red upgrade B2 on M to Keep at B2 pay M 1+0", "dominion", "R42")  # D2 and B4


def test_r42_a13_building_that_bridges_two_groups_may_grow() -> None:
    pos = PLAIN + "Red: hand=M\nM: Hamlet@A2 Watchtower[Red]@B2 Hamlet@B3\n"
    s, _ = play(pos, "Red upgrade B2 on M to Keep at B1 pay M 1+0")
    assert board_line(s, "M") == "Keep[Red]@B1 Hamlet@A2 Hamlet@B3"


def test_r42_a13_building_in_a_domain_may_not_grow_into_another() -> None:
    pos = PLAIN + "Red: hand=M\nM: Hamlet@A2 Watchtower[Red]@B2 Hamlet@D3\n"
    refused(pos, "Red upgrade B2 on M to Keep at B2 pay M 1+0", "dominion", "R42")


def test_r43_a14_lower_duplicates_are_allowed_and_owners_do_not_matter() -> None:
    pos = PLAIN + "Red: hand=MM\nM: Keep[Red]@A1 Watchtower[White]@C1\n"
    play(pos, "Red build Watchtower C2 on M")
    refused(pos, "Red build Keep C2 on M pay MM 1+1", "hierarchy", "R43")


def test_r44_r56_no_tile_no_construction_and_a_ripple_is_skipped() -> None:
    refused(PLAIN + "Red: hand=MM\nstock: Keep=0\n", "Red build Keep A1 on M", "no-tile", "R44")
    s, events = play(PLAIN + "Red: hand=MM\nstock: Keep=1\n", "Red build Keep A1 on M")
    assert board_line(s, "F") == "" and board_line(s, "R") == ""
    assert [(e.age, e.reason) for e in events if isinstance(e, RippleSkipped)] == [(Age.FAITH, "tile")]
    s, events = play(PLAIN + "Red: hand=MM\nstock: Keep=2\n", "Red build Keep A1 on M")
    assert board_line(s, "F") == "Keep[Red]@A1" and board_line(s, "R") == ""


def test_r44_r45_an_upgrade_needs_the_tile_but_no_cube() -> None:
    """R44: the new type's tile must be in stock; R45: an upgrade places no cube."""
    pos = PLAIN + "Red: hand=M cubes=0\nM: Keep[Red]@A1\n"
    refused(pos + "stock: Castle=0\n", "Red upgrade A1 on M to Castle at A1 pay M 1+0", "no-tile", "R44")
    s, _ = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "M") == "Castle[Red]@A1" and board_line(s, "F") == ""  # no cube for the copy (A27)


def test_r45_a27_cubes_are_a_hard_limit_and_a_faith_copy_without_a_cube_is_skipped() -> None:
    refused(PLAIN + "Red: hand=MM cubes=0\n", "Red build Keep A1 on M", "no-cube", "R45")
    s, events = play(PLAIN + "Red: hand=MM cubes=1\n", "Red build Keep A1 on M")
    assert board_line(s, "F") == "" and [e.reason for e in events if isinstance(e, RippleSkipped)] == ["cube"]


def test_r45_a27_upgrade_ripple_reuses_the_faith_cube_with_an_empty_supply() -> None:
    pos = PLAIN + "Red: hand=M cubes=0\nM: Keep[Red]@A1\nF: Keep[Red]@A1\nR: Keep-ruin@A1\n"
    s, _ = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "F") == "Castle[Red]@A1" and board_line(s, "R") == "Castle-ruin@A1"
    assert s.players[0].supply == 0


def test_r46_what_a_ripple_would_destroy_does_not_affect_legality() -> None:
    pos = PLAIN + "Red: hand=MM\nF: Abbey[White]@A1\nR: Abbey-ruin@A1\n"
    s, _ = play(pos, "Red build Keep A1 on M")
    assert board_line(s, "F") == "Keep[Red]@A1" and board_line(s, "R") == "Keep-ruin@A1"
    assert s.players[1].supply == 25


def test_r46_a_construction_is_legal_even_if_its_ripple_will_be_forbidden() -> None:
    """R46: legality looks at the board acted on only."""
    pos = PLAIN + "Red: hand=MM\nF: Keep[White]@C1\n"
    s, _ = play(pos)
    assert Cell.parse("A1") in placements(s, 0, Kind.KEEP, Age.MIGHT)
    s, events = play(pos, "Red build Keep A1 on M")
    assert [e.rule for e in events if isinstance(e, RippleForbidden)] == ["hierarchy"]
