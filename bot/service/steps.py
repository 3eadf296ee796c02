"""The turn panel's steps: a whole turn played by picking from short lists, one step at a time.

Pure (no Discord, no storage, no game's record): ``bot.service.panels`` serves these steps to a player.
``step(state, seat, path)`` looks at the legal actions and returns what to ask next: the verb (build,
upgrade, travel, …), then the building, the board, the place, the payment. ``path`` is the list of keys
picked so far. A step with one possible answer is taken for the player and never asked ("don't ask which
board when only one is possible"). A list of more than ``MAX_CHOICES`` places is first narrowed to an
area of the board, as a person would look for a place. When the path names one action, the step is its
preview: what it will do, in words, with a warning when it removes or downsizes the player's own
buildings or lowers their income; the front end then offers Confirm.

Every key is short and made of letters, digits, ``+`` and ``-``, so that a whole path fits in a
Discord custom id (the panel's list is ``tiempo:pick:<game>:<version>:<path>``, its buttons
``tiempo:ok:…``, ``tiempo:back:…`` and the like: at most 100 characters).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar, cast

from rules import (
    COLUMNS,
    Action,
    Age,
    Building,
    Cards,
    Cell,
    Choose,
    Construct,
    DecisionKind,
    Demolish,
    Economy,
    EconomyChange,
    EndTurn,
    Exchange,
    GameState,
    HarmKind,
    Kind,
    NotationError,
    Payment,
    Populate,
    Renovate,
    RuleError,
    Swap,
    Travel,
    Upgrade,
    apply,
    apply_first,
    economy,
    economy_change,
    format_action,
    income,
    legal_actions,
    parse_action,
    same_board,
    surcharge,
    surcharged_terrain,
    with_article,
)
from rules import events as ev

from ..texts import (
    cards_in_words,
    cards_paid_words,
    domain_words,
    ecu_word,
    in_a_series,
    names_shown,
    narration,
    worth_and_owner,
)
from ..words import PLAIN, Button, Strong, Text, as_text, render, say, text

#: Discord shows at most 25 options in a select menu
MAX_CHOICES = 25
#: the path separator in a custom id
SEP = "."
#: the buildings of one cell: their place has no "top-left cell" to explain
ONE_CELL = frozenset(k for k in Kind if k.level == 1)
#: an area of the board for narrowing: this many columns by this many rows (at most 20 cells)
AREA_COLUMNS, AREA_ROWS = 5, 4

Verb = type[Action]
T = TypeVar("T")


@dataclass(frozen=True)
class Choice:
    """One option of a step: ``key`` goes into the path, ``label`` (at most 100 characters) and
    ``detail`` are what the player reads; ``harms`` marks an option that hurts the player, ``hurts``
    names the other players it hurts (a building of theirs removed or downsized, a domain's control
    taken: ``rules.economy_change``)."""

    key: str
    label: str
    detail: str = ""
    harms: bool = False
    hurts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Preview:
    """What an action will do: the events in words, and the harm it does to the player who plays it."""

    action: Action
    lines: tuple[str, ...]
    harms: tuple[str, ...]
    #: the game after the action, and the events it causes (for the preview's picture)
    after: GameState | None = None
    events: tuple[ev.Event, ...] = ()
    #: ``lines`` as the panel says them (a player's name as a ``Name`` part)
    told: tuple[Text | str, ...] = ()


@dataclass(frozen=True)
class Places:
    """The cells a list of places offers on the board of ``age``: top-left cells of a ``kind`` to
    build, or (``kind`` None) buildings to pick; none for a list of the board's areas."""

    age: Age
    kind: Kind | None
    cells: tuple[Cell, ...]
    #: for a list of the board's areas: each area's first and last cell and how many places it holds
    areas: tuple[tuple[Cell, Cell, int], ...] = ()


@dataclass(frozen=True)
class Step:
    """What the panel shows now. ``path`` is the full path (with the steps taken for the player);
    ``chosen`` says in words what was picked so far; ``choices`` to pick from, or a ``preview`` to
    confirm (with, as ``choices``, the other ways to pay for it). ``places``: the choices are places
    on a board (to show it with them ringed)."""

    path: tuple[str, ...]
    question: str
    chosen: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = ()
    preview: Preview | None = None
    back: tuple[str, ...] | None = None
    #: the path a picked choice's key is added to (``path`` itself, but for other ways to pay a
    #: previewed action, which replace its payment)
    base: tuple[str, ...] | None = None
    places: Places | None = None

    @property
    def next_base(self) -> tuple[str, ...]:
        return self.path if self.base is None else self.base


@dataclass(frozen=True)
class _Level:
    """One question about an action (its words, or a function of the state giving them): its key and
    label (and detail) for an action."""

    question: str | Callable[[GameState], str]
    key: Callable[[GameState, Action], str]
    label: Callable[[GameState, Action], str]
    detail: Callable[[GameState, Action], str] = field(default=lambda s, a: "")
    cells: bool = False  # the options are cells: narrowed to an area when there are too many
    builds: bool = False  # the cells are top-left cells of the building the action puts there
    #: the last question but how to pay: a place here names what the action does (whether it harms)
    final: bool = False
    #: not asked: the engine's sensible choice is taken, and the others are offered with the preview
    suggested: bool = False
    #: the options are buildings: each names its domain as it is now (its value, who controls it)
    in_domain: bool = False


# ---------------------------------------------------------------------------------------------
# Words for the options


def size(kind: Kind) -> str:
    """``2×2``."""
    return f"{kind.level}×{kind.level}"


def kind_label(kind: Kind) -> str:
    """``Keep (2×2)``."""
    return f"{kind.value} ({size(kind)})"


