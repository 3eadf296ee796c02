"""What is said about a game: the narration of what an action caused, a player's private hand, the
public status, and the short rules reference. Pure functions of the state and the engine's events;
nothing here reveals a hand other than the one asked for, the deck or the discard order.

This module is *what* is said; ``bot.words`` is its *form* (``Text`` and its parts, ``say``
templates), which each front end renders its own way."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rules import (
    INCOME_ROUNDS,
    Age,
    Building,
    Cards,
    Cell,
    Construct,
    Demolish,
    DomainEconomy,
    Economy,
    EconomyChange,
    EndTurn,
    Exchange,
    GameState,
    HarmKind,
    Kind,
    Openings,
    Outlook,
    Player,
    Populate,
    Renovate,
    Swap,
    Travel,
    Upgrade,
    describe_decision,
    economy,
    income,
    income_sources,
    openings,
    pool,
    surcharge,
    surcharged_terrain,
    with_article,
)
from rules import events as ev

from .words import PLAIN, Code, Command, Name, Strong, Text, as_text, joined, lines, render, say, series, text

# ---------------------------------------------------------------------------------------------
# Names


def who(s: GameState, player: int) -> Text:
    """``Ana (Red)``: the name as a ``Name`` part (a front end with markup escapes it), then the colour."""
    p = s.players[player]
    return text(Name(p.name)) if p.name == p.colour.value else Name(p.name) + f" ({p.colour.value})"


def names_shown(s: GameState, words: str) -> Text:
    """``words`` (made as plain words, the players' names in them) with each name as a ``Name`` part, which
    a front end with markup escapes: for words made for a menu's plain text that a message shows too."""
    names = sorted({p.name for p in s.players if p.name}, key=len, reverse=True)
    if not names or not words:
        return text(words)
    parts = re.split("(" + "|".join(re.escape(n) for n in names) + ")", words)
    return text(*(Name(part) if i % 2 else part for i, part in enumerate(parts) if part))


def building_name(s: GameState, b: Building, age: Age) -> Text | str:
    """``Red's Keep at B2``, ``the Town at D2``, ``the Castle ruin at A1``, ``the printed Hamlet at C2``."""
    if b.printed:
        return f"the printed Hamlet at {b.origin}"
    kind = b.kind.value
    if age is Age.REASON and b.kind.is_mr:
        kind += " ruin" if b.ruin else " (renovated)"
    if b.owner is not None:
        return Name(s.players[b.owner].name) + f"'s {kind} at {b.origin}"
    return f"the {kind} at {b.origin}"


def _whose(s: GameState, b: Building) -> Text | str:
    """Whose a removed unowned building was: ``, with Red's 2 cubes and White's cube`` (its
    population, on Reason), ``, which Red renovated``; "" for an owned one (its name says whose)."""
    if b.population:
        counts = Counter(b.population)
        return text(", with ", *[part for i, (p, n) in enumerate(sorted(counts.items()))
                                 for part in ((" and " if i else ""), Name(s.players[p].name),
                                              f"'s {count(n, 'cube') if n > 1 else 'cube'}")])
    if b.marker is not None and b.owner is None:
        return say(", which {who} renovated", who=Name(s.players[b.marker].name))
    return ""


def ecu_word(n: int) -> str:
    """``Ecu`` or ``Ecus``."""
    return "Ecu" if n == 1 else "Ecus"


def _ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }"


