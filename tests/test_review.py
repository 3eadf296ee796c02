"""Review of the engine against the digest, rule by rule: positions in the notation, behaviour checked
against R1–R78 and A1–A44."""

from __future__ import annotations

import pytest

from rules import (
    INITIAL_STOCK,
    Age,
    Cards,
    Cell,
    Construct,
    DecisionKind,
    Kind,
    domains,
    legal_actions,
    new_game,
    placements,
    surcharge,
    view_for,
)
from rules.events import (
    Destroyed,
    Downsized,
    IncomePaid,
    ParadoxRemoved,
    PowerCompared,
    Rippled,
    RippleForbidden,
    RippleSkipped,
    ShadowRemoved,
)

from .scenario import board_line, play, refused, same_position

PLAIN = "map: plain 15x12\n"
P2, P3, P4, P5 = "Red White", "Red White Green", "Red White Green Blue", "Red White Green Blue Yellow"


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


def test_r45_a27_upgrade_ripple_reuses_the_faith_cube_with_an_empty_supply() -> None:
    pos = PLAIN + "Red: hand=M cubes=0\nM: Keep[Red]@A1\nF: Keep[Red]@A1\nR: Keep-ruin@A1\n"
    s, _ = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "F") == "Castle[Red]@A1" and board_line(s, "R") == "Castle-ruin@A1"
    assert s.players[0].supply == 0


def test_r56_a41_reason_tile_missing_keeps_the_old_reason_shadow() -> None:
    pos = PLAIN + "Red: hand=M\nM: Keep[Red]@A1\nF: Keep[Red]@A1\nR: Keep-renov@A1\nstock: Castle=2\n"
    s, events = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "F") == "Castle[Red]@A1" and board_line(s, "R") == "Keep-renov@A1"
    assert [(e.age, e.reason) for e in events if isinstance(e, RippleSkipped)] == [(Age.REASON, "tile")]


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


def test_r74_printed_hamlets_count_one_in_might_income() -> None:
    pos = PLAIN + "hamlets: B1 C2\nround: 4\nM: Watchtower[Red]@A1 Hamlet@A2 Town@A3\n"
    _s, events = play(pos, "Red end")
    assert [(e.age, e.amount) for e in events if isinstance(e, IncomePaid)] == [(Age.MIGHT, 1 + 1 + 2)]


# -- Turn, cards and money (R13–R23) ------------------------------------------------------------------

def test_r13_exchange_of_the_whole_hand_with_exactly_two_ecus() -> None:
    s, _ = play(PLAIN + "Red: ecus=2 hand=MMRC\n", "Red exchange MMRC")
    assert s.players[0].ecus == 0 and s.players[0].hand.total == 4


def test_r16_r17_pooled_three_card_castle_uses_what_each_pawn_has_left() -> None:
    pos = PLAIN + "Red: hand=MMMMC pawns=M,M\n"
    s, _ = play(pos, "Red build Watchtower A1 on M pay M 1+0\nRed build Castle C1 on M pay MMM 1+2")
    assert s.players[0].played == [2, 2]
    refused(pos, "Red build Watchtower A1 on M pay M 1+0\nRed build Castle C1 on M pay MMM 2+1", "allowance", "R16")


def test_r17_split_pawns_cannot_pay_a_three_card_upgrade_skip() -> None:
    pos = PLAIN + "Red: hand=MMM pawns=M,F\nM: Watchtower[Red]@A1\n"
    refused(pos, "Red upgrade A1 on M to Castle at A1 pay MM 1+1", "pawn-elsewhere", "R16")
    s, _ = play(pos, "Red upgrade A1 on M to Castle at A1 pay MM 2+0")
    assert board_line(s, "M") == "Castle[Red]@A1"


def test_r20_a38_refill_reshuffles_the_cards_discarded_this_turn() -> None:
    s, _ = play(PLAIN + "Red: hand=MMRC\ndeck: \ndiscard: \n", "Red end discard MR")
    assert s.players[0].hand == Cards.parse("MMRC") and s.deck == [] and s.discard == []


