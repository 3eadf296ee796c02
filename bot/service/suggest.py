"""Suggestions while a player types: the cells, cards and payments that make a command legal now."""

from __future__ import annotations

import contextlib

from rules import (
    Action,
    Age,
    Construct,
    Demolish,
    Exchange,
    GameState,
    Kind,
    NotationError,
    Payment,
    Populate,
    Renovate,
    RuleError,
    Swap,
    Upgrade,
    apply,
    economy,
    economy_change,
    format_action,
    legal_actions,
    parse_action,
    placements,
    pool,
    sub_multisets,
    with_article,
)

from ..play import Refusal, RefusalCode, action_text
from ..texts import who
from ..words import Code, say
from .games import Games
from .messages import Caller
from .steps import economy_words, pay_words

#: Discord offers at most 25 suggestions
LIMIT = 25
AGE_LETTERS = {"M": Age.MIGHT, "F": Age.FAITH, "R": Age.REASON}


class Suggestions:
    """What autocompletion offers (and the console's ``?``)."""

    def __init__(self, games: Games) -> None:
        self.games = games

    async def _acting(self, caller: Caller) -> tuple[GameState, int] | None:
        """The state and the caller's seat when it is their turn and no question is open."""
        seated = await self.games.seated_here(caller)
        if seated is None or seated[0].active != seated[1] or seated[0].pending is not None:
            return None
        return seated

    async def cells(self, caller: Caller, command: str, typed: str, *, kind: str | None = None,
                    age: str | None = None, target: str | None = None, limit: int = LIMIT) -> list[str]:
        """Cells that make ``command`` legal for the caller now, filtered by what is typed."""
        seated = await self.games.seated_here(caller)
        if seated is None:
            return []
        state, seat = seated
        cells = legal_cells(state, seat, command, kind, age, target)
        typed = typed.strip().upper()
        return [c for c in cells if c.startswith(typed)][:limit]

    async def described_cells(self, caller: Caller, command: str, typed: str, *, kind: str | None = None,
                              age: str | None = None, target: str | None = None, limit: int = LIMIT
                              ) -> list[tuple[str, str]]:
        """``cells``, each with what it does to the caller's score when the cell names one action
        (build, demolish, populate, renovate): ``C4 · +1 Ecu at income: joins the Might domain of G1
        (worth 1, yours) · 💥 hurts White`` (within Discord's 100 characters); else the cell alone."""
        seated = await self.games.seated_here(caller)
        if seated is None:
            return []
        state, seat = seated
        cells = await self.cells(caller, command, typed, kind=kind, age=age, target=target, limit=limit)
        wanted = {"build": Construct, "demolish": Demolish, "populate": Populate, "renovate": Renovate}.get(command)
        if wanted is None or not cells or state.active != seat or state.pending is not None:
            return [(c, c) for c in cells]
        ages = [AGE_LETTERS[age.upper()[:1]]] if age and age.upper()[:1] in AGE_LETTERS else list(Age)
        first: dict[str, Action] = {}
        for a in legal_actions(state):
            if type(a) is not wanted or a.player != seat or getattr(a, "age", Age.REASON) not in ages:
                continue
            if isinstance(a, Construct) and kind and a.kind.value.lower() != kind.strip().lower():
                continue
            cell = a.origin if isinstance(a, Construct) else getattr(a, "target", None)
            first.setdefault(str(cell), a)
        known = economy(state)
        out: list[tuple[str, str]] = []
        for c in cells:
            picked = first.get(c)
            if picked is None:
                out.append((c, c))
                continue
            after, events = apply(state, picked)
            change = economy_change(state, after, events, known=known)
            hurt = [state.players[p].name for p in change.harmed(besides=seat)]
            words = " · ".join(x for x in (c, economy_words(state, picked, change),
                                           "💥 hurts " + " and ".join(hurt) if hurt else "") if x)
            out.append((c, words if len(words) <= 100 else words[:99] + "…"))
        return out

    async def cards(self, caller: Caller, command: str, typed: str, limit: int = LIMIT) -> list[str]:
        """Card sets in the caller's hand (``MRC`` letters) for paying, exchanging or discarding."""
        acting = await self._acting(caller)
        if acting is None:
            return []
        state, seat = acting
        if command == "exchange" and not legal_actions(state, types=(Exchange,), outline=True):
            return []
        if command.startswith("swap") and not legal_actions(state, types=(Swap,), outline=True):
            return []
        if command == "swap-take":  # k cards of one colour from the reserve (R33)
            sets = sorted({str(c) for c in sub_multisets(state.reserve) if c.total and len(set(str(c))) == 1},
                          key=lambda t: (len(t), t))
        else:
            sets = sorted({str(c) for c in sub_multisets(state.players[seat].hand) if c.total},
                          key=lambda t: (len(t), t))
        typed = typed.strip().upper()
        return [t for t in sets if t.startswith(typed)][:limit]

    async def payments(self, caller: Caller, command: str, options: dict[str, str | None], typed: str,
                       limit: int = LIMIT) -> list[tuple[str, str]]:
        """The ways the caller may pay for the action the other options describe, filtered by what is
        typed; empty when the action is not legal. Each is the value to give (``MM 1+1``: the cards, then
        how many each pawn plays) and what it means (``2 Military cards, 1 card through each pawn``)."""
        acting = await self._acting(caller)
        if acting is None:
            return []
        state, seat = acting
        try:
            act_text = action_text(command, {k: v for k, v in options.items() if k != "pay"})
            wanted = parse_action(f"{state.players[seat].colour.value} {act_text}", state)
        except (Refusal, NotationError, RuleError):
            return []
        key = format_action(state, wanted).split(" pay ")[0]
        pays: dict[str, str] = {}
        for a in legal_actions(state):
            payment = getattr(a, "payment", None)
            if type(a) is not type(wanted) or not isinstance(payment, Payment):
                continue
            head, sep, pay = format_action(state, a).partition(" pay ")
            if sep and head == key:
                pays.setdefault(pay, pay_words(payment))
        typed = typed.strip().upper()
        return [(p, words) for p, words in pays.items() if p.upper().startswith(typed)][:limit]


    async def why_none(self, caller: Caller, command: str, typed: str = "", *, kind: str | None = None,
                       target: str | None = None) -> str:
        """Why nothing can be suggested for ``command`` now, in one short sentence (autocompletion shows
        it instead of an empty list)."""
        seated = await self.games.seated_here(caller)
        if seated is None:
            game = await self.games.storage.active_game_in_channel(caller.channel_id)
            return "No game is being played here." if game is None or game.snapshot is None else (
                "You are not playing in this game.")
        state, seat = seated
        pending = state.pending
        if command == "choose":
            if pending is None or pending.decision.player != seat:
                return "There is no question for you to answer."
            return f"No answer starts with {typed.strip()!r}."
        if pending is not None:
            return ("Answer the open question first (choose)." if pending.decision.player == seat else
                    f"Waiting for {who(state, pending.decision.player).plain()} to answer a question.")
        if state.active != seat:
            return f"It is {who(state, state.active).plain()}'s turn."
        if command == "build" and not kind:
            return "Set kind: first."
        if command == "upgrade-at" and not target:
            return "Set cell: first."
        if typed.strip():
            return f"Nothing you can play starts with {typed.strip()!r}."
        if command == "pay":
            return ("Set cell: first." if not target else
                    "There is no way to pay for that: check the cell, the building and the board first.")
        if command == "end":
            return "You hold no card to discard."
        if command == "build" and kind:
            return _why_no_place(state, seat, kind)
        return f"You cannot {command.split('-')[0]} anything now."