def span(s: GameState, origin: Cell, kind: Kind) -> str:
    """The cells a building covers: ``C4`` or ``C4–D5``."""
    cells = s.map.footprint(origin, kind.level)
    if not cells or len(cells) == 1:
        return str(origin)
    return f"{origin}–{s.map.cell(max(cells))}"


def pay_key(p: Payment) -> str:
    """``MM11``: the cards, then how many go through each pawn."""
    return f"{p.cards}{p.pawns[0]}{p.pawns[1]}"


def pay_left(s: GameState, a: Action) -> str:
    """What a payment leaves of each pawn's allowance this turn (R16: at most 2 cards a pawn):
    ``then pawn 1 may play 0 more cards, pawn 2 may play 2``."""
    p, player = _pay(a), s.players[a.player]
    left = [player.allowance(i) - p.pawns[i] for i in (0, 1)]
    return (f"then pawn 1 may play {left[0]} more card{'s' if left[0] != 1 else ''}, "
            f"pawn 2 may play {left[1]}")


def pay_words(p: Payment) -> str:
    """What a payment's notation says, in words: ``MM 1+1`` is ``2 Military cards, 1 card through each
    pawn``; ``MMC 2+1`` is ``2 Military + 1 Civil cards, 2 through pawn 1 and 1 through pawn 2``."""
    c = p.cards
    cards = cards_paid_words(c)
    if not c.total:
        return cards
    a, b = p.pawns
    if a and b:
        how = (f"{a} card{'s' if a != 1 else ''} through each pawn" if a == b
               else f"{a} through pawn 1 and {b} through pawn 2")
    else:
        how = f"{'both ' if c.total > 1 else ''}through pawn {1 if a else 2}"  # (a pawn plays 2 cards at most)
    return f"{cards}, {how}"


def _terrain_note(s: GameState, cells: tuple[int, ...]) -> str:
    extra = surcharge(s, cells)
    if not extra:
        return ""
    return f" + {extra} for {' and '.join(surcharged_terrain(s, cells))}"


def _cost(s: GameState, a: Action) -> str:
    """``2 Military cards + 1 for forest; earns 1 Ecu`` for a construction or upgrade."""
    if isinstance(a, Construct):
        cells = s.map.footprint(a.origin, a.kind.level) or ()
        need = a.kind.level
    elif isinstance(a, Upgrade):
        cells = s.map.footprint(a.origin, a.kind.level) or ()
        old = _building(s, a.age, a.target)
        need = a.kind.level - (old.kind.level if old else 0)
    else:
        return ""
    family = a.kind.family.title
    text = f"{need} {family} card{'s' if need != 1 else ''}{_terrain_note(s, cells)}"
    bonus = {Age.MIGHT: 1, Age.FAITH: 2}.get(a.age, 0) if a.kind.level >= 2 else 0
    return text + (f"; earns {bonus} Ecu{'s' if bonus != 1 else ''}" if bonus else "")


def _building(s: GameState, age: Age, cell: Cell) -> Building | None:
    return s.boards[age].at(s.map.index(cell))


def _target_label(s: GameState, a: Action) -> str:
    age = a.age if isinstance(a, (Upgrade, Demolish)) else Age.REASON
    target = a.target if isinstance(a, (Upgrade, Demolish, Populate, Renovate)) else None
    if target is None:
        return ""
    b = _building(s, age, target)
    if b is None:
        return str(target)
    owner = f"{s.players[b.owner].name}'s " if b.owner is not None else ""
    state = " ruin" if b.ruin else ""
    return f"{owner}{b.kind.value}{state} at {b.origin} ({size(b.kind)})"


def _age_key(s: GameState, a: Action) -> str:
    return getattr(a, "age", Age.REASON).letter


def _age_label(s: GameState, a: Action) -> str:
    return getattr(a, "age", Age.REASON).title


def _pay(a: Action) -> Payment:
    payment = getattr(a, "payment", None)
    if not isinstance(payment, Payment):
        raise TypeError(f"{type(a).__name__} has no payment")
    return payment


#: R16, said where a player picks the pawns that pay
ALLOWANCE = "each pawn plays at most 2 cards a turn, on the board where it stands"
PAYMENT = _Level(f"Pay another way? {ALLOWANCE[0].upper()}{ALLOWANCE[1:]}.", lambda s, a: pay_key(_pay(a)),
                 lambda s, a: pay_words(_pay(a)), pay_left, suggested=True)


def _board_bonus(s: GameState, a: Action) -> str:
    """The Ecus building there pays at once (R28): ``earns 2 Ecus`` on Faith for a value-2 building."""
    kind = getattr(a, "kind", None)
    if not isinstance(a, (Construct, Upgrade)) or not isinstance(kind, Kind) or kind.level < 2:
        return ""
    bonus = {Age.MIGHT: 1, Age.FAITH: 2}.get(a.age, 0)
    return f"earns {bonus} Ecu{'s' if bonus != 1 else ''}" if bonus else "no Ecu bonus on Reason"


BOARD = _Level("On which board?", _age_key, _age_label, _board_bonus)