def test_r21_r73_both_pawns_on_one_board_pay_once_and_two_boards_each_pay() -> None:
    pos = PLAIN + "round: 4\nM: Keep[Red]@A1 Town@C1\nF: Monastery[Red]@A1 City@C1\n"
    s, _ = play(pos + "Red: pawns=M,M\n", "Red end")
    assert s.players[0].ecus == 12
    s, _ = play(pos + "Red: pawns=M,F\n", "Red end")
    assert s.players[0].ecus == 10 + 2 + 3


def test_r22_a36_a_single_richest_player_wins_alone() -> None:
    pos = PLAIN + "players: Red White Green\nround: 7\nactive: Green\nRed: ecus=12\nWhite: ecus=13\nGreen: ecus=5\n"
    s, _ = play(pos, "Green end")
    assert s.finished and s.winners == (1,)


def test_r62_r63_a22_three_domains_tie_and_p_chooses_two_to_downsize() -> None:
    pos = PLAIN + """
        active: Green
        Green: hand=CC
        M: Keep[Red]@A1 Keep[White]@E1 Keep[Blue]@C4
        """
    s, _ = play(pos, "Green build Town C2 on M pay CC 1+1")
    d = s.pending.decision  # type: ignore[union-attr]
    assert d.player == 2 and sorted(str(c) for c in d.options) == ["A1", "C4", "E1"]


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


# -- Discrepancies fixed --------------------------------------------------------------------------------


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


D17 = PLAIN + """
    Red: hand=CCC
    F: Keep[White]@F1 Keep[Blue]@H1 Hamlet@E2 Hamlet@E3 Hamlet@E4 Castle[Green]@F3
    F: Keep[Green]@C6 Watchtower[Green]@B6 Watchtower[Green]@C5 Watchtower[Green]@B7
    """


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


# -- Components and setup (R1–R10, A1–A3) ----------------------------------------------------------------


def test_r1_r2_r3_r4_r5_r6_r9_r10_a2_a3_five_player_setup() -> None:
    """R1/A2: three boards with the same 10 printed hamlets; R2: 155 tiles in stock; R3: printed
    hamlets are not tiles; R4/A3: 55 cards 18/18/19; R5, R6, R9, R10: 25 cubes, 2 pawns on Might,
    4 Ecus, 4 cards each, five distinct colours."""
    s = new_game(["A", "B", "C", "D", "E"], seed=42)
    assert sum(s.stock.values()) == 155 and s.stock == INITIAL_STOCK
    hamlet_cells = [sorted(str(b.origin) for b in board.buildings.values() if b.printed) for board in s.boards]
    assert hamlet_cells[0] == hamlet_cells[1] == hamlet_cells[2] and len(hamlet_cells[0]) == 10
    assert all(b.printed and b.kind is Kind.HAMLET for board in s.boards for b in board.buildings.values())
    cards = Cards()
    for p in s.players:
        assert (p.supply, p.ecus, p.hand.total, p.pawns) == (25, 4, 4, [Age.MIGHT, Age.MIGHT])
        cards = cards + p.hand
    for f in s.deck:
        cards = cards + Cards.of(f)
    assert (cards.m, cards.r, cards.c) == (18, 18, 19)
    assert len({p.colour for p in s.players}) == 5 and s.round == 1


def test_a1_footprints_are_squares_of_side_value() -> None:
    """A1: a value-n building covers an n×n square from its top-left cell."""
    s, _ = play(PLAIN + "Red: hand=MMM\n", "Red build Castle B2 on M pay MMM 2+1")
    castle = next(iter(s.boards[Age.MIGHT].buildings.values()))
    assert sorted(str(s.map.cell(i)) for i in castle.cells) == sorted(
        f"{c}{r}" for c in "BCD" for r in (2, 3, 4))


def test_r7_r8_a37_player_count_changes_the_surcharge_only() -> None:
    """R8: the same Keep on a mountain cell costs 2+2 cards with 2–3 players, 2+1 with 4, 2 with 5
    (R38); everything else about the action is the same. R7/A37: the bank pays whatever is due, even
    beyond the 255 Ecus of coins."""
    for players, extra in [(P2, 2), (P3, 2), (P4, 1), (P5, 0)]:
        pos = f"map: plain 15x12\nterrain: B2=m\nplayers: {players}\nRed: hand=MMMM\n"
        s, _ = play(pos)
        assert surcharge(s, s.map.footprint(Cell.parse("A1"), 2) or ()) == extra
        s, _ = play(pos, f"Red build Keep A1 on M pay {'M' * (2 + extra)}")
        assert s.players[0].ecus == 11 and board_line(s, "M") == "Keep[Red]@A1"
    s, _ = play(PLAIN + "round: 4\nRed: ecus=260\nM: Keep[Red]@A1 City@C1 Town@F1\n", "Red end")
    assert s.players[0].ecus == 265