def count(n: int, noun: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


# ---------------------------------------------------------------------------------------------
# Narration


def narrate(s: GameState, events: Sequence[ev.Event]) -> list[str]:
    """``narration`` in plain words (names as they are): for logs, files and tests."""
    return [render(as_text(line), PLAIN) for line in narration(s, events)]


def narration(s: GameState, events: Sequence[ev.Event]) -> list[Text | str]:
    """Sentences for the events of one action, in order (a player's name as a ``Name`` part, which a
    front end with markup escapes). ``s`` is the state after the action (used for names only)."""
    out: list[Text | str] = []
    ripple_ages: list[str] = []
    rippling = ""  # the building that ripples, named unless its line is the one just before
    rippling_at: tuple[Kind, Cell] | None = None
    said_last = False  # the line just before is the one that built or upgraded it

    # buildings a paradox removed where the new one stands (R53): "the old Town", "the new Town"
    removed = {(e.building.kind, e.building.origin) for e in events if isinstance(e, ev.ParadoxRemoved)}
    replaced = {(e.building.kind, e.building.origin) for e in events if isinstance(e, ev.Rippled)} & removed

    def flush_ripples() -> None:
        if ripple_ages:
            subject = "It" if said_last else f"The new {rippling}" if rippling_at in replaced else f"The {rippling}"
            # "to Faith, and to Reason as a ruin": the comma keeps what qualifies one board with it alone
            # (without it, "to Faith and to Reason as a ruin" reads as a ruin on both)
            joint = ", and to " if any(" " in a for a in ripple_ages[1:]) else " and to "
            out.append(f"{subject} ripples to " + joint.join(ripple_ages) + ".")
            ripple_ages.clear()

    for e in events:
        if isinstance(e, ev.Rippled):
            if not ripple_ages:
                rippling = f"{e.building.kind.value} at {e.building.origin}"
                rippling_at = (e.building.kind, e.building.origin)
            what = "as a ruin" if e.age is Age.REASON and e.building.kind.is_mr else ""
            ripple_ages.append(f"{e.age.title}{' ' + what if what else ''}"
                               + (" (replacing its old shadow)" if e.replaced is not None and not e.replaced.printed
                                  else ""))
            continue
        flush_ripples()
        line = _sentence(s, e, replaced)
        if line:
            if isinstance(e, ev.BonusPaid) and out:
                out[-1] = without_dot(out[-1]) + f" (+{e.amount} Ecu{'s' if e.amount > 1 else ''} bonus)."
            else:
                out.append(line)
                said_last = isinstance(e, (ev.Built, ev.Upgraded))
    flush_ripples()
    return out


def without_dot(line: Text | str) -> Text | str:
    """A sentence without its closing full stop."""
    if isinstance(line, str):
        return line.rstrip(".")
    last = line.parts[-1] if line.parts else ""
    return Text((*line.parts[:-1], last.rstrip("."))) if isinstance(last, str) else line


def _paid(s: GameState, cards: Cards, building: Building) -> str:
    """``2 Military + 1 Religious cards`` and, when part of it is the terrain's surcharge, ``2 Military +
    1 Religious cards, 1 of them for the forest at K8``."""
    extra = surcharge(s, building.cells)
    if not extra:
        return cards_paid_words(cards)
    costly = surcharged_terrain(s, building.cells)  # (R37: a forest costs nothing with four players or more)
    where = [f"the {name} at {s.map.cell(i)}" for name, cells in (("forest", s.map.forest_cells),
                                                                  ("mountain", s.map.mountain_cells))
             if name in costly for i in sorted(set(building.cells) & cells)[:1]]
    return f"{cards_paid_words(cards)}, {extra} of them for {' and '.join(where)}"


def _capital(t: Text | str) -> Text | str:
    """``t`` with a capital first letter (a name as it is)."""
    if isinstance(t, str):
        return t[:1].upper() + t[1:]
    first = t.parts[0] if t.parts else ""
    return Text((first[:1].upper() + first[1:], *t.parts[1:])) if isinstance(first, str) else t


def _removed(s: GameState, b: Building, age: Age, replaced: set[tuple[Kind, Cell]]) -> Text | str:
    """The building a paradox removes: ``the old Town at D2`` where the new one stands (R53)."""
    name = building_name(s, b, age)
    if (b.kind, b.origin) in replaced and isinstance(name, str) and name.startswith("the "):
        return "the old " + name[len("the "):]
    return name


def _with(cards: Cards) -> str:
    """`` with 2 Religious cards``: the cards an action paid, for its sentence ("" for none)."""
    return say(" with {cards}", cards=cards_paid_words(cards)).plain() if cards.total else ""


def _demolished(s: GameState, e: ev.Demolished) -> Text:
    """``Ana (Red) demolishes Ben's Chapel at F1 on Faith with 1 Religious card (1 Ecu).`` (R30)"""
    name = building_name(s, e.building, e.age)
    if e.building.owner == e.player and not e.building.printed:
        name = f"their own {e.building.kind.value} at {e.building.origin}"
    return say("{who} demolishes {name} on {age}{paid} (1 Ecu).", who=who(s, e.player), name=name, age=e.age.title,
               paid=_with(e.cards))


def _powers(s: GameState, e: ev.PowerCompared) -> Text | str:
    """``Military power: 3 against 2.``, and on a tie that the player who joined the domains loses, that
    their own building gives way first (R62, A22)."""
    powers = " against ".join(str(p) for _, p in e.powers)
    if not e.own_first:
        best = max(p for _, p in e.powers)
        tie = " — a tie" if sum(p == best for _, p in e.powers) > 1 else ""  # (its player chooses: the next line)
        return f"{e.family.title} power: {powers}{tie}."
    lost = [building_name(s, b, e.age) for b in e.own_first]  # (downsized, or destroyed at level 1: the next line)
    return say("{family} power: {powers} — a tie, and on a tie the player who joined the domains gives way first: "
               "{lost}.", family=e.family.title, powers=powers, lost=series(lost))


def _tops_tied(s: GameState, e: ev.TopsTied) -> Text:
    """R67: ``On Faith, Ana's Chapel at A1, Ana's Chapel at J7 and Sibyl's Chapel at O1 tie at the top of one
    domain, where the Rule of Hierarchy allows one: the player who caused it gives way first.``"""
    tied = series([building_name(s, b, e.age) for b in e.tied])
    if e.own_first:
        return say("On {age}, {tied} tie at the top of one domain, where the Rule of Hierarchy allows one: the "
                   "player who caused it gives way first.", age=e.age.title, tied=tied)
    return say("On {age}, {tied} tie at the top of one domain, where the Rule of Hierarchy allows one: one of "
               "them is downsized.", age=e.age.title, tied=tied)


def _sentence(s: GameState, e: ev.Event, replaced: set[tuple[Kind, Cell]]) -> Text | str:
    """One event's sentence (``replaced``: the buildings a paradox removed where the new one stands)."""
    if isinstance(e, ev.Exchanged):
        return who(s, e.player) + f" pays 2 Ecus to exchange {e.count} card{'s' if e.count > 1 else ''}."
    if isinstance(e, ev.Swapped):
        return (who(s, e.player) + f" gives {cards_in_words(e.gave)} ({e.gave}) to the reserve and takes "
                f"{cards_in_words(e.took)} ({e.took}) from it.")
    if isinstance(e, ev.Travelled):
        return who(s, e.player) + f" sends pawn {e.pawn + 1} from {e.frm.title} to {e.to.title} (1 Ecu)."
    if isinstance(e, ev.Built):
        return (who(s, e.player) + f" builds {with_article(e.building.kind.value)} at {e.building.origin} on "
                f"{e.age.title} with {_paid(s, e.cards, e.building)}.")
    if isinstance(e, ev.Upgraded):
        old = "the printed Hamlet" if e.old.printed else f"the {e.old.kind.value}"
        return (who(s, e.player) + f" upgrades {old} at {e.old.origin} on {e.age.title} to "
                f"{with_article(e.new.kind.value)} at {e.new.origin} with {_paid(s, e.cards, e.new)}.")
    if isinstance(e, ev.Demolished):
        return _demolished(s, e)
    if isinstance(e, ev.BonusPaid):
        return f"+{e.amount} Ecu"
    if isinstance(e, ev.Populated):
        return say("{who} puts a cube on {building} on Reason.", who=who(s, e.player),
                   building=building_name(s, e.building, Age.REASON))
    if isinstance(e, ev.MarkerPlaced):
        return say("{who} pays the first card for {building} and marks it with a cube.", who=who(s, e.player),
                   building=building_name(s, e.building, Age.REASON))
    if isinstance(e, ev.Renovated):
        return say("{who} renovates the {kind} at {cell} on Reason{paid}.", who=who(s, e.player),
                   kind=e.building.kind.value, cell=str(e.building.origin), paid=_with(e.cards))
    if isinstance(e, ev.RippleForbidden):
        rule = "Dominion" if e.rule == "dominion" else "Hierarchy"
        return (f"Faith refuses its shadow (Rule of {rule} there), so nothing ripples; the bonus stands.")
    if isinstance(e, ev.RippleSkipped):
        missing = f"no {e.kind.value} tile is left" if e.reason == "tile" else "its owner has no cube left"
        return f"No shadow on {e.age.title}: {missing}."
    if isinstance(e, ev.ParadoxRemoved):
        return say("Paradox on {age}: the ripple arriving there removes {building}{whose}.", age=e.age.title,
                   building=_removed(s, e.building, e.age, replaced), whose=_whose(s, e.building))
    if isinstance(e, ev.ShadowRemoved):
        return say("Its shadow on {age} goes too{whose}.", age=e.age.title, whose=_whose(s, e.building))
    if isinstance(e, ev.ShadowReplaced):
        return f"On {e.age.title} its shadow becomes {with_article(e.new.kind.value)}" + (
            " ruin." if e.age is Age.REASON else ".")
    if isinstance(e, ev.Junction):
        return f"The {e.building.kind.value} joins {e.domains} domains on {e.age.title}."
    if isinstance(e, ev.PowerCompared):
        return _powers(s, e)
    if isinstance(e, ev.TopsTied):
        return _tops_tied(s, e)
    if isinstance(e, ev.Downsized):
        return _capital(building_name(s, e.old, e.age)) + (
            f" on {e.age.title} is downsized to {with_article(e.new.kind.value)} at {e.new.origin}.")
    if isinstance(e, ev.Destroyed):
        return _capital(building_name(s, e.building, e.age)) + f" on {e.age.title} is destroyed."
    if isinstance(e, ev.CubeKept):
        return who(s, e.player) + f" keeps one cube on the printed Hamlet at {e.cell}."
    if isinstance(e, ev.IncomePaid):
        if e.amount == 0:
            return who(s, e.player) + f" collects nothing on {e.age.title}: {_no_income(e.age)}."
        return who(s, e.player) + f" collects {e.amount} {ecu_word(e.amount)} on {e.age.title}: " + (
            _sources(s, e.player, e.age)) + "."
    if isinstance(e, ev.Reshuffled):
        return "The discard pile is shuffled into a new draw pile."
    if isinstance(e, ev.TurnEnded):
        return who(s, e.player) + " ends the turn" + (f", discarding {e.discarded}." if e.discarded else ".")
    if isinstance(e, ev.TurnBegan):
        income = " (an income round)" if e.round in INCOME_ROUNDS else ""
        return say("Round {round}{income}: {who} to play.", round=e.round, income=income, who=who(s, e.player))
    if isinstance(e, ev.GameEnded):
        best = max(e.ecus)
        names = text(*[part for i, seat in enumerate(e.winners) for part in ((" and " if i else ""), who(s, seat))])
        return say("Game over: {names} win{s} with {best} {word}.", names=names,
                   s="s" if len(e.winners) == 1 else "", best=best, word=ecu_word(best))
    if isinstance(e, ev.DecisionRequested):
        d = e.decision
        return who(s, d.player) + f" must {describe_decision(s, d)}."
    return ""  # CubesReturned and CardsDrawn are shown by the picture and the hand


# ---------------------------------------------------------------------------------------------
# A player's hand, the public status


_ACTION_WORDS = [
    (Exchange, "exchange cards (2 Ecus)"), (Swap, "swap with the reserve"), (Travel, "travel (1 Ecu)"),
    (Construct, "build"), (Upgrade, "upgrade"), (Demolish, "demolish"), (Populate, "populate"),
    (Renovate, "renovate"), (EndTurn, "end your turn"),
]


def _what_you_can_do(o: Openings) -> list[str]:
    """The kinds of action open to the player (``rules.openings``), with what and where for the card
    actions: ``build a Watchtower or Hamlet on Might``, ``upgrade B2 or F3 on Faith``, ``populate D2
    or E5``."""

    def some(items: list[str], limit: int = 4) -> str:
        shown = items[:limit] + ([f"{len(items) - limit} more"] if len(items) > limit else [])
        return ", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else shown[0]

    out: list[str] = []
    for t, word in _ACTION_WORDS:
        if t not in o.types:
            continue
        if t is Construct:
            word = "build " + "; ".join(
                f"{with_article(some([f'{k.value} ({k.level}×{k.level})' for k in kinds], 9))} on {age.title}"
                for age, kinds in sorted(o.builds.items()))
        elif t in (Populate, Renovate):
            word += " " + some([str(c) for c in o.targets[t][Age.REASON]])
        elif t in o.targets:
            word += " " + "; ".join(f"{some([str(c) for c in cells])} on {age.title}"
                                    for age, cells in sorted(o.targets[t].items()))
        out.append(word)
    return out


def _named(cards: Cards) -> list[str]:
    """``["1 Military", "2 Religious"]``: each family's count."""
    return [f"{n} {name}" for n, name in ((cards.m, "Military"), (cards.r, "Religious"), (cards.c, "Civil")) if n]


def cards_in_words(cards: Cards) -> str:
    """``1 Military, 2 Religious, 1 Civil`` (``no cards``)."""
    return ", ".join(_named(cards)) or "no cards"


def cards_paid_words(cards: Cards) -> str:
    """``2 Military + 1 Civil cards``, ``1 Religious card`` (``no card``): cards that pay for something."""
    named = _named(cards)
    return " + ".join(named) + (" card" if cards.total == 1 else " cards") if named else "no card"


def describe_draw(before: GameState, after: GameState, action: object) -> str:
    """What the player of an exchange or an end of turn drew, for their eyes only ("You drew 1
    Religious, 1 Civil (RC)."); "" for another action, or when nothing was drawn."""
    if isinstance(action, Exchange):
        spent = action.cards
    elif isinstance(action, EndTurn):
        spent = action.discard
    else:
        return ""
    player = action.player
    kept = before.players[player].hand - spent
    now = after.players[player].hand
    if after.finished or not now.contains(kept) or not (drawn := now - kept).total:
        return ""
    return f"You drew {cards_in_words(drawn)} ({drawn})."


def describe_hand(s: GameState, player: int) -> Text:
    """The private hand message: cards, Ecus, cubes, pawns and what each may still play, and what
    the player can do now."""
    p = s.players[player]
    if s.finished:  # the last turn's refill is no hand to play: the result instead
        place = next(pl for pl, seat, _ in ranking(s) if seat == player)
        return say("{over} You finished with {ecus} {word}, {place} of {n}.", over=Strong("The game is over."),
                   ecus=p.ecus, word=ecu_word(p.ecus), place=_ordinal(place), n=len(s.players))
    out: list[Text | str] = [
        say("{h} {hand}  ({code})", h=Strong("Your hand:"), hand=cards_in_words(p.hand), code=Code(str(p.hand))),
        say("{e} {ecus}   {c} {cubes}", e=Strong("Ecus:"), ecus=p.ecus, c=Strong("Cubes left:"), cubes=p.supply),
    ]
    if s.options.holdem:
        out.append(describe_reserve(s))
    for i in (0, 1):
        out.append(say("Pawn {n} on {age}: may play {k} more card{s} this turn", n=i + 1,
                       age=Strong(p.pawns[i].title), k=p.allowance(i), s="s" if p.allowance(i) != 1 else ""))
    if s.pending is not None:
        d = s.pending.decision
        if d.player == player:
            out.append(say("{must} — use {choose}.", must=Strong(f"You must {describe_decision(s, d)}"),
                           choose=Command("choose")))
        else:
            out.append(say("Waiting for {who} to {what}.", who=who(s, d.player), what=describe_decision(s, d)))
    elif s.active == player:
        can = _what_you_can_do(openings(s))
        card_actions = [c for c in can if c.split()[0] in ("build", "upgrade", "demolish", "populate", "renovate")]
        others = [c for c in can if c not in card_actions]
        out.append(Strong("Your turn.") + " You can:")
        out += [f"• {c}" for c in card_actions]
        if others:
            out.append("• " + " · ".join(others))
        rooms = [f"{pool(s, player, age)} on {age.title}" for age in Age if pool(s, player, age)]
        if rooms:
            out.append("Cards you may still play: " + ", ".join(rooms) + ".")
    else:
        out.append(say("It is {who}'s turn.", who=who(s, s.active)))
    return lines(out)


def describe_reserve(s: GameState) -> str:
    """The Hold'em reserve, face up for everyone (R33): ``Reserve (face up): 1 Military, 1 Civil (MC).``"""
    if not s.reserve.total:
        return "Reserve (face up): empty."
    return f"Reserve (face up): {cards_in_words(s.reserve)} ({s.reserve})."


def outlook_ages(o: Outlook) -> str:
    """``Might 3 · Faith 2 · Reason 0 (no pawn)``: what each Age would pay ``o``'s player if income were
    counted now; an Age without their pawn pays nothing (R73): ``Faith 0 (2 with a pawn there)`` says what
    it would pay with one."""
    out: list[str] = []
    for age in (Age.MIGHT, Age.FAITH, Age.REASON):
        v = o.by_age[age]
        if o.present[age]:
            out.append(f"{age.title} {v}")
        else:
            out.append(f"{age.title} 0 ({v} with a pawn there)" if v else f"{age.title} 0 (no pawn)")
    return " · ".join(out)


def income_when(e: Economy, s: GameState) -> str:
    """When income is counted: ``counted in rounds 4 and 7, at the end of each player's own turn; next:
    round 4``."""
    if e.next_income is None:
        return "no income is counted any more (it was in rounds 4 and 7)"
    nxt = "this round" if e.next_income == s.round else f"round {e.next_income}"
    rounds = " and ".join(map(str, INCOME_ROUNDS))
    return f"counted in rounds {rounds}, at the end of each player's own turn; next: {nxt}"


def unsettled_words(e: Economy) -> str:
    """``Might's domains pay no one until the question is answered``: the boards a pending question
    leaves unsettled (R78: their income is not counted until then; their pictures show ``?``), or ""."""
    ages = [age.title for age in (Age.MIGHT, Age.FAITH, Age.REASON) if not e.settled[age]]
    if not ages:
        return ""
    owners = in_a_series([f"{age}'s" for age in ages])
    return f"{owners} domains pay no one until the question is answered"


def describe_outlook(s: GameState, e: Economy | None = None) -> list[Text | str]:
    """Every player's income outlook, Age by Age (R21, R73–R77), and when income is counted: a heading
    and a line per player, ``• Ana (Red): 5 Ecus — Might 3 · Faith 2 · Reason 0 (no pawn)``."""
    e = economy(s) if e is None else e
    out: list[Text | str] = [f"Income if it were counted now ({income_when(e, s)}):"]
    for i, o in enumerate(e.outlooks):
        out.append(say("• {who}: {total} {word} — {ages}", who=who(s, i), total=o.total, word=ecu_word(o.total),
                       ages=outlook_ages(o)))
    unsettled = unsettled_words(e)
    if unsettled:
        out.append(f"({unsettled}.)")
    return out


def outlook_line(s: GameState, seat: int, e: Economy | None = None, *, you: bool = True) -> Text:
    """The panel's one line: ``Income if counted now: you 5: Might 3 · Faith 2 · Reason 0 (no pawn);
    Bob 2 · Carol 0 — next income: round 4``: every player, the viewer Age by Age (left out without
    ``you``: said already)."""
    e = economy(s) if e is None else e
    mine = e.outlooks[seat]
    others = [Name(s.players[o.player].name) + f" {o.total}" for o in e.outlooks if o.player != seat]
    nxt = ("no more income rounds" if e.next_income is None else
           "income round" if e.next_income == s.round else f"next income: round {e.next_income}")
    unsettled = unsettled_words(e)
    nxt = f"{nxt} ({unsettled})" if unsettled else nxt
    if not you:
        return text("The others if counted now: ", *[part for i, x in enumerate(others)
                                                      for part in ((" · " if i else ""), x)], f" — {nxt}")
    return text(f"Income if counted now: you {mine.total}: {outlook_ages(mine)}",
                *[part for i, x in enumerate(others) for part in (("; " if not i else " · "), x)], f" — {nxt}")


def domain_words(s: GameState, d: DomainEconomy, viewer: int | None = None) -> str:
    """``the Faith domain of F3 (worth 2, Bob's)``: a domain, what it would pay and to whom."""
    return f"the {d.age.title} domain of {d.name} ({worth_and_owner(s, d, viewer)})"


def worth_and_owner(s: GameState, d: DomainEconomy, viewer: int | None = None) -> str:
    """``worth 2, Bob's``; ``yours, worth nothing yet`` (a top building with nothing to pay for it);
    ``no one's``; ``unsettled until a question is answered`` (two top buildings tied until it is answered,
    R78: where one of them is downsized, where it goes may still change the domain): what a domain would pay,
    and to whom."""
    if d.contested:
        return "unsettled until a question is answered"
    owner = controlled_by(s, d.controllers, viewer)
    if not d.controllers:
        return owner
    return f"worth {d.value}, {owner}" if d.value else f"{owner}, worth nothing yet"


def controlled_by(s: GameState, seats: Sequence[int], viewer: int | None = None) -> str:
    """``yours``, ``Bob's``, ``yours and Bob's``, ``no one's``: who controls a domain."""
    if not seats:
        return "no one's"
    return in_a_series(["yours" if p == viewer else f"{s.players[p].name}'s" for p in seats])


def in_a_series(items: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``: items named one after the other, as a sentence does (the words
    layer's ``series``, as a string)."""
    return series(items).plain()


def describe_hit(s: GameState, change: EconomyChange, seat: int, *, named: bool = False) -> str:
    """What an action (or a turn) of someone else did to ``seat``'s buildings and domains, and what it
    cost them in income outlook: ``your Keep at B2 on Might was removed; you lost the Faith domain of
    F3 — your domains would pay 3 Ecus less at income (5 → 2)``. Empty when it did not hurt them.
    ``named``: in the third person, for the channel's line about an AI seat (``Sibyl's Keep at B2 …;
    Sibyl lost … — their domains would pay …``)."""
    name = s.players[seat].name
    your, you = (f"{name}'s", name) if named else ("your", "you")
    said: list[str] = []
    for h in change.harms:
        if h.player != seat:
            continue
        b = h.building
        whose = your if b.owner == seat else "the"
        cube = "" if b.owner is not None else f" (with {your} cube)"
        if h.kind is HarmKind.REMOVED:
            said.append(f"{whose} {b.kind.value}{cube} at {b.origin} on {h.age.title} was removed")
        elif h.kind is HarmKind.DOWNSIZED:
            into = f" to {with_article(h.now.kind.value)}" if h.now is not None else ""
            said.append(f"{whose} {b.kind.value} at {b.origin} on {h.age.title} was downsized{into}")
        elif h.kind is HarmKind.WORTH_LESS:
            said.append(say("{your} {age} domain of {cell} is worth {lost} less", your=your, age=h.age.title,
                            cell=str(b.origin), lost=h.lost).plain())
        else:
            said.append(f"{you} lost control of the {h.age.title} domain of {b.origin}")
    if not said:
        return ""
    before, after = change.before.outlooks[seat], change.after.outlooks[seat]
    their, them = ("their", "them") if named else ("your", "you")
    if not _income_left(s, change.after, seat):  # (what their domains would pay is moot now)
        last = ("they have collected their last income" if named else "you have collected your last income")
        return "; ".join(dict.fromkeys(said)) + f" — too late to cost {them} anything: {last}"
    was, now = before.total, after.total  # (what they would collect: boards with a pawn of theirs, R73)
    was_all, now_all = sum(before.by_age), sum(after.by_age)
    if now < was:
        cost = f" — {their} domains would pay {was - now} {ecu_word(was - now)} less at income ({was} → {now})"
    elif now_all < was_all:
        ages = [age.title for age, a, b, p in zip((Age.MIGHT, Age.FAITH, Age.REASON), before.by_age, after.by_age,
                                                  after.present, strict=True) if b < a and not p]
        lost = was_all - now_all
        they = "they have" if named else "you have"
        one = "a pawn on each" if len(ages) > 1 else "one there"
        cost = (f" — no loss at income now, as {they} no pawn on {in_a_series(ages)}; with {one}, {lost} "
                f"{ecu_word(lost)} less")
    else:
        cost = f" — it costs {them} nothing at income"
    return "; ".join(dict.fromkeys(said)) + cost


def _collected(s: GameState, e: Economy, seat: int) -> bool:
    """Whether ``seat`` has collected this round's income already: in an income round, their turn is over
    (each player collects at the end of their own turn, R21)."""
    seats = len(s.players)
    return e.next_income == s.round and (seat - s.first) % seats < (s.active - s.first) % seats


def _income_left(s: GameState, e: Economy, seat: int) -> bool:
    """Whether ``seat`` has an income still to collect."""
    if e.next_income is None or s.finished:
        return False
    return not _collected(s, e, seat) or any(r > s.round for r in INCOME_ROUNDS)


def _ecus_shown(s: GameState, p: Player) -> str:
    """``5 Ecus``, or ``? Ecus`` while the Ecus are hidden (``? Ecu`` would tell a player holds 1)."""
    if s.options.ecus_public or s.finished:
        return f"{p.ecus} {ecu_word(p.ecus)}"
    return "? Ecus"


def _pawns_words(p: Player) -> str:
    """``both pawns on Might``, ``pawns on Faith and Might``."""
    if p.pawns[0] == p.pawns[1]:
        return f"both pawns on {p.pawns[0].title}"
    return f"pawns on {p.pawns[0].title} and {p.pawns[1].title}"


def describe_status(s: GameState, *, cancelled: bool = False) -> Text:
    """Round, whose turn, public scores, every player's income outlook and stock (no hands). ``cancelled``:
    the game was cancelled in this position (no one is to play, nothing more is counted)."""
    income = " — income round" if s.round in INCOME_ROUNDS else ""
    over = s.finished or cancelled
    head = Strong(f"Round {s.round} of 7") + f"{income}. " + (
        "The game was cancelled here." if cancelled else "The game is over." if s.finished
        else who(s, s.active) + " to play.")
    rows: list[Text | str] = []
    for i, p in enumerate(s.players):
        marker = "▶ " if i == s.active and not over else ""
        rows.append(marker + who(s, i) + f": {_ecus_shown(s, p)}, {count(p.supply, 'cube')}, "
                    f"{count(p.hand.total, 'card')}, {_pawns_words(p)}")
    stock = ", ".join(f"{k.value} {n}" for k, n in s.stock.items())
    rows.append(f"Stock: {stock}. Deck {len(s.deck)}, discard {len(s.discard)}.")
    if s.options.holdem:
        rows.append(describe_reserve(s))
    if not over:
        rows += describe_outlook(s)
    if s.pending is not None and not cancelled:
        d = s.pending.decision
        rows.append(say("Waiting for {who} to {what}.", who=who(s, d.player), what=describe_decision(s, d)))
    return lines([head, *rows])


#: a building kind is said to run low in a turn's post when this many or fewer are left in the stock
STOCK_LOW = 3


def outlook_brief(o: Outlook) -> Text:
    """``income now 6 (Faith 6; Might 4 with a pawn there)``: what ``o``'s player would collect if income
    were counted now, and from which Ages (one that would pay them nothing is left out; one where they
    have no pawn pays nothing, R73, and is said with what it would pay with one); ``income now 0``."""
    paying = [say("{age} {value}", age=age.title, value=o.by_age[age]) for age in (Age.MIGHT, Age.FAITH, Age.REASON)
              if o.present[age] and o.by_age[age]]
    away = [say("{age} {value} with a pawn there", age=age.title, value=o.by_age[age])
            for age in (Age.MIGHT, Age.FAITH, Age.REASON) if not o.present[age] and o.by_age[age]]
    ages = joined([*paying, *away], "; ")
    return say("income now {total} ({ages})", total=o.total, ages=ages) if ages else say("income now {total}",
                                                                                            total=o.total)


def describe_standings(s: GameState, e: Economy | None = None) -> Text:
    """The standings a turn's post ends with: round, whose turn, and a line per player with their Ecus,
    income outlook (``income now``, R21, R73–R77), cubes, cards and pawns; the stock only where a kind
    runs low, the Hold'em reserve, a question waited on. Shorter than ``describe_status`` (``/tiempo
    status``, which adds the whole stock and the deck): five players' fit a phone's screen. In an income
    round a player whose turn is over has collected: their outlook is for the next income, said so."""
    e = economy(s) if e is None else e
    income = Strong("income now")
    if e.next_income == s.round:
        when = say("Income round: each player collects at the end of their own turn ({income}: what they would "
                   "collect now).", income=income)
    elif e.next_income is not None:
        when = say("Income is counted in rounds {rounds}, next in round {next} ({income}: what it would pay if it "
                   "were counted now).", rounds=" and ".join(map(str, INCOME_ROUNDS)), next=e.next_income,
                   income=income)
    else:
        when = text()
    head = say("{round}. {who} to play.", round=Strong(f"Round {s.round} of 7"), who=who(s, s.active))
    rows: list[Text | str] = [head + " " + when if when else head]
    later = [r for r in INCOME_ROUNDS if r > s.round]
    for i, p in enumerate(s.players):
        collected = _collected(s, e, i)
        if e.next_income is None or (collected and not later):
            outlook = text(" · collected the last income") if collected else text()
        elif collected:
            outlook = say(" · collected this round · for round {next}: {outlook}", outlook=outlook_brief(e.outlooks[i]),
                          next=later[0])
        else:
            outlook = text(" · ", outlook_brief(e.outlooks[i]))
        rows.append(say("{marker}{who}: {ecus}{outlook} · {cubes}, {cards} · {pawns}",
                        marker="▶ " if i == s.active else "", who=who(s, i), ecus=_ecus_shown(s, p),
                        outlook=outlook, cubes=count(p.supply, "cube"), cards=count(p.hand.total, "card"),
                        pawns=_pawns_words(p)))
    low = [f"{k.value} {n}" for k, n in s.stock.items() if n <= STOCK_LOW]
    if low:
        rows.append(say("Running low in the stock: {kinds} left.", kinds=", ".join(low)))
    if s.options.holdem:
        rows.append(describe_reserve(s))
    if s.pending is not None:
        d = s.pending.decision
        rows.append(say("Waiting for {who} to {what}.", who=who(s, d.player), what=describe_decision(s, d)))
        unsettled = unsettled_words(e)
        if unsettled:
            rows.append(f"({unsettled}.)")
    return lines(rows)


def _no_income(age: Age, you: bool = False) -> str:
    """Why a board pays a player nothing (with a pawn there), of them or (``you``) to them."""
    they, theirs = ("you", "yours") if you else ("they", "theirs")
    if age is Age.REASON:
        return f"no domain where {they} have the most cubes and a Military or Religious building stands"
    family = "Military" if age is Age.MIGHT else "Religious"
    return f"no domain whose top {family} building is {theirs} and holds Civil buildings"


def _sources(s: GameState, player: int, age: Age) -> str:
    """``3 from the domain of the Keep at B2; 2 from the domain of the Castle at F5``."""
    parts = [f"{amount} from the domain of the {b.kind.value}{' ruin' if b.ruin else ''} at {b.origin}"
             for b, amount in income_sources(s, player, age)]
    return "; ".join(parts)


def describe_income(s: GameState, player: int, *, you: bool = False) -> tuple[int, list[str]]:
    """What ``player`` would collect if income were paid now, and why, board by board and domain by
    domain (R73–R77): ``(total, ["Might: 3 Ecus — 3 from the domain of the Keep at B2", …])``."""
    p = s.players[player]
    out: list[str] = []
    total = 0
    for age in Age:
        if age not in p.pawns:
            out.append(f"{age.title}: nothing — no pawn there")
            continue
        amount, _ = income(s, player, age)
        total += amount
        out.append(f"{age.title}: {amount} {ecu_word(amount)} — {_sources(s, player, age)}" if amount else
                   f"{age.title}: nothing — {_no_income(age, you)}")
    return total, out


def ranking(s: GameState) -> list[tuple[int, int, int]]:
    """(place, seat, Ecus), best first; tied players share a place (A36)."""
    order = sorted(range(len(s.players)), key=lambda i: -s.players[i].ecus)
    out: list[tuple[int, int, int]] = []
    for n, i in enumerate(order):
        place = out[-1][0] if out and s.players[i].ecus == out[-1][2] else n + 1
        out.append((place, i, s.players[i].ecus))
    return out


# ---------------------------------------------------------------------------------------------
# Rules reference

_RULES: dict[str, tuple[str, str]] = {
    "turn": (
        "A turn.", " I. Optionally exchange cards (pay 2 Ecus, discard any, draw back to 4); with Hold'em, "
        "swap with the reserve. II. Any number of actions: travel (1 Ecu a move) and card actions. "
        "III. Discard what you like, draw back to 4. IV. In rounds 4 and 7, collect income."
    ),
    "cards": (
        "Cards.", " Each pawn plays at most 2 cards a turn, on the board where it stands. One action is paid "
        "at once by the pawns on that board: 3 or 4 cards need both pawns there. A building costs its value "
        "in cards of its family's colour (Military orange M, Religious fuchsia R, Civil blue C); terrain "
        "adds cards of any colour."
    ),
    "terrain": (
        "Terrain.", " Only Towns and Cities cover river cells. Forest: +1 card with 2–3 players. "
        "Mountain: +2 with 2–3 players, +1 with 4, none with 5. Both add up."
    ),
    "building": (
        "Building", " (Might and Faith). A building covers as many cells each way as its value: Watchtower, "
        "Chapel and Hamlet 1×1; Keep, Monastery and Town 2×2; Castle, Abbey and City 3×3. Construct on empty "
        "cells; upgrade your own Military/Religious "
        "building or any Civil one to a bigger one covering it (pay the difference). A value 2–3 result pays "
        "+1 Ecu on Might, +2 on Faith. Demolish a Watchtower, Chapel or Hamlet tile: 1 card of its colour "
        "and 1 Ecu."
    ),
    "domains": (
        "Domains.", " Buildings touching by an edge form a domain. Dominion: only Civil buildings may join "
        "domains. Hierarchy (Might, Faith): in a domain the highest Military and the highest Religious "
        "building must each be unique."
    ),
    "ripples": (
        "Time ripples.", " A value 2–3 building built on Might is copied to Faith (same owner) and Reason "
        "(Military/Religious as ruins); built on Faith, to Reason. A copy destroys whatever it overlaps "
        "(paradox). Faith refuses a Military/Religious copy that would break Dominion or Hierarchy there."
    ),
    "junctions": (
        "Junctions.", " When a Civil building joins domains and two top buildings tie, the domain with more "
        "power in that family wins; the loser's building is downsized (its owner picks where the smaller one "
        "goes). On a tie of power the active player's own go first, then the active player chooses."
    ),
    "reason": (
        "Reason.", " Populate a Hamlet, Town or City with your cube (1 Civil card; at most 1/3/5 cubes). "
        "Renovate a ruin: Keep or Monastery 1 card, Castle or Abbey 2 (one now with a marker, one later)."
    ),
    "income": (
        "Income", " (rounds 4 and 7, at the end of your own turn, from each board where you have a pawn). "
        "Might: each domain whose top Military building is yours pays its Civil value. Faith: the same with "
        "the top Religious building. Reason: the majority of cubes in a domain collects its Military and "
        "Religious value (ruins count 1 less)."
    ),
}


#: the short rules reference by topic: a heading, then the rule in a few sentences
RULES: dict[str, Text] = {topic: Strong(head) + body for topic, (head, body) in _RULES.items()}
