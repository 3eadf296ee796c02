"""The table service: everything a command does between parsing its options and sending the reply.

``Tiempo`` owns the storage, the per-game locks and the background work (AI seats, turn limits). Each
method takes the ``Caller`` (who asks, where) and returns a ``Reply`` for them, or raises ``Refusal``
with the sentence to show. Messages for the whole channel (narration, the board after a turn, a
decision to answer, the final ranking) go out through the ``Outbox`` the front end provides, after the
action that caused them has been committed.

The Discord front end (``bot.discord_app``) and the terminal table (``bot.console``) are both thin
layers over this module, so they say the same things.

Nothing here reveals a hand other than the caller's: public posts are made from the public view.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from render import board_picture, game_picture
from rules import (
    Action,
    Age,
    Choose,
    Colour,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    GameState,
    Kind,
    Populate,
    Renovate,
    RuleError,
    Swap,
    Upgrade,
    apply,
    describe_decision,
    format_action,
    from_json,
    legal_actions,
    parse_action,
    placements,
    sub_multisets,
    to_json,
)
from rules import events as ev

from .ai import LEVEL_NAMES, LEVELS, AIWorker, Players, WorkerDied
from .play import Refusal, Seat, act, action_text, can_undo, start
from .storage import ActionRecord, ChannelBusyError, GameRecord, SeatRecord, Status, Storage
from .texts import RULES, describe_hand, describe_status, ecu_word, narrate, ranking, who

log = logging.getLogger("tiempo.service")

MAX_TEXT = 1900  # Discord allows 2000 characters in a message; keep room for a footer
AI_LEVELS = LEVEL_NAMES
AI_NAMES = {level.name: level.display for level in LEVELS}
#: the user id an AI seat carries (never a Discord user: snowflakes are far larger)
AI_USER_BASE = 1000


# ---------------------------------------------------------------------------------------------
# What goes in and out


@dataclass(frozen=True)
class Caller:
    """Who runs a command, and where. ``can_manage`` is Discord's "manage channel" right there."""

    guild_id: int
    channel_id: int
    user_id: int
    name: str
    can_manage: bool = False


@dataclass(frozen=True)
class Post:
    """A message. The front end turns the fields after ``png`` into buttons:

    * ``hand_game``: the persistent "My hand" button of that game (and "Board" to see it privately);
    * ``lobby_game``: Join, Leave and Start buttons of a lobby;
    * ``rematch_game``: a Rematch button after a finished game;
    * ``choices``: one button per option of a pending decision, ``(label, cell)``, for ``choice_game``
      at version ``version``.
    ``mentions`` are the users this message may ping."""

    text: str
    png: bytes | None = None
    filename: str = "tiempo.png"
    hand_game: int | None = None
    lobby_game: int | None = None
    rematch_game: int | None = None
    choice_game: int | None = None
    version: int = 0
    choices: tuple[tuple[str, str], ...] = ()
    mentions: tuple[int, ...] = ()


@dataclass(frozen=True)
class Reply(Post):
    """The answer to the caller: private (ephemeral) unless ``public``."""

    public: bool = False


class Outbox(Protocol):
    """Where the service posts to a channel (Discord, or the terminal)."""

    async def post(self, channel_id: int, post: Post) -> None:
        """Send ``post`` to the channel; errors are the front end's to log."""


@dataclass
class _History:
    """A game replayed from its first position: per accepted action, who played it and its events."""

    seq: int
    actions: list[tuple[ActionRecord, Action, list[ev.Event]]] = field(default_factory=list)