# -- Turn structure (R11–R24, A8–A10, A35–A38) ------------------------------------------------------------


def test_r11_r12_a8_a9_a39_phases_come_in_order() -> None:
    """R12: exchange, then swap, then actions; after any action neither exchange (A9) nor swap (A39);
    the end of turn refills before income (A8); R11: the next player begins."""
    pos = PLAIN + "options: holdem\nreserve: MRC\nround: 4\nRed: hand=MMRC\nM: Keep[Red]@A1 Town@C1\n"
    s, events = play(pos, "Red exchange C\nRed swap take R give M\nRed build Watchtower H8 on M\nRed end")
    order = [type(e).__name__ for e in events]
    refill = len(order) - 1 - order[::-1].index("CardsDrawn")
    assert order.index("Exchanged") < order.index("Swapped") < order.index("Built") < order.index("TurnEnded")
    assert order.index("TurnEnded") < refill < order.index("IncomePaid") < order.index("TurnBegan")
    assert s.active == 1
    refused(pos, "Red build Watchtower H8 on M\nRed swap take R give M", "phase", "R33")
    refused(pos, "Red build Watchtower H8 on M\nRed exchange C", "phase", "R13")


def test_r14_r15_presence_is_judged_when_the_card_is_played() -> None:
    """R14: travel and cards interleave; R15: a pawn that has left a board no longer lets its owner
    build there."""
    pos = PLAIN + "Red: hand=MM pawns=M,F\n"
    s, _ = play(pos, "Red build Watchtower A1 on F pay M 0+1\nRed travel 2 M\nRed build Watchtower C1 on M pay M 0+1")
    assert board_line(s, "F") == "Watchtower[Red]@A1" and board_line(s, "M") == "Watchtower[Red]@C1"
    refused(pos, "Red travel 2 R\nRed build Watchtower A1 on F pay M 0+1", "presence", "R15")


def test_r18_r19_a10_only_played_cards_count_and_the_rest_stay_in_hand() -> None:
    """R18/A10: surcharge cards count against the allowance, exchanged ones do not; R19: unplayed cards
    stay in hand for later turns."""
    pos = "map: plain 15x12\nterrain: A1=f\nplayers: Red White\nRed: hand=MMRC\n"
    s, _ = play(pos, "Red exchange R\nRed build Keep A1 on M pay MMC 2+1")
    assert s.players[0].played == [2, 1] and s.players[0].hand.total == 1
    refused(pos.replace("hand=MMRC", "hand=MMMMC"), "Red build Keep A1 on M pay MMC 2+1\nRed build Keep E5 on M pay MM",
            "allowance", "R17")  # one card left in the pool, not two
    s, _ = play(pos, "Red build Watchtower E5 on M pay M 1+0\nRed end\nWhite end")
    assert s.players[0].hand.contains(Cards.parse("MRC"))


def test_r23_ecus_never_go_below_zero_for_travel_exchange_or_demolition() -> None:
    """R23: every Ecu cost needs the Ecus in hand."""
    refused(PLAIN + "Red: ecus=0\n", "Red travel 1 F", "no-ecus", "R26")
    refused(PLAIN + "Red: ecus=1 hand=M\n", "Red exchange M", "no-ecus", "R13")
    refused(PLAIN + "Red: ecus=0 hand=C\nM: Hamlet@A1\n", "Red demolish A1 on M pay C", "no-ecus", "R30")


def test_a35_income_uses_the_board_at_the_end_of_the_players_own_turn() -> None:
    """A35, R21: White's income is judged at the end of White's turn, after Red changed the board."""
    pos = PLAIN + "round: 4\nplayers: Red White\nRed: hand=C\nM: Keep[White]@A1 Town@C1\n"
    _s, events = play(pos, "Red build Hamlet E1 on M\nRed end\nWhite end")
    assert [(e.player, e.amount) for e in events if isinstance(e, IncomePaid)] == [(0, 0), (1, 3)]


