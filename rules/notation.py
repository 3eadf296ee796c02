"""The text notation for whole positions and for actions (docs/notation.md): the language of the
scenario tests and of bug reports.

``parse_position(format_position(s))`` gives back ``s`` (building ids aside), and
``parse_action(format_action(s, a), s) == a``. Parsing raises ``NotationError`` with a message that
says what is wrong and shows good input.
"""

from __future__ import annotations

import re
from collections import Counter

from . import rng as rngmod
from .actions import (
    Action,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    Payment,
    Populate,
    Renovate,
    Swap,
    Travel,
    Upgrade,
)
from .engine import apply, describe_decision, surcharge
from .errors import NotationError
from .legal import default_payment
from .maps import COLUMNS, TERRAIN_CODES, Cell, GameMap, MapError, load_map, plain_map
from .model import (
    CUBES_PER_PLAYER,
    DECK_COMPOSITION,
    INITIAL_STOCK,
    Age,
    Board,
    Building,
    Cards,
    Colour,
    Family,
    GameState,
    Kind,
    Options,
    Player,
)

DEFAULT_PLAYERS = (Colour.RED, Colour.WHITE, Colour.GREEN, Colour.BLUE)
DEFAULT_ECUS = 10  # digest §9.0: 10 Ecus each unless stated

