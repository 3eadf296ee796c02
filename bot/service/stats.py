"""Each player's statistics of one game, worked out from its events (``rules.events``) and the actions'
payments: income by Age, buildings built, ripples and paradoxes caused, cards spent. Pure: the
history comes from ``Games.history`` (or, for the final post, with the last action's events added)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rules import Action, Age, Construct, Demolish, GameState, Populate, Renovate, Upgrade
from rules import events as ev

from ..texts import ecu_word, who
from ..words import Text, say

#: the actions that are paid in cards (R16–R18)
_PAID = (Construct, Upgrade, Demolish, Populate, Renovate)


@dataclass(frozen=True)
class SeatStats:
    """What one seat did in a game. ``income`` and ``built`` are by Age (Might, Faith, Reason): the
    income collected in rounds 4 and 7 (R73–R77; bonuses are not income), and the buildings placed
    (built or upgraded into). Ripples (each shadow placed, R47–R50) and paradoxes (each building a
    ripple removed, R53) count for the player whose turn caused them. ``cards``: cards paid for
    actions (exchanges and discards are not spent)."""

    seat: int
    income: tuple[int, int, int] = (0, 0, 0)
    built: tuple[int, int, int] = (0, 0, 0)
    ripples: int = 0
    paradoxes: int = 0
    cards: int = 0


def game_stats(first: GameState, history: Iterable[tuple[Action | None, Sequence[ev.Event]]]) -> list[SeatStats]:
    """Each seat's statistics of the game that started at ``first`` and went through ``history``: each
    action (None where only its events are known) with its events."""
    seats = len(first.players)
    income = [[0, 0, 0] for _ in range(seats)]
    built = [[0, 0, 0] for _ in range(seats)]
    ripples, paradoxes, cards = [0] * seats, [0] * seats, [0] * seats
    turn = first.active  # whose turn it is: ripples and paradoxes are the turn's doing
    for action, events in history:
        if isinstance(action, _PAID):
            cards[action.player] += action.payment.cards.total
        for e in events:
            if isinstance(e, ev.TurnBegan):
                turn = e.player
            elif isinstance(e, ev.IncomePaid):
                income[e.player][e.age] += e.amount
            elif isinstance(e, (ev.Built, ev.Upgraded)):
                built[e.player][e.age] += 1
            elif isinstance(e, ev.Rippled):
                ripples[turn] += 1
            elif isinstance(e, ev.ParadoxRemoved):
                paradoxes[turn] += 1
    return [SeatStats(i, (income[i][0], income[i][1], income[i][2]), (built[i][0], built[i][1], built[i][2]),
                      ripples[i], paradoxes[i], cards[i]) for i in range(seats)]


def _many(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def describe_stats(state: GameState, stats: Sequence[SeatStats]) -> list[Text]:
    """A line per player for the final post: 'Ana (Red): income Might 4, Faith 6, Reason 9 Ecus;
    7 buildings, 2 ripples, 1 paradox; 16 cards spent.'"""
    out: list[Text] = []
    for s in stats:
        total = sum(s.income)
        out.append(say("📊 {who}: income {might} · {faith} · {reason} ({total} {ecus}); {built}, {ripples}, "
                       "{paradoxes}; {cards} spent.",
                       who=who(state, s.seat), might=f"{Age.MIGHT.title} {s.income[0]}",
                       faith=f"{Age.FAITH.title} {s.income[1]}", reason=f"{Age.REASON.title} {s.income[2]}",
                       total=total, ecus=ecu_word(total), built=_many(sum(s.built), "building", "buildings"),
                       ripples=_many(s.ripples, "ripple", "ripples"),
                       paradoxes=_many(s.paradoxes, "paradox", "paradoxes"), cards=_many(s.cards, "card", "cards")))
    return out