#: the questions for each kind of action, in order; the first word of each label is the menu's
LEVELS: dict[Verb, tuple[_Level, ...]] = {
    Construct: (
        _Level("Which building?", lambda s, a: _as(a, Construct).kind.name,
               lambda s, a: kind_label(_as(a, Construct).kind)),
        BOARD,
        _Level("Where? (the top-left cell)", lambda s, a: str(_as(a, Construct).origin),
               lambda s, a: span(s, _as(a, Construct).origin, _as(a, Construct).kind), _cost, cells=True,
               builds=True, final=True),
        PAYMENT,
    ),
    Upgrade: (
        BOARD,
        _Level("Which building?", lambda s, a: str(_as(a, Upgrade).target), _target_label, cells=True,
               in_domain=True),
        _Level("Into what?", lambda s, a: _as(a, Upgrade).kind.name, lambda s, a: kind_label(_as(a, Upgrade).kind)),
        _Level("Where does the bigger building go? (its top-left cell)", lambda s, a: str(_as(a, Upgrade).origin),
               lambda s, a: span(s, _as(a, Upgrade).origin, _as(a, Upgrade).kind), _cost, cells=True, builds=True,
               final=True),
        PAYMENT,
    ),
    Demolish: (
        BOARD,
        _Level("Which building?", lambda s, a: str(_as(a, Demolish).target), _target_label, cells=True, final=True),
        PAYMENT,
    ),
    Populate: (
        _Level("Which building on Reason?", lambda s, a: str(_as(a, Populate).target), _target_label, cells=True,
               final=True),
        PAYMENT,
    ),
    Renovate: (
        _Level("Which ruin on Reason?", lambda s, a: str(_as(a, Renovate).target), _target_label, cells=True,
               final=True),
        PAYMENT,
    ),
    Travel: (
        _Level("Which pawn, to where?", lambda s, a: f"{_as(a, Travel).pawn + 1}{_as(a, Travel).to.letter}",
               lambda s, a: f"Pawn {_as(a, Travel).pawn + 1}: {s.players[a.player].pawns[_as(a, Travel).pawn].title} "
                            f"→ {_as(a, Travel).to.title}", lambda s, a: "1 Ecu"),
    ),
    Exchange: (
        _Level("Which cards do you discard? (2 Ecus, then draw back to 4)", lambda s, a: str(_as(a, Exchange).cards),
               lambda s, a: _cards_label(_as(a, Exchange).cards)),
    ),
    Swap: (
        _Level("Which cards do you take from the reserve?", lambda s, a: str(_as(a, Swap).take),
               lambda s, a: _cards_label(_as(a, Swap).take)),
        _Level("Which cards do you give for them?", lambda s, a: str(_as(a, Swap).give),
               lambda s, a: _cards_label(_as(a, Swap).give)),
    ),
    EndTurn: (
        _Level("Discard before you draw back to 4?", lambda s, a: str(_as(a, EndTurn).discard),
               lambda s, a: "Keep every card" if not _as(a, EndTurn).discard.total
               else "Discard " + _cards_label(_as(a, EndTurn).discard)),
    ),
    Choose: (
        _Level(lambda s: decision_question(s), lambda s, a: str(_as(a, Choose).cell),
               lambda s, a: choice_label(s, _as(a, Choose)), cells=True),
    ),
}

#: the menu: a verb's key and what the player reads
VERBS: dict[Verb, tuple[str, str]] = {
    Exchange: ("exchange", "Exchange cards (2 Ecus)"),
    Swap: ("swap", "Swap with the reserve"),
    Construct: ("build", "Build"),
    Upgrade: ("upgrade", "Upgrade"),
    Demolish: ("demolish", "Demolish (1 card, 1 Ecu)"),
    Populate: ("populate", "Populate (Reason)"),
    Renovate: ("renovate", "Renovate a ruin (Reason)"),
    Travel: ("travel", "Travel (1 Ecu)"),
    EndTurn: ("end", "End your turn"),
    Choose: ("choose", "Answer the question"),
}
_VERB_OF = {key: verb for verb, (key, _) in VERBS.items()}


def _as(a: Action, t: type[T]) -> T:
    if not isinstance(a, t):
        raise TypeError(f"expected {t.__name__}, got {type(a).__name__}")
    return a


def _cards_label(c: Cards) -> str:
    return f"{c} ({cards_in_words(c)})" if c.total else "none"


def choice_label(s: GameState, a: Choose) -> str:
    """``E1: Bob's Keep`` for a building to pick; the cell alone for a place."""
    if s.pending is None or s.pending.decision.kind is DecisionKind.PLACE_SMALLER:
        return str(a.cell)
    b = _building(s, s.pending.decision.age, a.cell)
    if b is None:
        return str(a.cell)
    owner = f"{s.players[b.owner].name}'s " if b.owner is not None else ""
    return f"{a.cell}: {owner}{b.kind.value}"


def answer_words(s: GameState, a: Choose) -> Text:
    """``choice_label`` for a message (the label is a button's plain words): ``E1: Bob's Keep``, the
    owner's name escaped where the front end has markup."""
    return names_shown(s, choice_label(s, a))


def decision_question(s: GameState) -> str:
    """The pending decision as the question its player answers: what happens to the building they
    pick, in the words of the board as it is now."""
    if s.pending is None:
        return "Your answer"
    d = s.pending.decision
    if d.kind is DecisionKind.PLACE_SMALLER:
        was = _building(s, d.age, d.subject) if d.subject is not None else None
        what = f"your downsized {was.kind.value}" if was is not None else "your downsized building"
        becomes = f" as {with_article(d.result.value)} ({size(d.result)})" if d.result is not None else ""
        cell = "its cell" if d.result is not None and d.result.level == 1 else "its top-left cell"  # (1×1: one cell)
        return (f"Where does {what} at {d.subject} on {d.age.title} go{becomes}? Pick {cell} "
                "(it stays inside the old footprint).")
    if d.kind is DecisionKind.DOWNSIZE_WHICH:
        kinds = {b.kind for c in d.options if (b := _building(s, d.age, c)) is not None}
        if len(kinds) == 1 and (kind := next(iter(kinds))).level == 1:  # the smallest: downsizing destroys it
            return (f"Which of these {kind.value}s on {d.age.title} is destroyed? Downsizing a {kind.value} removes "
                    "it (its cube goes back to its owner).")
        return (f"Which of these buildings on {d.age.title} is downsized? It becomes smaller, or is destroyed "
                "(a Watchtower or a Chapel always is).")
    return (f"Which domain on {d.age.title} is resolved first? Pick one of its tied buildings; the other domains "
            "follow.")


