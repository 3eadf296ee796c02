"""``bench/ai_oracle.py``: the oracle master's deals hold the true hidden cards, and only its own."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bench.ai_oracle import oracle_deal, patched_determinize, position, verify
from bot.ai.common import determinize, project


@pytest.mark.parametrize("oracle", ["hands", "all"])
def test_the_oracle_deals_the_true_hands_and_an_ordinary_deal_does_not(oracle: str) -> None:
    lines = verify(oracle)
    assert "the true hands for seat 0's view" in lines[-1]


def test_with_hands_only_the_deck_is_the_true_deck_shuffled_anew_on_every_deal() -> None:
    s = position()
    view = project(s, 0)
    decks = [oracle_deal(view, random.Random(k), s, "hands").deck for k in range(3)]
    assert all(Counter(d) == Counter(s.deck) for d in decks)
    assert len({tuple(d) for d in decks}) > 1
    assert all(oracle_deal(view, random.Random(k), s, "all").deck == s.deck for k in range(3))


def test_without_a_recorded_truth_the_patched_deal_is_an_ordinary_one() -> None:
    s = position()
    view = project(s, 0)
    dealt = patched_determinize("all")(view, random.Random(5))
    assert [p.hand for p in dealt.players] == [p.hand for p in determinize(view, random.Random(5)).players]
