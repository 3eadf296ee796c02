"""The console's session at a table: whose hands are at the keyboard, what the last answers left to act
on (a turn panel, something to confirm), the prompt, and waiting while AI players think. It reads the
game only through the service's read model (``TableState``)."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from ..service import (
    Caller,
    CancelButton,
    ConfirmButton,
    HandButtons,
    LessonControls,
    LessonView,
    PanelControls,
    PanelView,
    Post,
    Refusal,
    ReplayControls,
    ReplayView,
    StorageError,
    TableState,
    Tiempo,
)
from ..words import Command, Text, say
from .terminal import Screen

#: the console's one server and channel (people get user ids 1, 2, …)
GUILD_ID = 1
CHANNEL_ID = 1


@dataclass
class ConsoleTable:
    """One console session: the service, the screen, who sits at the keyboard, and what the last
    private answer offers to type (``pick``/``ok``/``back``/``menu`` act on its turn panel, ``yes``
    confirms what it warned about)."""

    service: Tiempo
    screen: Screen
    humans: list[Caller] = field(default_factory=list)
    game_id: int | None = None
    #: the turn panel shown last (its numbered choices, ``ok``, ``back`` and ``menu`` act on it)
    panel: PanelView | None = None
    #: the course's message shown last (a lesson's or the list's numbered choices, ``ok``, ``back``, ``menu``)
    lesson: LessonView | None = None
    #: an action the player was warned about and may confirm with ``yes``: (game, version, notation)
    unconfirmed: tuple[int, str, str] | None = None
    #: a game in play whose cancelling the player may confirm with ``yes``
    unconfirmed_cancel: int | None = None
    #: ``away`` typed by the only person at the table: the game it would hand over, once ``yes`` is typed
    unconfirmed_away: int | None = None
    #: the replay step shown last (``next`` and ``prev`` step from it)
    replay: ReplayView | None = None
    #: the game version the last public post showed the board of (it said whose turn it is)
    last_board: str | None = None
    #: the channel's posts while a command runs, to print in order with its answer
    held: list[Post] | None = None
    _announced: set[tuple[int, int, bool]] = field(default_factory=set)
    _last_human: int | None = None
    _greeted: tuple[int, int] | None = None

    # -- printing ---------------------------------------------------------------------------------

    def say(self, text: Text | str = "") -> None:
        self.screen.say(text)

    def whisper(self, text: Text | str) -> None:
        self.screen.whisper(text)

    def show(self, post: Post, *, public: bool, to: Caller | None = None) -> None:
        """A post (public) or a reply (private: indented) as the terminal shows it; ``to`` names who a
        private reply is for when several people share the keyboard. A private reply's controls become
        what ``yes`` and the panel's words act on; a private reply with none (a look at the hand, the
        rules) leaves the panel and the question shown before as they were, as on Discord."""
        several = to is not None and len(self.humans) > 1
        self.screen.post(post, public=public, for_name=to.name if several and to is not None else None)
        if public:
            self.last_board = None
        elif post.controls:
            self.unconfirmed, self.unconfirmed_cancel, self.panel, self.lesson = None, None, None, None
        for control in post.controls:
            match control:
                case HandButtons(version=version) if public:
                    self.last_board = version
                case ConfirmButton(game=game, version=version, notation=notation) if not public:
                    self.unconfirmed = (game, version, notation)
                case CancelButton(game=game) if not public:
                    self.unconfirmed_cancel = game
                case PanelControls(view=view) if not public:
                    self.panel = view
                    self.screen.panel(view)
                case ReplayControls(view=view):
                    self.replay = view
                    self.screen.replay(view, public=public)
                case LessonControls(view=lesson) if not public:
                    self.lesson = lesson
                    self.screen.lesson(lesson)

    # -- the game ---------------------------------------------------------------------------------

    async def where(self) -> TableState | None:
        """The table's game as it stands, once it has started (None before)."""
        if self.game_id is None:
            return None
        at = await self.service.table_of(self.game_id)
        return at if at.started else None

    def remember_seats(self, at: TableState) -> None:
        self.game_id = at.game_id
        self.humans = [Caller(GUILD_ID, CHANNEL_ID, s.user_id, s.name, can_manage=True) for s in at.people]

    def someone(self) -> Caller:
        """Who types when the table has no game (``--learn``): the first person seated."""
        return self.humans[0] if self.humans else Caller(GUILD_ID, CHANNEL_ID, 1, "Player", can_manage=True)

    def caller_for(self, at: TableState) -> Caller:
        """The person at the keyboard: the seat the game waits on, else the last one who typed."""
        seat = at.seats[at.waiting_on]
        if seat.ai_level is None and not at.is_over:  # (a cancelled game still names the seat it waited on)
            self._last_human = seat.user_id
        wanted = self._last_human
        return next((c for c in self.humans if c.user_id == wanted), self.humans[0])

    async def settle(self) -> None:
        """Wait until no AI seat is thinking, saying who thinks when it takes a moment."""
        idle = asyncio.ensure_future(self.service.idle())
        try:
            while not idle.done():
                await asyncio.wait({idle}, timeout=0.3)
                if idle.done():
                    break
                at = await self.where()
                if at is None or at.thinking is None:
                    continue
                key = (at.turn, at.waiting_on, at.deciding)
                if key in self._announced:
                    continue
                self._announced.add(key)
                if not at.deciding and self.last_board == at.version:
                    continue  # the board post just said who is thinking
                self.say(say("… {name} is thinking", name=at.thinking))
        finally:
            await idle

    async def prompt(self) -> str:
        """The prompt for the next line; greets a person at the start of their turn."""
        self.screen.prompted()
        at = await self.where()
        if at is None:
            return "> "
        if at.is_cancelled:
            return self.screen.words(say("[game #{id} was cancelled] > ", id=at.game_id))
        if not at.is_playing:
            return self.screen.words(say("[game #{id} is over] > ", id=at.game_id))
        name = at.labels[at.waiting_on]
        if at.thinking is not None:
            return self.screen.words(say("[waiting for {name}] > ", name=name))
        turn = (at.turn, at.waiting_on)
        if not at.deciding and self._greeted != turn and at.active == at.waiting_on:
            self._greeted = turn
            await self.greet(at)
        template = "[round {round}] {name}, choose > " if at.deciding else "[round {round}] {name} > "
        return self.screen.words(say(template, round=at.round, name=name))

    async def greet(self, at: TableState) -> None:
        """The start of a person's turn: with one person at the table, their hand at once; with several,
        who takes the keyboard."""
        caller = self.caller_for(at)
        if len(self.humans) > 1:
            self.say()
            self.say(say("── Pass the keyboard to {name}. {hand} shows your cards. ──", name=at.labels[at.active],
                         hand=Command("hand")))
            return
        with contextlib.suppress(Refusal, StorageError):
            reply = await self.service.hand(caller, recap=False)  # the console has just printed what happened
            self.whisper(reply.text)

    def greeted_anew(self) -> None:
        """A new game at the table (a rematch): its first turn is greeted again."""
        self._greeted = None


class TerminalOutbox:
    """The service's channel posts, printed (the console sets ``table`` before the first post); while
    a command runs they wait, to be printed in order with its answer."""

    def __init__(self) -> None:
        self.table: ConsoleTable | None = None

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        if self.table is None:
            return
        if self.table.held is not None:
            self.table.held.append(post)
        else:
            self.table.show(post, public=True)


__all__ = ["CHANNEL_ID", "GUILD_ID", "ConsoleTable", "TerminalOutbox"]
