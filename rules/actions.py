"""Actions: small frozen dataclasses, one per thing a player can do (R12–R33), plus ``Choose``
for answering a pending decision. ``player`` is the seat index of whoever acts."""

from __future__ import annotations

from dataclasses import dataclass

from .maps import Cell
from .model import Age, Cards, Kind


@dataclass(frozen=True, slots=True)
class Payment:
    """The cards an action spends and how many go through each pawn's allowance (R16–R18).

    ``cards`` covers the family-colour cards and any terrain surcharge (any colour);
    ``pawns[i]`` is how many of them pawn ``i`` (0 or 1) plays. ``sum(pawns) == cards.total``.
    """

    cards: Cards
    pawns: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Exchange:
    """R13: discard ``cards`` (1–4), pay 2 Ecus, draw back to 4. Phase I only, once a turn."""

    player: int
    cards: Cards


@dataclass(frozen=True, slots=True)
class Swap:
    """R33 (Hold'em): take ``take`` (k cards of one colour) from the reserve, give ``give`` (k cards)."""

    player: int
    take: Cards
    give: Cards


@dataclass(frozen=True, slots=True)
class Travel:
    """R26: move pawn ``pawn`` (0 or 1) to another Age for 1 Ecu."""

    player: int
    pawn: int
    to: Age


@dataclass(frozen=True, slots=True)
class Construct:
    """R27: build ``kind`` with its top-left cell at ``origin`` on Might or Faith."""

    player: int
    age: Age
    kind: Kind
    origin: Cell
    payment: Payment


@dataclass(frozen=True, slots=True)
class Upgrade:
    """R29: turn the building covering ``target`` into ``kind`` placed at ``origin``."""

    player: int
    age: Age
    target: Cell
    kind: Kind
    origin: Cell
    payment: Payment


@dataclass(frozen=True, slots=True)
class Demolish:
    """R30: remove the value-1 tile at ``target``."""

    player: int
    age: Age
    target: Cell
    payment: Payment


@dataclass(frozen=True, slots=True)
class Populate:
    """R31: put one cube on the Civil building at ``target`` on Reason for one Civil card."""

    player: int
    target: Cell
    payment: Payment


@dataclass(frozen=True, slots=True)
class Renovate:
    """R32: pay 1 or 2 cards towards the ruin at ``target`` on Reason."""

    player: int
    target: Cell
    payment: Payment


@dataclass(frozen=True, slots=True)
class EndTurn:
    """R20–R21: discard ``discard`` for free, refill to 4, collect income in rounds 4 and 7."""

    player: int
    discard: Cards = Cards()


@dataclass(frozen=True, slots=True)
class Choose:
    """Answer the pending decision with one of its option cells."""

    player: int
    cell: Cell


Action = Exchange | Swap | Travel | Construct | Upgrade | Demolish | Populate | Renovate | EndTurn | Choose
CardAction = Construct | Upgrade | Demolish | Populate | Renovate
