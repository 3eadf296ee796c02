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
* ``Courier`` (courier.py) — sends the outbox (the posts stored with each action), outside the games' locks;
* ``Moves`` (moves.py) — every move (a command, the panel, an AI seat, the turn clock) by one path, stored
  before anyone hears of it; undo;
* ``Info`` (info.py) — a private hand, the picture, the scores, the log, the rules reference;
* ``Suggestions`` (suggest.py) — what autocompletion offers;
* ``AISeats`` (seats.py) — AI players thinking off the event loop;
* ``TurnClock`` (clock.py) — turn limits;
* ``Tables`` (tables.py) — a table as the front ends read it (``TableState``: round, whose turn, who thinks).
* ``Panels`` (panels.py) — the turn panel: a player's step, shown privately, and the action they confirm.
* ``StandIns`` (standins.py, with warm.py) — seats the AI keeps warm while their person is away.

Nothing here reveals a hand other than the caller's: public posts are made from the public view.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from rules import Action, Age, GameState, keyed_seed
from rules import events as ev

from ..ai import DEFAULT_LEVEL, Chooser
from ..play import Disagreement, Refusal, RefusalCode, Stale
from ..storage import MODES as NOTIFY_MODES
from ..storage import DatabaseBusyError, DatabaseFaultError, GameRecord, Storage, StorageError
from ..storage.check import DatabaseUnusableError, check_database
from .catalogue import CATALOGUE, PATHS, Entry, Person
from .clock import TurnClock
from .community import Community
from .course import Tip, tips_on
from .exports import Exports, Progress
from .games import Games, version_of
from .herald import Herald
from .hints import HINT_BUDGET_S, Hints, hints_on
from .info import Info, rules_reference
from .lessons import Lessons
from .lobby import AI_LEVELS, AI_NAMES, Lobby
from .messages import (
    Answers,
    Attachment,
    Caller,
    CancelButton,
    ConfirmButton,
    Control,
    DirectOutbox,
    DMClosed,
    HandButtons,
    LessonControls,
    LessonView,
    LobbyButtons,
    Outbox,
    PanelControls,
    PanelView,
    Picture,
    PlayButton,
    Post,
    RematchButton,
    ReplayButton,
    ReplayControls,
    ReplayView,
    Reply,
    SendLater,
)
from .moves import Moves
from .panels import Panels
from .replay import Replays, cut
from .review import REVIEW_DEALS, REVIEW_ITERATIONS, Reviews, costliest, review_costs, seat_words, turn_pictures
from .seats import AISeats
from .standins import StandIns
from .steps import SEP, Choice
from .suggest import LIMIT as SUGGESTIONS
from .suggest import Suggestions
from .tables import AGE_NAMES, BUILDING_NAMES, RULE_TOPICS, Tables, TableState, panel_pick, parse_age

log = logging.getLogger("tiempo.service")


def new_seed() -> int:
    """A new game's deal: keyed by 128 bits from the operating system, so that no player can search
    for it from what they see (their hand, the first player)."""
    return keyed_seed(secrets.randbits(128))