# -- Actions (R25–R33, A5–A7, A12, A31–A33, A40, A42, A43) ------------------------------------------------


def test_r25_a31_the_action_matrix_refuses_wrong_boards() -> None:
    """R25/A31: no construction, upgrade or demolition on Reason."""
    pos = PLAIN + "Red: pawns=R,R hand=MMCC\nR: Town@D4\n"
    refused(pos, "Red build Hamlet A1 on R pay C", "wrong-age")
    refused(pos, "Red upgrade D4 on R to City at D4 pay C", "wrong-age")
    refused(pos, "Red demolish D4 on R pay C", "wrong-age")


def test_r26_a40_travel_jumps_any_board_costs_one_each_time() -> None:
    """R26/A40: Might to Reason directly, back again, 1 Ecu per move, no allowance used."""
    s, _ = play(PLAIN, "Red travel 1 R\nRed travel 1 M\nRed travel 2 F")
    assert s.players[0].ecus == 7 and s.players[0].pawns == [Age.MIGHT, Age.FAITH]
    assert s.players[0].played == [0, 0]


def test_r27_r28_a43_bonuses_by_board_and_value() -> None:
    """R27–R28: value 1 pays nothing; value 2–3 pays +1 on Might, +2 on Faith; A43: a paradox victim's
    owner gets nothing back."""
    s, _ = play(PLAIN + "Red: pawns=F,F hand=RRR\n",
                "Red build Chapel A1 on F pay R 1+0\nRed build Monastery C1 on F pay RR 1+1")
    assert s.players[0].ecus == 12
    s, _ = play(PLAIN + "Red: hand=CCC\nF: Keep[White]@A1\n", "Red build City A1 on M pay CCC 2+1")
    assert s.players[0].ecus == 11 and s.players[1].ecus == 10 and s.players[1].supply == 25


def test_r29_a7_a12_a42_civil_upgrades_by_anyone_with_one_bonus() -> None:
    """R29/A12/A42: anyone upgrades a Hamlet tile or a Civil shadow; A7: skipping to a City costs the
    difference (2 C) and pays one bonus."""
    s, _ = play(PLAIN + "Red: hand=CC\nM: Hamlet@B2\n", "Red upgrade B2 on M to City at A1 pay CC 1+1")
    assert board_line(s, "M") == "City@A1" and s.players[0].ecus == 11
    assert board_line(s, "F") == "City@A1" and board_line(s, "R") == "City@A1"
    assert s.stock[Kind.HAMLET] == 20 and s.stock[Kind.CITY] == 6
    refused(PLAIN + "Red: hand=M\nM: Keep[White]@A1\n", "Red upgrade A1 on M to Castle at A1 pay M", "not-yours", "R29")


def test_r31_a5_a33_a_city_holds_five_cubes_from_anyone() -> None:
    """R31/A5/A33: a City's cap is 5 counting every player's cubes; one Civil card per cube."""
    pos = PLAIN + "players: Red White\nRed: pawns=R,R hand=CCCC\nWhite: pawns=R,R hand=CC\nR: City@A1\n"
    s, _ = play(pos, "Red populate A1\nRed populate A1\nRed populate A1\nRed populate A1\nRed end\nWhite populate A1")
    assert board_line(s, "R") == "City@A1{Red:4,White:1}"
    refused(pos, "Red populate A1\nRed populate A1\nRed populate A1\nRed populate A1\nRed end\nWhite populate A1\n"
                 "White populate A1", "full", "R31")


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


def test_r33_a39_swap_needs_as_many_cards_in_hand_as_taken() -> None:
    """R33/A39: take k cards of one colour, give k of any colours from the hand."""
    pos = PLAIN + "options: holdem\nreserve: CCM\nRed: hand=R\n"
    refused(pos, "Red swap take CC give RR", "not-in-hand", "R33")
    s, _ = play(pos, "Red swap take C give R")
    assert s.players[0].hand == Cards.parse("C") and s.reserve == Cards.parse("MRC")


# -- Construction (R34–R46, A11, A13, A14) -----------------------------------------------------------------