def _question(level: _Level, state: GameState, actions: Sequence[Action] = ()) -> str:
    """The level's question; where every place is one cell (a 1×1 building), without the top-left
    cell, which only a bigger building has."""
    words = level.question(state) if callable(level.question) else level.question
    if level.builds and actions and all(getattr(a, "kind", None) in ONE_CELL for a in actions):
        words = words.split(" (")[0]
    return words


# ---------------------------------------------------------------------------------------------
# Steps


def _area_key(cell: Cell) -> str:
    return f"a{cell.col // AREA_COLUMNS}{cell.row // AREA_ROWS}"


def _area_cells(s: GameState, key: str) -> tuple[Cell, Cell]:
    """An area's first (top-left) and last (bottom-right) cell."""
    col, row = int(key[1]), int(key[2])
    return (Cell(col * AREA_COLUMNS, row * AREA_ROWS),
            Cell(min(s.map.width, (col + 1) * AREA_COLUMNS) - 1, min(s.map.height, (row + 1) * AREA_ROWS) - 1))


def _area_label(s: GameState, key: str) -> str:
    """``Columns A–E, rows 1–4``; ``Columns A–E, row 9`` for an area one row high (a board's last row),
    ``Column O, rows 1–4`` for one a column wide."""
    first, last = _area_cells(s, key)
    columns = (say("Column {col}", col=COLUMNS[first.col]) if first.col == last.col
               else say("Columns {first}–{last}", first=COLUMNS[first.col], last=COLUMNS[last.col]))
    rows = (say("row {row}", row=first.row + 1) if first.row == last.row
            else say("rows {first}–{last}", first=first.row + 1, last=last.row + 1))
    return say("{columns}, {rows}", columns=columns, rows=rows).plain()


class StalePath(ValueError):
    """A panel path that does not lead to a legal action now (a panel drawn for another position, or
    an id made up): nothing is played, the panel starts again from the menu."""


def listing_key(path: Sequence[str]) -> tuple[str, ...]:
    """The part of ``path`` that says which legal actions its step looks at: none (the menu), the
    verb, or for a building the verb and the kind (``("build", "KEEP")``). Steps whose paths have
    the same key can share one ``listing``."""
    if not path:
        return ()
    if _VERB_OF.get(path[0]) is Construct and len(path) > 1 and path[1] in Kind.__members__:
        return (path[0], path[1])
    return (path[0],)


def listing(state: GameState, key: Sequence[str] = ()) -> list[Action]:
    """The legal actions a step whose ``listing_key`` is ``key`` looks at, and no more; ``step`` with
    it shows what it shows with the whole ``legal_actions(state)``, faster (a building's list is
    that kind's listing and one action of each other kind; the menu needs one action of each kind
    and every end of turn)."""
    if not key:
        if state.pending is not None:
            return legal_actions(state)
        return ([a for a in legal_actions(state, outline=True) if not isinstance(a, EndTurn)]
                + legal_actions(state, types=(EndTurn,)))
    verb = _VERB_OF.get(key[0])
    if verb is None:
        return []
    if len(key) == 1:
        return legal_actions(state, types=(verb,))
    kind = Kind[key[1]]  # that kind's every action, and one of each other kind (so the question which
    others = [a for a in legal_actions(state, types=(Construct,), outline=True)  # building is asked as before)
              if isinstance(a, Construct) and a.kind is not kind]
    return legal_actions(state, types=(Construct,), kinds=(kind,)) + others


class Listing:
    """A step's legal actions (``listing``), with the key each of its questions gives each action worked
    out once and remembered: the taps on one position (the building, the area, the place, Confirm) ask
    about the same actions, often a thousand (every place and every way to pay for it)."""

    def __init__(self, state: GameState, actions: Sequence[Action]) -> None:
        self.state = state
        self.actions = actions
        self._of: dict[tuple[int, Verb], _Keyed] = {}

    def of(self, seat: int, verb: Verb) -> _Keyed:
        """``seat``'s actions of ``verb``, keyed by its questions (``LEVELS[verb]``)."""
        got = self._of.get((seat, verb))
        if got is None:
            got = self._of[(seat, verb)] = _Keyed(self.state, [a for a in self.actions
                                                                if a.player == seat and isinstance(a, verb)],
                                                  LEVELS[verb])
        return got


class _Keyed:
    """Actions and, level by level, the keys of those looked at so far (by index in ``actions``)."""

    def __init__(self, state: GameState, actions: list[Action], levels: Sequence[_Level]) -> None:
        self.state, self.actions, self.levels = state, actions, levels
        self._keys: list[list[str | None]] = [[None] * len(actions) for _ in levels]

    def keys(self, level: int, rows: Sequence[int]) -> list[str]:
        """The ``level``-th question's key for each of the actions ``rows``."""
        got = self._keys[level]
        missing = [i for i in rows if got[i] is None]
        if missing:
            key, state, actions = self.levels[level].key, self.state, self.actions
            for i in missing:
                got[i] = key(state, actions[i])
        return cast(list[str], [got[i] for i in rows])  # (each worked out above)