class Tiempo:
    """The games of one bot: lobby, play, information and the background work.

    ``clock`` gives unix seconds (tests pass a fake); ``choose_ai`` decides an AI seat's next action
    (called like ``bot.ai.Players.choose``; by default the ``bot.ai`` players, whose strong level's
    play-outs use ``ai_processes`` processes at once); it runs in one worker process with
    ``ai_process``, else in a thread. ``owns``
    says whether a server is this process's (its Discord shard): only those games' turn limits and AI
    seats are driven here."""

    def __init__(self, storage: Storage, outbox: Outbox, *, default_turn_minutes: int = 0,
                 ai_think_seconds: float = 2.0, clock: Callable[[], float] = time.time,
                 choose_ai: Callable[..., Action] | None = None, render: bool = True,
                 seed_source: Callable[[], int] | None = None, ai_process: bool = False,
                 ai_processes: int = 1, owns: Callable[[int], bool] = lambda guild_id: True,
                 reminder_minutes: int = 10) -> None:
        self.storage = storage
        self.owns_storage = False  # opened by ``open``: closed with the service
        self.games = Games(storage, clock, owns)
        self.herald = Herald(self.games, outbox, render=render, reminder_minutes=reminder_minutes)
        self.herald.courier.clock = clock
        self.moves = Moves(self.games, self.herald, drive=self._drive, clock=clock)
        self.seats = AISeats(self.games, self.herald, self.moves, think_seconds=ai_think_seconds,
                             choose=choose_ai, in_process=ai_process, processes=ai_processes)
        self.lobby = Lobby(self.games, self.herald, clock=clock, seed_source=seed_source or new_seed,
                           default_turn_minutes=default_turn_minutes, drive=self._drive, stop=self.seats.stop)
        self.info = Info(self.games, self.herald, clock)
        self.suggestions = Suggestions(self.games)
        self.panels = Panels(self.games, self.moves, render=render)
        self.turns = TurnClock(self.games, self.herald, self.moves, clock)
        self.tables = Tables(self.games)
        self.replays = Replays(self.games, self.herald)
        self.exports = Exports(self.replays, self.herald)
        self.reviews = Reviews(self.replays, self.seats.analyse, render_pictures=render)
        self.standins = StandIns(self.games, self.herald, drive=self._drive, clock=clock)
        self.hints = Hints(self.games, self.seats.analyse, self.panels.show,
                           budget_s=min(ai_think_seconds, HINT_BUDGET_S))

    @classmethod
    async def open(cls, database: str, outbox: Outbox, *, shared: bool = False, **options: Any) -> Tiempo:
        """The service over the games in ``database`` (a path, or a ``postgresql://`` URL), opened here
        and closed with it; ``shared``: other processes use it too (shards). Raises StorageError."""
        service = cls(await Storage.open(database, shared=shared), outbox, **options)
        service.owns_storage = True
        return service

    async def game_here(self, channel_id: int) -> int | None:
        """The id of the channel's active game, if it has one (for the front ends' logs)."""
        game = await self.storage.active_game_in_channel(channel_id)
        return None if game is None else game.id

    def _drive(self, game_id: int) -> None:
        self.seats.drive(game_id)

    # -- lobby --
    async def new(self, caller: Caller, *, holdem: bool = False, seats: int = 5,
                  turn_minutes: int | None = None, tips: bool = True, hints: bool = True) -> Reply:
        return await self.lobby.new(caller, holdem=holdem, seats=seats, turn_minutes=turn_minutes, tips=tips,
                                    hints=hints)

    async def join(self, caller: Caller, game_id: int | None = None) -> Reply:
        return await self.lobby.join(caller, game_id)

    async def add_bot(self, caller: Caller, level: str = DEFAULT_LEVEL) -> Reply:
        return await self.lobby.add_bot(caller, level)

    async def leave(self, caller: Caller, game_id: int | None = None) -> Reply:
        return await self.lobby.leave(caller, game_id)

    async def cancel(self, caller: Caller, game_id: int | None = None, *, confirmed: bool = False) -> Reply:
        return await self.lobby.cancel(caller, game_id, confirmed=confirmed)

    async def start_game(self, caller: Caller, game_id: int | None = None) -> Reply:
        return await self.lobby.start(caller, game_id)

    async def rematch(self, caller: Caller, game_id: int, *, everyone: bool = False) -> Reply:
        return await self.lobby.rematch(caller, game_id, everyone=everyone)

    # -- information --
    async def hand(self, caller: Caller, game_id: int | None = None, *, recap: bool = True) -> Reply:
        await self.standins.present(caller, game_id, plays=False)
        return await self.info.hand(caller, game_id, recap=recap)

    async def board(self, caller: Caller, age: Age | None = None, game_id: int | None = None) -> Reply:
        await self.standins.present(caller, game_id, plays=False)
        return await self.info.board(caller, age, game_id)

    async def status(self, caller: Caller) -> Reply:
        await self.standins.present(caller, plays=False)
        return await self.info.status(caller)

    async def game_log(self, caller: Caller, count: int = 15) -> Reply:
        await self.standins.present(caller, plays=False)
        return await self.info.log(caller, count)

    @staticmethod
    def rules(topic: str | None) -> Reply:
        return rules_reference(topic)

    # -- play --
    async def play(self, caller: Caller, command: str, options: dict[str, str | None],
                   game_id: int | None = None, version: str | None = None) -> Reply:
        seen = await self.standins.present(caller, game_id)
        return await self.moves.play(caller, command, options, game_id, version, seen=seen)

    async def play_confirmed(self, caller: Caller, game_id: int, version: str, notation: str) -> Reply:
        await self.standins.present(caller, game_id)
        return await self.moves.play_confirmed(caller, game_id, version, notation)

    async def undo(self, caller: Caller) -> Reply:
        await self.standins.present(caller)
        return await self.moves.undo(caller)

    # -- the turn panel --
    async def panel(self, caller: Caller, game_id: int | None = None, version: str | None = None,
                    path: Sequence[str] = ()) -> Reply:
        seen = await self.standins.present(caller, game_id)
        return await self.panels.show(caller, game_id, version, path, seen=seen)

    async def panel_confirm(self, caller: Caller, game_id: int, version: str, path: Sequence[str]) -> Reply:
        await self.standins.present(caller, game_id)
        return await self.panels.confirm(caller, game_id, version, path)

    async def panel_undo(self, caller: Caller, game_id: int) -> Reply:
        await self.standins.present(caller, game_id)
        return await self.panels.undo(caller, game_id)

    async def answer(self, caller: Caller, game_id: int, version: str, cell: str) -> Reply:
        return await self.panels.answer(caller, game_id, version, cell)

    # -- a hint on request (hints.py) --
    async def hint(self, caller: Caller, game_id: int | None = None) -> Reply:
        """What the AI's top level would play next for the caller, at the panel's confirm step, and why
        (``/tiempo me hint``, the panel's Hint button)."""
        await self.standins.present(caller, game_id)
        return await self.hints.hint(caller, game_id)

    # -- seats the AI keeps warm (standins.py, warm.py; docs/ai.md) --
    async def away(self, caller: Caller) -> Reply:
        """Hand the caller's seat to the AI until they take it back (``/tiempo me away``)."""
        return await self.standins.away(caller)

    async def back(self, caller: Caller) -> Reply:
        """Take the caller's seat back from the AI (``/tiempo me back``)."""
        return await self.standins.back(caller)

    # -- autocompletion --
    async def suggest_cells(self, caller: Caller, command: str, typed: str, *, kind: str | None = None,
                            age: str | None = None, target: str | None = None, limit: int = SUGGESTIONS
                            ) -> list[str]:
        return await self.suggestions.cells(caller, command, typed, kind=kind, age=age, target=target, limit=limit)

    async def suggest_described_cells(self, caller: Caller, command: str, typed: str, *, kind: str | None = None,
                                      age: str | None = None, target: str | None = None) -> list[tuple[str, str]]:
        return await self.suggestions.described_cells(caller, command, typed, kind=kind, age=age, target=target)

    async def why_no_suggestion(self, caller: Caller, command: str, typed: str = "", *, kind: str | None = None,
                                target: str | None = None) -> str:
        return await self.suggestions.why_none(caller, command, typed, kind=kind, target=target)

    async def suggest_cards(self, caller: Caller, command: str, typed: str, limit: int = SUGGESTIONS) -> list[str]:
        return await self.suggestions.cards(caller, command, typed, limit)

    async def suggest_payments(self, caller: Caller, command: str, options: dict[str, str | None],
                               typed: str, limit: int = SUGGESTIONS) -> list[tuple[str, str]]:
        return await self.suggestions.payments(caller, command, options, typed, limit)

    # -- reading a table (the console's prompt, who is at the keyboard) --
    async def table_in(self, channel_id: int) -> TableState | None:
        """The channel's open table (a lobby or a game in play), or None."""
        return await self.tables.in_channel(channel_id)

    async def table_of(self, game_id: int) -> TableState:
        """The table of game ``game_id``, whatever its status."""
        return await self.tables.of(game_id)

    # -- the games, and the background work --
    def state_of(self, game: GameRecord) -> GameState:
        """The current state of a started game."""
        return self.games.state_of(game)

    async def resume(self) -> None:
        """After a start-up: send the posts a stop left unsent, load what pictures need, let every game
        waiting on an AI seat go on, and record the results (and ratings) of games a stop left unrecorded."""
        await self.herald.resume()
        await self.seats.resume()
        await self.record_finished_games()

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
            except DatabaseFaultError as err:  # a full disk, PostgreSQL restarting: the next check does it
                log.warning("timers put off: %s", err.what)
            except Exception:
                log.exception("timers failed")
            await asyncio.sleep(every)

    async def posted(self, channel_id: int, reply: Reply, message_id: int) -> None:
        """The front end posted the public ``reply`` as message ``message_id`` of the channel: a reply
        with a ``key`` (a lobby) is remembered, so that the next one of that key, or the post that
        settles it (the start), takes its buttons away."""
        if reply.key is not None:
            await self.herald.courier.remember(channel_id, reply.key, message_id, reply)

    async def idle(self) -> None:
        """Wait until no AI seat is thinking (for tests and the console)."""
        await self.seats.idle()

    async def close(self) -> None:
        """Stop the background work."""
        await self.seats.close()
        await self.herald.courier.close()
        if self.owns_storage:
            await self.storage.close()

    # -- between games and after them (community.py) --
    @functools.cached_property
    def community(self) -> Community:
        """Profiles, ratings, leaderboards and the list of one's games."""
        return Community(self.games, self.games.clock)

    async def my_games(self, caller: Caller) -> Reply:
        """The caller's games in play on every server (works in a DM: ``caller.guild_id`` 0)."""
        return await self.community.games_of(caller)

    async def profile(self, caller: Caller, player_id: int | None = None, everywhere: bool = False,
                      player_name: str | None = None) -> Reply:
        """A person's finished games on this server (or, for oneself, on all)."""
        return await self.community.profile(caller, player_id, everywhere=everywhere, player_name=player_name)

    async def leaderboard(self, caller: Caller, page: int = 1) -> Reply:
        """The server's ratings, best first, ten a page."""
        return await self.community.leaderboard(caller, page)

    async def record_finished_games(self) -> int:
        """Record the finished games a crash left unrecorded (call at start-up, after ``resume``)."""
        return await self.community.catch_up()

    # -- the course (lessons.py, course.py; docs/course.md) --
    @functools.cached_property
    def lessons(self) -> Lessons:
        return Lessons(self.storage, render=self.herald.render)

    async def learn(self, caller: Caller) -> Reply:
        """The course's lessons, with the caller's progress (``/tiempo learn``)."""
        return await self.lessons.course(caller)

    async def learn_lesson(self, caller: Caller, lesson: str, stage: int = 0, path: Sequence[str] = ()) -> Reply:
        return await self.lessons.show(caller, lesson, stage, path)

    async def learn_confirm(self, caller: Caller, lesson: str, stage: int, path: Sequence[str]) -> Reply:
        return await self.lessons.confirm(caller, lesson, stage, path)

    async def learn_typed(self, caller: Caller, lesson: str, stage: int, move: str) -> Reply:
        return await self.lessons.typed(caller, lesson, stage, move)

    async def learn_reset(self, caller: Caller) -> Reply:
        return await self.lessons.reset(caller)

    async def first_time_tip(self, user_id: int, events: Sequence[ev.Event]) -> Tip | None:
        """The line to tell ``user_id`` the first time ``events`` show them a ripple, a paradox, a junction
        or an income round (marked given); None otherwise. The caller checks the game's ``tips_on``."""
        return await self.lessons.tip(user_id, events)

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

    # -- the review after the game (review.py) --
    async def review(self, caller: Caller, game_id: int | None = None, progress: Progress | None = None
                     ) -> tuple[Reply, ...]:
        """A finished game's review for one of its players, one reply per player (the caller's first;
        review.py); ``progress(done, total)`` is awaited after each turn is analysed."""
        return await self.reviews.review(caller, game_id, progress)

    # -- reminders that reach the player (reminders.py) --
    async def notify(self, caller: Caller, mode: str | None = None) -> Reply:
        """How the caller is told it is their turn, in every game on every server: ``channel`` (a
        mention), ``dm`` (a direct message after ``reminder_minutes``) or ``off``; without ``mode``, what
        it is now (``/tiempo notify``)."""
        return await self.herald.reminders.choose(caller, mode)


