"""Events: what an action caused, in order, for narration and for highlighting the picture.

Events are public: they never carry the colours of cards drawn or held."""

from __future__ import annotations

from dataclasses import dataclass

from .maps import Cell
from .model import Age, Building, Cards, Decision, Family, Kind


@dataclass(frozen=True, slots=True)
class Exchanged:
    player: int
    count: int


@dataclass(frozen=True, slots=True)
class Swapped:
    player: int
    took: Cards
    gave: Cards


@dataclass(frozen=True, slots=True)
class Travelled:
    player: int
    pawn: int
    frm: Age
    to: Age


@dataclass(frozen=True, slots=True)
class Built:
    player: int
    age: Age
    building: Building
    cards: Cards


@dataclass(frozen=True, slots=True)
class Upgraded:
    player: int
    age: Age
    old: Building
    new: Building
    cards: Cards


@dataclass(frozen=True, slots=True)
class Demolished:
    player: int
    age: Age
    building: Building
    cards: Cards = Cards()  # the card paid (R30)


@dataclass(frozen=True, slots=True)
class BonusPaid:
    player: int
    age: Age
    amount: int


@dataclass(frozen=True, slots=True)
class Populated:
    player: int
    building: Building


@dataclass(frozen=True, slots=True)
class MarkerPlaced:
    player: int
    building: Building


@dataclass(frozen=True, slots=True)
class Renovated:
    player: int
    building: Building
    cards: Cards = Cards()  # the cards paid for this step (R32)


@dataclass(frozen=True, slots=True)
class Rippled:
    """A shadow was placed on ``age`` (R47–R50), replacing ``replaced`` if it was the old shadow (R52)."""

    age: Age
    building: Building
    replaced: Building | None = None


@dataclass(frozen=True, slots=True)
class RippleForbidden:
    """R51: the Faith copy would break Dominion or Hierarchy; nothing ripples."""

    age: Age
    kind: Kind
    origin: Cell
    rule: str  # "dominion" or "hierarchy"


@dataclass(frozen=True, slots=True)
class RippleSkipped:
    """R56, A27: no tile (or no cube) for the copy on ``age``; that board and later ones stay as they are."""

    age: Age
    kind: Kind
    origin: Cell
    reason: str  # "tile" or "cube"


@dataclass(frozen=True, slots=True)
class ParadoxRemoved:
    """R53: a building overlapped by a ripple is removed."""

    age: Age
    building: Building


@dataclass(frozen=True, slots=True)
class ShadowRemoved:
    """R53, R65: an identical shadow of a removed or shrunken building is removed."""

    age: Age
    building: Building


@dataclass(frozen=True, slots=True)
class ShadowReplaced:
    """R65: a Castle/Abbey shadow replaced by the downsized Keep/Monastery (a ruin on Reason)."""

    age: Age
    old: Building
    new: Building


@dataclass(frozen=True, slots=True)
class Junction:
    """R60: a Civil building joined ``domains`` domains on ``age``."""

    age: Age
    building: Building
    domains: int


@dataclass(frozen=True, slots=True)
class PowerCompared:
    """R62: the involved domains' power in ``family``, as (a tied building's origin, power) pairs.
    ``own_first``: on a tie for the highest power between P's building and another player's, P's
    own tied buildings, which go first (R62, A22); empty otherwise."""

    age: Age
    family: Family
    powers: tuple[tuple[Cell, int], ...]
    own_first: tuple[Building, ...] = ()


@dataclass(frozen=True, slots=True)
class TopsTied:
    """R67 (division mode): ``tied`` (two or more buildings of ``family``) share the top of one domain on
    ``age``, which the Rule of Hierarchy forbids: one of them is downsized next. ``own_first``: those of
    them that are P's, which go first as some are another player's (R62, A22); empty when P owns none or
    all of them (P chooses)."""

    age: Age
    family: Family
    tied: tuple[Building, ...]
    own_first: tuple[Building, ...] = ()


@dataclass(frozen=True, slots=True)
class Downsized:
    age: Age
    old: Building
    new: Building


@dataclass(frozen=True, slots=True)
class Destroyed:
    """R64: a downsized building with no smaller tile left (or of level 1) is destroyed."""

    age: Age
    building: Building


@dataclass(frozen=True, slots=True)
class CubesReturned:
    """Cubes went back to a player's supply (R53, R64, R70)."""

    age: Age
    player: int
    count: int
    what: str  # "control", "population", "marker"


@dataclass(frozen=True, slots=True)
class CubeKept:
    """R70a: one population cube stays on the uncovered printed hamlet."""

    age: Age
    player: int
    cell: Cell


@dataclass(frozen=True, slots=True)
class IncomePaid:
    """R73–R77: income from one board (sum over its qualifying domains)."""

    player: int
    age: Age
    amount: int
    domains: int


@dataclass(frozen=True, slots=True)
class CardsDrawn:
    player: int
    count: int


@dataclass(frozen=True, slots=True)
class Reshuffled:
    """R20, A38: the discard pile became the draw pile."""

    count: int


@dataclass(frozen=True, slots=True)
class TurnEnded:
    player: int
    discarded: int


@dataclass(frozen=True, slots=True)
class TurnBegan:
    player: int
    round: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """R22, A36: ``winners`` share the victory."""

    winners: tuple[int, ...]
    ecus: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DecisionRequested:
    decision: Decision


Event = (
    Exchanged | Swapped | Travelled | Built | Upgraded | Demolished | BonusPaid | Populated | MarkerPlaced
    | Renovated | Rippled | RippleForbidden | RippleSkipped | ParadoxRemoved | ShadowRemoved | ShadowReplaced
    | Junction | PowerCompared | TopsTied | Downsized | Destroyed | CubesReturned | CubeKept | IncomePaid | CardsDrawn
    | Reshuffled | TurnEnded | TurnBegan | GameEnded | DecisionRequested
)
