"""The legal-action listing and ``apply`` agree in both directions: every listed action is accepted,
and every candidate outside the listing is refused with a RuleError that leaves the state unchanged."""

from __future__ import annotations

import dataclasses
import random

import pytest

from rules import (
    Action,
    Age,
    Cards,
    Cell,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    GameState,
    Kind,
    Payment,
    Populate,
    Renovate,
    Swap,
    Travel,
    Upgrade,
    legal_actions,
    placements,
)
from tests.support.gameplay import accepted, random_game

#: every test here plays random games to the end
pytestmark = pytest.mark.slow


def random_cards(r: random.Random, most: int = 4) -> Cards:
    return Cards(r.randint(0, most), r.randint(0, most // 2), r.randint(0, most // 2))


def random_payment(r: random.Random) -> Payment:
    cards = random_cards(r, 3)
    k = r.randint(0, cards.total)
    return Payment(cards, (k, cards.total - k) if r.random() < 0.9 else (k, r.randint(0, 2)))


def random_cell(r: random.Random, s: GameState) -> Cell:
    return Cell(r.randrange(-1, s.map.width + 1), r.randrange(-1, s.map.height + 1))


def mutate(r: random.Random, s: GameState, a: Action) -> Action:
    """A near miss of a legal action: one field changed."""
    fields = [f.name for f in dataclasses.fields(a) if f.name != "player"]
    name = r.choice([*fields, "player"])
    value = getattr(a, name)
    if name == "player":
        new: object = (a.player + 1) % len(s.players)
    elif isinstance(value, Cell):
        new = Cell(value.col + r.choice((-1, 0, 1)), value.row + r.choice((-1, 1)))
    elif isinstance(value, Age):
        new = Age((value + r.randint(1, 2)) % 3)
    elif isinstance(value, Kind):
        new = r.choice(list(Kind))
    elif isinstance(value, Payment):
        new = random_payment(r) if r.random() < 0.5 else Payment(value.cards, (value.pawns[1], value.pawns[0]))
    elif isinstance(value, Cards):
        new = random_cards(r)
    elif isinstance(value, int):
        new = r.randint(-1, 2)
    else:
        return a
    return dataclasses.replace(a, **{name: new})


def random_action(r: random.Random, s: GameState) -> Action:
    P = r.choice([s.active, s.waiting_on, (s.active + 1) % len(s.players)])
    age = r.choice(list(Age))
    kind = r.choice(list(Kind))
    options: list[Action] = [
        Exchange(P, random_cards(r)),
        Swap(P, random_cards(r, 2), random_cards(r, 2)),
        Travel(P, r.randint(0, 1), age),
        Construct(P, age, kind, random_cell(r, s), random_payment(r)),
        Upgrade(P, age, random_cell(r, s), kind, random_cell(r, s), random_payment(r)),
        Demolish(P, age, random_cell(r, s), random_payment(r)),
        Populate(P, random_cell(r, s), random_payment(r)),
        Renovate(P, random_cell(r, s), random_payment(r)),
        EndTurn(P, random_cards(r)),
        Choose(P, random_cell(r, s)),
    ]
    return r.choice(options)


@pytest.mark.parametrize("seed", range(10))
def test_listing_and_apply_agree_both_ways(seed: int) -> None:
    r = random.Random(1000 + seed)
    checked = refused = 0
    for n, step in enumerate(random_game(seed, 2 + seed % 4, seed % 3 == 0)):
        if n % 3:
            continue
        s = step.before
        legal = legal_actions(s)
        listed = set(legal)
        assert len(listed) == len(legal), "an action is listed twice"
        for a in r.sample(legal, min(8, len(legal))):
            assert accepted(s, a), f"listed but refused: {a}"
        for _ in range(24):
            a = mutate(r, s, r.choice(legal)) if r.random() < 0.7 else random_action(r, s)
            ok = accepted(s, a)
            assert ok == (a in listed), f"{'accepted' if ok else 'refused'} but {'not ' if ok else ''}listed: {a}"
            checked += 1
            refused += not ok
    assert checked > 200 and refused > 50


@pytest.mark.parametrize("seed", range(4))
def test_filtered_listing_and_placements_match_the_full_listing(seed: int) -> None:
    for n, step in enumerate(random_game(seed, 3 + seed % 3, False)):
        if n % 7:
            continue
        s = step.before
        full = legal_actions(s)
        for kind in (Kind.KEEP, Kind.HAMLET, Kind.CITY):
            for age in (Age.MIGHT, Age.FAITH):
                narrowed = legal_actions(s, types=[Construct], ages=[age], kinds=[kind])
                expect = [a for a in full if isinstance(a, Construct) and a.age is age and a.kind is kind]
                assert narrowed == expect
                assert placements(s, s.active, kind, age) == sorted(
                    {a.origin for a in expect}, key=lambda c: (c.row, c.col)
                )



def _what_and_where(a: Action) -> tuple[object, ...]:
    """What an action is and where, without its site or payment: a construction by kind and board,
    an upgrade or a demolition by board and building, a Reason action by building."""
    if isinstance(a, Construct):
        return (Construct, a.age, a.kind)
    if isinstance(a, Upgrade):
        return (Upgrade, a.age, a.target, a.kind)
    if isinstance(a, Demolish):
        return (Demolish, a.age, a.target)
    if isinstance(a, Renovate):  # with one card or two (R32)
        return (Renovate, a.target, a.payment.cards.total)
    if isinstance(a, Populate):
        return (Populate, a.target)
    if isinstance(a, Travel):
        return (Travel, a.pawn, a.to)
    return (type(a),)


@pytest.mark.parametrize("seed", range(6))
def test_an_outline_names_every_move_of_the_full_listing_once_and_each_is_accepted(seed: int) -> None:
    """The outline (the hand message's "You can:") has each kind of move of the full listing, on the
    same boards and buildings, and nothing the full listing lacks."""
    fewer = 0
    for n, step in enumerate(random_game(seed, 2 + seed % 4, seed % 2 == 0)):
        if n % 5:
            continue
        s = step.before
        full, outline = legal_actions(s), legal_actions(s, outline=True)
        assert set(outline) <= set(full)
        assert {_what_and_where(a) for a in outline} == {_what_and_where(a) for a in full}
        assert len({_what_and_where(a) for a in outline}) == len(outline)  # one each
        fewer += len(outline) < len(full)
    assert fewer > 5
