"""§0–§1 of the digest, conventions, components and setup (R1–R10), with the rulings on them (A1–A3,
A37 for the bank): supplementary tests for what the rulebook does not illustrate, named after the rules
they prove. Positions use the notation's defaults (4 players Red White Green Blue, plain cells, 10 Ecus,
stock and supplies from the boards)."""

from __future__ import annotations

import random

from rules import (
    DECK_COMPOSITION,
    INITIAL_STOCK,
    Age,
    Cards,
    Cell,
    Construct,
    Kind,
    apply,
    from_json,
    is_keyed,
    keyed_seed,
    legal_actions,
    new_game,
    surcharge,
    to_json,
)
from tests.support.scenario import board_line, play

SEED_7_FIRST, SEED_7_HANDS = 1, ["MMRC", "MRCC", "MRRC"]

PLAIN = "map: plain 15x12\n"

P2, P3, P4, P5 = "Red White", "Red White Green", "Red White Green Blue", "Red White Green Blue Yellow"


def test_r1_a2_the_three_boards_share_one_map_and_its_printed_hamlets() -> None:
    s = new_game(["A", "B", "C"], seed=3)
    cells = [sorted(b.origin for b in board.buildings.values()) for board in s.boards]
    assert cells[0] == cells[1] == cells[2] == sorted(s.map.hamlets)
    assert len(s.map.hamlets) == 10


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



def test_r4_r9_a_game_dealt_from_a_small_seed_deals_as_it_always_has() -> None:
    """Games stored before keyed seeds keep their deal: the SplitMix64 generator is unchanged (its
    published first outputs for seed 0), and so is what a small seed deals."""
    s = new_game(["A", "B", "C"], seed=7)
    assert not is_keyed(7)
    assert (s.first, [str(p.hand) for p in s.players]) == (SEED_7_FIRST, SEED_7_HANDS)
    assert s.rng < 1 << 64


def test_r4_r9_a_keyed_seed_deals_from_all_of_its_128_bits() -> None:
    """A keyed seed (the service's: 128 bits from the operating system) deals the same game every
    time, and a key differing only far above 64 bits deals another: no search over 64 bits finds it."""
    low = keyed_seed(0x1234)
    high = keyed_seed(0x1234 | 1 << 120)
    assert is_keyed(low) and is_keyed(high) and not is_keyed(0x1234)

    def deal(seed: int) -> tuple[int, list[str], list[object]]:
        s = new_game(["A", "B", "C", "D"], seed=seed)
        return s.first, [str(p.hand) for p in s.players], list(s.deck)

    assert deal(low) == deal(low)
    assert deal(low) != deal(high)
    assert deal(low) != deal(0x1234)


def test_r20_a38_a_keyed_deal_replays_the_same_through_storage_and_reshuffles() -> None:
    """The keyed generator's whole state is the game's ``rng`` integer: a game stored and read back
    after every action plays on exactly as the game that stayed in memory, through the reshuffles of
    the discard pile (R20, A38) of a whole game."""
    kept = stored = new_game(["A", "B", "C"], seed=keyed_seed(2**127 + 5))
    pick = random.Random(3)
    reshuffles = 0
    while not kept.finished:
        action = pick.choice(legal_actions(kept))
        deck = len(kept.deck)
        kept, _ = apply(kept, action)
        stored, _ = apply(from_json(to_json(stored)), action)
        reshuffles += len(kept.deck) > deck
        assert to_json(kept) == to_json(stored)
    assert reshuffles > 0
    assert kept.rng > 1 << 128