__all__ = [
    "AI_LEVELS",
    "AI_NAMES",
    "CATALOGUE",
    "SEP",
    "SUGGESTIONS",
    "Answers",
    "Caller",
    "CancelButton",
    "Choice",
    "ConfirmButton",
    "Control",
    "DatabaseUnusableError",
    "Disagreement",
    "HandButtons",
    "LobbyButtons",
    "Outbox",
    "PanelControls",
    "PanelView",
    "Picture",
    "PlayButton",
    "Post",
    "Refusal",
    "RefusalCode",
    "RematchButton",
    "Reply",
    "SendLater",
    "Stale",
    "StorageError",
    "Tiempo",
    "check_database",
    "version_of",
]
# what the console reads (its import of the service is all it imports of the project, with the words and settings)
__all__ += ["AGE_NAMES", "BUILDING_NAMES", "RULE_TOPICS", "Chooser", "Storage", "TableState",
            "new_seed", "panel_pick", "parse_age"]
__all__ += ["LessonControls", "LessonView", "Tip", "hints_on", "tips_on"]
__all__ += ["PATHS", "Entry", "Person"]
__all__ += ["Attachment", "Progress", "ReplayButton", "ReplayControls", "ReplayView"]
__all__ += ["NOTIFY_MODES", "DMClosed", "DirectOutbox"]
# the review after the game, as self-play gives it (bot/selfplay.py)
__all__ += ["REVIEW_DEALS", "REVIEW_ITERATIONS", "costliest", "cut", "review_costs", "seat_words", "turn_pictures"]
