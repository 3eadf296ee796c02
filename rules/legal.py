"""Legal actions: everything ``apply`` accepts in a position, and quick answers for one kind and
board (for autocompletion). The listing and ``apply`` agree exactly; a randomized test checks both
directions. Also the default payment for a player who does not care which cards or pawns pay."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

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
from .domains import domains, neighbour_ids
from .engine import surcharge, terrain_surcharge
from .errors import RuleError
from .maps import Block, Cell, GameMap
from .model import (
    DEMOLISH_COST,
    EXCHANGE_COST,
    POPULATION_CAP,
    TRAVEL_COST,
    Age,
    Board,
    Building,
    Cards,
    Family,
    GameState,
    Kind,
)

ActionType = type[Exchange] | type[Swap] | type[Travel] | type[Construct] | type[Upgrade] | type[Demolish] | \
    type[Populate] | type[Renovate] | type[EndTurn] | type[Choose]


def sub_multisets(cards: Cards, size: int | None = None) -> Iterator[Cards]:
    """Every sub-multiset of ``cards`` (of exactly ``size`` cards if given), in M, R, C order."""
    for m in range(cards.m + 1):
        for r in range(cards.r + 1):
            for c in range(cards.c + 1):
                if size is None or m + r + c == size:
                    yield Cards(m, r, c)


def splits(s: GameState, player: int, age: Age, total: int) -> list[tuple[int, int]]:
    """Every way pawns on ``age`` can share ``total`` cards within their allowance (R16–R17)."""
    p = s.players[player]
    a0 = p.allowance(0) if p.pawns[0] is age else 0
    a1 = p.allowance(1) if p.pawns[1] is age else 0
    return [(k, total - k) for k in range(total + 1) if k <= a0 and total - k <= a1]


def payments(s: GameState, player: int, age: Age, need: Cards, extra: int) -> list[Payment]:
    """Every payment of ``need`` plus ``extra`` cards of any colour from the hand, split over pawns."""
    hand = s.players[player].hand
    if not hand.contains(need):
        return []
    ways = splits(s, player, age, need.total + extra)
    if not ways:
        return []
    return [Payment(need + more, w) for more in sub_multisets(hand - need, extra) for w in ways]


def default_payment(s: GameState, player: int, age: Age, need: Cards, extra: int) -> Payment | None:
    """The sensible payment: the family cards, then surcharge cards from the colour the player holds
    most of (keeping a mixed hand), played first through the pawn with the smaller allowance left so
    the other keeps room for a bigger action. None if the player cannot pay."""
    p = s.players[player]
    if not p.hand.contains(need):
        return None
    rest = p.hand - need
    more = Cards()
    for _ in range(extra):
        counts = [(rest.count(f), -i, f) for i, f in enumerate(Family)]
        k, _i, fam = max(counts)
        if k == 0:
            return None
        rest = rest - Cards.of(fam)
        more = more + Cards.of(fam)
    total = need.total + extra
    order = sorted((i for i in (0, 1) if p.pawns[i] is age), key=lambda i: (p.allowance(i), i))
    split = [0, 0]
    left = total
    for i in order:
        k = min(left, p.allowance(i))
        split[i] = k
        left -= k
    if left:
        return None
    return Payment(need + more, (split[0], split[1]))


# ---------------------------------------------------------------------------------------------
# Placement geometry, fast


def _river_ok(kind: Kind) -> bool:
    """R35: only Towns and Cities may cover river cells."""
    return kind.family is Family.CIVIL and kind.level >= 2


def _domain_tops(board: Board, s: GameState) -> tuple[dict[int, int], list[dict[Family, int]], list[int]]:
    doms = domains(board, s.map)
    tops: list[dict[Family, int]] = []
    sizes: list[int] = []
    for group in doms.groups:
        best = {Family.MILITARY: 0, Family.RELIGIOUS: 0, Family.CIVIL: 0}
        for i in group:
            b = board.buildings[i]
            if b.level > best[b.kind.family]:
                best[b.kind.family] = b.level
        tops.append(best)
        sizes.append(len(group))
    return doms.of, tops, sizes


def _free_blocks(board: Board, game_map: GameMap, size: int) -> tuple[Block, ...]:
    """The size×size blocks of the board whose cells are all free (R34), kept on the board for its
    version (``Board.free``)."""
    kept = board.free
    if kept is None or kept[0] != board.version:
        kept = board.free = (board.version, {})
    found = kept[1].get(size)
    if found is None:
        grid = board.grid
        found = kept[1][size] = tuple(b for b in game_map.blocks(size) if not any(grid[i] for i in b.cells))
    return found


def construct_sites(s: GameState, player: int, age: Age, kind: Kind) -> Iterator[tuple[Cell, tuple[int, ...], int]]:
    """Origins where ``kind`` may be constructed on ``age`` as far as the board goes (cells, river,
    Dominion, Hierarchy; R27, R34–R43), with the footprint and the terrain surcharge. Cards, stock
    and cubes are not checked here."""
    board = s.boards[age]
    grid = board.grid
    size = kind.level
    river_ok = _river_ok(kind)
    mr = kind.is_mr
    if mr:
        of, tops, _ = _domain_tops(board, s)
        family = kind.family
    players = len(s.players)
    extras = {(f, m): terrain_surcharge(players, f, m) for f in (False, True) for m in (False, True)}
    for block in _free_blocks(board, s.map, size):
        if block.river and not river_ok:
            continue
        cells = block.cells
        if mr:
            # the domains touched (R41) and, if one, its highest building of the family (R43)
            touched = {of[n] for j in block.ring if (n := grid[j])}
            if len(touched) >= 2:
                continue
            if touched and tops[next(iter(touched))][family] == size:
                continue
        yield block.origin, cells, extras[block.forest, block.mountain]


def upgrade_sites(
    s: GameState, player: int, age: Age, old: Building, kind: Kind
) -> Iterator[tuple[Cell, tuple[int, ...], int]]:
    """Origins where ``old`` may become ``kind`` (R29, R42, R43) with footprint and surcharge."""
    board = s.boards[age]
    grid = board.grid
    game_map = s.map
    size = kind.level
    doms = domains(board, game_map)
    own = doms.of[old.id]
    own_counts = len(doms.groups[own]) > 1
    span = size - old.level
    old_cells = set(old.cells)
    for dr in range(span + 1):
        for dc in range(span + 1):
            origin = Cell(old.origin.col - dc, old.origin.row - dr)
            cells = game_map.footprint(origin, size)
            if cells is None:
                continue
            if any(grid[i] and i not in old_cells for i in cells):
                continue
            if not _river_ok(kind) and not game_map.river_cells.isdisjoint(cells):
                continue
            if kind.is_mr:
                touched = {doms.of[n] for n in neighbour_ids(board, game_map, cells, old.id)}
                if own_counts:
                    touched.add(own)
                if len(touched) >= 2:
                    continue
                if touched:
                    group = doms.groups[next(iter(touched))]
                    h = max(
                        (board.buildings[i].level for i in group
                         if i != old.id and board.buildings[i].kind.family is kind.family),
                        default=0,
                    )
                    if h == size:
                        continue
            yield origin, cells, surcharge(s, cells)


def upgrade_targets(s: GameState, player: int, age: Age) -> list[Building]:
    """Buildings on ``age`` that ``player`` may upgrade: his own M/R buildings and any Civil one below a City."""
    out = []
    for b in s.boards[age].sorted_buildings(s.map):
        if b.level >= 3:
            continue
        if b.kind.is_mr and b.owner != player:
            continue
        out.append(b)
    return out


def placements(s: GameState, player: int, kind: Kind, age: Age) -> list[Cell]:
    """Quick answer for autocompletion: every origin where ``player`` can construct ``kind`` on ``age``
    now, cards and allowance included."""
    try:
        _gate_card_action(s, player, age)
    except RuleError:
        return []
    need = Cards.of(kind.family, kind.level)
    if s.stock[kind] <= 0 or (kind.is_mr and s.players[player].supply <= 0):
        return []
    return [o for o, _c, extra in construct_sites(s, player, age, kind)
            if default_payment(s, player, age, need, extra) is not None]


def _gate_card_action(s: GameState, player: int, age: Age) -> None:
    if s.finished or s.pending is not None or player != s.active:
        raise RuleError("not-now", "", "")
    if not s.players[player].is_on(age):
        raise RuleError("presence", "", "")


# ---------------------------------------------------------------------------------------------
# The full listing


def legal_actions(
    s: GameState,
    *,
    types: Iterable[ActionType] | None = None,
    ages: Iterable[Age] | None = None,
    kinds: Iterable[Kind] | None = None,
    outline: bool = False,
) -> list[Action]:
    """Every action ``apply`` accepts now (all payments included). ``types``, ``ages`` and ``kinds``
    narrow the listing (e.g. constructs of a Keep on Might) and make it faster.

    With ``outline``, one accepted action stands for many: one payment each, one construction site per
    kind and board, one exchange, swap and end of turn. It says what the player can do and where (the
    kinds, boards and targets of the full listing, several times faster), not every way to do it."""
    if s.finished:
        return []
    want = set(types) if types is not None else None
    if s.pending is not None:
        d = s.pending.decision
        if want is not None and Choose not in want:
            return []
        return [Choose(d.player, c) for c in d.options]
    age_set = set(ages) if ages is not None else set(Age)
    kind_set = set(kinds) if kinds is not None else set(Kind)
    P = s.active
    p = s.players[P]
    out: list[Action] = []
    memo: dict[tuple[Age, Cards, int], list[Payment]] = {}

    def pays(age: Age, need: Cards, extra: int) -> list[Payment]:
        key = (age, need, extra)
        found = memo.get(key)
        if found is None:
            found = memo[key] = payments(s, P, age, need, extra)
        return found[:1] if outline else found

    def some(actions: Iterable[Action]) -> Iterable[Action]:
        return islice(actions, 1) if outline else actions

    def wanted(t: ActionType) -> bool:
        return want is None or t in want

    if wanted(Exchange) and not (s.acted or s.swapped or s.exchanged) and p.ecus >= EXCHANGE_COST:
        out.extend(some(Exchange(P, c) for c in sub_multisets(p.hand) if c.total >= 1))
    if wanted(Swap) and s.options.holdem and not (s.acted or s.swapped):
        swaps = (Swap(P, Cards.of(fam, k), give) for fam in Family for k in range(1, s.reserve.count(fam) + 1)
                 for give in sub_multisets(p.hand, k))
        out.extend(some(swaps))
    if wanted(Travel) and p.ecus >= TRAVEL_COST:
        out.extend(Travel(P, i, to) for i in (0, 1) for to in Age if to is not p.pawns[i])
    for age in (Age.MIGHT, Age.FAITH):
        if age not in age_set or not p.is_on(age):
            continue
        room = min(sum(p.allowance(i) for i in (0, 1) if p.pawns[i] is age), p.hand.total)
        if room == 0:
            continue
        if wanted(Construct):
            for kind in Kind:
                if kind not in kind_set or kind.level > room or p.hand.count(kind.family) < kind.level:
                    continue
                if s.stock[kind] <= 0 or (kind.is_mr and p.supply <= 0):
                    continue
                need = Cards.of(kind.family, kind.level)
                for origin, _cells, extra in construct_sites(s, P, age, kind):
                    if kind.level + extra <= room and (found := pays(age, need, extra)):
                        out.extend(Construct(P, age, kind, origin, pay) for pay in found)
                        if outline:
                            break
        if wanted(Upgrade):
            for old in upgrade_targets(s, P, age):
                for level in range(old.level + 1, 4):
                    kind = Kind.of(old.kind.family, level)
                    diff = level - old.level
                    if kind not in kind_set or diff > room or p.hand.count(kind.family) < diff:
                        continue
                    if s.stock[kind] <= 0:
                        continue
                    need = Cards.of(kind.family, diff)
                    for origin, _cells, extra in upgrade_sites(s, P, age, old, kind):
                        if diff + extra <= room and (found := pays(age, need, extra)):
                            out.extend(Upgrade(P, age, old.origin, kind, origin, pay) for pay in found)
                            if outline:
                                break
        if wanted(Demolish) and p.ecus >= DEMOLISH_COST:
            for b in s.boards[age].sorted_buildings(s.map):
                if b.level == 1 and not b.printed and b.kind in kind_set:
                    out.extend(
                        Demolish(P, age, b.origin, pay) for pay in pays(age, Cards.of(b.kind.family), 0)
                    )
    if Age.REASON in age_set and p.is_on(Age.REASON):
        board = s.boards[Age.REASON]
        if wanted(Populate) and p.supply > 0:
            for b in board.sorted_buildings(s.map):
                if b.kind.family is Family.CIVIL and b.kind in kind_set and len(b.population) < POPULATION_CAP[b.kind]:
                    out.extend(
                        Populate(P, b.origin, pay) for pay in pays(Age.REASON, Cards(c=1), 0)
                    )
        if wanted(Renovate):
            for b in board.sorted_buildings(s.map):
                if not b.ruin or b.kind not in kind_set:
                    continue
                counts = [1] if (b.level == 2 or b.marker is not None) else ([1, 2] if p.supply > 0 else [2])
                for n in counts:
                    out.extend(
                        Renovate(P, b.origin, pay)
                        for pay in pays(Age.REASON, Cards.of(b.kind.family, n), 0)
                    )
    if wanted(EndTurn):
        out.extend(some(EndTurn(P, c) for c in sub_multisets(p.hand)))
    return out


# ---------------------------------------------------------------------------------------------
# What can be done, without listing it


@dataclass(frozen=True)
class Openings:
    """What the player whose turn it is can do now, as ``legal_actions`` would list it but without
    listing it (the hand message's "You can:"): the types of action it would hold; the kinds it would
    construct on each board (in ``Kind`` order); and for the actions on a building (upgrade, demolish,
    populate, renovate), the buildings' origins on each board, in the listing's order."""

    types: frozenset[ActionType]
    builds: dict[Age, tuple[Kind, ...]]
    targets: dict[ActionType, dict[Age, tuple[Cell, ...]]]


def _some_free_block(board: Board, game_map: GameMap, size: int) -> Iterator[Block]:
    """The size×size blocks whose cells are all free, as ``_free_blocks`` gives them, but found one at
    a time (and not kept) when the board has not kept them for its version: a question of whether
    one fits stops at the first."""
    kept = board.free
    found = kept[1].get(size) if kept is not None and kept[0] == board.version else None
    if found is not None:
        yield from found
        return
    grid = board.grid
    for b in game_map.blocks(size):
        for i in b.cells:
            if grid[i]:
                break
        else:
            yield b


def _can_construct(s: GameState, age: Age, kind: Kind, fits: Callable[[int], bool],
                   tops: Callable[[], tuple[dict[int, int], list[dict[Family, int]]]]) -> bool:
    """Whether ``construct_sites`` has a site for ``kind`` on ``age`` whose surcharge ``fits``;
    ``tops`` gives the board's domains and their highest buildings (``_domain_tops``), asked once."""
    board = s.boards[age]
    grid = board.grid
    size = kind.level
    river_ok = _river_ok(kind)
    players = len(s.players)
    for block in _some_free_block(board, s.map, size):
        if block.river and not river_ok:
            continue
        if not fits(terrain_surcharge(players, block.forest, block.mountain)):
            continue
        if kind.is_mr:
            of, best = tops()
            touched = {of[n] for j in block.ring if (n := grid[j])}
            if len(touched) >= 2:
                continue
            if touched and best[next(iter(touched))][kind.family] == size:
                continue
        return True
    return False


def openings(s: GameState) -> Openings:
    """What ``legal_actions(s)`` holds, kind by kind (``Openings``), without listing every way: the
    same checks (R13, R16-R17, R27-R43, R53-R60; the Hold'em swap, R33), each stopping at the first
    site or payment that will do. Read-only. A pending decision opens only its answers (``Choose``);
    a finished game, nothing."""
    if s.finished:
        return Openings(frozenset(), {}, {})
    if s.pending is not None:
        return Openings(frozenset({Choose}), {}, {}) if s.pending.decision.options else Openings(frozenset(), {}, {})
    P = s.active
    p = s.players[P]
    types: set[ActionType] = set()
    builds: dict[Age, tuple[Kind, ...]] = {}
    targets: dict[ActionType, dict[Age, tuple[Cell, ...]]] = {}
    memo: dict[tuple[Age, Cards, int], bool] = {}

    def pays(age: Age, need: Cards, extra: int) -> bool:
        key = (age, need, extra)
        found = memo.get(key)
        if found is None:
            found = memo[key] = bool(payments(s, P, age, need, extra))
        return found

    def note(t: ActionType, age: Age, cells: list[Cell]) -> None:
        if cells:
            types.add(t)
            targets.setdefault(t, {})[age] = tuple(cells)

    if not (s.acted or s.swapped or s.exchanged) and p.ecus >= EXCHANGE_COST and p.hand.total >= 1:
        types.add(Exchange)
    if s.options.holdem and not (s.acted or s.swapped) and s.reserve.total >= 1 and p.hand.total >= 1:
        types.add(Swap)
    if p.ecus >= TRAVEL_COST:
        types.add(Travel)
    for age in (Age.MIGHT, Age.FAITH):
        if not p.is_on(age):
            continue
        room = min(sum(p.allowance(i) for i in (0, 1) if p.pawns[i] is age), p.hand.total)
        if room == 0:
            continue
        board = s.boards[age]
        found_tops: list[tuple[dict[int, int], list[dict[Family, int]]]] = []

        def tops(board: Board = board, found_tops: list[tuple[dict[int, int], list[dict[Family, int]]]] = found_tops
                 ) -> tuple[dict[int, int], list[dict[Family, int]]]:
            if not found_tops:
                of, best, _ = _domain_tops(board, s)
                found_tops.append((of, best))
            return found_tops[0]

        kinds: list[Kind] = []
        for kind in Kind:
            if kind.level > room or p.hand.count(kind.family) < kind.level:
                continue
            if s.stock[kind] <= 0 or (kind.is_mr and p.supply <= 0):
                continue
            need = Cards.of(kind.family, kind.level)

            def fits(extra: int, level: int = kind.level, need: Cards = need, age: Age = age, room: int = room
                     ) -> bool:
                return level + extra <= room and pays(age, need, extra)

            if _can_construct(s, age, kind, fits, tops):
                kinds.append(kind)
        if kinds:
            types.add(Construct)
            builds[age] = tuple(kinds)
        upgrades: list[Cell] = []
        for old in upgrade_targets(s, P, age):
            for level in range(old.level + 1, 4):
                kind = Kind.of(old.kind.family, level)
                diff = level - old.level
                if diff > room or p.hand.count(kind.family) < diff or s.stock[kind] <= 0:
                    continue
                need = Cards.of(kind.family, diff)
                if any(diff + extra <= room and pays(age, need, extra)
                       for _origin, _cells, extra in upgrade_sites(s, P, age, old, kind)):
                    upgrades.append(old.origin)
                    break
        note(Upgrade, age, upgrades)
        if p.ecus >= DEMOLISH_COST:
            note(Demolish, age, [b.origin for b in board.sorted_buildings(s.map)
                                 if b.level == 1 and not b.printed and pays(age, Cards.of(b.kind.family), 0)])
    if p.is_on(Age.REASON):
        board = s.boards[Age.REASON]
        if p.supply > 0:
            note(Populate, Age.REASON, [
                b.origin for b in board.sorted_buildings(s.map)
                if b.kind.family is Family.CIVIL and len(b.population) < POPULATION_CAP[b.kind]
                and pays(Age.REASON, Cards(c=1), 0)])
        note(Renovate, Age.REASON, [
            b.origin for b in board.sorted_buildings(s.map)
            if b.ruin and any(pays(Age.REASON, Cards.of(b.kind.family, n), 0) for n in (
                [1] if (b.level == 2 or b.marker is not None) else ([1, 2] if p.supply > 0 else [2])))])
    types.add(EndTurn)
    return Openings(frozenset(types), builds, targets)


__all__ = [
    "Openings",
    "construct_sites",
    "default_payment",
    "legal_actions",
    "openings",
    "payments",
    "placements",
    "splits",
    "sub_multisets",
    "upgrade_sites",
    "upgrade_targets",
]

