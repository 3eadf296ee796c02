"""Supplementary tests for the rules and rulings that the rulebook does not illustrate (digest §9.1's
last line): one or more per rule, named after what they prove. Positions use the notation's defaults
(4 players Red White Green Blue, plain cells, 10 Ecus, stock and supplies from the boards)."""

from __future__ import annotations

from collections import Counter

import pytest

from rules import (
    DECK_COMPOSITION,
    Age,
    Cards,
    Choose,
    Construct,
    DecisionKind,
    EndTurn,
    Kind,
    RuleError,
    apply,
    domains,
    legal_actions,
    new_game,
)
from rules.events import (
    CardsDrawn,
    CubeKept,
    Destroyed,
    Downsized,
    IncomePaid,
    ParadoxRemoved,
    PowerCompared,
    Reshuffled,
    Rippled,
    RippleForbidden,
    RippleSkipped,
    TurnBegan,
    TurnEnded,
)

from .scenario import board_line, play, refused

PLAIN = "map: plain 15x12\n"


# -- Setup and components (R1–R10) --------------------------------------------------------------------


def test_r1_a2_the_three_boards_share_one_map_and_its_printed_hamlets() -> None:
    s = new_game(["A", "B", "C"], seed=3)
    cells = [sorted(b.origin for b in board.buildings.values()) for board in s.boards]
    assert cells[0] == cells[1] == cells[2] == sorted(s.map.hamlets)
    assert len(s.map.hamlets) == 10


def test_r4_a3_the_deck_holds_18_military_18_religious_19_civil() -> None:
    s = new_game(["A", "B"], seed=1)
    total = Cards()
    for fam in s.deck:
        total = total + Cards.of(fam)
    for p in s.players:
        total = total + p.hand
    assert (total.m, total.r, total.c) == tuple(DECK_COMPOSITION.values()) == (18, 18, 19)


def test_r6_r9_each_player_has_two_pawns_and_a_colour_of_his_own() -> None:
    s = new_game(["A", "B", "C", "D", "E"], seed=5)
    assert len({p.colour for p in s.players}) == 5
    assert all(len(p.pawns) == 2 for p in s.players)


def test_r7_a37_the_bank_is_unlimited() -> None:
    pos = PLAIN + "round: 4\nRed: ecus=300\nM: Keep[Red]@A1 City@C1\n"
    s, _ = play(pos, "Red end")
    assert s.players[0].ecus == 303


def test_r8_player_count_changes_only_terrain_surcharges() -> None:
    for players in ("Red White", "Red White Green", "Red White Green Blue", "Red White Green Blue Yellow"):
        s, _ = play(PLAIN + f"players: {players}\nRed: hand=MM\n")
        costs = {a.payment.cards.total for a in legal_actions(s, types=[Construct], kinds=[Kind.KEEP])
                 if isinstance(a, Construct)}
        assert costs == {2}


