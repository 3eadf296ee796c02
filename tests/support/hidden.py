"""A position dealt again where the viewer cannot see: the tests that an AI's choice (or a hint) never
depends on other players' hands use it."""

from __future__ import annotations

import random

from rules import Cards, Construct, Demolish, Family, GameState, Populate, Renovate, Upgrade


def reshuffle_hidden(s: GameState, seat: int, rng: random.Random) -> GameState:
    """The same position for ``seat`` with what it cannot see dealt differently: the cards of the
    other hands and of the draw pile shuffled among them (sizes kept), and a new generator state.
    A pending decision's saved state gets the same hands and deck (plus the interrupted action's
    cards for its actor), as in a real game."""
    t = s.clone()
    pool: list[Family] = list(t.deck)
    for j, p in enumerate(t.players):
        if j != seat:
            pool.extend(p.hand.families())
    rng.shuffle(pool)
    k = 0
    hands: dict[int, Cards] = {}
    for j, p in enumerate(t.players):
        if j == seat:
            continue
        size = p.hand.total
        hand = Cards()
        for f in pool[k:k + size]:
            hand = hand + Cards.of(f)
        k += size
        p.hand = hands[j] = hand
    t.deck = pool[k:]
    t.rng = rng.getrandbits(64)
    if t.pending is not None:
        import dataclasses

        base = t.pending.base.clone()
        act = t.pending.action
        for j, hand in hands.items():
            spent = act.payment.cards if (
                j == base.active and isinstance(act, (Construct, Upgrade, Demolish, Populate, Renovate))) else Cards()
            base.players[j].hand = hand + spent
        base.deck = list(t.deck)
        base.rng = t.rng
        t.pending = dataclasses.replace(t.pending, base=base)
    return t
