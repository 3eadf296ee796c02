"""The game's data: Ages, families, building kinds, buildings, boards, players and the whole state.

Everything here is plain data. The engine never mutates a state it was given: it clones it
(``GameState.clone``, cheap because buildings are immutable) and changes the clone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, IntEnum

from .errors import NotationError
from .maps import Block, Cell, GameMap

FORMAT_VERSION = 1


class Age(IntEnum):
    """The three boards, in chronological order (§0)."""

    MIGHT = 0
    FAITH = 1
    REASON = 2

    @property
    def letter(self) -> str:
        return "MFR"[self]

    @property
    def title(self) -> str:
        return ("Might", "Faith", "Reason")[self]

    @staticmethod
    def parse(text: str) -> Age:
        """``M``/``Might``, ``F``/``Faith``, ``R``/``Reason`` (case-insensitive)."""
        t = text.strip().lower()
        for age in Age:
            if t in (age.letter.lower(), age.title.lower()):
                return age
        raise NotationError(f"{text.strip()!r} is not an Age: use Might (M), Faith (F) or Reason (R)")


class Family(Enum):
    """Building families and the card colours that build them (§0, R4)."""

    MILITARY = "M"
    RELIGIOUS = "R"
    CIVIL = "C"

    # Set on every member below: the family's place in M, R, C order (a plain attribute, read in
    # every card count: ``Enum.value`` is a descriptor, several times slower)
    index: int

    @property
    def title(self) -> str:
        return {"M": "Military", "R": "Religious", "C": "Civil"}[self.value]


for _i, _fam in enumerate(Family):
    _fam.index = _i


class Kind(Enum):
    """The nine building types (§0). ``kind.family`` and ``kind.level`` come from ``KIND_TABLE``."""

    WATCHTOWER = "Watchtower"
    KEEP = "Keep"
    CASTLE = "Castle"
    CHAPEL = "Chapel"
    MONASTERY = "Monastery"
    ABBEY = "Abbey"
    HAMLET = "Hamlet"
    TOWN = "Town"
    CITY = "City"

    # Set on every member from KIND_TABLE below: plain attributes, because they are read millions
    # of times in a look-ahead and a dictionary keyed by an Enum pays for Enum.__hash__ each time.
    family: Family
    level: int
    is_mr: bool  # Military or Religious: carries a control cube on Might and Faith

    @property
    def has_ruin(self) -> bool:
        """Keep, Castle, Monastery and Abbey tiles have a ruin side (R2)."""
        return self.is_mr and self.level >= 2

    @staticmethod
    def of(family: Family, level: int) -> Kind:
        return KIND_OF[(family, level)]

    @staticmethod
    def parse(text: str) -> Kind:
        t = text.strip().lower()
        for kind in Kind:
            if kind.value.lower() == t:
                return kind
        names = ", ".join(k.value for k in Kind)
        raise NotationError(f"{text.strip()!r} is not a building: use one of {names}")


#: kind -> (family, level). Level is the value, the side of the square footprint and the card cost.
KIND_TABLE: dict[Kind, tuple[Family, int]] = {
    Kind.WATCHTOWER: (Family.MILITARY, 1),
    Kind.KEEP: (Family.MILITARY, 2),
    Kind.CASTLE: (Family.MILITARY, 3),
    Kind.CHAPEL: (Family.RELIGIOUS, 1),
    Kind.MONASTERY: (Family.RELIGIOUS, 2),
    Kind.ABBEY: (Family.RELIGIOUS, 3),
    Kind.HAMLET: (Family.CIVIL, 1),
    Kind.TOWN: (Family.CIVIL, 2),
    Kind.CITY: (Family.CIVIL, 3),
}
KIND_OF: dict[tuple[Family, int], Kind] = {v: k for k, v in KIND_TABLE.items()}
for _kind, (_family, _level) in KIND_TABLE.items():
    _kind.family, _kind.level, _kind.is_mr = _family, _level, _family is not Family.CIVIL

#: R2: tiles in the box.
INITIAL_STOCK: dict[Kind, int] = {
    Kind.WATCHTOWER: 20, Kind.KEEP: 24, Kind.CASTLE: 9,
    Kind.CHAPEL: 20, Kind.MONASTERY: 20, Kind.ABBEY: 9,
    Kind.HAMLET: 20, Kind.TOWN: 24, Kind.CITY: 9,
}
TOTAL_TILES = sum(INITIAL_STOCK.values())  # 155

#: R4, ruling A3: the deck.
DECK_COMPOSITION: dict[Family, int] = {Family.MILITARY: 18, Family.RELIGIOUS: 18, Family.CIVIL: 19}
TOTAL_CARDS = sum(DECK_COMPOSITION.values())  # 55

CUBES_PER_PLAYER = 25  # R5
STARTING_ECUS = 4  # R9
HAND_SIZE = 4  # R9, R20
CARDS_PER_PAWN = 2  # R16
ROUNDS = 7  # R11
INCOME_ROUNDS = (4, 7)  # R21
EXCHANGE_COST = 2  # R13
TRAVEL_COST = 1  # R26
DEMOLISH_COST = 1  # R30
#: R31, ruling A5: population caps, all players together.
POPULATION_CAP: dict[Kind, int] = {Kind.HAMLET: 1, Kind.TOWN: 3, Kind.CITY: 5}
#: R28: construction/upgrade bonus on the board acted on, for a resulting value of 2 or 3.
BONUS: dict[Age, int] = {Age.MIGHT: 1, Age.FAITH: 2}


class Colour(Enum):
    """Player colours (R6). Each has a letter so that no one depends on colour vision."""

    RED = "Red"
    WHITE = "White"
    GREEN = "Green"
    BLUE = "Blue"
    YELLOW = "Yellow"

    @property
    def letter(self) -> str:
        return self.value[0]

    @staticmethod
    def parse(text: str) -> Colour:
        t = text.strip().lower()
        for colour in Colour:
            if t in (colour.value.lower(), colour.letter.lower()):
                return colour
        raise NotationError(f"{text.strip()!r} is not a colour: use Red, White, Green, Blue or Yellow")


@dataclass(frozen=True, slots=True, order=True)
class Cards:
    """A multiset of construction cards by colour. Cards of one colour are interchangeable."""

    m: int = 0
    r: int = 0
    c: int = 0

    def __post_init__(self) -> None:
        if self.m < 0 or self.r < 0 or self.c < 0:
            raise ValueError("a card count cannot be negative")

    @property
    def total(self) -> int:
        return self.m + self.r + self.c

    def count(self, family: Family) -> int:
        return (self.m, self.r, self.c)[family.index]

    def __add__(self, other: Cards) -> Cards:
        return Cards(self.m + other.m, self.r + other.r, self.c + other.c)

    def __sub__(self, other: Cards) -> Cards:
        return Cards(self.m - other.m, self.r - other.r, self.c - other.c)

    def contains(self, other: Cards) -> bool:
        return self.m >= other.m and self.r >= other.r and self.c >= other.c

    @staticmethod
    def of(family: Family, n: int = 1) -> Cards:
        i = family.index
        return Cards(n if i == 0 else 0, n if i == 1 else 0, n if i == 2 else 0)

    @staticmethod
    def parse(text: str) -> Cards:
        """``MMRC`` (letters M, R, C; spaces, commas and '-' for none are ignored)."""
        t = text.replace(",", "").replace(" ", "").upper()
        if t in ("", "-"):
            return Cards()
        bad = sorted(set(t) - set("MRC"))
        if bad:
            raise NotationError(
                f"{text.strip()!r} is not a list of cards: write M (Military), R (Religious), C (Civil), e.g. MMC"
            )
        return Cards(t.count("M"), t.count("R"), t.count("C"))

    def __str__(self) -> str:
        return "M" * self.m + "R" * self.r + "C" * self.c or "-"

    def families(self) -> list[Family]:
        return [Family.MILITARY] * self.m + [Family.RELIGIOUS] * self.r + [Family.CIVIL] * self.c


@dataclass(frozen=True, slots=True)
class Building:
    """A building on one board: a tile, or an uncovered printed hamlet (``printed``).

    ``owner`` is the player index of the control cube (M/R buildings on Might and Faith only).
    On Reason, M/R buildings are ``ruin`` or renovated, may carry a renovation ``marker`` (a
    player index), and Civil buildings carry ``population``: player indices, one per cube, sorted.
    ``id`` is stable through downsizing (the cube stays on the smaller building).
    """

    id: int
    kind: Kind
    origin: Cell
    cells: tuple[int, ...]
    owner: int | None = None
    printed: bool = False
    ruin: bool = False
    population: tuple[int, ...] = ()
    marker: int | None = None

    @property
    def family(self) -> Family:
        return self.kind.family

    @property
    def level(self) -> int:
        return self.kind.level

    @property
    def income_value(self) -> int:
        """Value counted in income (R74–R76): a ruin counts its value minus 1 (ruling A4)."""
        return self.kind.level - 1 if self.ruin else self.kind.level

    def describe(self, players: list[Player] | None = None) -> str:
        """``Keep[Red]@B2``, ``Keep-ruin@B2``, ``PH@C2`` (the notation's building form)."""
        if self.printed:
            base = f"PH@{self.origin}"
        else:
            suffix = "-ruin" if self.ruin else ""
            owner = ""
            if self.owner is not None:
                owner = f"[{players[self.owner].colour.value}]" if players else f"[{self.owner}]"
            base = f"{self.kind.value}{suffix}{owner}@{self.origin}"
        return base


@dataclass(slots=True)
class Board:
    """One Age board: its buildings by id and an occupancy grid (0 = empty cell, else building id)."""

    age: Age
    buildings: dict[int, Building]
    grid: list[int]
    #: bumped on every change; domain caches key on it
    version: int = 0
    #: (version, domains) computed by rules.domains; not part of the state's value
    cache: object = None
    #: the version at which every domain was last found to obey the Rule of Hierarchy (R43), or -1
    clean: int = -1
    #: the buildings put (their ids) and taken (as they were) since ``cache`` was computed (while there
    #: is one), so that rules.domains can bring it up to date by looking again only at what they touched
    moved: tuple[int | Building, ...] = ()
    #: the domains (``Domains.groups``) of the board when it was last found to obey the Rule of
    #: Hierarchy, and the ids of those tuples: a group kept since (the same tuple: none of its
    #: buildings was put or taken) still does
    checked: tuple[tuple[tuple[int, ...], ...], frozenset[int]] = ((), frozenset())
    #: (version, the blocks of each size whose cells are all free then), found by rules.legal as asked
    free: tuple[int, dict[int, tuple[Block, ...]]] | None = None
    #: (version, ``contents()`` then), kept as it was asked for
    kept_contents: tuple[int, tuple[Building, ...]] | None = None

    def clone(self) -> Board:
        return Board(self.age, dict(self.buildings), list(self.grid), self.version, self.cache, self.clean,
                     self.moved, self.checked, self.free, self.kept_contents)

    def contents(self) -> tuple[Building, ...]:
        """The buildings in the order the board lists them, as one value: equal for two boards of one
        Age that hold the same buildings in the same order (the grid follows from them), whatever led
        to each."""
        kept = self.kept_contents
        if kept is None or kept[0] != self.version:
            kept = self.kept_contents = (self.version, tuple(self.buildings.values()))
        return kept[1]

    def at(self, index: int) -> Building | None:
        bid = self.grid[index]
        return self.buildings[bid] if bid else None

    def put(self, b: Building) -> None:
        grid = self.grid
        bid = b.id
        clash = False
        for i in b.cells:
            if grid[i] != bid and grid[i]:
                clash = True
            grid[i] = bid
        self.buildings[bid] = b
        self.version += 1
        if self.cache is not None:
            if clash:  # (never in play: a building goes on free cells) the domains are found afresh
                self.cache, self.moved = None, ()
            else:
                self.moved += (bid,)

    def take(self, bid: int) -> Building:
        b = self.buildings.pop(bid)
        for i in b.cells:
            if self.grid[i] == bid:
                self.grid[i] = 0
        self.version += 1
        if self.cache is not None:
            self.moved += (b,)
        return b

    def swap(self, b: Building) -> None:
        """Replace a building with a changed copy of the same id (same cells: the domains stay)."""
        self.buildings[b.id] = b
        self.version += 1

    def sorted_buildings(self, game_map: GameMap) -> list[Building]:
        """Buildings in reading order of their origin (row, then column)."""
        return sorted(self.buildings.values(), key=lambda b: (b.origin.row, b.origin.col, b.id))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.age == other.age and self.buildings == other.buildings and self.grid == other.grid


@dataclass(slots=True)
class Player:
    """A seat: name, colour, Ecus, cubes in supply, hand, the Age of each pawn and the cards each
    pawn has played this turn (R16)."""

    name: str
    colour: Colour
    ecus: int = STARTING_ECUS
    supply: int = CUBES_PER_PLAYER
    hand: Cards = Cards()
    pawns: list[Age] = field(default_factory=lambda: [Age.MIGHT, Age.MIGHT])
    played: list[int] = field(default_factory=lambda: [0, 0])

    def clone(self) -> Player:
        # the constructor directly: dataclasses.replace costs several times as much, and states are
        # cloned at every action (a copy of every field; the lists are new)
        return Player(self.name, self.colour, self.ecus, self.supply, self.hand, list(self.pawns), list(self.played))

    def allowance(self, pawn: int) -> int:
        return CARDS_PER_PAWN - self.played[pawn]

    def is_on(self, age: Age) -> bool:
        return age in self.pawns


@dataclass(frozen=True, slots=True)
class Options:
    """Table options: the Hold'em variant (R33) and whether Ecu totals are public (A37)."""

    holdem: bool = False
    ecus_public: bool = True


class DecisionKind(Enum):
    """What a pending decision asks (R62, R63, R64, R67, R72)."""

    #: P picks which tied building is downsized (junction tie R62, or division mode R67)
    DOWNSIZE_WHICH = "downsize"
    #: the owner picks where the smaller building sits inside the old footprint (R64, A25)
    PLACE_SMALLER = "place"
    #: P picks which of several independent domains in violation is resolved first (R67)
    DOMAIN_ORDER = "domain"


@dataclass(frozen=True, slots=True)
class Decision:
    """A question the game waits on, addressed to one player; every option is a cell.

    For DOWNSIZE_WHICH the options are the origins of the candidate buildings; for PLACE_SMALLER
    the possible origins of the smaller square; for DOMAIN_ORDER the origin of one tied building
    in each domain. ``subject`` is the origin of the building concerned (PLACE_SMALLER) and
    ``result`` the kind it becomes.
    """

    kind: DecisionKind
    player: int
    age: Age
    options: tuple[Cell, ...]
    subject: Cell | None = None
    result: Kind | None = None
    family: Family | None = None


@dataclass(frozen=True, slots=True)
class Pending:
    """An action interrupted by a decision: the state before the action, the action, the answers
    given so far and how many events were already reported. Answering replays the action."""

    decision: Decision
    base: GameState
    action: object
    answers: tuple[Cell, ...]
    reported: int


@dataclass(slots=True)
class GameState:
    """The whole game. ``players`` are in clockwise seat order; ``active`` is the seat whose turn it is."""

    map: GameMap
    options: Options
    players: list[Player]
    boards: list[Board]
    stock: dict[Kind, int]
    deck: list[Family]  # draw pile; the top card is the last element
    discard: list[Family]
    reserve: Cards  # Hold'em reserve (R33); empty without the variant
    rng: int  # state of the seeded generator (rules.rng)
    round: int = 1
    first: int = 0
    active: int = 0
    exchanged: bool = False  # R13 done this turn
    swapped: bool = False  # R33 swap done this turn
    acted: bool = False  # a phase-II action was taken this turn
    next_id: int = 1
    pending: Pending | None = None
    finished: bool = False
    winners: tuple[int, ...] = ()
    turn: int = 1  # turns begun since the start, for narration and stale-click checks
    #: the economy of this position as rules.economy last worked it out, with what it was read from (a
    #: clone starts without); not part of the state's value
    economy_kept: object = field(default=None, init=False, repr=False, compare=False)

    def clone(self) -> GameState:
        # (positional: the fields in their order; keywords cost more, and states are cloned at every action)
        return GameState(
            self.map, self.options, [p.clone() for p in self.players], [b.clone() for b in self.boards],
            dict(self.stock), list(self.deck), list(self.discard), self.reserve, self.rng, self.round, self.first,
            self.active, self.exchanged, self.swapped, self.acted, self.next_id, self.pending, self.finished,
            self.winners, self.turn,
        )

    def board(self, age: Age) -> Board:
        return self.boards[age]

    def new_id(self) -> int:
        bid = self.next_id
        self.next_id += 1
        return bid

    def player_named(self, text: str) -> int:
        """Seat index of a player given by colour or name (case-insensitive)."""
        t = text.strip().lower()
        for i, p in enumerate(self.players):
            if t in (p.colour.value.lower(), p.name.lower()):
                return i
        raise NotationError(f"{text.strip()!r} is not a player in this game")

    def make_building(self, kind: Kind, origin: Cell, **kw: object) -> Building:
        """A new building with a fresh id; raises ValueError if it leaves the board."""
        cells = self.map.footprint(origin, kind.level)
        if cells is None:
            raise ValueError(f"a {kind.value} at {origin} does not fit on the board")
        return Building(self.new_id(), kind, origin, cells, **kw)  # type: ignore[arg-type]

    @property
    def waiting_on(self) -> int:
        """The player who must act next: the one a pending decision is addressed to, else the active one."""
        return self.pending.decision.player if self.pending else self.active