GEO = "map: plain 15x12\nterrain: B1=f C1=f A2=m E1=~ G1=M H1=R\n"


def build_cost(players: str, kind: str, origin: str, hand: str = "MMMMCCCC") -> int | None:
    """The number of cards of the one legal way to construct ``kind`` at ``origin`` (None: illegal)."""
    s, _ = play(GEO + f"players: {players}\nRed: hand={hand}\n")
    found = {a.payment.cards.total for a in legal_actions(s, types=[Construct], ages=[Age.MIGHT])
             if isinstance(a, Construct) and a.kind.value == kind and str(a.origin) == origin}
    assert len(found) <= 1
    return found.pop() if found else None


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


def test_r35_r39_a11_upgrading_a_hamlet_onto_the_river_and_the_forest() -> None:
    """R35: a Hamlet becomes a Town over a river cell; R39: the surcharge is judged on the new
    footprint, even for an upgrade."""
    pos = GEO + f"players: {P3}\nRed: hand=CC\nM: Hamlet@D2\n"
    s, _ = play(pos, "Red upgrade D2 on M to Town at D1 pay C 1+0")  # covers E1 (river): no surcharge
    assert board_line(s, "M") == "Town@D1"
    refused(pos, "Red upgrade D2 on M to Town at C1 pay C 1+0", "wrong-cards", "R25")  # C1 is forest: +1
    s, _ = play(pos, "Red upgrade D2 on M to Town at C1 pay CC 1+1")
    assert board_line(s, "M") == "Town@C1"


def test_r34_r40_printed_hamlets_fill_cells_and_join_domains_corners_do_not() -> None:
    """R34: a printed hamlet makes its cell non-empty; R40/§0: it links domains by edges, never corners."""
    pos = PLAIN + "hamlets: B1\nRed: hand=MM\nM: Watchtower[White]@A1 Watchtower[Green]@C2\n"
    s, _ = play(pos)
    assert len(domains(s.boards[Age.MIGHT], s.map).groups) == 2  # A1-B1 joined; C2 touches B1 at a corner
    refused(pos, "Red build Watchtower B1 on M", "occupied", "R34")


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


def test_r44_r45_an_upgrade_needs_the_tile_but_no_cube() -> None:
    """R44: the new type's tile must be in stock; R45: an upgrade places no cube."""
    pos = PLAIN + "Red: hand=M cubes=0\nM: Keep[Red]@A1\n"
    refused(pos + "stock: Castle=0\n", "Red upgrade A1 on M to Castle at A1 pay M 1+0", "no-tile", "R44")
    s, _ = play(pos, "Red upgrade A1 on M to Castle at A1 pay M 1+0")
    assert board_line(s, "M") == "Castle[Red]@A1" and board_line(s, "F") == ""  # no cube for the copy (A27)


def test_r46_a_construction_is_legal_even_if_its_ripple_will_be_forbidden() -> None:
    """R46: legality looks at the board acted on only."""
    pos = PLAIN + "Red: hand=MM\nF: Keep[White]@C1\n"
    s, _ = play(pos)
    assert Cell.parse("A1") in placements(s, 0, Kind.KEEP, Age.MIGHT)
    s, events = play(pos, "Red build Keep A1 on M")
    assert [e.rule for e in events if isinstance(e, RippleForbidden)] == ["hierarchy"]


# -- Rippling (R47–R58, A15–A18, A41) ----------------------------------------------------------------------


def test_r47_r48_r49_r50_a_monastery_built_on_might_ripples_with_a_new_cube_then_a_ruin() -> None:
    """R47–R50: same cells, a new cube of the same owner on Faith, a cubeless ruin on Reason."""
    s, _ = play(PLAIN + "active: Green\nGreen: hand=RR\n", "Green build Monastery D5 on M")
    assert board_line(s, "F") == "Monastery[Green]@D5" and board_line(s, "R") == "Monastery-ruin@D5"
    assert s.players[2].supply == 23 and s.stock[Kind.MONASTERY] == 17


def test_r49_r56_no_faith_copy_means_no_reason_copy() -> None:
    """R49/R56: a skipped Faith copy (no tile) leaves Reason alone too, though a tile is free for it."""
    s, events = play(PLAIN + "Red: hand=CC\nstock: Town=1\n", "Red build Town A1 on M")
    assert board_line(s, "F") == "" and board_line(s, "R") == ""
    assert [(e.age, e.reason) for e in events if isinstance(e, RippleSkipped)] == [(Age.FAITH, "tile")]