def _why_no_place(state: GameState, seat: int, kind_name: str) -> str:
    """Why no place fits a ``kind_name`` for ``seat``: the cards, the pawns, or the board."""
    try:
        kind = Kind.parse(kind_name)
    except NotationError:
        return f"{kind_name!r} is not a building."
    held = state.players[seat].hand.count(kind.family)
    if held < kind.level:
        return (f"No {kind.value} fits: it needs {kind.level} {kind.family.title} card{'s' if kind.level > 1 else ''}"
                f" and you hold {held}.")
    room = max(pool(state, seat, age) for age in (Age.MIGHT, Age.FAITH))
    if room < kind.level:
        cards = f"{room} more card{'s' if room != 1 else ''}"
        return f"No {kind.value} fits: your pawns can play {cards} on Might or Faith."
    return f"No place fits {with_article(kind.value)} now."


def upgrades_of(state: GameState, seat: int, options: dict[str, str | None]) -> list[Upgrade]:
    """The legal upgrades of the building the options name into the kind they name, wherever it goes."""
    try:
        text = action_text("upgrade", {k: v for k, v in options.items() if k != "at"})
        named = parse_action(f"{state.players[seat].colour.value} {text}", state)
    except (Refusal, NotationError, RuleError):
        return []
    if not isinstance(named, Upgrade):
        return []
    return [a for a in legal_actions(state) if isinstance(a, Upgrade)
            and (a.age, a.target, a.kind) == (named.age, named.target, named.kind)]