def step(state: GameState, seat: int, path: Sequence[str] = (), *, legal: Sequence[Action] | Listing | None = None,
         with_preview: bool = True) -> Step:
    """What the panel asks ``seat`` after ``path``. Raises ``StalePath`` for a path that does not
    lead to a legal action now (a stale panel: start again from the menu). ``legal`` is
    ``legal_actions(state)``, or ``listing(state, listing_key(path))``, if the caller has it (as a
    ``Listing``, the keys worked out for one step are kept for the next); without ``with_preview``
    the last step names its action without working out what it does."""
    listed = (legal if isinstance(legal, Listing) else
              Listing(state, listing(state, listing_key(path)) if legal is None else legal))
    if not path:
        return Step((), "What do you do?", choices=tuple(_menu([a for a in listed.actions if a.player == seat])))
    verb = _VERB_OF.get(path[0])
    if verb is None:
        raise StalePath(f"{path[0]!r} is not an action of the panel")
    keyed = listed.of(seat, verb)
    actions = keyed.actions
    rows = list(range(len(actions)))
    if not rows:
        raise StalePath(f"{VERBS[verb][1]} is not possible now")
    taken = [path[0]]
    chosen = [VERBS[verb][1]]
    given = list(path[1:])
    asked: list[int] = []  # where in ``taken`` the player answered a question (for Back)
    others: tuple[Choice, ...] = ()  # the other ways to pay for the action
    base: tuple[str, ...] | None = None
    for n, level in enumerate(LEVELS[verb]):
        of_rows = keyed.keys(n, rows)
        keys = list(dict.fromkeys(of_rows))
        if level.suggested and len(keys) > 1:  # the sensible answer unless the path names another
            key = given.pop(0) if given else level.key(state, _suggested(state, [actions[i] for i in rows]))
            first = {k: actions[i] for k, i in zip(reversed(of_rows), reversed(rows), strict=True)}
            base = tuple(taken)
            others = tuple(Choice(k, level.label(state, a), level.detail(state, a)) for k, a in first.items()
                           if k != key)
            rows = [i for k, i in zip(of_rows, rows, strict=True) if k == key]
            if not rows:
                raise StalePath(f"{key!r} is not an answer to {_question(level, state)!r} now")
            taken.append(key)
            chosen.append(level.label(state, actions[rows[0]]))
            continue
        if len(keys) == 1:  # one answer: taken for the player (and passed over if the path has it)
            if given and given[0] == keys[0]:
                given.pop(0)
            taken.append(keys[0])
            chosen.append(level.label(state, actions[rows[0]]))
            continue
        area: str | None = None
        if level.cells and len(keys) > MAX_CHOICES and given and _is_area(given[0]):
            area = given.pop(0)
            asked.append(len(taken))
            taken.append(area)
        if not given:
            return _ask(state, level, [actions[i] for i in rows], of_rows, tuple(taken), tuple(chosen),
                        _back(taken, asked), area)
        key = given.pop(0)
        in_area = area is None or _in_area(key, area)
        rows = [i for k, i in zip(of_rows, rows, strict=True) if k == key] if in_area else []
        if not rows:
            raise StalePath(f"{key!r} is not an answer to {_question(level, state)!r} now")
        if not (verb is Construct and len(taken) == 1):  # the menu names the building: Back goes there
            asked.append(len(taken))
        taken.append(key)
        chosen.append(level.label(state, actions[rows[0]]))
    if given:
        raise StalePath(f"{SEP.join(path)!r} goes past the end of the action")
    if len(rows) != 1:
        raise StalePath(f"{SEP.join(path)!r} names {len(rows)} actions")
    action = actions[rows[0]]
    shown = preview(state, action) if with_preview else Preview(action, (), ())
    return Step(tuple(taken), _question(PAYMENT, state) if others else "Confirm?", tuple(chosen), others, shown,
                back=_back(taken, asked), base=base)


def _menu(actions: Sequence[Action]) -> list[Choice]:
    """The first list: what the player may do, a building kind at a time for building."""
    out: list[Choice] = []
    for verb, (key, label) in VERBS.items():
        if verb is Construct:
            kinds = sorted({a.kind for a in actions if isinstance(a, Construct)}, key=list(Kind).index)
            out += [Choice(f"{key}{SEP}{k.name}", f"Build {with_article(kind_label(k))}") for k in kinds]
        elif verb is EndTurn and len(ends := [a for a in actions if isinstance(a, EndTurn)]) > 1 and any(
                not a.discard.total for a in ends):  # the usual end in one tap (then Confirm)
            out += [Choice(f"{key}{SEP}{Cards()}", "End your turn, keeping every card"),
                    Choice(key, "End your turn, discarding first")]
        elif any(isinstance(a, verb) for a in actions):
            out.append(Choice(key, label))
    return out


def _suggested(state: GameState, actions: Sequence[Action]) -> Action:
    """Of ``actions`` that differ only in how they are paid, the one the engine chooses when no
    payment is given (the same sensible cards and pawns as ``/tiempo build`` without ``pay:``)."""
    head = format_action(state, actions[0]).split(" pay ")[0]
    try:
        default = parse_action(head, state)
    except (NotationError, RuleError):
        return actions[0]
    return default if default in actions else actions[0]


