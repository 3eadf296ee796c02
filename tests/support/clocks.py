"""A clock the test moves by hand, for the service's and the bot's turn clock."""

from __future__ import annotations


class Clock:
    """Reads ``now``, which the test moves by hand (seconds since the epoch)."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