def test_r9_the_first_player_is_drawn_from_the_seed() -> None:
    firsts = {new_game(["A", "B", "C", "D"], seed=seed).first for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert new_game(["A", "B", "C"], seed=9).first == new_game(["A", "B", "C"], seed=9).first


# -- Turn structure (R11–R24) ----------------------------------------------------------------------------


def test_r11_turns_go_clockwise_from_the_first_player_and_rounds_advance() -> None:
    _, events = play(PLAIN + "players: Red White Green\nfirst: White\nactive: White\n",
                     "White end\nGreen end\nRed end\nWhite end")
    began = [(e.player, e.round) for e in events if isinstance(e, TurnBegan)]
    assert began == [(2, 1), (0, 1), (1, 2), (2, 2)]


def test_r12_a8_refill_comes_before_income_at_the_end_of_the_turn() -> None:
    _, events = play(PLAIN + "round: 4\nRed: hand=M\n", "Red end")
    kinds = [type(e) for e in events if isinstance(e, (TurnEnded, CardsDrawn, IncomePaid, TurnBegan))]
    assert kinds == [TurnEnded, CardsDrawn, IncomePaid, TurnBegan]


def test_r13_a9_exchange_costs_two_ecus_flat_and_refills_to_four() -> None:
    s, _ = play(PLAIN + "Red: ecus=5 hand=MMRC\n", "Red exchange MMR")
    assert s.players[0].ecus == 3 and s.players[0].hand.total == 4
    assert Counter(s.discard) == Counter(Cards.parse("MMR").families())


@pytest.mark.parametrize(
    ("setup", "actions", "code"),
    [
        ("Red: ecus=1 hand=MMRC", "Red exchange M", "no-ecus"),
        ("Red: hand=MMRC", "Red exchange M\nRed exchange R", "once"),
        ("Red: hand=MMRC", "Red travel 1 F\nRed exchange M", "phase"),
        ("Red: hand=MMRC", "Red exchange -", "wrong-cards"),
        ("Red: hand=MMRC", "Red exchange CC", "not-in-hand"),
    ],
)
def test_r13_a9_exchange_refusals(setup: str, actions: str, code: str) -> None:
    refused(PLAIN + setup + "\n", actions, code, "R13")


def test_r13_a38_exchange_reshuffles_the_cards_just_discarded() -> None:
    s, events = play(PLAIN + "Red: hand=MMMM\ndeck: C\ndiscard: \n", "Red exchange MMM")
    assert any(isinstance(e, Reshuffled) for e in events)
    assert s.players[0].hand == Cards(m=3, c=1) and len(s.deck) == 1 and s.discard == []


def test_r14_travel_and_card_actions_interleave_freely() -> None:
    s, _ = play(PLAIN + "Red: hand=MMCC\n",
                "Red build Watchtower A1 on M pay M 1+0\nRed travel 1 F\nRed build Watchtower A1 on F pay M 1+0\n"
                "Red build Hamlet C3 on M pay C 0+1\nRed travel 2 F\nRed build Hamlet C3 on F pay C 0+1")
    assert board_line(s, "M") == "Watchtower[Red]@A1 Hamlet@C3" and board_line(s, "F") == board_line(s, "M")


def test_r15_a_card_action_needs_a_pawn_on_that_board() -> None:
    refused(PLAIN + "Red: hand=MM pawns=M,M\n", "Red build Watchtower A1 on F pay M 1+0", "presence", "R15")


def test_r16_a_pawn_plays_two_cards_per_turn_even_after_travelling() -> None:
    pos = PLAIN + "Red: hand=MMMC pawns=M,R\n"
    s, _ = play(pos, "Red build Watchtower A1 on M pay M 1+0\nRed travel 1 F\nRed build Watchtower C1 on F pay M 1+0")
    assert s.players[0].played == [2, 0]
    refused(pos, "Red build Watchtower A1 on M pay M 1+0\nRed travel 1 F\nRed build Watchtower C1 on F pay M 1+0\n"
                 "Red build Watchtower E1 on F pay M 1+0", "allowance", "R17")
    refused(pos, "Red build Watchtower A1 on M pay M 0+1", "pawn-elsewhere", "R16")


def test_r17_a10_two_pawns_on_one_board_may_share_a_two_card_action() -> None:
    s, _ = play(PLAIN + "Red: hand=MM\n", "Red build Keep A1 on M pay MM 1+1")
    assert s.players[0].played == [1, 1]


def test_r18_terrain_surcharge_cards_count_against_the_allowance() -> None:
    pos = "map: plain 15x12\nterrain: A1=f\nplayers: Red White Green\nRed: hand=MMMC\n"
    s, _ = play(pos, "Red build Keep A1 on M pay MMC 2+1")
    assert s.players[0].played == [2, 1]


def test_r18_exchanged_swapped_and_discarded_cards_are_not_played() -> None:
    s, _ = play(PLAIN + "options: holdem\nreserve: MRC\nRed: hand=MMRC\n", "Red exchange M\nRed swap take R give M")
    assert s.players[0].played == [0, 0]


def test_r19_unplayed_cards_stay_in_hand() -> None:
    s, _ = play(PLAIN + "players: Red White\nRed: hand=MRC\n", "Red end\nWhite end")
    assert s.players[0].hand.contains(Cards.parse("MRC")) and s.players[0].hand.total == 4


def test_r20_free_discard_then_refill_to_four() -> None:
    s, events = play(PLAIN + "Red: hand=MMRC\n", "Red end discard MM")
    assert s.players[0].hand.total == 4 and s.discard.count(Cards.parse("M").families()[0]) == 2
    assert [e.count for e in events if isinstance(e, CardsDrawn)] == [2]


def test_r20_a38_both_piles_empty_leaves_a_short_hand() -> None:
    s, events = play(PLAIN + "Red: hand=M\ndeck: C\ndiscard: \n", "Red end")
    assert s.players[0].hand == Cards(m=1, c=1)
    assert [e.count for e in events if isinstance(e, CardsDrawn)] == [1]


def test_r21_r73_income_only_in_rounds_four_and_seven() -> None:
    pos = PLAIN + "M: Keep[Red]@A1 City@C1\n"
    for rnd, gain in [(1, 0), (3, 0), (4, 3), (5, 0), (7, 3)]:
        s, _ = play(pos + f"round: {rnd}\n", "Red end")
        assert s.players[0].ecus == 10 + gain, rnd


def test_r22_a36_the_game_ends_after_round_seven_and_ties_share_the_win() -> None:
    pos = PLAIN + "players: Red White\nround: 7\nactive: White\nRed: ecus=12\nWhite: ecus=12\n"
    s, _ = play(pos, "White end")
    assert s.finished and s.winners == (0, 1)
    with pytest.raises(RuleError) as info:
        apply(s, EndTurn(0))
    assert info.value.code == "game-over"


def test_r23_ecus_never_go_below_zero() -> None:
    refused(PLAIN + "Red: ecus=0 hand=M\nM: Watchtower[White]@A1\n", "Red demolish A1 on M pay M", "no-ecus")
    refused(PLAIN + "Red: ecus=1 hand=MMRC\n", "Red exchange M", "no-ecus")


# -- Actions (R25–R33) ------------------------------------------------------------------------------------


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


def test_r26_a40_travel_may_jump_from_might_to_reason_and_never_stays() -> None:
    s, _ = play(PLAIN, "Red travel 1 R")
    assert s.players[0].pawns == [Age.REASON, Age.MIGHT] and s.players[0].ecus == 9
    refused(PLAIN, "Red travel 1 M", "same-board", "A40")


def test_r27_r28_constructing_a_value_one_building_pays_no_bonus() -> None:
    s, _ = play(PLAIN + "Red: hand=C\n", "Red build Hamlet A1 on M")
    assert s.players[0].ecus == 10 and board_line(s, "F") == ""


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


def test_r31_a33_populate_needs_a_cube_in_supply_r45() -> None:
    pos = PLAIN + "Red: pawns=R,R hand=C cubes=0\nR: Town@D4\n"
    refused(pos, "Red populate D4 pay C", "no-cube", "R45")


def test_r32_castle_ruin_takes_two_cards_once_a_marker_is_down_only_one_more() -> None:
    pos = PLAIN + "Red: pawns=R,R hand=MMM\nR: Castle-ruin@A1+White\n"
    refused(pos, "Red renovate A1 pay MM", "wrong-cards", "R32")
    s, _ = play(pos, "Red renovate A1 pay M")
    assert board_line(s, "R") == "Castle-renov@A1" and s.players[1].supply == 25


def test_r32_r45_a_marker_needs_a_cube() -> None:
    refused(PLAIN + "Red: pawns=R,R hand=MM cubes=0\nR: Castle-ruin@A1\n", "Red renovate A1 pay M", "no-cube", "R45")


def test_r33_a39_the_swap_comes_after_the_exchange_and_before_any_action() -> None:
    pos = PLAIN + "options: holdem\nreserve: MRC\nRed: hand=MMRC\n"
    play(pos, "Red exchange M\nRed swap take C give M")
    refused(pos, "Red swap take C give M\nRed exchange M", "phase", "R13")
    refused(pos, "Red travel 1 F\nRed swap take C give M", "phase", "R33")
    refused(PLAIN + "Red: hand=MMRC\n", "Red swap take C give M", "no-holdem", "R33")


# -- Construction (R34–R46) --------------------------------------------------------------------------


def test_r34_terrain_does_not_fill_a_cell_but_a_printed_hamlet_does() -> None:
    pos = "map: plain 15x12\nterrain: A1=m\nhamlets: C1\nplayers: Red White Green Blue Yellow\nRed: hand=MM\n"
    play(pos, "Red build Watchtower A1 on M")
    refused(pos, "Red build Watchtower C1 on M", "occupied", "R34")


def test_r36_r35_a_river_cell_mixed_with_plain_is_still_river() -> None:
    pos = "map: plain 15x12\nterrain: A1=W\nRed: hand=CCC\n"
    refused(pos, "Red build Hamlet A1 on M", "river", "R35")
    play(pos, "Red build Town A1 on M pay CC 1+1")


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


def test_r45_a27_cubes_are_a_hard_limit_and_a_faith_copy_without_a_cube_is_skipped() -> None:
    refused(PLAIN + "Red: hand=MM cubes=0\n", "Red build Keep A1 on M", "no-cube", "R45")
    s, events = play(PLAIN + "Red: hand=MM cubes=1\n", "Red build Keep A1 on M")
    assert board_line(s, "F") == "" and [e.reason for e in events if isinstance(e, RippleSkipped)] == ["cube"]


def test_r46_what_a_ripple_would_destroy_does_not_affect_legality() -> None:
    pos = PLAIN + "Red: hand=MM\nF: Abbey[White]@A1\nR: Abbey-ruin@A1\n"
    s, _ = play(pos, "Red build Keep A1 on M")
    assert board_line(s, "F") == "Keep[Red]@A1" and board_line(s, "R") == "Keep-ruin@A1"
    assert s.players[1].supply == 25


# -- Rippling (R47–R58) -----------------------------------------------------------------------------


def test_r48_r49_a_shadow_takes_the_same_cells_and_reason_only_follows_faith() -> None:
    s, events = play(PLAIN + "Red: hand=RR\nF: Monastery[White]@D1\n", "Red build Monastery B1 on M")
    assert [e.rule for e in events if isinstance(e, RippleForbidden)] == ["hierarchy"]
    assert not any(isinstance(e, Rippled) for e in events) and board_line(s, "R") == ""


def test_r52_r70b_a_civil_upgrade_moves_the_population_onto_the_new_tile() -> None:
    pos = PLAIN + "hamlets: B2\nRed: hand=C\nR: PH@B2{White:1}\n"
    s, _ = play(pos, "Red upgrade B2 on M to Town at B2 pay C")
    assert board_line(s, "R") == "Town@B2{White:1}" and s.players[1].supply == 24


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


def test_r57_r60_a_civil_ripple_joins_faith_domains_and_religious_power_decides_first() -> None:
    pos = PLAIN + """
        Red: hand=CC
        F: Monastery[White]@A1 Chapel[White]@A3 Keep[Blue]@A4 Monastery[Green]@E1 Keep[Green]@E3
        """
    s, events = play(pos, "Red build Town C2 on M pay CC 1+1")
    compared = [(e.family.value, [p for _, p in e.powers]) for e in events if isinstance(e, PowerCompared)]
    assert compared[0] == ("R", [3, 2])
    assert s.pending is not None and s.pending.decision.player == 2  # Green places the Chapel


def test_r58_reason_takes_no_construction_only_shadows() -> None:
    refused(PLAIN + "Red: pawns=R,R hand=CC\n", "Red build Town A1 on R pay CC 1+1", "wrong-age", "R25")


# -- Domain transformation (R59–R72) ----------------------------------------------------------------


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


def test_r71_a26_removed_pieces_go_back_to_stock_and_supply() -> None:
    s, _ = play(PLAIN + "active: Blue\nBlue: hand=RR\nF: Monastery[Green]@C3\nR: Monastery-ruin@C3\n",
                "Blue build Monastery B2 on M")
    assert s.players[2].supply == 25 and s.stock[Kind.MONASTERY] == 17


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


# -- Income (R73–R78) ---------------------------------------------------------------------------------


def test_r74_r75_a_domain_without_the_controlling_family_pays_no_one() -> None:
    _, events = play(PLAIN + "round: 4\nRed: pawns=M,F\nM: Chapel[Red]@A1 City@B1\nF: Keep[Red]@A1 City@C1\n",
                     "Red end")
    assert [(e.age, e.amount) for e in events if isinstance(e, IncomePaid)] == [(Age.MIGHT, 0), (Age.FAITH, 0)]


def test_r76_a4_a34_reason_pays_the_majority_and_ruins_count_one_less() -> None:
    pos = PLAIN + "round: 4\nRed: pawns=R,R\nR: Town@A1{Red:1} Castle-ruin@C1 Keep-renov@A3\n"
    _, events = play(pos, "Red end")
    assert [e.amount for e in events if isinstance(e, IncomePaid)] == [4]


def test_r76_markers_are_not_population() -> None:
    pos = PLAIN + "round: 4\nRed: pawns=R,R\nR: Town@A1 Castle-ruin@C1+Red\n"
    _, events = play(pos, "Red end")
    assert [e.amount for e in events if isinstance(e, IncomePaid)] == [0]


def test_r77_r78_each_domain_pays_separately_and_tops_are_unique() -> None:
    pos = PLAIN + "round: 7\nRed: pawns=M,M\nM: Keep[Red]@A1 Town@C1 Watchtower[Red]@A8 Town@B8\n"
    _, events = play(pos, "Red end")
    assert [(e.amount, e.domains) for e in events if isinstance(e, IncomePaid)] == [(4, 2)]


def test_a35_income_is_judged_at_the_end_of_each_players_own_turn_only() -> None:
    pos = PLAIN + """
        round: 4
        players: Red White
        Red: pawns=M,M
        White: pawns=M,M hand=CC
        M: Keep[Red]@A1 City@C1
        """
    s, events = play(pos, "Red end\nWhite build Town F1 on M\nWhite end")
    paid = [(e.player, e.amount) for e in events if isinstance(e, IncomePaid)]
    assert paid == [(0, 3), (1, 0)]  # White's Town raised the domain's worth after Red had collected
    assert s.players[0].ecus == 13
