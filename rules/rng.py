"""A small seeded generator whose whole state is one integer kept in the game state.

Two forms, told apart by the size of the seed:

* a seed below ``KEYED`` drives SplitMix64: fast, well-distributed, and identical on every platform
  and Python version (games dealt before keyed seeds existed keep this form and play on exactly as
  before). Its state is 64 bits, so a seed of 64 bits or fewer can be searched for;
* a seed at or above ``KEYED`` carries a 128-bit key (its low 128 bits): the generator is BLAKE2b keyed
  with it, run over a counter. Nothing a player sees (their hand, the first player, the cards drawn)
  narrows the key short of a search over 2**128 keys. The service deals every new game this way
  (``keyed_seed``).

Either way the same seed and the same actions always give the same game.
"""

from __future__ import annotations

import hashlib
from typing import TypeVar

T = TypeVar("T")
MASK = (1 << 64) - 1
KEY_BITS = 128
KEY_MASK = (1 << KEY_BITS) - 1
#: a seed at or above this is a keyed seed: its low 128 bits are the generator's key
KEYED = 1 << KEY_BITS
#: a keyed generator's state: this tag, the key above bit 64, and a 64-bit counter below
_TAG = 1 << (64 + KEY_BITS)


def keyed_seed(key: int) -> int:
    """The seed of a keyed generator with the 128-bit ``key`` (e.g. ``secrets.randbits(128)``)."""
    return KEYED | (key & KEY_MASK)


def is_keyed(seed: int) -> bool:
    """Whether ``seed`` is a keyed seed (128 bits of key) rather than a SplitMix64 one."""
    return seed >= KEYED


def seed_state(seed: int) -> int:
    """The generator state for a seed (any non-negative integer; see the module's two forms)."""
    if seed >= KEYED:
        return _TAG | (seed & KEY_MASK) << 64
    return seed & MASK


def next_u64(state: int) -> tuple[int, int]:
    """Advance: returns (new state, 64-bit output)."""
    if state >= _TAG:
        return _next_keyed(state)
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def _next_keyed(state: int) -> tuple[int, int]:
    """The keyed form: the counter goes up by one, and the output is its BLAKE2b under the key."""
    key = (state >> 64) & KEY_MASK
    counter = ((state & MASK) + 1) & MASK
    out = hashlib.blake2b(counter.to_bytes(8, "little"), key=key.to_bytes(KEY_BITS // 8, "little"),
                          digest_size=8).digest()
    return (state & ~MASK) | counter, int.from_bytes(out, "little")


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
