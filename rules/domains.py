"""Domains (§0, R40): maximal groups of edge-adjacent buildings on one board, and what the Rules
of Dominion and Hierarchy (R41–R43) ask of them."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from .maps import GameMap
from .model import Age, Board, Building, Family

#: R61, R67: the order in which families are checked on each board.
FAMILY_ORDER: dict[Age, tuple[Family, Family]] = {
    Age.MIGHT: (Family.MILITARY, Family.RELIGIOUS),
    Age.FAITH: (Family.RELIGIOUS, Family.MILITARY),
    Age.REASON: (Family.MILITARY, Family.RELIGIOUS),
}


class Domains:
    """The domains of one board, in reading order of their first building: ``groups[k]`` lists the ids
    of domain ``k``'s buildings, the first in reading order first, the others in no particular order
    (``ordered_group`` gives them in the order of a walk from the first, the order junction questions
    are asked in); ``of[id]`` is the index of a building's domain (worked out when first asked for).
    ``starts[k]`` is the index of the top-left cell of domain ``k``'s first building and ``head[id]``
    that of a building's domain; ``walked`` keeps the walks known, by their first building (all of
    them, for domains found afresh)."""

    __slots__ = ("_of", "groups", "head", "starts", "walked")

    def __init__(self, groups: tuple[tuple[int, ...], ...], starts: tuple[int, ...], head: dict[int, int],
                 walked: dict[int, tuple[int, ...]]) -> None:
        self.groups = groups
        self.starts = starts
        self.head = head
        self.walked = walked
        self._of: dict[int, int] | None = None

    @property
    def of(self) -> dict[int, int]:
        found = self._of
        if found is None:
            found = self._of = {i: k for k, group in enumerate(self.groups) for i in group}
        return found

    def index(self, bid: int) -> int | None:
        """``of.get(bid)``, without working ``of`` out."""
        start = self.head.get(bid)
        return None if start is None else bisect_left(self.starts, start)


def neighbour_ids(board: Board, game_map: GameMap, cells: tuple[int, ...], exclude: int = 0) -> set[int]:
    """Ids of the buildings sharing an edge with the block ``cells`` (a building's footprint, in
    reading order; not counting ``exclude``)."""
    grid = board.grid
    out = {grid[j] for j in game_map.around[len(cells)][cells[0]]}
    out.discard(0)
    out.discard(exclude)
    return out


#: rules.domains: the most buildings put or taken since the domains were last found for which they are
#: brought up to date (beyond, e.g. a board read from notation, they are found afresh)
MAX_MOVED = 16


def domains(board: Board, game_map: GameMap) -> Domains:
    """The board's domains, found afresh or reused: the same domains in the same order as
    ``domains_afresh`` finds, each with the same first building (``ordered_group``: in the same
    order). Kept on the board (``Board.cache``); after a few buildings were put or taken
    (``Board.moved``), only the domains they touched are looked at again."""
    cached = board.cache
    if isinstance(cached, tuple):
        if cached[0] == board.version:
            result: Domains = cached[1]
            return result
        moved = board.moved
        result = _update(board, game_map, cached[1], moved) if len(moved) <= MAX_MOVED else _scan(board, game_map)
    else:
        result = _scan(board, game_map)
    board.cache = (board.version, result)
    board.moved = ()
    return result


def ordered_group(board: Board, game_map: GameMap, k: int) -> tuple[int, ...]:
    """The buildings of domain ``k`` of the board as ``domains_afresh`` lists them: in the order of a
    depth-first walk from its first building (R60–R63: the order of a junction's questions)."""
    doms = domains(board, game_map)
    first = doms.groups[k][0]
    found = doms.walked.get(first)
    if found is None:
        found = doms.walked[first] = _walk(board, game_map, [board.buildings[first]], set(), [])[0]
    return found


def ordered_groups(board: Board, game_map: GameMap) -> tuple[tuple[int, ...], ...]:
    """Every domain of the board as ``domains_afresh`` lists them (``ordered_group``)."""
    return tuple(ordered_group(board, game_map, k) for k in range(len(domains(board, game_map).groups)))


def domains_afresh(board: Board, game_map: GameMap) -> Domains:
    """The board's domains found from scratch (nothing is kept): the groups in reading order of their
    first building, each a depth-first walk from it."""
    return _scan(board, game_map)


def _scan(board: Board, game_map: GameMap) -> Domains:
    buildings = board.buildings
    groups = _walk(board, game_map, sorted(buildings.values(), key=_top_left), set(), [])
    starts = tuple(buildings[g[0]].cells[0] for g in groups)
    head = {i: start for g, start in zip(groups, starts, strict=True) for i in g}
    return Domains(tuple(groups), starts, head, {g[0]: g for g in groups})


def _walk(board: Board, game_map: GameMap, starts: list[Building], seen: set[int],
          groups: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Every building of ``starts`` (in reading order) not yet ``seen`` begins a group (appended to
    ``groups``) of everything its depth-first walk reaches, in the order reached."""
    buildings = board.buildings
    grid = board.grid
    around = game_map.around
    for start in starts:
        if start.id in seen:
            continue
        seen.add(start.id)
        members = [start.id]
        stack = [start.id]
        while stack:
            b = buildings[stack.pop()]
            # neighbour_ids inlined (the same set, built the same way, so the same order)
            cells = b.cells
            found = {grid[j] for j in around[len(cells)][cells[0]]}
            found.discard(0)
            found.discard(b.id)
            for n in found:
                if n not in seen:
                    seen.add(n)
                    members.append(n)
                    stack.append(n)
        groups.append(tuple(members))
    return groups


def _update(board: Board, game_map: GameMap, old: Domains, moved: tuple[int | Building, ...]) -> Domains:
    """``old`` (the domains before the buildings ``moved`` were put, by id, or taken, as they were)
    brought up to date.

    A domain none of whose buildings was taken or touches a building put since is unchanged, and so
    is its walk: the cells around each of its buildings hold what they held. When every building
    taken was covered whole by one building put (an upgrade, a copy over a shadow), no domain can
    come apart: the domains that buildings put touch (or belong to) merge with them. Otherwise the
    buildings of the domains touched, with those put, are walked again in reading order, as a scan
    would walk them (a walk from one of them reaches none of the unchanged domains). The groups are
    then merged in reading order of their first building, the order a scan finds them in."""
    buildings = board.buildings
    grid = board.grid
    index = old.index
    dirty: set[int] = set()
    put: dict[int, Building] = {}
    gone: list[int] = []
    apart = False
    taken = 0
    bare: Building | None = None  # a building taken and not covered whole by one building put
    for x in moved:
        if isinstance(x, Building):  # taken
            k = index(x.id)
            if k is None:
                continue  # put and taken since: never in these domains
            dirty.add(k)
            taken += 1
            if x.id not in buildings:
                gone.append(x.id)
            cover = grid[x.cells[0]]
            if not cover or any(grid[i] != cover for i in x.cells):
                apart = apart or bare is not None
                bare = x
        else:
            b = buildings.get(x)
            if b is not None:
                put[x] = b
    if not dirty and not put:
        return old
    if bare is not None and not apart:
        # one building taken (and perhaps put back smaller: a downsizing) with its domain held
        # together by it no longer: it comes apart unless every building that touched it still does,
        # or only one did
        apart = taken > 1 or not _holds(board, game_map, bare)
    groups = old.groups
    if apart:
        for b in put.values():
            _touched(board, game_map, old, b, dirty)
        again = dict(put)
        for k in dirty:
            for i in groups[k]:
                b = buildings.get(i)
                if b is not None:
                    again[i] = b
        fresh: Sequence[tuple[int, ...]] = _walk(board, game_map, sorted(again.values(), key=_top_left), set(), [])
    else:
        fresh = _merge(board, game_map, old, put, dirty, bare is None)
    # the groups kept, then each new one in its place (a block's first cell is its top-left one:
    # cell indices run in reading order)
    kept = list(groups)
    starts = list(old.starts)
    walked = dict(old.walked)
    head = dict(old.head)
    for bid in gone:
        head.pop(bid, None)
    for k in sorted(dirty, reverse=True) if len(dirty) > 1 else dirty:
        walked.pop(groups[k][0], None)
        del kept[k]
        del starts[k]
    for group in fresh:
        first = buildings[group[0]].cells[0]
        at = bisect_left(starts, first)
        kept.insert(at, group)
        starts.insert(at, first)
        for i in group:
            head[i] = first
        if apart:
            walked[group[0]] = group
    return Domains(tuple(kept), tuple(starts), head, walked)


def _touched(board: Board, game_map: GameMap, old: Domains, b: Building, dirty: set[int]) -> None:
    """Adds to ``dirty`` the index in ``old`` of every domain a building next to ``b`` belongs to."""
    grid = board.grid
    index = old.index
    for j in game_map.around[len(b.cells)][b.cells[0]]:
        n = grid[j]
        if n:
            k = index(n)
            if k is not None:
                dirty.add(k)


def _holds(board: Board, game_map: GameMap, taken: Building) -> bool:
    """Whether the domain of ``taken`` (the only building taken) holds together without it as it was:
    it was put back touching every building it touched, or it touched at most one."""
    grid = board.grid
    around = game_map.around
    touched = {grid[j] for j in around[len(taken.cells)][taken.cells[0]]}
    touched.discard(0)
    touched.discard(taken.id)
    now = board.buildings.get(taken.id)
    if now is None:
        return len(touched) <= 1
    return touched <= {grid[j] for j in around[len(now.cells)][now.cells[0]]}


def _merge(board: Board, game_map: GameMap, old: Domains, put: dict[int, Building], dirty: set[int],
           covered: bool) -> list[tuple[int, ...]]:
    """The domains that the buildings ``put`` make of the ``dirty`` ones (those of buildings taken:
    each covered whole by one building put if ``covered``, else the one taken held none together)
    and of those the buildings put touch or belong to, which join ``dirty``: each group with its
    first building in reading order first, the groups in that order."""
    buildings = board.buildings
    grid = board.grid
    around = game_map.around
    index = old.index
    groups = old.groups
    if covered and len(put) == 1:  # (most often) all of them join the one building put
        ((bid, b),) = put.items()
        own = index(bid)
        if own is not None:
            dirty.add(own)
        _touched(board, game_map, old, b, dirty)
        ids = [] if own is not None else [bid]
        for d in dirty:
            ids.extend(i for i in groups[d] if i in buildings)
        return [_first_first(ids, buildings)]
    # union-find over the old domains (-1 - index) and the buildings new to them (their ids)
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while True:
            y = parent.get(x, x)
            if y == x:
                return x
            parent[x] = parent.get(y, y)
            x = y

    new: list[int] = []
    for bid, b in put.items():
        k = index(bid)
        if k is None:
            new.append(bid)
        else:
            dirty.add(k)
        mine = root(-1 - k if k is not None else bid)
        for j in around[len(b.cells)][b.cells[0]]:
            n = grid[j]
            if n and n != bid:
                k = index(n)
                if k is not None:
                    dirty.add(k)
                other = root(-1 - k if k is not None else n)
                if other != mine:
                    parent[other] = mine
    members: dict[int, list[int]] = {}
    for k in dirty:
        kept = [i for i in groups[k] if i in buildings]
        if kept:
            members.setdefault(root(-1 - k), []).extend(kept)
    for bid in new:
        members.setdefault(root(bid), []).append(bid)
    out = [_first_first(ids, buildings) for ids in members.values()]
    out.sort(key=lambda g: buildings[g[0]].cells[0])
    return out


def _first_first(ids: list[int], buildings: dict[int, Building]) -> tuple[int, ...]:
    """The group of buildings ``ids``, the first in reading order first."""
    first = min(ids, key=lambda i: buildings[i].cells[0])
    if ids[0] != first:
        ids.remove(first)
        ids.insert(0, first)
    return tuple(ids)


def _top_left(b: Building) -> int:
    """The index of ``b``'s top-left cell: in the same order as ``_reading``."""
    return b.cells[0]


def _reading(b: Building) -> tuple[int, int]:
    return (b.origin.row, b.origin.col)


def top(buildings: list[Building], family: Family) -> list[Building]:
    """The building(s) of ``family`` with the highest value among ``buildings`` (reading order)."""
    best = 0
    tops: list[Building] = []
    for b in buildings:
        if b.kind.family is family:
            if b.level > best:
                best, tops = b.level, [b]
            elif b.level == best:
                tops.append(b)
    return sorted(tops, key=_reading) if len(tops) > 1 else tops


def highest(buildings: list[Building], family: Family) -> int:
    """The highest value of ``family`` among ``buildings`` (0 if none)."""
    return max((b.level for b in buildings if b.kind.family is family), default=0)


def violation(board: Board, members: list[Building]) -> tuple[Family, list[Building]] | None:
    """R43: the first family (in board order, R61/R67) whose top building is not unique, with the tied
    buildings; None if the domain obeys the Rule of Hierarchy. Never on Reason (R69)."""
    if board.age is Age.REASON:
        return None
    # one pass first: most domains obey the rule, and a tie needs two buildings at the top value
    m_best = r_best = m_count = r_count = 0
    for b in members:
        family = b.kind.family
        if family is Family.MILITARY:
            if b.level > m_best:
                m_best, m_count = b.level, 1
            elif b.level == m_best:
                m_count += 1
        elif family is Family.RELIGIOUS:
            if b.level > r_best:
                r_best, r_count = b.level, 1
            elif b.level == r_best:
                r_count += 1
    if m_count < 2 and r_count < 2:
        return None
    for family in FAMILY_ORDER[board.age]:
        tied = top(members, family)
        if len(tied) >= 2:
            return family, tied
    return None


def power(members: list[Building], family: Family) -> int:
    """R62: a domain's power in ``family``: the sum of its ``family`` buildings' values."""
    return sum(b.level for b in members if b.kind.family is family)
