"""A table as a front end reads it: which game, who sits where, the round, whose turn, who is
thinking, whether it is over or cancelled. ``TableState`` is a snapshot made from storage and the
cached state (``Games``); reading it changes nothing. The console prints its prompt from it and knows
whose hands are at the keyboard, without reading storage, game records or game states itself.

Also here: the words a front end offers for an option (Ages, buildings, rules topics) and
``parse_age``, so that a front end need not import ``rules`` to read or offer them; and ``panel_pick``,
the path a turn panel's numbered choice leads to."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from rules import Age, GameState, Kind, NotationError, is_keyed

from ..play import Refusal
from ..storage import GameRecord, SeatRecord, Status
from ..texts import RULES, who
from .games import Games, is_ai, version_of
from .messages import PanelView
from .steps import SEP

#: where a table is in its life: seats being taken, in play, over (ended with a ranking), cancelled
Phase = Literal["lobby", "playing", "over", "cancelled"]

#: the Ages, buildings and rules topics as a player types them (``Might``, ``Keep``, ``ripples``)
AGE_NAMES: tuple[str, ...] = tuple(a.title for a in Age)
BUILDING_NAMES: tuple[str, ...] = tuple(k.value for k in Kind)
RULE_TOPICS: tuple[str, ...] = tuple(RULES)


@dataclass(frozen=True)
class TableState:
    """A game at a table, as the players see it from outside their hands.

    ``seats`` in the order of play, ``labels`` their names as the channel writes them (``Ana (Red)``).
    Before the game starts (``started`` false) the turn fields are 0. ``active`` is the seat whose turn
    it is, ``waiting_on`` the seat whose answer the game waits on (another's, for a decision of theirs),
    ``deciding`` whether that answer is a decision; ``stood_in`` the people's seats the AI plays for now
    (they are away: docs/ai.md). ``version`` is ``version_of`` the game: the position
    buttons and panels are drawn for."""

    game_id: int
    phase: Phase
    seed: int
    holdem: bool
    seats: tuple[SeatRecord, ...]
    labels: tuple[str, ...]
    version: str
    started: bool = False
    round: int = 0
    turn: int = 0
    active: int = 0
    waiting_on: int = 0
    deciding: bool = False
    stood_in: tuple[int, ...] = ()

    @property
    def chosen_seed(self) -> int | None:
        """The seed, when someone chose it to play a deal again (``--seed``); None for a deal from a secret
        key, which is never shown: it would tell every hand."""
        return None if is_keyed(self.seed) else self.seed

    @property
    def is_playing(self) -> bool:
        return self.phase == "playing"

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def is_cancelled(self) -> bool:
        return self.phase == "cancelled"

    @property
    def waits_on_person(self) -> int | None:
        """The user id of the person the game waits on; None when it waits on an AI seat (or a person's
        the AI plays for now) or no one."""
        if not self.is_playing or not self.started:
            return None
        seat = self.seats[self.waiting_on]
        return None if is_ai(seat) or self.waiting_on in self.stood_in else seat.user_id

    @property
    def thinking(self) -> str | None:
        """The name of the AI seat the game waits on (it is thinking), or None; for a person's seat the
        AI plays while they are away, "the AI for" their name."""
        if not self.is_playing or not self.started:
            return None
        seat = self.seats[self.waiting_on]
        return seat.name if is_ai(seat) else f"the AI for {seat.name}" if self.waiting_on in self.stood_in else None

    @property
    def people(self) -> tuple[SeatRecord, ...]:
        """The seats of people (not AI players), in the order of play."""
        return tuple(s for s in self.seats if not is_ai(s))


def table_state(game: GameRecord, state: GameState | None) -> TableState:
    """The read model of ``game``, whose current state is ``state`` (None before it starts)."""
    if game.status is Status.CANCELLED:
        phase: Phase = "cancelled"
    elif game.status is Status.FINISHED or (state is not None and state.finished):
        phase = "over"
    else:
        phase = "playing" if game.status is Status.PLAYING else "lobby"
    labels = tuple(who(state, i).plain() if state is not None else s.name for i, s in enumerate(game.seats))
    base = TableState(game.id, phase, game.seed, bool(game.options.get("holdem")), game.seats, labels,
                      version_of(game))
    if state is None:
        return base
    return dataclasses.replace(base, started=True, round=state.round, turn=state.turn, active=state.active,
                               waiting_on=state.waiting_on, deciding=state.pending is not None,
                               stood_in=tuple(s.seat for s in game.stand_ins if s.is_standing))


class Tables:
    """Reads tables for the front ends (``Tiempo.table_in``, ``Tiempo.table_of``)."""

    def __init__(self, games: Games) -> None:
        self.games = games

    async def in_channel(self, channel_id: int) -> TableState | None:
        """The channel's open table (a lobby or a game in play), or None."""
        game = await self.games.storage.active_game_in_channel(channel_id)
        return None if game is None else self._read(game)

    async def of(self, game_id: int) -> TableState:
        """The table of game ``game_id`` (any status). Raises the storage's ``GameNotFoundError``."""
        return self._read(await self.games.storage.get_game(game_id))

    def _read(self, game: GameRecord) -> TableState:
        return table_state(game, None if game.snapshot is None else self.games.state_of(game))


def parse_age(text: str | None) -> Age | None:
    """The Age a player typed (``Faith``, ``f``), None for none. Raises Refusal with the rules' words
    (and an example) when it names no Age."""
    if not text:
        return None
    try:
        return Age.parse(text)
    except NotationError as err:
        raise Refusal(str(err)) from None


def panel_pick(panel: PanelView, number: int) -> tuple[str, ...]:
    """The path of ``panel``'s turn panel once its ``number``-th choice (from 1) is picked (what a pick
    from Discord's select menu sends). Raises IndexError for a number it does not show."""
    if not 1 <= number <= len(panel.choices):
        raise IndexError(f"the panel shows {len(panel.choices)} choices, not a number {number}")
    return (*panel.base, *panel.choices[number - 1].key.split(SEP))


__all__ = ["AGE_NAMES", "BUILDING_NAMES", "RULE_TOPICS", "Phase", "TableState", "Tables", "panel_pick", "parse_age",
           "table_state"]
