"""The table service: everything a command does between parsing its options and sending the reply.

``Tiempo`` is the one object the front ends talk to. Each method takes the ``Caller`` (who asks,
where) and returns a ``Reply`` for them, or raises ``Refusal`` with the words to show. Messages for the
whole channel go out through the ``Outbox`` the front end provides, after the action that caused them
has been committed. Replies and posts are ``bot.words.Text``: what to say, which each front end
renders in its own form.

Behind it, parts with one job each (docs/layout.md):

* ``Games`` (games.py) — storage, and each game's state and history cached in front of it;
* ``Herald`` (herald.py) — what the channel hears: narration, the board after a turn, decisions, the ranking;
* ``Lobby`` (lobby.py) — open, join, leave, seat AI players, start, cancel, rematch;
* ``Table`` (table.py) — play a command, store it before anyone hears of it, undo;
* ``Info`` (info.py) — a private hand, the picture, the scores, the log, the rules reference;
* ``Suggestions`` (suggest.py) — what autocompletion offers;
* ``AISeats`` (seats.py) — AI players thinking off the event loop;
* ``TurnClock`` (clock.py) — turn limits.

Nothing here reveals a hand other than the caller's: public posts are made from the public view.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Sequence

from rules import Action, Age, GameState, keyed_seed

from ..play import Refusal
from ..storage import DatabaseBusyError, GameRecord, Storage
from .clock import TurnClock
from .exports import Exports, Progress
from .games import Games, version_of
from .herald import Herald
from .info import Info, rules_reference
from .lobby import AI_LEVELS, AI_NAMES, Lobby
from .messages import Attachment, Caller, Outbox, PanelView, Picture, Post, ReplayButton, ReplayView, Reply
from .panels import Panels
from .replay import Replays
from .seats import AISeats
from .suggest import Suggestions
from .table import Table

log = logging.getLogger("tiempo.service")


def new_seed() -> int:
    """A new game's deal: keyed by 128 bits from the operating system, so that no player can search
    for it from what they see (their hand, the first player)."""
    return keyed_seed(secrets.randbits(128))


class Tiempo:
    """The games of one bot: lobby, play, information and the background work.

    ``clock`` gives unix seconds (tests pass a fake); ``choose_ai`` decides an AI seat's next action
    (``bot.ai.choose_action`` by default, whose strong level's play-outs use ``ai_processes``
    processes at once); it runs in one worker process with ``ai_process``, else in a thread. ``owns``
    says whether a server is this process's (its Discord shard): only those games' turn limits and AI
    seats are driven here."""

    def __init__(self, storage: Storage, outbox: Outbox, *, default_turn_minutes: int = 0,
                 ai_think_seconds: float = 2.0, clock: Callable[[], float] = time.time,
                 choose_ai: Callable[..., Action] | None = None, render: bool = True,
                 seed_source: Callable[[], int] | None = None, ai_process: bool = False,
                 ai_processes: int = 1, owns: Callable[[int], bool] = lambda guild_id: True) -> None:
        self.storage = storage
        self.games = Games(storage, clock, owns)
        self.herald = Herald(self.games, outbox, render=render)
        self.table = Table(self.games, self.herald, drive=self._drive, clock=clock)
        self.seats = AISeats(self.games, self.herald, self.table.commit, think_seconds=ai_think_seconds,
                             choose=choose_ai, in_process=ai_process, processes=ai_processes)
        self.lobby = Lobby(self.games, self.herald, clock=clock,
                           seed_source=seed_source or new_seed,
                           default_turn_minutes=default_turn_minutes, drive=self._drive, stop=self.seats.stop)
        self.info = Info(self.games, self.herald, clock)
        self.suggestions = Suggestions(self.games)
        self.panels = Panels(self.games, self.table, render=render)
        self.turns = TurnClock(self.games, self.herald, self.table.commit, self._drive, clock)
        self.replays = Replays(self.games, self.herald)
        self.exports = Exports(self.replays, self.herald)

    def _drive(self, game_id: int) -> None:
        self.seats.drive(game_id)

    # -- lobby --
    async def new(self, caller: Caller, *, holdem: bool = False, seats: int = 5,
                  turn_minutes: int | None = None) -> Reply:
        return await self.lobby.new(caller, holdem=holdem, seats=seats, turn_minutes=turn_minutes)

    async def join(self, caller: Caller, game_id: int | None = None) -> Reply:
        return await self.lobby.join(caller, game_id)

    async def add_bot(self, caller: Caller, level: str = "greedy") -> Reply:
        return await self.lobby.add_bot(caller, level)

    async def leave(self, caller: Caller, game_id: int | None = None) -> Reply:
        return await self.lobby.leave(caller, game_id)

    async def cancel(self, caller: Caller, game_id: int | None = None, *, confirmed: bool = False) -> Reply:
        return await self.lobby.cancel(caller, game_id, confirmed=confirmed)

    async def start_game(self, caller: Caller, game_id: int | None = None) -> Reply:
        return await self.lobby.start(caller, game_id)

    async def rematch(self, caller: Caller, game_id: int) -> Reply:
        return await self.lobby.rematch(caller, game_id)

    # -- information --
    async def hand(self, caller: Caller, game_id: int | None = None, *, recap: bool = True) -> Reply:
        return await self.info.hand(caller, game_id, recap=recap)

    async def board(self, caller: Caller, age: Age | None = None, game_id: int | None = None) -> Reply:
        return await self.info.board(caller, age, game_id)

    async def status(self, caller: Caller) -> Reply:
        return await self.info.status(caller)

    async def game_log(self, caller: Caller, count: int = 15) -> Reply:
        return await self.info.log(caller, count)

    @staticmethod
    def rules(topic: str | None) -> Reply:
        return rules_reference(topic)

    # -- play --
    async def play(self, caller: Caller, command: str, options: dict[str, str | None],
                   game_id: int | None = None, version: str | None = None) -> Reply:
        return await self.table.play(caller, command, options, game_id, version)

    async def play_confirmed(self, caller: Caller, game_id: int, version: str, notation: str) -> Reply:
        return await self.table.play_confirmed(caller, game_id, version, notation)

    async def undo(self, caller: Caller) -> Reply:
        return await self.table.undo(caller)

    # -- the turn panel --
    async def panel(self, caller: Caller, game_id: int | None = None, version: str | None = None,
                    path: Sequence[str] = ()) -> Reply:
        return await self.panels.show(caller, game_id, version, path)

    async def panel_confirm(self, caller: Caller, game_id: int, version: str, path: Sequence[str]) -> Reply:
        return await self.panels.confirm(caller, game_id, version, path)

    async def panel_undo(self, caller: Caller, game_id: int) -> Reply:
        return await self.panels.undo(caller, game_id)

    # -- autocompletion --
    async def suggest_cells(self, caller: Caller, command: str, typed: str, *, kind: str | None = None,
                            age: str | None = None, target: str | None = None) -> list[str]:
        return await self.suggestions.cells(caller, command, typed, kind=kind, age=age, target=target)

    async def why_no_suggestion(self, caller: Caller, command: str, typed: str = "", *, kind: str | None = None,
                                target: str | None = None) -> str:
        return await self.suggestions.why_none(caller, command, typed, kind=kind, target=target)

    async def suggest_cards(self, caller: Caller, command: str, typed: str) -> list[str]:
        return await self.suggestions.cards(caller, command, typed)

    async def suggest_payments(self, caller: Caller, command: str, options: dict[str, str | None],
                               typed: str) -> list[tuple[str, str]]:
        return await self.suggestions.payments(caller, command, options, typed)

    # -- the games, and the background work --
    def state_of(self, game: GameRecord) -> GameState:
        """The current state of a started game."""
        return self.games.state_of(game)

    async def resume(self) -> None:
        """After a start-up: send the posts a stop left unsent, and let every game waiting on an AI seat
        go on."""
        await self.herald.courier.resume()
        await self.seats.resume()

    async def tick(self) -> None:
        """Turn limits: warn at half time, end the turns whose time ran out. Then send what the outbox
        still holds for this process's servers: posts of a commit whose outcome the database left in
        doubt (stored, yet reported as failed), or stored while the channel's sender was stopped."""
        await self.turns.tick()
        await self.herald.courier.resume()

    async def run_timers(self, every: float = 15.0) -> None:
        """``tick`` every ``every`` seconds until cancelled; a failure is logged, not fatal."""
        while True:
            try:
                await self.tick()
            except DatabaseBusyError:  # another program holds the database: the next check does it
                log.warning("timers put off: the database is busy")
            except Exception:
                log.exception("timers failed")
            await asyncio.sleep(every)

    async def idle(self) -> None:
        """Wait until no AI seat is thinking (for tests and the console)."""
        await self.seats.idle()

    async def close(self) -> None:
        """Stop the background work."""
        await self.seats.close()
        await self.herald.courier.close()

    # -- replay and export (bot/service/replay.py, exports.py) --
    async def replay(self, caller: Caller, game_id: int | None = None, step: int | None = None, *,
                     hands: bool = False, public: bool = False) -> Reply:
        """Step ``step`` of a game (0 the deal, then one per turn; None the newest) with its
        ``ReplayView`` controls; every hand too with ``hands``, once the game is over."""
        return await self.replays.show(caller, game_id, step, hands=hands, public=public)

    async def export(self, caller: Caller, game_id: int | None = None, progress: Progress | None = None) -> Reply:
        """A finished game's record, animation and web page as ``Reply.files``; ``progress(done, total)``
        is awaited as the pictures are drawn."""
        return await self.exports.export(caller, game_id, progress)


__all__ = ["AI_LEVELS", "AI_NAMES", "Attachment", "Caller", "Outbox", "PanelView", "Picture", "Post", "Progress",
           "Refusal", "ReplayButton", "ReplayView", "Reply", "Tiempo", "version_of"]