def test_r52_r54_r55_a18_a_monastery_upgrade_replaces_its_renovated_reason_shadow_with_an_abbey_ruin() -> None:
    """R52/R55: the identical Faith shadow keeps its cube on the Abbey; the renovated Reason Monastery
    (R54: renovation ignored by the identity test) becomes a plain Abbey ruin."""
    pos = PLAIN + "Red: hand=R\nM: Monastery[Red]@A1\nF: Monastery[Red]@A1\nR: Monastery-renov@A1\n"
    s, events = play(pos, "Red upgrade A1 on M to Abbey at A1 pay R 1+0")
    assert board_line(s, "F") == "Abbey[Red]@A1" and board_line(s, "R") == "Abbey-ruin@A1"
    assert not any(isinstance(e, ParadoxRemoved) for e in events)
    assert s.players[0].supply == 23 and s.stock[Kind.MONASTERY] == 20 and s.stock[Kind.ABBEY] == 6


def test_r52_r70b_a_town_upgraded_to_a_city_keeps_its_three_cubes() -> None:
    """R52/R70b: population moves onto the City; the Town tiles go back."""
    pos = PLAIN + "Red: hand=C\nM: Town@A1\nF: Town@A1\nR: Town@A1{Red:1,White:2}\n"
    s, _ = play(pos, "Red upgrade A1 on M to City at A1 pay C 1+0")
    assert board_line(s, "R") == "City@A1{Red:1,White:2}" and s.stock[Kind.TOWN] == 24


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


def test_r57_r69_a30_a44_a_civil_ripple_joins_reason_domains_without_downsizing() -> None:
    """R57/R69/A44: on Reason a Town's copy joins two domains holding equal ruins; nothing is downsized."""
    pos = PLAIN + "Red: hand=CC\nR: Castle-ruin@A1 Castle-ruin@F1\n"
    s, events = play(pos, "Red build Town D1 on M")
    assert board_line(s, "R") == "Castle-ruin@A1 Town@D1 Castle-ruin@F1"
    assert len(domains(s.boards[Age.REASON], s.map).groups) == 1
    assert not any(isinstance(e, (Downsized, Destroyed)) for e in events)


def test_r58_faith_may_hold_its_own_constructions_and_shadows() -> None:
    """R58: Faith holds its own buildings beside Might's shadows; Reason takes no construction."""
    s, _ = play(PLAIN + "Red: pawns=M,F hand=MMCC\n",
                "Red build Keep A1 on M pay MM 2+0\nRed build Town D1 on F pay CC 0+2")
    assert board_line(s, "F") == "Keep[Red]@A1 Town@D1" and board_line(s, "R") == "Keep-ruin@A1 Town@D1"


# -- Domain transformation (R59–R72, A19–A26, A29) -----------------------------------------------------------


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


def test_r71_a26_a29_removed_pieces_return_and_caps_hold() -> None:
    """R71/A26: a paradoxed Town's cubes go back to their owners and its tiles to stock; A29 (D5): a
    Town's three cubes fit on the City that replaces it."""
    pos = PLAIN + "active: Blue\nBlue: hand=MM\nF: Town@B2\nR: Town@B2{Red:2,White:1}\n"
    s, _ = play(pos, "Blue build Keep A1 on M")
    assert board_line(s, "R") == "Keep-ruin@A1" and s.players[0].supply == 25 and s.players[1].supply == 25
    assert s.stock[Kind.TOWN] == 24


# -- Income (R73–R78, A4, A34) ---------------------------------------------------------------------------------


def test_r75_faith_pays_the_top_religious_owner_the_civil_power() -> None:
    """R75: on Faith the top Religious building's owner collects; the Military owner does not."""
    pos = PLAIN + "round: 7\nplayers: Red White\nRed: pawns=F,F\nWhite: pawns=F,F\n"
    pos += "F: Keep[Red]@A1 Chapel[White]@C1 Town@D1\n"
    s, events = play(pos, "Red end\nWhite end")
    assert [(e.player, e.amount) for e in events if isinstance(e, IncomePaid)] == [(0, 0), (1, 2)]
    assert s.finished and s.winners == (1,)


