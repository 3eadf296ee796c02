"""A small seeded generator whose whole state is one integer kept in the game state.

SplitMix64: fast, well-distributed, and identical on every platform and Python version, so that
the same seed and the same actions always give the same game.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")
MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """The generator state for a seed (any integer)."""
    return seed & MASK


def next_u64(state: int) -> tuple[int, int]:
    """Advance: returns (new state, 64-bit output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in [0, n) by rejection sampling: returns (new state, value)."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        state, x = next_u64(state)
        if x < limit:
            return state, x % n


def shuffle(state: int, items: list[T]) -> int:
    """Fisher–Yates shuffle in place; returns the new state."""
    for i in range(len(items) - 1, 0, -1):
        state, j = below(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state