def path_to(state: GameState, seat: int, action: Action, *, legal: Sequence[Action] | None = None) -> tuple[str, ...]:
    """The panel path that ends on ``action`` (a legal action of ``seat``): what a player picks to
    play it. Raises ``ValueError`` if the panel does not lead to it."""
    listed = Listing(state, legal_actions(state) if legal is None else legal)  # (its keys serve every step)
    verb = type(action)
    keys = [level.key(state, action) for level in LEVELS[verb]]
    path: tuple[str, ...] = (VERBS[verb][0],)
    for _ in range(2 * len(keys) + 2):
        s = step(state, seat, path, legal=listed, with_preview=False)
        if s.preview is not None:
            if s.preview.action == action:
                return s.path
            other = (*s.next_base, keys[-1])  # paid another way than the suggested one
            found = step(state, seat, other, legal=listed, with_preview=False).preview
            if found is not None and found.action == action:
                return other
            break
        answered = sum(1 for k in s.path[1:] if not _is_area(k))
        wanted = keys[answered]
        offered = {c.key for c in s.choices}
        if wanted not in offered:
            wanted = _area_key(Cell.parse(wanted))
        if wanted not in offered:
            break
        path = (*s.path, wanted)
    raise ValueError(f"the panel does not lead to {action}")


def _is_area(key: str) -> bool:
    return key.startswith("a") and key[1:].isdigit()


def _back(taken: list[str], asked: list[int]) -> tuple[str, ...]:
    """The path that asks the last question answered again (the menu when none was asked)."""
    return tuple(taken[:asked[-1]]) if asked else ()


def _in_area(key: str, area: str) -> bool:
    return _area_key(Cell.parse(key)) == area


def _choice(state: GameState, level: _Level, key: str, a: Action, known: Economy | None = None) -> Choice:
    """The option ``key`` of a step, ``a`` an action it leads to. A place whose action harms its
    player (their building removed or downsized, income lost) is marked, and says how; a place that
    hurts another player is marked and names them; a place says what it does to the economy (the
    domain it joins or founds, who controls it then, the player's change in income outlook)."""
    detail = level.detail(state, a)
    label = level.label(state, a)
    hurt: list[str] = []
    hits: tuple[str, ...] = ()
    if level.final:  # (earlier, what the action does still hangs on a later choice)
        after, events = apply(state, a)
        change = economy_change(state, after, events, known=known if known is not None else economy(state))
        hurt = harms(state, after, a.player, events, change)
        said = economy_words(state, a, change)
        if said:
            label = f"{label} · {said}"
        hits = tuple(state.players[p].name for p in change.harmed(besides=a.player))
        if hits:
            detail = " · ".join(x for x in (hurts_words(state, change, a.player), detail) if x)
    elif level.in_domain and known is not None and (where := _where(a)) is not None:
        d = known.domain_at(where[0], Cell.parse(key))
        if d is not None:
            label = f"{label} · in {domain_words(state, d, a.player)}"
    if hurt:
        detail = " · ".join(x for x in (detail, f"{hurt[0][0].upper()}{hurt[0][1:]}") if x)
    return Choice(key, _clip(label), _clip(detail), harms=bool(hurt), hurts=hits)


def _where(a: Action) -> tuple[Age, Cell] | None:
    """The board and cell an action builds on or picks."""
    if isinstance(a, Construct):
        return a.age, a.origin
    if isinstance(a, Upgrade):
        return a.age, a.origin
    if isinstance(a, Demolish):
        return a.age, a.target
    if isinstance(a, (Populate, Renovate)):
        return Age.REASON, a.target
    return None


def economy_words(state: GameState, a: Action, change: EconomyChange) -> str:
    """What an action does to its player's economy, in a few words: ``+3 Ecus at income: joins the Faith
    domain of F3 (worth 3, yours)``. The change is what the player would collect (boards with a pawn of
    theirs, R73); a change on a board without one is said as such: ``+1 Ecu at income with a pawn on
    Faith``, ``+3 Ecus at income (+5 with a pawn on Faith)``."""
    where = _where(a)
    if where is None:
        return ""
    age, cell = where
    # (an action that stops at a decision leaves its board unsettled, worth nothing until the answer, R78:
    # the change in between is no gain or loss of the action's)
    gain = "" if change.pending else income_change_words(change, a.player, age)
    d = change.after.domain_at(age, cell)
    if d is None:  # (demolished: named, as "it leaves the domain" read as the player leaving it)
        was = change.before.domain_at(age, cell)
        gone = _building(state, age, cell)
        kind = f"the {gone.kind.value} at {gone.origin}" if gone is not None else "it"
        own = gone is not None and was is not None and was.name == gone.origin  # (the domain named after it)
        alone = own and was is not None and len(was.buildings) == 1
        what = ("" if was is None else f"removes {kind}, a {age.title} domain of its own" if alone
                else f"takes {kind} out of its {age.title} domain" if own
                else f"takes {kind} out of the {age.title} domain of {was.name}")
    else:
        shift = change.shift_at(age, cell)
        verb = "in"
        if shift is not None and shift.founded:
            verb = "founds"
        elif shift is not None and shift.joined:
            verb = f"joins {in_a_series([str(o.name) for o in shift.before])} into"
        name = d.name
        if isinstance(a, Construct) and shift is not None and len(shift.before) == 1:
            verb, name = "joins", shift.before[0].name
        what = f"{verb} the {age.title} domain of {name} ({worth_and_owner(state, d, a.player)})"
    return ": ".join(x for x in (gain, what) if x)


