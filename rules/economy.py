"""The economy of a position, read-only (R73–R78, A4, A34): each domain's controller and what it
would pay now, each player's income outlook Age by Age, and what an action changes in both.

::

    e = economy(state)                      # Economy: every domain of every Age, every player's outlook
    e.domains[Age.FAITH]                    # (DomainEconomy, ...) in reading order
    e.domain_at(Age.FAITH, Cell.parse("F3"))
    e.outlooks[seat].total                  # what the seat would collect if income were counted now
    change = economy_change(before, after, events)   # what an action did (the events ``apply`` gave)
    change = action_economy(state, action)           # the same, applying ``action`` itself

Nothing here decides a rule anew. Domains are ``domains.domains`` (R40); the top building of a family
is ``domains.top`` (R74, R75); what a domain pays is what the engine's ``income_sources`` says it pays
(R74–R77, A4, A34), so the picture, the panel and the income the engine pays at the end of a turn in
rounds 4 and 7 cannot disagree. The only counting done here is the Reason majority (R76, A34: the most
population cubes over the domain's Civil buildings, at least one), which names the controllers of a
Reason domain worth 0 as well; where the domain pays something, those are exactly the players the
engine pays (checked by the tests over random games).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import cast

from .actions import Action
from .domains import domains, top
from .engine import apply, income_sources
from .events import (
    Demolished,
    Destroyed,
    Downsized,
    Event,
    ParadoxRemoved,
    ShadowRemoved,
    ShadowReplaced,
)
from .maps import Cell
from .model import INCOME_ROUNDS, Age, Building, Family, GameState

AGES = (Age.MIGHT, Age.FAITH, Age.REASON)  #: (iterating the enum itself is slow)
#: R74, R75: the family whose top building controls a domain on Might and Faith
CONTROLLING: dict[Age, Family] = {Age.MIGHT: Family.MILITARY, Age.FAITH: Family.RELIGIOUS}


@dataclass(frozen=True, slots=True)
class DomainEconomy:
    """One domain (§0, R40) and what it is worth now.

    ``name`` is the origin of its first building in reading order: "the Faith domain of F3".
    ``controllers`` are the seats that would collect from it if income were counted now (pawns aside,
    R73): on Might and Faith the owner of the unique top Military or Religious building (``head``,
    R74, R75); on Reason every player with the most population cubes over its Civil buildings, at least
    one (R76, A34: all tied players collect in full). A domain without the controlling family, or
    without a cube on Reason, has none. ``value`` is what it would pay each controller (R74–R76, A4):
    0 when it has no controller. ``contested``: on a board a pending decision has not settled yet, two
    top buildings are tied (R43, R78); such a domain has no controller until the decision is made."""

    age: Age
    name: Cell
    buildings: tuple[Building, ...]  # reading order
    cells: tuple[Cell, ...]  # every cell its buildings cover, reading order
    controllers: tuple[int, ...]
    head: Building | None
    value: int
    contested: bool = False
    #: the ids of its buildings
    ids: frozenset[int] = frozenset()

    def is_controlled_by(self, player: int) -> bool:
        return player in self.controllers


@dataclass(frozen=True, slots=True)
class Outlook:
    """What ``player`` would collect if income were counted now (R21, R73–R77).

    ``by_age[age]`` is what that Age's domains would pay them, pawns aside; ``present[age]`` says whether
    one of their pawns stands there (R73: only then is the Age counted). ``collect`` is what they would
    actually get from each Age, ``total`` its sum."""

    player: int
    by_age: tuple[int, int, int]
    present: tuple[bool, bool, bool]

    @property
    def collect(self) -> tuple[int, int, int]:
        m, f, r = (v if here else 0 for v, here in zip(self.by_age, self.present, strict=True))
        return (m, f, r)

    @property
    def total(self) -> int:
        return sum(self.collect)


@dataclass(frozen=True, slots=True)
class Economy:
    """The economy of one position: ``domains[age]`` in reading order of their names, ``outlooks[seat]``,
    ``next_income``, the next round in which income is counted (R21: 4 and 7; None after round 7's),
    and ``settled[age]``: False while a pending decision has left two top buildings tied on that board
    (R43); the engine counts no income on such a board (R78), so its domains are worth 0 until the
    decision is made."""

    domains: tuple[tuple[DomainEconomy, ...], tuple[DomainEconomy, ...], tuple[DomainEconomy, ...]]
    outlooks: tuple[Outlook, ...]
    next_income: int | None
    settled: tuple[bool, bool, bool] = (True, True, True)

    def domain_at(self, age: Age, cell: Cell) -> DomainEconomy | None:
        """The domain one of whose buildings covers ``cell`` on ``age``, or None."""
        for d in self.domains[age]:
            if cell in d.cells:
                return d
        return None

    def domain_of(self, age: Age, building_id: int) -> DomainEconomy | None:
        """The domain holding the building ``building_id`` on ``age``, or None."""
        for d in self.domains[age]:
            if any(b.id == building_id for b in d.buildings):
                return d
        return None


class HarmKind(Enum):
    """How an action hurts a player's building or domain."""

    REMOVED = "removed"  # paradox (R53), destruction (R64), demolition (R30), removed shadow (R65)
    DOWNSIZED = "downsized"  # R63, R65
    CONTROL_LOST = "control lost"  # the player no longer controls (any part of) a domain they did (R74–R76)
    #: the player still controls it, but it is worth less: a Civil building of it removed or downsized, it was
    #: split, or (on Reason) a Military or Religious building of it went (R74–R76)
    WORTH_LESS = "worth less"


@dataclass(frozen=True, slots=True)
class Harm:
    """``player`` hurt on ``age``: ``building`` removed or downsized (to ``now``), or, for CONTROL_LOST,
    ``building`` the first building of the domain they controlled (``lost`` its value then), or for
    WORTH_LESS, of the domain they still control (``lost`` how much less it is worth). On Reason,
    where no building has an owner, a removed Civil building hurts every player with a cube on it."""

    player: int
    age: Age
    kind: HarmKind
    building: Building
    now: Building | None = None
    lost: int = 0


@dataclass(frozen=True, slots=True)
class DomainShift:
    """A domain an action changed (its buildings, controllers or value): ``after`` (None when all its
    buildings are gone) and the domains ``before`` it that shared a building with it (none: the action
    founded it; several: it joined them, R60). ``gained`` and ``lost`` are the controllers it won and
    lost compared with those domains."""

    age: Age
    before: tuple[DomainEconomy, ...]
    after: DomainEconomy | None
    gained: tuple[int, ...]
    lost: tuple[int, ...]

    @property
    def founded(self) -> bool:
        return not self.before and self.after is not None

    @property
    def joined(self) -> bool:
        return len(self.before) >= 2 and self.after is not None


@dataclass(frozen=True, slots=True)
class EconomyChange:
    """What an action does to the economy: the two ``Economy``s, the domains it changed (``shifts``,
    by Age then reading order) and the players it hurt (``harms``). ``pending``: the action stops at a
    decision; ``after`` is the position so far, and what the decision settles is not in it."""

    before: Economy
    after: Economy
    shifts: tuple[DomainShift, ...]
    harms: tuple[Harm, ...]
    pending: bool

    def delta(self, player: int) -> tuple[int, int, int]:
        """The change in what ``player``'s domains would pay, Age by Age (pawns aside)."""
        was, now = self.before.outlooks[player].by_age, self.after.outlooks[player].by_age
        return (now[0] - was[0], now[1] - was[1], now[2] - was[2])

    def total_delta(self, player: int) -> int:
        """The change in what ``player`` would collect now (boards with a pawn, R73)."""
        return self.after.outlooks[player].total - self.before.outlooks[player].total

    def shift_at(self, age: Age, cell: Cell) -> DomainShift | None:
        """The changed domain covering ``cell`` on ``age`` after the action (which one a place joins or
        founds), or None if that domain did not change."""
        for s in self.shifts:
            if s.age is age and s.after is not None and cell in s.after.cells:
                return s
        return None

    def harmed(self, besides: int | None = None) -> tuple[int, ...]:
        """The players hurt, in seat order, leaving out ``besides`` (the acting player)."""
        return tuple(sorted({h.player for h in self.harms if h.player != besides}))


def _read_from(state: GameState) -> tuple[object, ...]:
    return (tuple(state.boards), tuple(b.version for b in state.boards),
            tuple(tuple(p.pawns) for p in state.players), state.round, state.finished)


def _same_reading(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    boards_a, boards_b = a[0], b[0]
    assert isinstance(boards_a, tuple) and isinstance(boards_b, tuple)
    return all(x is y for x, y in zip(boards_a, boards_b, strict=True)) and a[1:] == b[1:]


def economy(state: GameState, *, since: tuple[GameState, Economy] | None = None) -> Economy:
    """Every domain of every Age with its controllers and value, and every player's outlook, as the
    engine would count income now (R73–R78, A4, A34). Changes nothing of the position's value.

    ``since``: another position of the same game (typically the one this was played from) and its
    economy: a board equal to that position's board takes its domains from there (a list of places
    works out the economy after each of many actions on one position). A position's economy is kept
    on it (``GameState.economy_kept``, not part of its value, for as long as the position lives), with
    what it was read from: its boards (each one's version: a change to a board raises it), pawns,
    round and end; it is the answer while those are unchanged."""
    read = _read_from(state)
    mine = state.economy_kept
    if isinstance(mine, tuple) and _same_reading(mine[0], read):
        return cast(Economy, mine[1])
    found = _economy(state, since)
    state.economy_kept = (read, found)
    return found


def _economy(state: GameState, since: tuple[GameState, Economy] | None) -> Economy:
    per_age: list[tuple[DomainEconomy, ...]] = []
    by_age: list[list[int]] = [[0, 0, 0] for _ in state.players]
    for age in AGES:
        if since is not None and same_board(since[0], state, age):
            found = since[1].domains[age]
        else:
            found = _board_economy(state, age, since[1].domains[age] if since is not None else ())
        per_age.append(found)
        for d in found:
            for p in d.controllers:
                by_age[p][age] += d.value
    outlooks = tuple(
        Outlook(i, (v[0], v[1], v[2]), (Age.MIGHT in p.pawns, Age.FAITH in p.pawns, Age.REASON in p.pawns))
        for i, (p, v) in enumerate(zip(state.players, by_age, strict=True))
    )
    upcoming = [r for r in INCOME_ROUNDS if r > state.round or (r == state.round and not state.finished)]
    settled = tuple(not any(d.contested for d in found) for found in per_age)
    return Economy((per_age[0], per_age[1], per_age[2]), outlooks, upcoming[0] if upcoming else None,
                   settled)  # type: ignore[arg-type]


def outlook(state: GameState, player: int) -> Outlook:
    """``player``'s income outlook (``economy(state).outlooks[player]``)."""
    return economy(state).outlooks[player]


def same_board(before: GameState, after: GameState, age: Age) -> bool:
    """The board of ``age`` is as it was, so it pays everyone what it paid (a clone shares the
    buildings, so this is quick)."""
    a, b = before.boards[age], after.boards[age]
    return a is b or (a.version == b.version and a == b)


def _board_economy(state: GameState, age: Age, before: tuple[DomainEconomy, ...] = ()) -> tuple[DomainEconomy, ...]:
    """The domains of one board. A domain of ``before`` (the same board earlier, settled) whose buildings
    are all as they were is taken as it is: its control and value depend on its buildings only."""
    board = state.boards[age]
    buildings = board.buildings
    game_map = state.map
    family = CONTROLLING.get(age)
    kept = {d.ids: d for d in before} if before and not any(d.contested for d in before) else {}
    out: list[DomainEconomy] = []
    fresh: list[tuple[list[Building], Building | None, bool]] = []
    for group in domains(board, game_map).groups:
        old = kept.get(frozenset(group))
        if old is not None and all(buildings[b.id] is b for b in old.buildings):
            out.append(old)
            continue
        members = sorted((buildings[i] for i in group), key=lambda b: (b.origin.row, b.origin.col, b.id))
        tops = top(members, family) if family is not None else []
        fresh.append((members, tops[0] if len(tops) == 1 else None, len(tops) > 1))
    if any(contested for _, _, contested in fresh) and len(out) > 0:  # (R78: nothing counts on this board)
        return _board_economy(state, age)
    control: list[tuple[int, ...]] = []
    for members, head, _ in fresh:
        if age is Age.REASON:
            control.append(_majority(members))
        else:
            control.append((head.owner,) if head is not None and head.owner is not None else ())
    # what each domain pays whom: the engine's own income_sources, asked of the controllers of the domains
    # worked out anew (not on a board a decision has not settled: the engine counts income only once the
    # Rule of Hierarchy holds again, R78)
    paid: dict[int, dict[int, int]] = {}
    if not any(contested for _, _, contested in fresh):
        index = {b.id: k for k, (members, _, _) in enumerate(fresh) for b in members}
        for p in sorted({p for c in control for p in c}):
            for earner, amount in income_sources(state, p, age):
                k = index.get(earner.id)
                if k is not None:
                    paid.setdefault(k, {})[p] = amount
    for k, (members, head, contested) in enumerate(fresh):
        controllers = control[k]
        payers = paid.get(k, {})
        assert set(payers) <= set(controllers), f"{age.title}: income paid to {payers} outside {controllers}"
        value = max(payers.values(), default=0)
        cells = tuple(game_map.cell(i) for i in sorted(i for b in members for i in b.cells))  # reading order
        out.append(DomainEconomy(age, members[0].origin, tuple(members), cells, controllers, head, value,
                                 contested, frozenset(b.id for b in members)))
    return tuple(sorted(out, key=lambda d: (d.name.row, d.name.col)))


def _majority(members: Sequence[Building]) -> tuple[int, ...]:
    """R76, A34: the players with the most population cubes over the Civil buildings (at least one)."""
    counts = Counter(q for b in members if b.kind.family is Family.CIVIL for q in b.population)
    if not counts:
        return ()
    most = max(counts.values())
    return tuple(sorted(p for p, n in counts.items() if n == most))


def economy_change(before: GameState, after: GameState, events: Sequence[Event] = (), *,
                   known: Economy | None = None) -> EconomyChange:
    """What the action that turned ``before`` into ``after`` (with ``events``, as ``apply`` returned
    them) did to the economy: the domains it founded, joined, split or changed hands, and whom it hurt
    (buildings removed or downsized, R30, R53, R63–R65; control of a domain lost, R74–R76). ``known``
    is ``economy(before)`` when the caller has it already (a list of places tries many actions on one
    position)."""
    was = known if known is not None else economy(before)
    now = economy(after, since=(before, was))
    shifts: list[DomainShift] = []
    for age in AGES:
        old, new = was.domains[age], now.domains[age]
        if old is new:
            continue
        unchanged = {(d.ids, d.controllers, d.value) for d in old}
        for d in new:
            if (d.ids, d.controllers, d.value) in unchanged:
                continue
            ids = d.ids
            came = tuple(o for o in old if o.ids & ids)
            had = {p for o in came for p in o.controllers}
            shifts.append(DomainShift(age, came, d, tuple(sorted(set(d.controllers) - had)),
                                      tuple(sorted(had - set(d.controllers)))))
        kept = {i for d in new for i in d.ids}
        for o in old:
            if not o.ids & kept:
                shifts.append(DomainShift(age, (o,), None, (), o.controllers))
    return EconomyChange(was, now, tuple(shifts), _harms(was, now, events), after.pending is not None)


def action_economy(state: GameState, action: Action) -> EconomyChange:
    """``economy_change`` of ``action`` played on ``state`` (which is left as it is). Raises
    ``RuleError`` as ``apply`` does when the rules refuse the action."""
    after, events = apply(state, action)
    return economy_change(state, after, events)


def _harms(was: Economy, now: Economy, events: Sequence[Event]) -> tuple[Harm, ...]:
    out: list[Harm] = []
    for e in events:
        if isinstance(e, (ParadoxRemoved, ShadowRemoved, Destroyed, Demolished)):
            b = e.building
            for p in (b.owner,) if b.owner is not None else sorted(set(b.population)):
                out.append(Harm(p, e.age, HarmKind.REMOVED, b))
        elif isinstance(e, (Downsized, ShadowReplaced)) and e.new.level < e.old.level and e.old.owner is not None:
            out.append(Harm(e.old.owner, e.age, HarmKind.DOWNSIZED, e.old, e.new))
    for age in AGES:
        if was.domains[age] is now.domains[age]:
            continue
        # (a board a pending question leaves unsettled pays no one until it is answered, R78: its domains'
        # worth then says nothing of what they will pay)
        settled = was.settled[age] and now.settled[age]
        for o in was.domains[age]:
            ids = o.ids
            for p in o.controllers:
                kept = [d for d in now.domains[age] if d.ids & ids and p in d.controllers]
                if not kept:
                    out.append(Harm(p, age, HarmKind.CONTROL_LOST, o.buildings[0], lost=o.value))
                elif settled and (worth := sum(d.value for d in kept)) < o.value:
                    out.append(Harm(p, age, HarmKind.WORTH_LESS, o.buildings[0], lost=o.value - worth))
    return tuple(out)


__all__ = ["CONTROLLING", "DomainEconomy", "DomainShift", "Economy", "EconomyChange", "Harm", "HarmKind", "Outlook",
           "action_economy", "economy", "economy_change", "outlook", "same_board"]
