"""§2 of the digest, turn structure (R11–R24): rounds and phases, the hand exchange, presence, the card
allowance, discard and refill, income timing, the end of the game, money and hidden information, with
the rulings on them (A8–A10, A35–A38). Positions use the notation's defaults."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from rules import Cards, Construct, EndTurn, RuleError, apply, default_payment, legal_actions, new_game, view_for
from rules.events import CardsDrawn, IncomePaid, Reshuffled, TurnBegan, TurnEnded
from tests.support.gameplay import accepted, random_game
from tests.support.scenario import board_line, play, refused

PLAIN = "map: plain 15x12\n"


def test_r11_turns_go_clockwise_from_the_first_player_and_rounds_advance() -> None:
    _, events = play(PLAIN + "players: Red White Green\nfirst: White\nactive: White\n",
                     "White end\nGreen end\nRed end\nWhite end")
    began = [(e.player, e.round) for e in events if isinstance(e, TurnBegan)]
    assert began == [(2, 1), (0, 1), (1, 2), (2, 2)]


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


def test_r13_exchange_of_the_whole_hand_with_exactly_two_ecus() -> None:
    s, _ = play(PLAIN + "Red: ecus=2 hand=MMRC\n", "Red exchange MMRC")
    assert s.players[0].ecus == 0 and s.players[0].hand.total == 4


def test_r13_a38_exchange_reshuffles_the_cards_just_discarded() -> None:
    s, events = play(PLAIN + "Red: hand=MMMM\ndeck: C\ndiscard: \n", "Red exchange MMM")
    assert any(isinstance(e, Reshuffled) for e in events)
    assert s.players[0].hand == Cards(m=3, c=1) and len(s.deck) == 1 and s.discard == []


def test_r14_travel_and_card_actions_interleave_freely() -> None:
    s, _ = play(PLAIN + "Red: hand=MMCC\n",
                "Red build Watchtower A1 on M pay M 1+0\nRed travel 1 F\nRed build Watchtower A1 on F pay M 1+0\n"
                "Red build Hamlet C3 on M pay C 0+1\nRed travel 2 F\nRed build Hamlet C3 on F pay C 0+1")
    assert board_line(s, "M") == "Watchtower[Red]@A1 Hamlet@C3" and board_line(s, "F") == board_line(s, "M")


def test_r14_r15_presence_is_judged_when_the_card_is_played() -> None:
    """R14: travel and cards interleave; R15: a pawn that has left a board no longer lets its owner
    build there."""
    pos = PLAIN + "Red: hand=MM pawns=M,F\n"
    s, _ = play(pos, "Red build Watchtower A1 on F pay M 0+1\nRed travel 2 M\nRed build Watchtower C1 on M pay M 0+1")
    assert board_line(s, "F") == "Watchtower[Red]@A1" and board_line(s, "M") == "Watchtower[Red]@C1"
    refused(pos, "Red travel 2 R\nRed build Watchtower A1 on F pay M 0+1", "presence", "R15")


def test_r15_a_card_action_needs_a_pawn_on_that_board() -> None:
    refused(PLAIN + "Red: hand=MM pawns=M,M\n", "Red build Watchtower A1 on F pay M 1+0", "presence", "R15")


def test_r16_a_pawn_plays_two_cards_per_turn_even_after_travelling() -> None:
    pos = PLAIN + "Red: hand=MMMC pawns=M,R\n"
    s, _ = play(pos, "Red build Watchtower A1 on M pay M 1+0\nRed travel 1 F\nRed build Watchtower C1 on F pay M 1+0")
    assert s.players[0].played == [2, 0]
    refused(pos, "Red build Watchtower A1 on M pay M 1+0\nRed travel 1 F\nRed build Watchtower C1 on F pay M 1+0\n"
                 "Red build Watchtower E1 on F pay M 1+0", "allowance", "R17")
    refused(pos, "Red build Watchtower A1 on M pay M 0+1", "pawn-elsewhere", "R16")


def test_r16_r17_pooled_three_card_castle_uses_what_each_pawn_has_left() -> None:
    pos = PLAIN + "Red: hand=MMMMC pawns=M,M\n"
    s, _ = play(pos, "Red build Watchtower A1 on M pay M 1+0\nRed build Castle C1 on M pay MMM 1+2")
    assert s.players[0].played == [2, 2]
    refused(pos, "Red build Watchtower A1 on M pay M 1+0\nRed build Castle C1 on M pay MMM 2+1", "allowance", "R16")


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


def test_r17_a10_two_pawns_on_one_board_may_share_a_two_card_action() -> None:
    s, _ = play(PLAIN + "Red: hand=MM\n", "Red build Keep A1 on M pay MM 1+1")
    assert s.players[0].played == [1, 1]


def test_r17_split_pawns_cannot_pay_a_three_card_upgrade_skip() -> None:
    pos = PLAIN + "Red: hand=MMM pawns=M,F\nM: Watchtower[Red]@A1\n"
    refused(pos, "Red upgrade A1 on M to Castle at A1 pay MM 1+1", "pawn-elsewhere", "R16")
    s, _ = play(pos, "Red upgrade A1 on M to Castle at A1 pay MM 2+0")
    assert board_line(s, "M") == "Castle[Red]@A1"


@pytest.mark.slow  # a whole random game
def test_r17_default_payment_is_legal_whenever_a_payment_exists() -> None:
    for step in random_game(3, 3, False):
        s = step.before
        for a in legal_actions(s, types=[Construct]):
            assert isinstance(a, Construct)
            pay = default_payment(s, a.player, a.age, Cards.of(a.kind.family, a.kind.level),
                                  a.payment.cards.total - a.kind.level)
            assert pay is not None
            assert accepted(s, dataclasses.replace(a, payment=pay))
            break


def test_r18_terrain_surcharge_cards_count_against_the_allowance() -> None:
    pos = "map: plain 15x12\nterrain: A1=f\nplayers: Red White Green\nRed: hand=MMMC\n"
    s, _ = play(pos, "Red build Keep A1 on M pay MMC 2+1")
    assert s.players[0].played == [2, 1]


def test_r18_exchanged_swapped_and_discarded_cards_are_not_played() -> None:
    s, _ = play(PLAIN + "options: holdem\nreserve: MRC\nRed: hand=MMRC\n", "Red exchange M\nRed swap take R give M")
    assert s.players[0].played == [0, 0]


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


def test_r20_a38_refill_reshuffles_the_cards_discarded_this_turn() -> None:
    s, _ = play(PLAIN + "Red: hand=MMRC\ndeck: \ndiscard: \n", "Red end discard MR")
    assert s.players[0].hand == Cards.parse("MMRC") and s.deck == [] and s.discard == []


def test_r21_r73_income_only_in_rounds_four_and_seven() -> None:
    pos = PLAIN + "M: Keep[Red]@A1 City@C1\n"
    for rnd, gain in [(1, 0), (3, 0), (4, 3), (5, 0), (7, 3)]:
        s, _ = play(pos + f"round: {rnd}\n", "Red end")
        assert s.players[0].ecus == 10 + gain, rnd


def test_r21_r73_both_pawns_on_one_board_pay_once_and_two_boards_each_pay() -> None:
    pos = PLAIN + "round: 4\nM: Keep[Red]@A1 Town@C1\nF: Monastery[Red]@A1 City@C1\n"
    s, _ = play(pos + "Red: pawns=M,M\n", "Red end")
    assert s.players[0].ecus == 12
    s, _ = play(pos + "Red: pawns=M,F\n", "Red end")
    assert s.players[0].ecus == 10 + 2 + 3


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


def test_a35_income_uses_the_board_at_the_end_of_the_players_own_turn() -> None:
    """A35, R21: White's income is judged at the end of White's turn, after Red changed the board."""
    pos = PLAIN + "round: 4\nplayers: Red White\nRed: hand=C\nM: Keep[White]@A1 Town@C1\n"
    _s, events = play(pos, "Red build Hamlet E1 on M\nRed end\nWhite end")
    assert [(e.player, e.amount) for e in events if isinstance(e, IncomePaid)] == [(0, 0), (1, 3)]


def test_r22_a36_the_game_ends_after_round_seven_and_ties_share_the_win() -> None:
    pos = PLAIN + "players: Red White\nround: 7\nactive: White\nRed: ecus=12\nWhite: ecus=12\n"
    s, _ = play(pos, "White end")
    assert s.finished and s.winners == (0, 1)
    with pytest.raises(RuleError) as info:
        apply(s, EndTurn(0))
    assert info.value.code == "game-over"


def test_r22_a36_a_single_richest_player_wins_alone() -> None:
    pos = PLAIN + "players: Red White Green\nround: 7\nactive: Green\nRed: ecus=12\nWhite: ecus=13\nGreen: ecus=5\n"
    s, _ = play(pos, "Green end")
    assert s.finished and s.winners == (1,)


def test_r23_ecus_never_go_below_zero() -> None:
    refused(PLAIN + "Red: ecus=0 hand=M\nM: Watchtower[White]@A1\n", "Red demolish A1 on M pay M", "no-ecus")
    refused(PLAIN + "Red: ecus=1 hand=MMRC\n", "Red exchange M", "no-ecus")


def test_r23_ecus_never_go_below_zero_for_travel_exchange_or_demolition() -> None:
    """R23: every Ecu cost needs the Ecus in hand."""
    refused(PLAIN + "Red: ecus=0\n", "Red travel 1 F", "no-ecus", "R26")
    refused(PLAIN + "Red: ecus=1 hand=M\n", "Red exchange M", "no-ecus", "R13")
    refused(PLAIN + "Red: ecus=0 hand=C\nM: Hamlet@A1\n", "Red demolish A1 on M pay C", "no-ecus", "R30")


def test_r24_a_players_view_hides_other_hands_and_the_draw_pile() -> None:
    """R24: hands and the order of the draw pile are secret; the view keeps the viewer's own hand."""
    s = new_game(["A", "B", "C"], seed=7)
    v = view_for(s, 2)
    assert v.state.players[2].hand == s.players[2].hand
    assert v.state.players[0].hand.total == 0 and v.state.players[1].hand.total == 0
    assert v.state.deck == [] and v.deck_size == len(s.deck) and v.hand_sizes == (4, 4, 4)