def income_change_words(change: EconomyChange, player: int, age: Age | None = None) -> str:
    """``+3 Ecus at income``, ``+1 Ecu at income with a pawn on Faith``, ``+3 Ecus at income (+5 with a
    pawn on Faith)``: what ``change`` does to what ``player`` would collect (boards with a pawn of theirs,
    R73), and to what the boards without one would pay; empty if nothing. ``age``: the board acted on;
    income that changes elsewhere (a copy rippled on, R47) says where: ``+2 Ecus at income on Faith``."""
    delta = change.delta(player)
    present = change.after.outlooks[player].present
    here = sum(d for d, p in zip(delta, present, strict=True) if p)
    total = sum(delta)
    ages = (Age.MIGHT, Age.FAITH, Age.REASON)
    if here == total:
        changed = [(a, d) for a, d in zip(ages, delta, strict=True) if d]
        where = ""
        if age is not None and len(changed) == 1 and changed[0][0] is not age:
            where = f" on {changed[0][0].title}"
        elif len(changed) > 1:  # (board by board: "+1 Ecu" may be +2 on one and -1 on another)
            where = " (" + ", ".join(f"{a.title} {d:+d}" for a, d in changed) + ")"
        return f"{here:+d} {ecu_word(abs(here))} at income{where}" if here else ""
    away = in_a_series([age.title for age, d, p in zip(ages, delta, present, strict=True) if d and not p])
    if not here:
        return f"{total:+d} {ecu_word(abs(total))} at income with a pawn on {away}"
    return f"{here:+d} {ecu_word(abs(here))} at income ({total:+d} with a pawn on {away})"


#: how many ways of answering the questions that follow an answer are followed to their end
ANSWERS_FOLLOWED = 32


def answer_incomes(state: GameState, a: Choose) -> list[tuple[int, int]]:
    """What each player would collect if income were counted after the answer ``a`` (boards with a
    pawn of theirs, R73), as a range: when the answer leads to more questions (where a downsized
    building goes, which of two still tied is downsized next), the least and the most over all their
    answers (beyond ``ANSWERS_FOLLOWED`` ways, the first answers stand for the rest); otherwise one
    figure twice."""
    outcomes: list[GameState] = []
    todo = [apply(state, a)[0]]
    while todo:
        s = todo.pop()
        if s.pending is None:
            outcomes.append(s)
        elif len(outcomes) + len(todo) < ANSWERS_FOLLOWED:
            todo.extend(apply(s, Choose(s.pending.decision.player, o))[0] for o in s.pending.decision.options)
        else:  # (a long chain of questions: its first answers stand for the rest)
            outcomes.append(apply_first(s, Choose(s.pending.decision.player, s.pending.decision.options[0]))[0])
    outlooks = [economy(o).outlooks for o in outcomes]
    return [(min(o[p].total for o in outlooks), max(o[p].total for o in outlooks)) for p in range(len(state.players))]


def _with_incomes(state: GameState, choices: tuple[Choice, ...], answers: dict[str, Action]) -> tuple[Choice, ...]:
    """A question's answers, each saying what the players it matters to would collect at income after
    it: ``If income were counted after it: you 7 · Magpie 9–12``, for the players (the one answering first, as
    "you") whose figure differs between the answers; as they were if it is the same for everyone."""
    incomes = {k: answer_incomes(state, _as(a, Choose)) for k, a in answers.items()}
    player = next(iter(answers.values())).player
    order = (player, *(p for p in range(len(state.players)) if p != player))
    differ = [p for p in order if len({got[p] for got in incomes.values()}) > 1]
    if not differ:
        return choices

    def words(got: list[tuple[int, int]]) -> str:
        figures = " · ".join(f"{'you' if p == player else state.players[p].name} {got[p][0]}"
                             + (f"–{got[p][1]}" if got[p][1] != got[p][0] else "") for p in differ)
        return say("If income were counted after it: {figures}", figures=figures).plain()

    return tuple(replace(c, detail=_clip(" · ".join(x for x in (words(incomes[c.key]), c.detail) if x)))
                 for c in choices)


def hurts_words(state: GameState, change: EconomyChange, player: int, *, within: bool = False) -> str:
    """``💥 Hurts Bob: Keep at B2 removed; Carol: loses the Faith domain of F3``: whom an action hurts
    and how (the first harm to each); ``within`` a sentence, ``💥 hurts Bob: …``."""
    out: list[str] = []
    for p in change.harmed(besides=player):
        h = next(x for x in change.harms if x.player == p)
        b = h.building
        if h.kind is HarmKind.REMOVED:
            how = f"{b.kind.value} at {b.origin} removed"
        elif h.kind is HarmKind.DOWNSIZED:
            how = f"{b.kind.value} at {b.origin} downsized"
        elif h.kind is HarmKind.WORTH_LESS:
            how = say("{age} domain of {cell} worth {lost} less", age=h.age.title, cell=str(b.origin),
                      lost=h.lost).plain()
        else:
            how = f"loses the {h.age.title} domain of {b.origin}"
        out.append(f"{state.players[p].name}: {how}")
    return ("💥 hurts " if within else "💥 Hurts ") + "; ".join(out) if out else ""


def _clip(words: str, limit: int = 100) -> str:
    return words if len(words) <= limit else words[:limit - 1] + "…"


