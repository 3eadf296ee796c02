"""Domains (§0, R40): maximal groups of edge-adjacent buildings on one board, and what the Rules
of Dominion and Hierarchy (R41–R43) ask of them."""

from __future__ import annotations

from dataclasses import dataclass

from .maps import GameMap
from .model import Age, Board, Building, Family

#: R61, R67: the order in which families are checked on each board.
FAMILY_ORDER: dict[Age, tuple[Family, Family]] = {
    Age.MIGHT: (Family.MILITARY, Family.RELIGIOUS),
    Age.FAITH: (Family.RELIGIOUS, Family.MILITARY),
    Age.REASON: (Family.MILITARY, Family.RELIGIOUS),
}


@dataclass(frozen=True, slots=True)
class Domains:
    """The domains of one board: ``groups[k]`` lists building ids; ``of[id]`` is the group index."""

    groups: tuple[tuple[int, ...], ...]
    of: dict[int, int]


def neighbour_ids(board: Board, game_map: GameMap, cells: tuple[int, ...], exclude: int = 0) -> set[int]:
    """Ids of the buildings sharing an edge with the block ``cells`` (not counting ``exclude``)."""
    grid = board.grid
    out = {grid[j] for j in game_map.neighbours(cells)}
    out.discard(0)
    out.discard(exclude)
    return out


#: rules.domains: the most buildings put or taken since the domains were last found for which they are
#: brought up to date (beyond, e.g. a board read from notation, they are found afresh)
MAX_MOVED = 16


def domains(board: Board, game_map: GameMap) -> Domains:
    """The board's domains, found afresh or reused: the same as ``domains_afresh`` gives, the same
    groups in the same order, each in the same order. Kept on the board (``Board.cache``); after a
    few buildings were put or taken (``Board.moved``), only the domains they touched are looked at
    again."""
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


def domains_afresh(board: Board, game_map: GameMap) -> Domains:
    """The board's domains found from scratch (what ``domains`` gives; nothing is kept): the groups in
    reading order of their first building, each a depth-first walk from it."""
    return _scan(board, game_map)


def _scan(board: Board, game_map: GameMap) -> Domains:
    return _walk(board, game_map, sorted(board.buildings.values(), key=_top_left), {}, [])


def _walk(board: Board, game_map: GameMap, starts: list[Building], of: dict[int, int],
          groups: list[tuple[int, ...]]) -> Domains:
    """Every building of ``starts`` (in reading order) not yet in ``of`` begins a group (numbered
    from ``len(groups)``) of everything its depth-first walk reaches."""
    buildings = board.buildings
    grid = board.grid
    around = game_map.around
    for start in starts:
        if start.id in of:
            continue
        k = len(groups)
        of[start.id] = k
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
                if n not in of:
                    of[n] = k
                    members.append(n)
                    stack.append(n)
        groups.append(tuple(members))
    return Domains(tuple(groups), of)


def _update(board: Board, game_map: GameMap, old: Domains, moved: tuple[int, ...]) -> Domains:
    """``old`` (the domains before the buildings ``moved`` were put or taken) brought up to date.

    A domain none of whose buildings was moved or touches a building put since is unchanged, and so
    is its walk: the cells around each of its buildings hold what they held. The others' buildings
    that are still there, with the buildings put, are walked again in reading order, as a scan would
    walk them (a walk from one of them reaches none of the unchanged domains). The groups are then
    merged in reading order of their first building, the order a scan finds them in."""
    buildings = board.buildings
    grid = board.grid
    old_of = old.of
    dirty: set[int] = set()
    put: list[Building] = []
    for bid in moved:
        k = old_of.get(bid)
        if k is not None:
            dirty.add(k)
        b = buildings.get(bid)
        if b is not None:
            put.append(b)
    around = game_map.around
    for b in put:
        for j in around[len(b.cells)][b.cells[0]]:
            k = old_of.get(grid[j], -1)
            if k >= 0:
                dirty.add(k)
    if not dirty and not put:
        return old
    again = {b.id: b for b in put}
    groups = old.groups
    for k in dirty:
        for i in groups[k]:
            b = buildings.get(i)
            if b is not None:
                again[i] = b
    fresh = _walk(board, game_map, sorted(again.values(), key=_top_left), {}, []).groups
    # (a block's first cell is its top-left one: cell indices run in reading order)
    firsts = [buildings[group[0]].cells[0] for group in fresh]
    n = len(fresh)
    merged: list[tuple[int, ...]] = []
    f = 0
    for k, group in enumerate(groups):
        if k in dirty:
            continue
        first = buildings[group[0]].cells[0]
        while f < n and firsts[f] < first:
            merged.append(fresh[f])
            f += 1
        merged.append(group)
    merged.extend(fresh[f:])
    return Domains(tuple(merged), {i: k for k, group in enumerate(merged) for i in group})


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