def trim(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters at a line break, saying that lines were left out."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    out: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > limit - 40:
            break
        out.append(line)
        size += len(line) + 1
    out.append(f"… ({len(lines) - len(out)} more lines)")
    return "\n".join(out)


def is_ai(seat: SeatRecord) -> bool:
    """Whether the seat is played by the computer."""
    return seat.ai_level is not None


def _seats(record: GameRecord) -> list[Seat]:
    return [Seat(s.user_id, s.name, Colour(s.colour), s.ai_level) for s in record.seats]


# ---------------------------------------------------------------------------------------------
# The service


class Tiempo:
    """The games of one bot: lobby, play, information and the background work.

    ``clock`` gives unix seconds (tests pass a fake); ``choose_ai`` decides an AI seat's next action,
    called like ``bot.ai.Players.choose`` (by default the ``bot.ai`` players, one per level, kept
    from turn to turn, whose strong level's play-outs use ``ai_processes`` processes at once); it
    runs in one worker process (``bot.ai.AIWorker``) with ``ai_process``, else in a thread."""

    def __init__(self, storage: Storage, outbox: Outbox, *, default_turn_minutes: int = 0,
                 ai_think_seconds: float = 2.0, clock: Callable[[], float] = time.time,
                 choose_ai: Callable[..., Action] | None = None, render: bool = True,
                 seed_source: Callable[[], int] | None = None, ai_process: bool = False,
                 ai_processes: int = 1) -> None:
        self.storage = storage
        self.outbox = outbox
        self.default_turn_minutes = default_turn_minutes
        self.ai_think_seconds = ai_think_seconds
        self.ai_processes = ai_processes
        self.clock = clock
        self._choose_ai = choose_ai
        self.render = render
        self.seed_source = seed_source or (lambda: secrets.randbelow(2**31))
        self._states: OrderedDict[int, tuple[int, GameState]] = OrderedDict()
        self._histories: OrderedDict[int, _History] = OrderedDict()
        self._ai_tasks: dict[int, asyncio.Task[None]] = {}
        self._closing = False
        #: AI seats think in one worker process, which keeps its players, so that a long search never
        #: slows the event loop; otherwise (or when the worker died) in a thread, with these players,
        #: which start no helper process in the bot's own process when it has a worker
        self._worker = AIWorker(workers=ai_processes, choose=choose_ai) if ai_process else None
        self._players = Players(workers=1 if ai_process else ai_processes)

    # -- loading ------------------------------------------------------------------------------

    async def _game_here(self, caller: Caller) -> GameRecord:
        game = await self.storage.active_game_in_channel(caller.channel_id)
        if game is None:
            raise Refusal("There is no game in this channel. Open one with `/tiempo new`.")
        return game

    async def _playing_here(self, caller: Caller) -> GameRecord:
        game = await self.storage.active_game_in_channel(caller.channel_id)
        if game is None:  # the last game here, if it is over: its board, log and ranking stay readable
            ended = [g for g in await self.storage.list_games(Status.FINISHED, guild_id=caller.guild_id)
                     if g.channel_id == caller.channel_id]
            if ended:
                return max(ended, key=lambda g: g.id)
            raise Refusal("There is no game in this channel. Open one with `/tiempo new`.")
        if game.status is Status.LOBBY:
            raise Refusal(f"Game #{game.id} has not started yet: {len(game.seats)} seated. "
                          "Its opener starts it with `/tiempo start`.")
        return game

    def state_of(self, game: GameRecord) -> GameState:
        """The current state of a started game (cached by version)."""
        cached = self._states.get(game.id)
        if cached is not None and cached[0] == game.action_count:
            self._states.move_to_end(game.id)
            return cached[1]
        assert game.snapshot is not None
        state = from_json(game.snapshot)
        self._remember(game.id, game.action_count, state)
        return state

    def _remember(self, game_id: int, version: int, state: GameState) -> None:
        self._states[game_id] = (version, state)
        self._states.move_to_end(game_id)
        while len(self._states) > 256:
            self._states.popitem(last=False)

    def first_state(self, game: GameRecord) -> GameState:
        """The position the game started from."""
        return start(_seats(game), seed=game.seed, holdem=bool(game.options.get("holdem")))

    async def history(self, game: GameRecord) -> _History:
        """The game's actions with their events, replayed from its first position (cached)."""
        h = self._histories.get(game.id)
        if h is None or h.seq > game.action_count:
            h = _History(0)
        if h.seq < game.action_count:
            records = await self.storage.list_actions(game.id, after=h.seq)
            state = self.first_state(game) if h.seq == 0 else None
            if state is None:
                state = self._replay_to(game, h)
            for r in records:
                action = parse_action(r.action, state)
                state, events = apply(state, action)
                h.actions.append((r, action, events))
                h.seq = r.seq
        self._histories[game.id] = h
        self._histories.move_to_end(game.id)
        while len(self._histories) > 64:
            self._histories.popitem(last=False)
        return h

    def _replay_to(self, game: GameRecord, h: _History) -> GameState:
        state = self.first_state(game)
        for _, action, _ in h.actions:
            state, _ = apply(state, action)
        return state

    def _note(self, game_id: int, record: GameRecord, action: Action, events: list[ev.Event],
              state: GameState, actor_id: int, text: str) -> None:
        self._remember(game_id, record.action_count, state)
        h = self._histories.get(game_id)
        if h is not None and h.seq == record.action_count - 1:
            h.actions.append((ActionRecord(game_id, record.action_count, actor_id, text, self.clock()), action,
                              events))
            h.seq = record.action_count

    # -- lobby ----------------------------------------------------------------------------------

    async def new(self, caller: Caller, *, holdem: bool = False, seats: int = 5,
                  turn_minutes: int | None = None) -> Reply:
        """Open a lobby in the caller's channel, with the caller in the first seat."""
        if not 2 <= seats <= 5:
            raise Refusal("A game has 2 to 5 seats.")
        if turn_minutes is not None and not 0 <= turn_minutes <= 7 * 24 * 60:
            raise Refusal("The turn limit is in minutes, from 0 (none) to 10080 (a week).")
        minutes = self.default_turn_minutes if turn_minutes is None else turn_minutes
        options = {"holdem": holdem, "seats": seats, "turn_minutes": minutes}
        first = SeatRecord(caller.user_id, caller.name, Colour.RED.value)
        try:
            game = await self.storage.create_game(guild_id=caller.guild_id, channel_id=caller.channel_id,
                                                  opener_id=caller.user_id, seed=self.seed_source(),
                                                  options=options, seats=[first], now=self.clock())
        except ChannelBusyError as busy:
            raise Refusal(f"This channel already has game #{busy.game_id}. Finish it or `/tiempo cancel` it "
                          "first (a thread counts as its own channel).") from None
        return self._lobby_reply(game, f"{caller.name} opens game #{game.id}.")

    def _lobby_text(self, game: GameRecord) -> str:
        seats = int(game.options.get("seats", 5))
        minutes = int(game.options.get("turn_minutes", 0))
        rules = ["Hold'em variant" if game.options.get("holdem") else "standard rules",
                 f"{minutes} min per turn" if minutes else "no turn limit"]
        lines = [f"**Khronos — game #{game.id}** ({', '.join(rules)}). Seats: {len(game.seats)}/{seats}."]
        for s in game.seats:
            tag = f" — AI ({s.ai_level})" if is_ai(s) else ""
            lines.append(f"• {s.colour} {s.name}{tag}")
        lines.append("Join with `/tiempo join` (or the button); the opener starts with `/tiempo start` "
                     "once 2–5 players are seated.")
        return "\n".join(lines)

    def _lobby_reply(self, game: GameRecord, headline: str) -> Reply:
        return Reply(f"{headline}\n{self._lobby_text(game)}", lobby_game=game.id, public=True)

    async def _lobby_here(self, caller: Caller, game_id: int | None = None) -> GameRecord:
        game = (await self.storage.get_game(game_id)) if game_id is not None else await self._game_here(caller)
        if game.status is not Status.LOBBY:
            raise Refusal(f"Game #{game.id} has already {'started' if game.status is Status.PLAYING else 'ended'}.")
        return game

    async def join(self, caller: Caller, game_id: int | None = None) -> Reply:
        """Take the next free seat (and colour)."""
        game = await self._lobby_here(caller, game_id)
        async with self.storage.lock(game.id):
            game = await self._lobby_here(caller, game.id)
            if any(s.user_id == caller.user_id for s in game.seats):
                raise Refusal(f"You are already seated in game #{game.id}.")
            if len(game.seats) >= int(game.options.get("seats", 5)):
                raise Refusal(f"Game #{game.id} is full.")
            colour = self._free_colour(game)
            seats = [*game.seats, SeatRecord(caller.user_id, caller.name, colour)]
            game = await self.storage.update_lobby(game.id, seats=seats, now=self.clock())
        return self._lobby_reply(game, f"{caller.name} joins as {colour}.")

    @staticmethod
    def _free_colour(game: GameRecord) -> str:
        taken = {s.colour for s in game.seats}
        return next(c.value for c in Colour if c.value not in taken)

    async def add_bot(self, caller: Caller, level: str = "greedy") -> Reply:
        """Seat an AI player of ``level`` (the opener, or a channel manager)."""
        if level not in AI_LEVELS:
            raise Refusal(f"AI levels: {', '.join(AI_LEVELS)}.")
        game = await self._lobby_here(caller)
        async with self.storage.lock(game.id):
            game = await self._lobby_here(caller, game.id)
            self._check_opener(game, caller, "seat an AI player")
            if len(game.seats) >= int(game.options.get("seats", 5)):
                raise Refusal(f"Game #{game.id} is full.")
            colour = self._free_colour(game)
            used = {s.user_id for s in game.seats}
            user_id = next(AI_USER_BASE + i for i in range(5) if AI_USER_BASE + i not in used)
            name = AI_NAMES[level]
            taken = {s.name for s in game.seats}
            if name in taken:
                name = next(f"{name} {n}" for n in range(2, 7) if f"{name} {n}" not in taken)
            seats = [*game.seats, SeatRecord(user_id, name, colour, ai_level=level)]
            game = await self.storage.update_lobby(game.id, seats=seats, now=self.clock())
        return self._lobby_reply(game, f"{name}, an AI player ({level}), sits down as {colour}.")

    @staticmethod
    def _check_opener(game: GameRecord, caller: Caller, what: str) -> None:
        if caller.user_id != game.opener_id and not caller.can_manage:
            raise Refusal(f"Only the player who opened game #{game.id} (<@{game.opener_id}>) or someone who may "
                          f"manage this channel can {what}.")

    async def leave(self, caller: Caller, game_id: int | None = None) -> Reply:
        """Leave a lobby (a started game cannot be left: ask for it to be cancelled)."""
        game = await self._game_here(caller) if game_id is None else await self.storage.get_game(game_id)
        if game.status is Status.PLAYING:
            raise Refusal("The game has started; a seat cannot be left now. If it must stop, the opener or a "
                          "channel manager can `/tiempo cancel` it; otherwise the turn limit plays on for you.")
        game = await self._lobby_here(caller, game.id)
        async with self.storage.lock(game.id):
            game = await self._lobby_here(caller, game.id)
            if not any(s.user_id == caller.user_id for s in game.seats):
                raise Refusal(f"You are not seated in game #{game.id}.")
            seats = [s for s in game.seats if s.user_id != caller.user_id]
            if not seats:
                await self.storage.set_status(game.id, Status.CANCELLED, now=self.clock())
                return Reply(f"{caller.name} leaves; nobody is left, so game #{game.id} is cancelled.", public=True)
            game = await self.storage.update_lobby(game.id, seats=seats, now=self.clock())
        return self._lobby_reply(game, f"{caller.name} leaves.")

    async def cancel(self, caller: Caller) -> Reply:
        """Cancel the channel's game (the opener, or a channel manager)."""
        game = await self._game_here(caller)
        self._check_opener(game, caller, "cancel it")
        async with self.storage.lock(game.id):
            await self.storage.set_status(game.id, Status.CANCELLED, now=self.clock())
        self._stop_ai(game.id)
        return Reply(f"Game #{game.id} is cancelled by {caller.name}.", public=True)

    async def start_game(self, caller: Caller, game_id: int | None = None) -> Reply:
        """Start the lobby: deal, draw the first player, post the first board."""
        game = await self._lobby_here(caller, game_id)
        async with self.storage.lock(game.id):
            game = await self._lobby_here(caller, game.id)
            self._check_opener(game, caller, "start it")
            if len(game.seats) < 2:
                raise Refusal("Khronos needs at least 2 players: wait for someone to `/tiempo join`, or seat an "
                              "AI with `/tiempo addbot`.")
            state = self.first_state(game)
            game = await self.storage.start_game(game.id, to_json(state), turn_deadline=self._deadline(game),
                                                 now=self.clock())
            self._remember(game.id, game.action_count, state)
            opening = (f"Game #{game.id} begins: {len(game.seats)} players, 7 rounds. "
                       f"{who(state, state.active)} was drawn to play first.")
            await self._post_board(game, state, [opening], ())
        self._drive(game.id)
        return Reply(f"Game #{game.id} started.", public=False)

    def _deadline(self, game: GameRecord) -> float | None:
        minutes = int(game.options.get("turn_minutes", 0))
        return self.clock() + minutes * 60 if minutes else None

    async def rematch(self, caller: Caller, game_id: int) -> Reply:
        """A new lobby in the same channel with the same seats (the caller opens it)."""
        old = await self.storage.get_game(game_id)
        if old.status is not Status.FINISHED:
            raise Refusal(f"Game #{old.id} is not over.")
        if not any(s.user_id == caller.user_id for s in old.seats if not is_ai(s)):
            raise Refusal(f"Only the players of game #{old.id} can ask for its rematch.")
        seats = [caller_seat := next(s for s in old.seats if s.user_id == caller.user_id)]
        seats += [s for s in old.seats if s is not caller_seat]
        try:
            game = await self.storage.create_game(guild_id=old.guild_id, channel_id=old.channel_id,
                                                  opener_id=caller.user_id, seed=self.seed_source(),
                                                  options=dict(old.options), seats=seats, now=self.clock())
        except ChannelBusyError as busy:
            raise Refusal(f"This channel already has game #{busy.game_id}.") from None
        return self._lobby_reply(game, f"{caller.name} asks for a rematch of game #{old.id}: same seats.")

    # -- information ------------------------------------------------------------------------------

    def _seat(self, game: GameRecord, caller: Caller) -> int | None:
        for i, s in enumerate(game.seats):
            if s.user_id == caller.user_id and not is_ai(s):
                return i
        return None

    async def hand(self, caller: Caller, game_id: int | None = None) -> Reply:
        """The caller's private hand, with a recap of what happened since their last action."""
        game = await self._playing_here(caller) if game_id is None else await self.storage.get_game(game_id)
        if game.status is Status.LOBBY:
            raise Refusal(f"Game #{game.id} has not started: hands are dealt at `/tiempo start`.")
        if game.snapshot is None:
            raise Refusal(f"Game #{game.id} was cancelled before it started.")
        seat = self._seat(game, caller)
        state = self.state_of(game)
        if seat is None:
            return Reply(f"You are not playing in game #{game.id}; here is where it stands.\n"
                         + describe_status(state))
        text = describe_hand(state, seat)
        recap = await self.recap(game, seat)
        if recap:
            text = "**Since your last turn:**\n" + recap + "\n\n" + text
        if game.status is Status.CANCELLED:
            text = f"Game #{game.id} was cancelled.\n" + text
        return Reply(trim(text))

    async def recap(self, game: GameRecord, seat: int, limit: int = 12) -> str:
        """What the other players did since ``seat``'s last action, in words (at most ``limit`` lines)."""
        h = await self.history(game)
        state = self.state_of(game)
        lines: list[str] = []
        for _, action, events in reversed(h.actions):
            if action.player == seat and not isinstance(action, Choose):
                break
            lines[:0] = narrate(state, events)
        if len(lines) > limit:
            lines = [f"… ({len(lines) - limit} earlier lines)", *lines[-limit:]]
        return "\n".join(lines)

    async def board(self, caller: Caller, age: Age | None = None, game_id: int | None = None) -> Reply:
        """The picture of the whole game or of one Age, for the caller alone."""
        game = await self._playing_here(caller) if game_id is None else await self.storage.get_game(game_id)
        if game.snapshot is None:
            raise Refusal(f"Game #{game.id} has no board yet: it has not started.")
        state = self.state_of(game)
        events = await self._turn_events(game)
        png = await asyncio.to_thread(self._picture, state, age, events)
        what = f"{age.title}" if age is not None else "The three Ages"
        return Reply(f"{what} — game #{game.id}, round {state.round} of 7.", png=png,
                     filename=f"tiempo-{game.id}-{(age.title.lower() if age else 'game')}.png", hand_game=game.id,
                     version=game.action_count)

    def _picture(self, state: GameState, age: Age | None, events: Sequence[ev.Event]) -> bytes | None:
        if not self.render:
            return None
        return game_picture(state, None, events) if age is None else board_picture(state, age, None, events)

    async def _turn_events(self, game: GameRecord) -> list[ev.Event]:
        """The events since the current turn began (or of the last turn, right after it ended)."""
        h = await self.history(game)
        out: list[ev.Event] = []
        for _, _, events in reversed(h.actions):
            out[:0] = events
            if any(isinstance(e, ev.TurnEnded) for e in events) and len(out) > len(events):
                out = out[len(events):]
                break
        return out

    async def status(self, caller: Caller) -> Reply:
        """Round, whose turn, public scores and stock."""
        game = await self._playing_here(caller)
        state = self.state_of(game)
        text = f"**Game #{game.id}**\n" + describe_status(state)
        if game.turn_deadline is not None and not state.finished:
            left = max(0, int(game.turn_deadline - self.clock()))
            text += f"\nTurn time left: {left // 60} min {left % 60:02d} s."
        return Reply(text)

    async def game_log(self, caller: Caller, count: int = 15) -> Reply:
        """The last events of the game, in words."""
        game = await self._playing_here(caller)
        h = await self.history(game)
        state = self.state_of(game)
        lines: list[str] = []
        for _, _, events in h.actions:
            lines += narrate(state, events)
        if not lines:
            return Reply(f"Game #{game.id}: nothing has happened yet. {who(state, state.active)} plays first.")
        count = max(1, min(count, 50))
        shown = lines[-count:]
        return Reply(trim(f"**Game #{game.id} — the last {len(shown)} events:**\n" + "\n".join(shown)))

    @staticmethod
    def rules(topic: str | None) -> Reply:
        """The short rules reference."""
        if topic is None or topic not in RULES:
            topics = ", ".join(f"`{t}`" for t in RULES)
            head = "" if topic is None else f"No topic {topic!r}. "
            return Reply(f"{head}Topics: {topics}. Ask with `/tiempo rules topic:<topic>`.\n\n" + RULES["turn"])
        return Reply(RULES[topic])

    # -- play ---------------------------------------------------------------------------------------

    async def play(self, caller: Caller, command: str, options: dict[str, str | None],
                   game_id: int | None = None, version: int | None = None) -> Reply:
        """Play ``command`` with ``options`` for the caller; the channel hears what happened, the caller
        gets their hand back. ``version`` (from a button) refuses a click on a stale question."""
        game = await self._playing_here(caller) if game_id is None else await self.storage.get_game(game_id)
        if game.status is Status.FINISHED:
            raise Refusal(f"Game #{game.id} is over. Open another with `/tiempo new`, or press Rematch under its "
                          "final ranking.")
        if game.status is not Status.PLAYING:
            raise Refusal(f"Game #{game.id} is {game.status.value}.")
        async with self.storage.lock(game.id):
            game = await self.storage.get_game(game.id)
            if game.status is not Status.PLAYING:
                raise Refusal(f"Game #{game.id} is {game.status.value}.")
            if version is not None and version != game.action_count:
                raise Refusal("That question was already answered; here is the game as it is now.\n"
                              + describe_status(self.state_of(game)))
            state = self.state_of(game)
            if command == "upgrade" and not options.get("at"):
                options = {**options, "at": _upgrade_origin(state, self._seat(game, caller), options)}
            new, events, action = act(state, _seats(game), caller.user_id, command, options)
            game = await self._commit(game, state, new, action, events, caller.user_id)
        self._drive(game.id)
        seat = self._seat(game, caller)
        assert seat is not None
        return Reply(trim(describe_hand(new, seat)))

    async def _commit(self, game: GameRecord, before: GameState, new: GameState, action: Action,
                      events: list[ev.Event], actor_id: int) -> GameRecord:
        """Store the action, then tell the channel. Call with the game's lock held."""
        text = format_action(before, action)
        status = Status.FINISHED if new.finished else None
        if any(isinstance(e, (ev.TurnBegan, ev.GameEnded)) for e in events):
            game = await self.storage.append_action(
                game.id, game.next_seq, actor_id, text, to_json(new), status=status, now=self.clock(),
                turn_deadline=None if new.finished else self._deadline(game))
        else:
            game = await self.storage.append_action(game.id, game.next_seq, actor_id, text, to_json(new),
                                                    status=status, now=self.clock())
        self._note(game.id, game, action, events, new, actor_id, text)
        await self._announce(game, new, events)
        return game

    async def _announce(self, game: GameRecord, state: GameState, events: list[ev.Event]) -> None:
        """Narrate one action in the channel; after a turn, the board; after the game, the ranking."""
        lines = narrate(state, [e for e in events if not isinstance(e, ev.TurnBegan)])
        if state.finished:
            await self._post_final(game, state, lines)
            return
        ended = next((e for e in events if isinstance(e, ev.TurnEnded)), None)
        if ended is not None:
            turn_events = await self._turn_events(game)
            if is_ai(game.seats[ended.player]):  # an AI's turn is told in one message, with the board
                lines = narrate(state, [e for e in turn_events if not isinstance(e, ev.TurnBegan)])
            await self._post_board(game, state, lines, turn_events)
            return
        if state.pending is not None and any(isinstance(e, ev.DecisionRequested) for e in events):
            lines = narrate(state, [e for e in events if not isinstance(e, (ev.TurnBegan, ev.DecisionRequested))])
            await self.outbox.post(game.channel_id, self._decision_post(game, state, lines))
            return
        actor = self._actor(events, state)
        if lines and not (is_ai(game.seats[actor]) and actor == state.active):
            await self.outbox.post(game.channel_id, Post(trim("\n".join(lines))))

    @staticmethod
    def _actor(events: Sequence[ev.Event], state: GameState) -> int:
        for e in events:
            player = getattr(e, "player", None)
            if isinstance(player, int):
                return player
        return state.active

    def _decision_post(self, game: GameRecord, state: GameState, lines: list[str]) -> Post:
        assert state.pending is not None
        d = state.pending.decision
        seat = game.seats[d.player]
        ask = f"{self._mention(seat)}, " + _decision_question(state)
        choices = tuple((str(c), str(c)) for c in d.options) if len(d.options) <= 20 else ()
        if not choices:
            ask += " Answer with `/tiempo choose`."
        return Post(trim("\n".join([*lines, ask])), choice_game=game.id, version=game.action_count, choices=choices,
                    mentions=(seat.user_id,) if not is_ai(seat) else ())

    @staticmethod
    def _mention(seat: SeatRecord) -> str:
        return seat.name if is_ai(seat) else f"<@{seat.user_id}>"

    async def _post_board(self, game: GameRecord, state: GameState, lines: list[str],
                          events: Sequence[ev.Event]) -> None:
        png = await asyncio.to_thread(self._picture, state, None, events)
        seat = game.seats[state.waiting_on]
        scores = describe_status(state)
        turn = f"{self._mention(seat)}, your turn (round {state.round} of 7)." if not is_ai(seat) else (
            f"{seat.name} (AI) is thinking…")
        text = "\n".join([*lines, "", scores, "", turn])
        if state.pending is not None:
            post = self._decision_post(game, state, [*lines, "", scores])
            await self.outbox.post(game.channel_id, dataclasses.replace(
                post, png=png, filename=f"tiempo-{game.id}.png", hand_game=game.id))
            return
        await self.outbox.post(game.channel_id, Post(
            trim(text), png=png, filename=f"tiempo-{game.id}-r{state.round}.png", hand_game=game.id,
            version=game.action_count, mentions=(seat.user_id,) if not is_ai(seat) else ()))

    async def _post_final(self, game: GameRecord, state: GameState, narration: list[str]) -> None:
        png = await asyncio.to_thread(self._picture, state, None, ())
        lines = [*narration[-8:], "", f"**Game #{game.id} is over.**"]
        for place, seat, ecus in ranking(state):
            medal = {1: "🥇", 2: "🥈", 3: "🥉"}.get(place, f"{place}.")
            lines.append(f"{medal} {who(state, seat)} — {ecus} {ecu_word(ecus)}")
        lines.append("Play again with the same seats: press Rematch.")
        await self.outbox.post(game.channel_id, Post("\n".join(lines), png=png, filename=f"tiempo-{game.id}-final.png",
                                                      hand_game=game.id, rematch_game=game.id,
                                                      version=game.action_count))

    async def undo(self, caller: Caller) -> Reply:
        """Take back the caller's last action of this turn, when it revealed nothing hidden."""
        game = await self._playing_here(caller)
        async with self.storage.lock(game.id):
            game = await self.storage.get_game(game.id)
            seat = self._seat(game, caller)
            if seat is None:
                raise Refusal("You are not playing in this game.")
            h = await self.history(game)
            state = self.state_of(game)
            last = h.actions[-1] if h.actions else None
            if last is not None and state.pending is None and (
                    last[1].player != seat or any(isinstance(e, ev.TurnEnded) for e in last[2])):
                raise Refusal("Nothing of yours to undo: undo takes back only your own last action of the turn "
                              "you are playing.")
            why = can_undo(state, last[2] if last else (), last[1] if last else None)
            if why is not None:
                raise Refusal(why)
            assert last is not None
            before = self._replay_to(game, _History(0, h.actions[:-1]))
            game = await self.storage.truncate_last_action(game.id, game.action_count, to_json(before),
                                                           now=self.clock())
            h.actions.pop()
            h.seq = game.action_count
            self._remember(game.id, game.action_count, before)
            what = " ".join(narrate(before, last[2])[:2]).rstrip(".")
            await self.outbox.post(game.channel_id, Post(
                f"↩️ {who(before, seat)} takes back their last action (it was: {what})."))
        return Reply("Undone.\n" + describe_hand(before, seat))

    # -- autocompletion ------------------------------------------------------------------------------

    async def _seated_here(self, caller: Caller) -> tuple[GameState, int] | None:
        """The state of the game being played in the caller's channel and the caller's seat, if any."""
        game = await self.storage.active_game_in_channel(caller.channel_id)
        if game is None or game.status is not Status.PLAYING:
            return None
        seat = self._seat(game, caller)
        return None if seat is None else (self.state_of(game), seat)

    async def suggest_cells(self, caller: Caller, command: str, typed: str, *, kind: str | None = None,
                            age: str | None = None, target: str | None = None, limit: int = 25) -> list[str]:
        """Cells that make ``command`` legal for the caller now, filtered by what is typed (at most 25)."""
        seated = await self._seated_here(caller)
        if seated is None:
            return []
        state, seat = seated
        cells = _legal_cells(state, seat, command, kind, age, target)
        typed = typed.strip().upper()
        return [c for c in cells if c.startswith(typed)][:limit]

    async def suggest_cards(self, caller: Caller, command: str, typed: str, limit: int = 25) -> list[str]:
        """Card sets in the caller's hand (``MRC`` letters) for paying, exchanging or discarding."""
        seated = await self._seated_here(caller)
        if seated is None:
            return []
        state, seat = seated
        if state.active != seat or state.pending is not None:
            return []
        if command == "exchange" and not any(isinstance(a, Exchange) for a in legal_actions(state)):
            return []
        if command.startswith("swap") and not any(isinstance(a, Swap) for a in legal_actions(state)):
            return []
        if command == "swap-take":  # k cards of one colour from the reserve (R33)
            sets = sorted({str(c) for c in sub_multisets(state.reserve) if c.total and len(set(str(c))) == 1},
                          key=lambda t: (len(t), t))
        else:
            sets = sorted({str(c) for c in sub_multisets(state.players[seat].hand) if c.total},
                          key=lambda t: (len(t), t))
        typed = typed.strip().upper()
        return [t for t in sets if t.startswith(typed)][:limit]

    async def suggest_payments(self, caller: Caller, command: str, options: dict[str, str | None], typed: str,
                               limit: int = 25) -> list[str]:
        """The ways the caller may pay for the action the other options describe (``MM 1+1``: the cards,
        then how many each pawn plays), filtered by what is typed; empty when the action is not legal."""
        seated = await self._seated_here(caller)
        if seated is None:
            return []
        state, seat = seated
        if state.active != seat or state.pending is not None:
            return []
        try:
            act_text = action_text(command, {k: v for k, v in options.items() if k != "pay"})
            wanted = parse_action(f"{state.players[seat].colour.value} {act_text}", state)
        except (Refusal, ValueError, RuleError):
            return []
        key = format_action(state, wanted).split(" pay ")[0]
        texts = (format_action(state, a) for a in legal_actions(state) if type(a) is type(wanted))
        pays = [pay for head, sep, pay in (t.partition(" pay ") for t in texts) if sep and head == key]
        typed = typed.strip().upper()
        return [p for p in dict.fromkeys(pays) if p.upper().startswith(typed)][:limit]

    # -- background: AI seats and turn limits -------------------------------------------------------

    def _drive(self, game_id: int) -> None:
        """Let AI seats play while the game waits on one (in the background)."""
        if self._closing:
            return
        task = self._ai_tasks.get(game_id)
        if task is not None and not task.done():
            return
        self._ai_tasks[game_id] = asyncio.create_task(self._run_ai(game_id), name=f"tiempo-ai-{game_id}")

    def _stop_ai(self, game_id: int) -> None:
        task = self._ai_tasks.pop(game_id, None)
        if task is not None:
            task.cancel()

    async def _run_ai(self, game_id: int) -> None:
        try:
            while not self._closing:
                game = await self.storage.get_game(game_id)
                if game.status is not Status.PLAYING:
                    return
                state = self.state_of(game)
                seat = game.seats[state.waiting_on]
                if state.finished or not is_ai(seat):
                    return
                assert seat.ai_level is not None
                action = await self._think(state, state.waiting_on, seat.ai_level, game.seed * 1000 + state.turn)
                async with self.storage.lock(game_id):
                    fresh = await self.storage.get_game(game_id)
                    if fresh.action_count != game.action_count or fresh.status is not Status.PLAYING:
                        continue
                    new, events = apply(state, action)
                    await self._commit(fresh, state, new, action, events, seat.user_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("AI seat failed in game #%s", game_id)
            with contextlib.suppress(Exception):
                game = await self.storage.get_game(game_id)
                await self.outbox.post(game.channel_id, Post(
                    f"The AI player of game #{game_id} ran into a problem and stopped; its turn will end when the "
                    "turn limit runs out, or the opener can `/tiempo cancel` the game."))

    async def _think(self, state: GameState, seat: int, level: str, seed: int) -> Action:
        """The AI's action, decided off the event loop (in the worker process, or a thread); if the AI
        fails, a safe legal action instead (the first option of its decision, or the end of its turn),
        so that a game never stalls on a broken AI."""
        choose = self._choose_ai or self._players.choose
        try:
            if self._worker is not None:
                try:
                    return await asyncio.wrap_future(
                        self._worker.submit(state, seat, level, seed=seed, budget_s=self.ai_think_seconds))
                except WorkerDied:
                    log.exception("the AI worker process died; starting a new one, and thinking in a thread now")
            return await asyncio.to_thread(choose, state, seat, level, seed=seed, budget_s=self.ai_think_seconds)
        except Exception:
            log.exception("AI (%s) failed for seat %s; playing a safe action instead", level, seat)
            if state.pending is not None:
                return Choose(seat, state.pending.decision.options[0])
            ends = [a for a in legal_actions(state) if isinstance(a, EndTurn)]
            return min(ends, key=lambda a: a.discard.total)

    async def resume(self) -> None:
        """After a start-up: let every game waiting on an AI seat go on."""
        for game in await self.storage.list_games(Status.PLAYING):
            state = self.state_of(game)
            if is_ai(game.seats[state.waiting_on]):
                self._drive(game.id)

    async def tick(self) -> None:
        """Turn limits: warn at half time, and end the turn of a player whose time ran out."""
        now = self.clock()
        for game in await self.storage.games_with_deadlines():
            if game.turn_deadline is None or game.status is not Status.PLAYING:
                continue
            minutes = int(game.options.get("turn_minutes", 0))
            if now >= game.turn_deadline:
                await self._time_out(game.id)
            elif minutes and not game.half_warned and now >= game.turn_deadline - minutes * 30:
                state = self.state_of(game)
                seat = game.seats[state.waiting_on]
                await self.storage.mark_half_warned(game.id)
                if not is_ai(seat):
                    left = max(1, round((game.turn_deadline - now) / 60))
                    await self.outbox.post(game.channel_id, Post(
                        f"{self._mention(seat)}, half your turn time is gone: about {left} min left in game "
                        f"#{game.id}.", mentions=(seat.user_id,)))

    async def _time_out(self, game_id: int) -> None:
        async with self.storage.lock(game_id):
            game = await self.storage.get_game(game_id)
            if game.status is not Status.PLAYING or game.turn_deadline is None or self.clock() < game.turn_deadline:
                return
            state = self.state_of(game)
            active = state.active
            if state.waiting_on != active:
                note = (f"Time is up: {who(state, state.waiting_on)} did not answer, so the first choice is taken, "
                        f"and {who(state, active)}'s turn ends.")
            else:
                note = f"Time is up for {who(state, active)}: the turn ends" + (
                    ", taking the first choice of the open question." if state.pending is not None else ".")
            await self.outbox.post(game.channel_id, Post(note))
            for _ in range(50):  # answer pending decisions with their first option, then end the turn
                if state.finished or state.active != active:
                    break
                action: Action
                if state.pending is not None:
                    d = state.pending.decision
                    action = Choose(d.player, d.options[0])
                else:
                    ends = [a for a in legal_actions(state) if isinstance(a, EndTurn)]
                    if not ends:
                        break
                    action = min(ends, key=lambda a: a.discard.total)
                new, events = apply(state, action)
                game = await self._commit(game, state, new, action, events, game.seats[action.player].user_id)
                state = new
        self._drive(game_id)

    async def run_timers(self, every: float = 15.0) -> None:
        """Call ``tick`` every ``every`` seconds until cancelled; a failure is logged, not fatal."""
        while True:
            try:
                await self.tick()
            except Exception:
                log.exception("turn-limit check failed")
            await asyncio.sleep(every)

    async def close(self) -> None:
        """Stop the background work."""
        self._closing = True
        tasks = list(self._ai_tasks.values())
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(BaseException):
                await t
        if self._worker is not None:
            self._worker.close()
        self._players.close()

    async def idle(self) -> None:
        """Wait until no AI seat is thinking (for tests and the console)."""
        while True:
            tasks = [t for t in self._ai_tasks.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)


def _decision_question(state: GameState) -> str:
    assert state.pending is not None
    return describe_decision(state, state.pending.decision) + "."


AGE_LETTERS = {"M": Age.MIGHT, "F": Age.FAITH, "R": Age.REASON}


def _upgrades_of(state: GameState, seat: int, options: dict[str, str | None]) -> list[Upgrade]:
    """The legal upgrades of the building the options name into the kind they name, wherever it goes."""
    try:
        text = action_text("upgrade", {k: v for k, v in options.items() if k != "at"})
        named = parse_action(f"{state.players[seat].colour.value} {text}", state)
    except (Refusal, ValueError, RuleError):
        return []
    if not isinstance(named, Upgrade):
        return []
    return [a for a in legal_actions(state) if isinstance(a, Upgrade)
            and (a.age, a.target, a.kind) == (named.age, named.target, named.kind)]


def _upgrade_origin(state: GameState, seat: int | None, options: dict[str, str | None]) -> str | None:
    """Where an upgrade given without ``at`` goes: where the old building's top-left cell is, if that
    is legal; else the one legal place; with several, a Refusal that lists them (R29)."""
    if seat is None or state.active != seat:
        return None
    upgrades = _upgrades_of(state, seat, options)
    if not upgrades:
        return None  # the engine will say why
    origins = list(dict.fromkeys(str(a.origin) for a in upgrades))
    target = str(upgrades[0].target)
    if target in origins:
        return target
    if len(origins) == 1:
        return origins[0]
    raise Refusal(f"The bigger building can go in several places: add `at:` with its top-left cell, one of "
                  f"{', '.join(origins)}.")


def _legal_cells(state: GameState, seat: int, command: str, kind: str | None, age: str | None,
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
        return list(dict.fromkeys(str(a.origin) for a in _upgrades_of(state, seat, options)))
    if command == "build" and kind:
        try:
            k = Kind.parse(kind)
        except ValueError:
            return []
        cells: list[str] = []
        for a in ages:
            if a is Age.REASON:
                continue
            with contextlib.suppress(RuleError, ValueError):
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


__all__ = ["Caller", "Outbox", "Post", "Refusal", "Reply", "Tiempo", "trim"]