def test_r76_a4_a34_reason_ties_ruins_and_renovated_buildings() -> None:
    """R76/A4: a Castle ruin counts 2 and a renovated Keep 2; A34: Red and White tie with 2 cubes each and
    both collect 4, each on his own turn; Green, with none, gets nothing; a domain with no cubes pays no one."""
    pos = PLAIN + """
        round: 4
        players: Red White Green
        Red: pawns=R,R
        White: pawns=R,R
        Green: pawns=R,R
        R: Castle-ruin@A1 Town@D1{Red:2,White:2} Keep-renov@F1 Keep-ruin@A8 Town@C8
        """
    _s, events = play(pos, "Red end\nWhite end\nGreen end")
    assert [(e.player, e.amount) for e in events if isinstance(e, IncomePaid)] == [(0, 4), (1, 4), (2, 0)]


def test_r77_r78_each_domain_pays_and_the_tops_are_unique() -> None:
    """R77: two Might domains headed by Red each pay; R78: no tie is ever found at the top."""
    pos = PLAIN + "round: 4\nM: Keep[Red]@A1 Town@C1 Watchtower[Red]@A5 Hamlet@B5 Watchtower[White]@H8\n"
    _s, events = play(pos, "Red end")
    assert [(e.amount, e.domains) for e in events if isinstance(e, IncomePaid)] == [(3, 2)]


def test_r24_a_players_view_hides_other_hands_and_the_draw_pile() -> None:
    """R24: hands and the order of the draw pile are secret; the view keeps the viewer's own hand."""
    s = new_game(["A", "B", "C"], seed=7)
    v = view_for(s, 2)
    assert v.state.players[2].hand == s.players[2].hand
    assert v.state.players[0].hand.total == 0 and v.state.players[1].hand.total == 0
    assert v.state.deck == [] and v.deck_size == len(s.deck) and v.hand_sizes == (4, 4, 4)


# -- Printed hamlets and paradox (R3, R52, R53, R70a, A12, A16, A28; decisions D3, D4) ----------------------


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


def test_r70a_a28_a_tie_without_the_active_player_leaves_no_cube() -> None:
    """A28: Red and White tie on the paradoxed Town; Blue (P) has no cube there to take off, the tie
    stands, and nobody keeps a cube on the hamlet."""
    pos = PLAIN + "hamlets: B2\nactive: Blue\nBlue: hand=MM\nF: Town@B2\nR: Town@B2{Red:1,White:1}\n"
    s, _ = play(pos, "Blue build Keep C3 on M")
    assert board_line(s, "R") == "Keep-ruin@C3"
    assert s.players[0].supply == 25 and s.players[1].supply == 25


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


@pytest.mark.parametrize(
    ("position", "action", "code", "words"),
    [
        ("Red: hand=RC played=2,2\nM: Chapel[White]@B2\n", "Red demolish B2 on M pay R 1+0", "allowance",
         "Demolishing a Chapel costs 1 card, but your pawns on Might can play only 0 more"),
        ("Red: pawns=R,M hand=CC\nR: Town@B2\n", "Red populate B2 pay CC 1+1", "wrong-cards",
         "Populating costs 1 card (C); you offered CC."),
        ("Red: pawns=R,R hand=C\nR: Town@B2\n", "Red populate B2 pay C 1+1", "bad-split",
         "The pawns must play 1 card in all."),
        ("Red: pawns=R,R hand=RR played=1,0\nR: Abbey-ruin@B2\n", "Red renovate B2 pay RR 2+0", "allowance",
         "Pawn 1 can play only 1 more card this turn"),
        ("Red: pawns=R,R hand=C played=1,2\nR: Town@B2\n", "Red populate B2 pay C 0+1", "allowance",
         "Pawn 2 can play only 0 more cards this turn"),
    ],
)
def test_r16_r17_r25_refusals_count_one_card_in_the_singular(position: str, action: str, code: str, words: str) -> None:
    """A refusal counting cards says "1 card", never "1 cards"."""
    error = refused(PLAIN + position, action, code)
    assert words in str(error) and "1 cards" not in str(error)