def _ask(state: GameState, level: _Level, actions: list[Action], keys: list[str], taken: tuple[str, ...],
         chosen: tuple[str, ...], back: tuple[str, ...], area: str | None) -> Step:
    """The question ``level`` asks about ``actions`` (``keys``: its key for each)."""
    first: dict[str, Action] = {}
    for k, a in zip(keys, actions, strict=True):
        first.setdefault(k, a)
    known = economy(state) if level.final or level.in_domain else None  # (once for the whole list)
    if level.cells and len(first) > MAX_CHOICES and area is None:
        areas: dict[str, list[str]] = {}
        for key in first:
            areas.setdefault(_area_key(Cell.parse(key)), []).append(key)
        in_order = sorted(areas.items(), key=lambda kv: (kv[0][2], kv[0][1]))  # (by rows, then columns)
        choices = tuple(
            Choice(k, _area_label(state, k), f"{len(keys)} places") if len(keys) > 1 else  # one place: itself
            _choice(state, level, keys[0], first[keys[0]], known) for k, keys in in_order)
        boxes = tuple((*_area_cells(state, k), len(keys)) for k, keys in in_order)
        return Step(taken, _question(level, state, actions) + " First pick an area of the board.", chosen, choices,
                    back=back, places=replace(_places(level, next(iter(first.values())), ()), areas=boxes))
    if area is not None:
        first = {k: a for k, a in first.items() if _in_area(k, area)}
    choices = tuple(_choice(state, level, k, a, known) for k, a in first.items())
    if first and isinstance(next(iter(first.values())), Choose):
        choices = _with_incomes(state, choices, first)
    places = None
    if level.cells and first and not isinstance(a := next(iter(first.values())), Choose):  # (a question shows its own)
        places = _places(level, a, tuple(Cell.parse(k) for k in first))
    return Step(taken, _question(level, state, actions), chosen, choices, back=back, places=places)


def _places(level: _Level, a: Action, cells: tuple[Cell, ...]) -> Places:
    """The ``Places`` of a list of ``level`` whose first action is ``a``: its board, the kind it builds."""
    return Places(getattr(a, "age", Age.REASON), getattr(a, "kind", None) if level.builds else None, cells)


# ---------------------------------------------------------------------------------------------
# Preview


def _income_from(s: GameState, player: int, ages: Sequence[Age]) -> int:
    return sum(income(s, player, age)[0] for age in ages)


def harms(before: GameState, after: GameState, player: int, events: Sequence[ev.Event],
          change: EconomyChange | None = None) -> list[str]:
    """What an action costs its own player beyond its price: their buildings removed, destroyed or
    downsized, and income lost (what they would collect now, board by board). ``change``: the
    action's ``economy_change``, if the caller has it (its outlooks are that income, pawns aside). An
    answer to a question leaves out what every answer would do (where a downsized building of theirs
    goes: it is downsized whatever they answer)."""
    out = buildings_lost(player, events)
    decision = before.pending.decision if before.pending is not None else None
    if out and decision is not None and decision.player == player:  # what every answer does is not this one's doing
        every = [set(buildings_lost(player, apply(before, Choose(player, o))[1])) for o in decision.options]
        out = [h for h in out if not all(h in lost for lost in every)]
    if before.pending is not None or after.pending is not None:  # income is counted once the question is settled
        return out
    if change is not None:  # (no question pending: every board is settled, R78)
        was, now = sum(change.before.outlooks[player].by_age), sum(change.after.outlooks[player].by_age)
    else:
        changed = [age for age in Age if not same_board(before, after, age)]  # (an Age left alone pays the same)
        was, now = _income_from(before, player, changed), _income_from(after, player, changed)
        if now < was:
            same = _income_from(before, player, [age for age in Age if age not in changed])
            was, now = was + same, now + same
    return out + income_lost(was, now)


def buildings_lost(player: int, events: Sequence[ev.Event]) -> list[str]:
    """The first part of ``harms``: ``player``'s buildings that ``events`` remove, destroy or downsize."""
    out: list[str] = []
    for e in events:
        if isinstance(e, (ev.ParadoxRemoved, ev.Destroyed)) and e.building.owner == player:
            verb = "removes" if isinstance(e, ev.ParadoxRemoved) else "destroys"
            out.append(f"{verb} your {e.building.kind.value} at {e.building.origin} on {e.age.title}")
        elif isinstance(e, ev.Downsized) and e.old.owner == player:
            out.append(f"downsizes your {e.old.kind.value} at {e.old.origin} on {e.age.title} to a {e.new.kind.value}")
    return out


def income_lost(was: int, now: int) -> list[str]:
    """The last part of ``harms``: the income a player would collect, if it fell from ``was`` to ``now``."""
    return [f"lowers your income from {was} to {now} {'Ecu' if now == 1 else 'Ecus'} (what you would collect now)"
            ] if now < was else []


def preview(state: GameState, action: Action) -> Preview:
    """What ``action`` will do, in words, and how it harms its player."""
    after, events = apply(state, action)
    told = narration(after, [e for e in events if not isinstance(e, ev.TurnBegan)])
    return Preview(action, tuple(render(as_text(line), PLAIN) for line in told),
                   tuple(harms(state, after, action.player, events)), after, tuple(events), tuple(told))


def step_words(s: Step, state: GameState) -> list[Text | str]:
    """A step on ``state`` as the turn panel (and a lesson) says it: what is picked so far (the list's
    labels, the players' names in them escaped where the front end has markup), then the question,
    or what the action will do, its harms, and Confirm."""
    out: list[Text | str] = []
    if s.chosen:
        out.append(text(Strong(names_shown(state, " › ".join(s.chosen)))))
    if s.preview is not None:
        out += ["• " + line for line in s.preview.told]
        out += [say("⚠️ This {harm}.", harm=h) for h in s.preview.harms]
        confirm = Button("Confirm", "ok")
        out.append(say("To play it, {confirm}. Pay another way? Pick it from the list ({allowance}).",
                       confirm=confirm, allowance=ALLOWANCE)
                   if s.choices else say("To play it, {confirm}.", confirm=confirm))
    else:
        out.append(s.question)
    return out


__all__ = ["MAX_CHOICES", "SEP", "Choice", "Places", "Preview", "StalePath", "Step", "harms", "kind_label", "listing",
           "listing_key", "path_to", "pay_words", "preview", "size", "span", "step", "step_words"]
