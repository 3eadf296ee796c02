"""Domains (§0, R40): maximal groups of edge-adjacent buildings on one board, and what the Rules
of Dominion and Hierarchy (R41–R43) ask of them."""

from __future__ import annotations

from dataclasses import dataclass

from .maps import GameMap
from .maps import _neighbours as block_neighbours
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


def domains(board: Board, game_map: GameMap) -> Domains:
    """Compute (or reuse) the board's domains."""
    cached = board.cache
    if isinstance(cached, tuple) and cached[0] == board.version:
        result: Domains = cached[1]
        return result
    of: dict[int, int] = {}
    groups: list[tuple[int, ...]] = []
    buildings = board.buildings
    grid = board.grid
    width, height = game_map.width, game_map.height
    for start in sorted(buildings.values(), key=_reading):
        if start.id in of:
            continue
        k = len(groups)
        of[start.id] = k
        members = [start.id]
        stack = [start.id]
        while stack:
            b = buildings[stack.pop()]
            # neighbour_ids inlined (the same set, built the same way, so the same order)
            found = {grid[j] for j in block_neighbours(width, height, b.cells)}
            found.discard(0)
            found.discard(b.id)
            for n in found:
                if n not in of:
                    of[n] = k
                    members.append(n)
                    stack.append(n)
        groups.append(tuple(members))
    result = Domains(tuple(groups), of)
    board.cache = (board.version, result)
    return result


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