_BUILDING = re.compile(
    r"(?P<kind>[A-Za-z]+)(?:-(?P<state>ruin|renov))?(?:\[(?P<owner>[A-Za-z]+)\])?@(?P<cell>[A-Za-z]\d{1,2})"
    r"(?:\+(?P<marker>[A-Za-z]+))?(?:\{(?P<pop>[^}]*)\})?",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[^\s{]+(?:\{[^}]*\})?")


# ---------------------------------------------------------------------------------------------
# Buildings


def format_building(b: Building, age: Age, players: list[Player]) -> str:
    """``Keep[Red]@B2``, ``Keep-ruin@B2+Red``, ``Keep-renov@B2``, ``Town@D2{Red:1,White:2}``, ``PH@C2{Red:1}``."""
    if b.printed:
        text = f"PH@{b.origin}"
    else:
        suffix = ""
        if age is Age.REASON and b.kind.is_mr:
            suffix = "-ruin" if b.ruin else "-renov"
        owner = f"[{players[b.owner].colour.value}]" if b.owner is not None else ""
        text = f"{b.kind.value}{suffix}{owner}@{b.origin}"
    if b.marker is not None:
        text += f"+{players[b.marker].colour.value}"
    if b.population:
        counts = Counter(b.population)
        text += "{" + ",".join(f"{players[q].colour.value}:{counts[q]}" for q in sorted(counts)) + "}"
    return text


def _parse_population(text: str, seat: dict[str, int]) -> tuple[int, ...]:
    out: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        m = re.fullmatch(r"([A-Za-z]+)\s*(?:[:×xX*]\s*(\d+))?", part)
        if not m or m.group(1).lower() not in seat:
            raise NotationError(f"{part!r} in a population: write Colour:count, e.g. {{Red:1,White:2}}")
        out.extend([seat[m.group(1).lower()]] * int(m.group(2) or 1))
    return tuple(sorted(out))


# ---------------------------------------------------------------------------------------------
# Positions


def _default_map() -> GameMap | None:
    try:
        return load_map("default")
    except Exception:  # a broken or missing shipped map must not break the notation
        return None


def format_board(s: GameState, age: Age) -> str:
    """The buildings of one board as they are now, in reading order (printed hamlets only when
    they carry cubes)."""
    board = s.boards[age]
    return " ".join(format_building(b, age, s.players) for b in board.sorted_buildings(s.map)
                    if not (b.printed and not b.population))


def format_position(s: GameState) -> str:
    """The whole position as text. A pending decision is written as the position before the
    interrupted action, the action and the answers so far (parsing replays them)."""
    if s.pending is not None:
        base = format_position(s.pending.base)
        lines = [base.rstrip("\n"), f"resolving: {format_action(s.pending.base, s.pending.action)}"]  # type: ignore[arg-type]
        if s.pending.answers:
            lines.append("answers: " + " ".join(str(c) for c in s.pending.answers))
        lines.append(f"# waiting: {s.players[s.pending.decision.player].colour.value} to "
                     f"{describe_decision(s, s.pending.decision)}")
        return "\n".join(lines) + "\n"
    out: list[str] = []
    m = s.map
    if m == _default_map():
        out.append("map: default")
    else:
        out.append(f"map: plain {m.width}x{m.height}")
        overrides = [f"{m.cell(i)}={code}" for i, code in enumerate(m.codes) if code != "."]
        if overrides:
            out.append("terrain: " + " ".join(overrides))
        if m.hamlets:
            out.append("hamlets: " + " ".join(str(c) for c in m.hamlets))
    out.append("players: " + " ".join(p.colour.value for p in s.players))
    named = [f"{p.colour.value}={p.name}" for p in s.players if p.name != p.colour.value]
    if named:
        out.append("names: " + ", ".join(named))
    opts = (["holdem"] if s.options.holdem else []) + ([] if s.options.ecus_public else ["ecus-hidden"])
    if opts:
        out.append("options: " + " ".join(opts))
    out.append(f"seed: {s.rng}")
    out.append(f"round: {s.round}")
    out.append(f"first: {s.players[s.first].colour.value}")
    out.append(f"active: {s.players[s.active].colour.value}")
    flags = [f for f, on in (("exchanged", s.exchanged), ("swapped", s.swapped), ("acted", s.acted)) if on]
    if flags:
        out.append("turn: " + " ".join(flags))
    if s.turn != 1:
        out.append(f"turns: {s.turn}")
    for p in s.players:
        out.append(
            f"{p.colour.value}: ecus={p.ecus} cubes={p.supply} pawns={p.pawns[0].letter},{p.pawns[1].letter} "
            f"played={p.played[0]},{p.played[1]} hand={p.hand}"
        )
    for board in s.boards:
        line = format_board(s, board.age)
        if line:
            out.append(f"{board.age.letter}: {line}")
    default_stock = _stock_from_boards(s.boards)
    changed = [f"{k.value}={s.stock[k]}" for k in INITIAL_STOCK if s.stock[k] != default_stock[k]]
    if changed:
        out.append("stock: " + " ".join(changed))
    if s.options.holdem:
        out.append(f"reserve: {s.reserve}")
    out.append("deck: " + ("".join(f.value for f in reversed(s.deck)) or "-"))
    out.append("discard: " + ("".join(f.value for f in s.discard) or "-"))
    if s.finished:
        out.append("finished: " + " ".join(s.players[i].colour.value for i in s.winners))
    return "\n".join(out) + "\n"


def _stock_from_boards(boards: list[Board]) -> dict[Kind, int]:
    used = Counter(b.kind for board in boards for b in board.buildings.values() if not b.printed)
    return {k: n - used[k] for k, n in INITIAL_STOCK.items()}


def _cards_field(value: str, what: str) -> Cards:
    try:
        return Cards.parse(value)
    except ValueError:
        raise NotationError(f"{what}: {value!r} is not a list of cards; write M, R and C, e.g. MMRC") from None


def _families(text: str, what: str) -> list[Family]:
    t = text.strip().upper()
    if t in ("", "-"):
        return []
    if set(t) - set("MRC"):
        raise NotationError(f"{what}: {text!r} is not a list of cards; write M, R and C, e.g. MRC")
    return [Family(ch) for ch in t]


def parse_position(text: str) -> GameState:
    """Parse a position (docs/notation.md). Missing keys take the scenario defaults: players Red White
    Green Blue, 10 Ecus each, pawns on Might, supplies and stock computed from the boards."""
    fields: dict[str, str] = {}
    player_lines: dict[str, tuple[int, str]] = {}
    board_lines: dict[Age, list[tuple[int, str]]] = {age: [] for age in Age}
    colour_words = {c.value.lower() for c in Colour}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise NotationError(f"line {lineno}: expected 'key: value', got {line!r}")
        k = key.strip().lower()
        if k in ("m", "f", "r"):
            board_lines[Age.parse(k)].append((lineno, value))
        elif k in colour_words:
            player_lines[k] = (lineno, value)
        elif k in {"map", "terrain", "hamlets", "players", "names", "options", "seed", "round", "first", "active",
                   "turn", "turns", "stock", "reserve", "deck", "discard", "finished", "resolving", "answers"}:
            joined = k in fields and k in ("terrain", "hamlets")
            fields[k] = (fields[k] + " " + value.strip()) if joined else value.strip()
        else:
            raise NotationError(f"line {lineno}: unknown key {key.strip()!r}; see docs/notation.md")

    # the map: a shipped map or a plain grid, with terrain overrides and printed hamlets
    spec = fields.get("map", "plain 15x12").split()
    if spec and spec[0].lower() == "plain":
        m = re.fullmatch(r"(\d+)[xX](\d+)", spec[1]) if len(spec) > 1 else re.fullmatch(r"(\d+)x(\d+)", "15x12")
        if not m:
            raise NotationError("map: write 'default', a shipped map's name, or 'plain 15x12'")
        width, height = int(m.group(1)), int(m.group(2))
        if not (3 <= width <= len(COLUMNS) and 3 <= height <= 99):
            raise NotationError(f"map: a plain grid has 3–26 columns and 3–99 rows, e.g. 'plain 15x12', "
                                f"not {width}x{height}")
        game_map = plain_map(width, height)
    else:
        try:
            game_map = load_map(spec[0] if spec else "default")
        except MapError as exc:
            raise NotationError(f"map: {exc}; or write 'plain 15x12'") from None
    codes = list(game_map.codes)
    for item in fields.get("terrain", "").split():
        cell_text, _, code = item.partition("=")
        cell = game_map.parse_cell(cell_text)
        if code not in TERRAIN_CODES:
            raise NotationError(f"terrain: {code!r} is not a terrain code; use one of {' '.join(TERRAIN_CODES)}")
        codes[game_map.index(cell)] = code
    hamlets = list(game_map.hamlets)
    for word in fields.get("hamlets", "").split():
        cell = game_map.parse_cell(word)
        if cell not in hamlets:
            hamlets.append(cell)

    # players
    colours = [Colour.parse(w) for w in fields["players"].split()] if "players" in fields else list(DEFAULT_PLAYERS)
    if not 2 <= len(colours) <= 5 or len(set(colours)) != len(colours):
        raise NotationError("players: list 2 to 5 different colours, e.g. 'players: Red White Green'")
    seat = {c.value.lower(): i for i, c in enumerate(colours)} | {c.letter.lower(): i for i, c in enumerate(colours)}
    names = {c: c.value for c in colours}
    for item in fields.get("names", "").split(","):
        if item.strip():
            col, _, name = item.partition("=")
            if not name.strip():
                raise NotationError(
                    "names: write Colour=Name pairs separated by commas, e.g. 'names: Red=Ana, White=Ben'")
            names[Colour.parse(col)] = name.strip()
    for i, c in enumerate(colours):
        seat.setdefault(names[c].lower(), i)

    # board tokens (printed hamlets declared on board lines join the map)
    parsed: dict[Age, list[tuple[int, re.Match[str]]]] = {age: [] for age in Age}
    for age, lines in board_lines.items():
        for lineno, value in lines:
            for token in _TOKEN.findall(value):
                mt = _BUILDING.fullmatch(token)
                if not mt:
                    raise NotationError(
                        f"line {lineno}: {token!r} is not a building; write e.g. Keep[Red]@B2, Keep-ruin@B2, "
                        f"Town@D2{{Red:1}}, PH@C2"
                    )
                if mt.group("kind").upper() == "PH":
                    cell = game_map.parse_cell(mt.group("cell"))
                    if cell not in hamlets:
                        hamlets.append(cell)
                parsed[age].append((lineno, mt))
    game_map = GameMap(game_map.name if game_map.codes == "".join(codes) and hamlets == list(game_map.hamlets)
                       else "plain", game_map.width, game_map.height, "".join(codes), tuple(hamlets))

    options = Options(holdem="holdem" in fields.get("options", "").lower().split(),
                      ecus_public="ecus-hidden" not in fields.get("options", "").lower().split())
    seed = _number(fields.get("seed", "0"), "seed", "seed: 12345")
    state = GameState(
        map=game_map, options=options,
        players=[Player(names[c], c, ecus=DEFAULT_ECUS) for c in colours],
        boards=[Board(age, {}, [0] * (game_map.width * game_map.height)) for age in Age],
        stock=dict(INITIAL_STOCK), deck=[], discard=[], reserve=Cards(), rng=seed,
    )
    for board in state.boards:
        for cell in game_map.hamlets:
            board.put(state.make_building(Kind.HAMLET, cell, printed=True))
    for age in Age:
        board = state.boards[age]
        for lineno, mt in parsed[age]:
            _place(state, board, lineno, mt, seat)

    # players' fields
    cubes_on_boards = Counter[int]()
    for board in state.boards:
        for b in board.buildings.values():
            if b.owner is not None:
                cubes_on_boards[b.owner] += 1
            if b.marker is not None:
                cubes_on_boards[b.marker] += 1
            cubes_on_boards.update(b.population)
    for i, p in enumerate(state.players):
        p.supply = CUBES_PER_PLAYER - cubes_on_boards[i]
        entry = player_lines.pop(p.colour.value.lower(), None)
        if entry is None:
            continue
        lineno, value = entry
        for item in value.split():
            k, _, v = item.partition("=")
            try:
                if k == "ecus":
                    p.ecus = int(v)
                elif k == "cubes":
                    p.supply = int(v)
                elif k == "pawns":
                    p.pawns = [Age.parse(x) for x in v.split(",")]
                    if len(p.pawns) != 2:
                        raise NotationError("a player has two pawns")
                elif k == "played":
                    p.played = [int(x) for x in v.split(",")]
                    if len(p.played) != 2:
                        raise NotationError("give the cards played through each of the two pawns")
                elif k == "hand":
                    p.hand = _cards_field(v, f"line {lineno}")
                else:
                    raise NotationError(f"unknown field {k!r}")
            except ValueError as exc:
                raise NotationError(
                    f"line {lineno}: {item!r}: {exc or 'bad value'}; write e.g. "
                    f"'{p.colour.value}: ecus=4 cubes=23 pawns=M,F played=0,1 hand=MMRC'"
                ) from None
    if player_lines:
        raise NotationError(f"{', '.join(player_lines)} is not listed in 'players:'")

    # stock, cards, turn
    state.stock = _stock_from_boards(state.boards)
    for item in fields.get("stock", "").split():
        k, _, v = item.partition("=")
        state.stock[Kind.parse(k)] = _number(v, f"stock: {item!r}", "stock: Keep=21 Castle=0")
    state.reserve = _cards_field(fields.get("reserve", "-"), "reserve")
    state.discard = _families(fields.get("discard", "-"), "discard")
    if "deck" in fields:
        state.deck = list(reversed(_families(fields["deck"], "deck")))
    else:
        left = Counter(DECK_COMPOSITION)
        for cards in [p.hand for p in state.players] + [state.reserve]:
            for f in Family:
                left[f] -= cards.count(f)
        for f in state.discard:
            left[f] -= 1
        deck = [f for f in Family for _ in range(max(0, left[f]))]
        rngmod.shuffle(rngmod.seed_state(seed), deck)
        state.deck = deck
    state.round = _number(fields.get("round", "1"), "round", "round: 3")
    state.first = _seat(seat, fields["first"], "first") if "first" in fields else 0
    state.active = _seat(seat, fields["active"], "active") if "active" in fields else state.first
    flags = set(fields.get("turn", "").lower().split())
    state.exchanged, state.swapped, state.acted = ("exchanged" in flags, "swapped" in flags, "acted" in flags)
    state.turn = _number(fields.get("turns", "1"), "turns", "turns: 12")
    if "finished" in fields:
        state.finished = True
        state.winners = tuple(_seat(seat, w, "finished") for w in fields["finished"].split())

    if "answers" in fields and "resolving" not in fields:
        raise NotationError("answers: there is no question to answer; write 'resolving: ACTION' first")
    if "resolving" in fields:
        state, _ = apply(state, parse_action(fields["resolving"], state))
        for word in fields.get("answers", "").split():
            if state.pending is None:
                raise NotationError(f"answers: {word} answers no question; the action leaves none open")
            state, _ = apply(state, Choose(state.pending.decision.player, game_map.parse_cell(word)))
    return state


def _number(text: str, what: str, example: str) -> int:
    """A whole number >= 0 in a position, or a NotationError showing ``example``."""
    if not re.fullmatch(r"\s*\d+\s*", text):
        raise NotationError(f"{what}: {text.strip()!r} is not a whole number; write e.g. '{example}'")
    return int(text)


def _seat(seat: dict[str, int], word: str, what: str) -> int:
    """The seat of a player named by colour, initial or name, or a NotationError."""
    try:
        return seat[word.strip().lower()]
    except KeyError:
        raise NotationError(f"{what}: {word.strip()!r} is not a player here; name one listed in 'players:', "
                            f"e.g. '{what}: Red'") from None


def _place(state: GameState, board: Board, lineno: int, mt: re.Match[str], seat: dict[str, int]) -> None:
    where = f"line {lineno}: {mt.group(0)}"
    cell = state.map.parse_cell(mt.group("cell"))
    population = _parse_population(mt.group("pop"), seat) if mt.group("pop") else ()
    marker = seat.get((mt.group("marker") or "").lower()) if mt.group("marker") else None
    if mt.group("marker") and marker is None:
        raise NotationError(f"{where}: the marker's colour is not a player")
    if mt.group("kind").upper() == "PH":
        ph = board.at(state.map.index(cell))
        if ph is None or not ph.printed:
            covered = f" (the {ph.describe()} covers it)" if ph is not None else ""
            raise NotationError(
                f"{where}: there is no printed Hamlet to show at {cell}{covered}; write PH@ only on an uncovered "
                f"printed hamlet, e.g. 'R: PH@{cell}{{Red:1}}'"
            )
        if population and board.age is not Age.REASON:
            raise NotationError(f"{where}: population cubes stand only on Reason")
        board.swap(Building(ph.id, ph.kind, ph.origin, ph.cells, population=population, printed=True))
        return
    kind = Kind.parse(mt.group("kind"))
    owner = seat.get((mt.group("owner") or "").lower()) if mt.group("owner") else None
    if mt.group("owner") and owner is None:
        raise NotationError(f"{where}: {mt.group('owner')} is not a player")
    ruin = (mt.group("state") or "").lower() == "ruin"
    if board.age is Age.REASON:
        if owner is not None:
            raise NotationError(f"{where}: buildings on Reason have no owner (R50)")
        if (ruin or mt.group("state")) and not kind.has_ruin:
            raise NotationError(f"{where}: a {kind.value} has no ruin side")
    else:
        if mt.group("state"):
            raise NotationError(f"{where}: ruins and renovated buildings are on Reason only")
        if kind.is_mr and owner is None:
            raise NotationError(
                f"{where}: a {kind.value} on {board.age.title} needs an owner, e.g. {kind.value}[Red]@{cell}"
            )
        if not kind.is_mr and owner is not None:
            raise NotationError(f"{where}: Civil buildings have no owner")
        if population or marker is not None:
            raise NotationError(f"{where}: cubes of population and markers stand only on Reason")
    if board.age is Age.REASON and kind.is_mr and mt.group("state") is None:
        ruin = False
    try:
        b = state.make_building(kind, cell, owner=owner, ruin=ruin, population=population, marker=marker)
    except ValueError as exc:
        raise NotationError(f"{where}: {exc}") from None
    for i in b.cells:
        other = board.at(i)
        if other is not None:
            if other.printed and kind.family is Family.CIVIL and kind.level >= 2:
                board.take(other.id)  # a Town or City over a printed hamlet covers it
                continue
            raise NotationError(f"{where}: overlaps {other.describe()}")
    board.put(b)


# ---------------------------------------------------------------------------------------------
# Actions


def _who(state: GameState, player: int) -> str:
    return state.players[player].colour.value


def _pay(p: Payment) -> str:
    return f"pay {p.cards} {p.pawns[0]}+{p.pawns[1]}"


def format_action(state: GameState, a: Action) -> str:
    """The canonical text of an action, e.g. ``Green build Keep B2 on M pay MM 1+1``."""
    w = _who(state, a.player)
    if isinstance(a, Travel):
        return f"{w} travel {a.pawn + 1} {a.to.letter}"
    if isinstance(a, Construct):
        return f"{w} build {a.kind.value} {a.origin} on {a.age.letter} {_pay(a.payment)}"
    if isinstance(a, Upgrade):
        return f"{w} upgrade {a.target} on {a.age.letter} to {a.kind.value} at {a.origin} {_pay(a.payment)}"
    if isinstance(a, Demolish):
        return f"{w} demolish {a.target} on {a.age.letter} {_pay(a.payment)}"
    if isinstance(a, Populate):
        return f"{w} populate {a.target} {_pay(a.payment)}"
    if isinstance(a, Renovate):
        return f"{w} renovate {a.target} {_pay(a.payment)}"
    if isinstance(a, Exchange):
        return f"{w} exchange {a.cards}"
    if isinstance(a, Swap):
        return f"{w} swap take {a.take} give {a.give}"
    if isinstance(a, EndTurn):
        return f"{w} end" + (f" discard {a.discard}" if a.discard.total else "")
    return f"{w} choose {a.cell}"


EXAMPLES = (
    "Blue travel 1 R | Green build Keep B2 on M [pay MM 1+1] | Green upgrade B2 on M to Castle [at A1] | "
    "Red demolish C3 on F | Red populate D2 | Red renovate E2 [pay R] | Red exchange MRC | "
    "Red swap take CC give RR | Red end [discard MC] | White choose E1"
)


class _Words:
    def __init__(self, text: str) -> None:
        self.text = text
        self.words = text.split()
        self.i = 0

    def next(self, what: str) -> str:
        if self.i >= len(self.words):
            raise NotationError(f"{self.text!r}: {what} is missing. Examples: {EXAMPLES}")
        word = self.words[self.i]
        self.i += 1
        return word

    def accept(self, *words: str) -> bool:
        if self.i < len(self.words) and self.words[self.i].lower() in words:
            self.i += 1
            return True
        return False

    def done(self) -> None:
        if self.i < len(self.words):
            raise NotationError(f"{self.text!r}: unexpected {' '.join(self.words[self.i:])!r}. Examples: {EXAMPLES}")


def _origin_of(state: GameState, age: Age, cell: Cell) -> Cell:
    b = state.boards[age].at(state.map.index(cell))
    return b.origin if b is not None else cell


def _parse_pay(w: _Words, state: GameState, player: int, age: Age, need: Cards, extra: int) -> Payment:
    if w.accept("pay"):
        cards = _cards_field(w.next("the cards to pay"), "pay")
        split = None
        if w.i < len(w.words) and re.fullmatch(r"\d\+\d", w.words[w.i]):
            a, b = w.next("split").split("+")
            split = (int(a), int(b))
        if split is not None:
            return Payment(cards, split)
        chosen = default_payment(state, player, age, cards, 0)
        return chosen or Payment(cards, (cards.total, 0))
    chosen = default_payment(state, player, age, need, extra)
    return chosen or Payment(need, (need.total, 0))


def _board_age(w: _Words, state: GameState, player: int) -> Age:
    if w.accept("on", "in"):
        return Age.parse(w.next("the board (M or F)"))
    p = state.players[player]
    on = {a for a in p.pawns if a is not Age.REASON}
    if len(on) == 1:
        return on.pop()
    raise NotationError("Say on which board: add 'on M' (Might) or 'on F' (Faith).")


def parse_action(text: str, state: GameState) -> Action:
    """Parse one action (docs/notation.md). Cells inside a building are read as the building; a
    missing payment is the default one (``legal.default_payment``)."""
    w = _Words(text.split("#", 1)[0].strip())
    who = w.next("the player")
    try:
        player = state.player_named(who)
    except ValueError:
        raise NotationError(f"{who!r} is not a player here; start with a colour, e.g. 'Red end'") from None
    verb = w.next("the action").lower()
    cell = state.map.parse_cell
    action: Action
    if verb == "travel":
        pawn_word = w.next("the pawn (1 or 2)")
        if pawn_word not in ("1", "2"):
            raise NotationError(f"{pawn_word!r}: name the pawn 1 or 2, e.g. 'Blue travel 1 R'")
        w.accept("to")
        action = Travel(player, int(pawn_word) - 1, Age.parse(w.next("the board (M, F or R)")))
    elif verb in ("build", "construct"):
        kind = Kind.parse(w.next("the building"))
        w.accept("at")
        origin = cell(w.next("the cell"))
        age = _board_age(w, state, player)
        cells = state.map.footprint(origin, kind.level)
        extra = surcharge(state, cells) if cells else 0
        action = Construct(player, age, kind, origin,
                           _parse_pay(w, state, player, age, Cards.of(kind.family, kind.level), extra))
    elif verb == "upgrade":
        target_cell = cell(w.next("the building's cell"))
        age = _board_age(w, state, player)
        target = _origin_of(state, age, target_cell)
        w.accept("to", "into")
        kind = Kind.parse(w.next("the new building"))
        origin = cell(w.next("the top-left cell")) if w.accept("at") else target
        old = state.boards[age].at(state.map.index(target))
        diff = kind.level - old.level if old is not None else kind.level
        cells = state.map.footprint(origin, kind.level)
        extra = surcharge(state, cells) if cells else 0
        action = Upgrade(player, age, target, kind, origin,
                         _parse_pay(w, state, player, age, Cards.of(kind.family, max(diff, 0)), extra))
    elif verb == "demolish":
        target_cell = cell(w.next("the building's cell"))
        age = _board_age(w, state, player)
        target = _origin_of(state, age, target_cell)
        b = state.boards[age].at(state.map.index(target))
        need = Cards.of(b.kind.family) if b is not None else Cards()
        action = Demolish(player, age, target, _parse_pay(w, state, player, age, need, 0))
    elif verb == "populate":
        target = _origin_of(state, Age.REASON, cell(w.next("the building's cell")))
        action = Populate(player, target, _parse_pay(w, state, player, Age.REASON, Cards(c=1), 0))
    elif verb in ("renovate", "restore"):
        target = _origin_of(state, Age.REASON, cell(w.next("the ruin's cell")))
        b = state.boards[Age.REASON].at(state.map.index(target))
        n = 1
        if b is not None and b.level == 3 and b.marker is None:
            hand = state.players[player].hand
            n = 2 if hand.count(b.kind.family) >= 2 and default_payment(
                state, player, Age.REASON, Cards.of(b.kind.family, 2), 0) else 1
        need = Cards.of(b.kind.family, n) if b is not None else Cards()
        action = Renovate(player, target, _parse_pay(w, state, player, Age.REASON, need, 0))
    elif verb == "exchange":
        action = Exchange(player, _cards_field(w.next("the cards to exchange"), "exchange"))
    elif verb == "swap":
        if not w.accept("take"):
            raise NotationError("Write the swap as 'swap take CC give RR'.")
        take = _cards_field(w.next("the cards to take"), "take")
        if not w.accept("give"):
            raise NotationError("Write the swap as 'swap take CC give RR'.")
        action = Swap(player, take, _cards_field(w.next("the cards to give"), "give"))
    elif verb in ("end", "pass"):
        discard = _cards_field(w.next("the cards to discard"), "discard") if w.accept("discard") else Cards()
        action = EndTurn(player, discard)
    elif verb == "choose":
        c = cell(w.next("the cell"))
        if state.pending is not None and c not in state.pending.decision.options:
            b = state.boards[state.pending.decision.age].at(state.map.index(c))
            if b is not None and b.origin in state.pending.decision.options:
                c = b.origin
        action = Choose(player, c)
    else:
        raise NotationError(f"{verb!r} is not an action. Examples: {EXAMPLES}")
    w.done()
    return action


