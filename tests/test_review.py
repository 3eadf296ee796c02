"""Review of the engine against the digest, rule by rule: positions in the notation, behaviour checked
against R1–R78 and A1–A44."""

from __future__ import annotations

from rules import Age, Cards
from rules.events import (
    IncomePaid,
    PowerCompared,
    RippleForbidden,
    RippleSkipped,
    ShadowRemoved,
)
from rules.model import DecisionKind

from .scenario import board_line, play, refused

PLAIN = "map: plain 15x12\n"


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