def upgrade_origin(state: GameState, seat: int | None, options: dict[str, str | None]) -> str | None:
    """Where an upgrade given without ``at`` goes: where the old building's top-left cell is, if that
    is legal; else the one legal place; with several, a Refusal that lists them (R29)."""
    if seat is None or state.active != seat:
        return None
    upgrades = upgrades_of(state, seat, options)
    if not upgrades:
        return None  # the engine will say why
    origins = list(dict.fromkeys(str(a.origin) for a in upgrades))
    target = str(upgrades[0].target)
    if target in origins:
        return target
    if len(origins) == 1:
        return origins[0]
    raise Refusal(say("The bigger building can go in several places: add {at} with its top-left cell, one of "
                      "{origins}.", at=Code("at:"), origins=", ".join(origins)), RefusalCode.INCOMPLETE)


def legal_cells(state: GameState, seat: int, command: str, kind: str | None, age: str | None,
                target: str | None = None) -> list[str]:
    """The cells a command may name now (for autocompletion)."""
    ages = [AGE_LETTERS[age.upper()[:1]]] if age and age.upper()[:1] in AGE_LETTERS else list(Age)
    if command == "choose":
        if state.pending is None or state.pending.decision.player != seat:
            return []
        return [str(c) for c in state.pending.decision.options]
    if command == "upgrade-at":
        if state.active != seat or state.pending is not None or not target:
            return []
        options: dict[str, str | None] = {"cell": target, "kind": kind, "age": age}
        return list(dict.fromkeys(str(a.origin) for a in upgrades_of(state, seat, options)))
    if command == "build" and kind:
        try:
            k = Kind.parse(kind)
        except NotationError:
            return []
        cells: list[str] = []
        for a in ages:
            if a is Age.REASON:
                continue
            with contextlib.suppress(RuleError):
                cells += [str(c) for c in placements(state, seat, k, a)]
        return list(dict.fromkeys(cells))
    if state.active != seat or state.pending is not None:
        return []
    wanted = {"build": Construct, "upgrade": Upgrade, "demolish": Demolish, "populate": Populate,
              "renovate": Renovate}.get(command)
    if wanted is None:
        return []
    out: list[str] = []
    for action in legal_actions(state):
        if type(action) is not wanted:
            continue
        if isinstance(action, Upgrade) and kind and action.kind.value.lower() != kind.strip().lower():
            continue
        if isinstance(action, Construct):
            cell, age_of = action.origin, action.age
        elif isinstance(action, (Upgrade, Demolish)):
            cell, age_of = action.target, action.age
        elif isinstance(action, (Populate, Renovate)):
            cell, age_of = action.target, Age.REASON
        else:
            continue
        if age_of in ages:
            out.append(str(cell))
    return list(dict.fromkeys(out))
