"""The games of one bot as the service reads them: storage, the current state of each game (cached by
version) and its history of actions with their events (cached, replayed from the first position)."""

from __future__ import annotations

import hashlib
import hmac
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rules import Action, GameState, apply, from_json, parse_action
from rules import events as ev

from ..play import Refusal, RefusalCode, start
from ..storage import ActionRecord, GameRecord, SeatRecord, Status, Storage
from ..words import IN_HERE, Command, Text, say
from .messages import Caller

#: how many games' states, histories and turn logs stay in memory (a turn log is a few events: one
#: for every game a busy bot serves, so that an end of turn never replays a whole game). A state is
#: 40-60 kB: 1,024 of them, for as many games played at once, about 60 MB (with 256, a bot serving 450
#: games by taps read every tap's position from its snapshot again: a fifth more CPU an answer)
STATES_KEPT = 1024
HISTORIES_KEPT = 64
TURNS_KEPT = 2048
#: how many games' last turn starts are kept (two positions each: an end of turn's post compares the
#: position after it with the one its turn began from, without replaying the game; as many as games
#: played at once, as ``STATES_KEPT``: a game forgotten is replayed from its start at its next end of turn)
STARTS_KEPT = 1024
#: how many games' counts of changes are kept (see ``Games.changes``)
CHANGES_KEPT = 4096


@dataclass
class History:
    """A game replayed from its first position: per accepted action, who played it and its events."""

    seq: int
    actions: list[tuple[ActionRecord, Action, list[ev.Event]]] = field(default_factory=list)


def is_ai(seat: SeatRecord) -> bool:
    """Whether the seat is played by the computer."""
    return seat.ai_level is not None


def find_seat(game: GameRecord, caller: Caller) -> int | None:
    """The caller's seat in ``game``, or None if they do not play in it (``bot.play.seat_of`` refuses
    instead)."""
    for i, s in enumerate(game.seats):
        if s.user_id == caller.user_id and not is_ai(s):
            return i
    return None


def turn_deadline(game: GameRecord, now: float) -> float | None:
    """When a turn that begins ``now`` runs out (None without a turn limit)."""
    minutes = int(game.options.get("turn_minutes", 0))
    return now + minutes * 60 if minutes else None


def version_of(game: GameRecord) -> str:
    """The position a button or panel is drawn for, as its custom id carries it: ``12-3fa9c2``, the
    number of actions and a short digest of the stored position. The count alone is not enough: undo
    lowers it, so after an undo and another action the same count names another position. The digest
    is keyed by the game's seed, a secret that never leaves the server (128 bits of key: ``new_seed``),
    so a public button tells nothing of the hidden cards."""
    digest = hmac.new(str(game.seed).encode(), (game.snapshot or "").encode(), hashlib.sha256).hexdigest()
    return f"{game.action_count}-{digest[:6]}"


NO_GAME = say("There is no game {here}. Open one with {new}.", here=IN_HERE, new=Command("new"))


def over_words(game: GameRecord, *, already: bool = False) -> Text:
    """``Game #2 was cancelled.`` or ``Game #2 is over.`` (``already``: ``is already over``, to one who
    would end it): what became of a game no longer in play."""
    if game.status is Status.CANCELLED:
        return say("Game #{id} was cancelled.", id=game.id)
    return say("Game #{id} is already over.", id=game.id) if already else say("Game #{id} is over.", id=game.id)


class Games:
    """Storage and the caches in front of it."""

    def __init__(self, storage: Storage, clock: Callable[[], float],
                 owns: Callable[[int], bool] = lambda guild_id: True) -> None:
        self.storage = storage
        self.clock = clock
        #: whether this process serves a server (its shard): its games' timers and AI seats are ours
        self.owns = owns
        #: per game: (its action count, its stored snapshot, the state): both must match, since an undo
        #: and another action give the count again with another position
        self._states: OrderedDict[int, tuple[int, str | None, GameState]] = OrderedDict()
        self._histories: OrderedDict[int, History] = OrderedDict()
        #: per game: (version, the events of its current turn so far, or of the turn that just ended)
        self._turns: OrderedDict[int, tuple[int, list[ev.Event]]] = OrderedDict()
        #: per game: (the count of actions up to which every end of turn was seen, the last two
        #: positions a turn began from, each with the count of actions after which it began)
        self._starts: OrderedDict[int, tuple[int, tuple[tuple[int, GameState], ...]]] = OrderedDict()
        #: per game: how often a move or an undo changed its caches (the most recently changed
        #: ``CHANGES_KEPT`` games), and how many counts were forgotten: see ``changes``
        self._changes: OrderedDict[int, int] = OrderedDict()
        self._forgotten = 0

    def mine(self, game: GameRecord) -> bool:
        """Whether this process drives ``game``'s background work (several shard processes share one
        database; each drives the games of its own servers)."""
        return self.owns(game.guild_id)

    # -- finding a game ---------------------------------------------------------------------------

    async def here(self, caller: Caller) -> GameRecord:
        """The game open in the caller's channel (lobby or play)."""
        game = await self.storage.active_game_in_channel(caller.channel_id)
        if game is None:
            raise Refusal(NO_GAME, RefusalCode.NO_GAME)
        return game

    async def playing_here(self, caller: Caller, game_id: int | None = None) -> GameRecord:
        """The game ``game_id``, or the one being played in the caller's channel, or else the last one
        that ended there (its board, log and ranking stay readable) — unless the channel's last game was
        cancelled: then there is no game here, and the refusal names the cancelled one (a rematch
        cancelled is the game the caller means, not the one before it)."""
        if game_id is not None:
            return await self.storage.get_game(game_id)
        game = await self.storage.active_game_in_channel(caller.channel_id)
        if game is None:
            last = await self.last_ended_here(caller.channel_id)
            if last is None:
                raise Refusal(NO_GAME, RefusalCode.NO_GAME)
            if last.status is Status.CANCELLED:
                raise Refusal(say("{over} Open another with {new}.", over=over_words(last), new=Command("new")),
                              RefusalCode.GAME_OVER)
            return last
        if game.status is Status.LOBBY:
            raise Refusal(say("Game #{id} has not started yet: {n} seated. Its opener starts it with {start}.",
                              id=game.id, n=len(game.seats), start=Command("start")), RefusalCode.NOT_STARTED)
        return game

    async def last_ended_here(self, channel_id: int) -> GameRecord | None:
        """The channel's last game that ended, finished or cancelled (None if none did)."""
        ended = [g for status in (Status.FINISHED, Status.CANCELLED)
                 if (g := await self.storage.last_game_in_channel(channel_id, status)) is not None]
        return max(ended, key=lambda g: g.id, default=None)

    async def seated_here(self, caller: Caller) -> tuple[GameState, int] | None:
        """The state of the game being played in the caller's channel and the caller's seat, if any."""
        game = await self.storage.active_game_in_channel(caller.channel_id)
        if game is None or game.status is not Status.PLAYING:
            return None
        seat = find_seat(game, caller)
        return None if seat is None else (self.state_of(game), seat)

    # -- states -----------------------------------------------------------------------------------

    def state_of(self, game: GameRecord) -> GameState:
        """The current state of a started game (cached by its count of actions and snapshot)."""
        cached = self._states.get(game.id)
        if cached is not None and cached[0] == game.action_count and cached[1] == game.snapshot:
            self._states.move_to_end(game.id)
            return cached[2]
        if game.snapshot is None:
            raise Refusal(f"Game #{game.id} has no position yet: it has not started.", RefusalCode.NOT_STARTED)
        state = from_json(game.snapshot)
        self.remember(game, state)
        return state

    def remember(self, game: GameRecord, state: GameState) -> None:
        """Keep ``state`` as the state of ``game`` (as stored: its count of actions and snapshot)."""
        _keep(self._states, game.id, (game.action_count, game.snapshot, state), STATES_KEPT)

    @staticmethod
    def first_state(game: GameRecord) -> GameState:
        """The position the game started from."""
        return start(game.seats, seed=game.seed, holdem=bool(game.options.get("holdem")))

    # -- history ----------------------------------------------------------------------------------

    async def history(self, game: GameRecord) -> History:
        """The game's actions with their events, replayed from its first position (cached). A cached
        history is never changed in place (a reader may hold it across an await): it is replaced."""
        seen = self.changes(game.id)
        h = self._histories.get(game.id)
        if h is None or h.seq > game.action_count:  # none, or ahead of this (older) record of the game
            h = History(0)
        if h.seq < game.action_count:
            records = await self.storage.list_actions(game.id, after=h.seq)
            state = self.first_state(game) if h.seq == 0 else self.replay(game, h)
            actions = list(h.actions)
            for r in records:
                action = parse_action(r.action, state)
                state, events = apply(state, action)
                actions.append((r, action, events))
            h = History(records[-1].seq if records else h.seq, actions)
        if self.changes(game.id) == seen:  # no move or undo meanwhile
            _keep(self._histories, game.id, h, HISTORIES_KEPT)
        return h

    def replay(self, game: GameRecord, h: History) -> GameState:
        """The state after the actions of ``h``."""
        state = self.first_state(game)
        for _, action, _ in h.actions:
            state, _ = apply(state, action)
        return state

    def retold(self, game: GameRecord, h: History, start: int = 0) -> Iterator[tuple[Action, list[ev.Event],
                                                                                      GameState]]:
        """The actions of ``h`` from the ``start``-th on, each with its events and the state right
        after it: an action told again later is told with the names and income of its moment, not
        of now (a Keep downsized since is not called a Watchtower)."""
        state = self.first_state(game)
        for i, (_, action, events) in enumerate(h.actions):
            state, _ = apply(state, action)
            if i >= start:
                yield action, events, state

    def note(self, record: GameRecord, action: Action, events: list[ev.Event], state: GameState, actor_id: int,
             text: str) -> None:
        """An action was stored (``record`` is the game after it): update the caches."""
        self._changed(record.id)
        self.remember(record, state)
        turn = self._turns.get(record.id)
        if turn is not None and turn[0] == record.action_count - 1:
            ended = any(isinstance(e, ev.TurnEnded) for e in turn[1])
            _keep(self._turns, record.id, (record.action_count, list(events) if ended else [*turn[1], *events]),
                  TURNS_KEPT)
        else:
            self._turns.pop(record.id, None)
        starts = self._starts.get(record.id)
        if starts is not None and starts[0] == record.action_count - 1:
            kept = starts[1]
            if any(isinstance(e, ev.TurnEnded) for e in events):
                kept = (*kept[-1:], (record.action_count, state))
            _keep(self._starts, record.id, (record.action_count, kept), STARTS_KEPT)
        else:
            self._starts.pop(record.id, None)
        h = self._histories.get(record.id)
        if h is not None and h.seq == record.action_count - 1:
            _keep(self._histories, record.id, History(record.action_count, [*h.actions, (
                ActionRecord(record.id, record.action_count, actor_id, text, self.clock()), action, events)]),
                  HISTORIES_KEPT)

    def forget(self, game_id: int) -> None:
        """Drop what the caches hold of a game (they went ahead of the database)."""
        self._changed(game_id)
        self._states.pop(game_id, None)
        self._histories.pop(game_id, None)
        self._turns.pop(game_id, None)
        self._starts.pop(game_id, None)

    def forget_last(self, game: GameRecord, h: History, before: GameState, count: int = 1) -> None:
        """The last ``count`` actions were taken back (``game`` is the game after that): update the caches."""
        self._changed(game.id)
        self._histories[game.id] = History(game.action_count, h.actions[:-count])
        self._turns.pop(game.id, None)
        self._starts.pop(game.id, None)
        self.remember(game, before)

    async def turn_events(self, game: GameRecord) -> list[ev.Event]:
        """The events since the current turn began (or of the last turn, right after it ended)."""
        turn = self._turns.get(game.id)
        if turn is not None and turn[0] == game.action_count:
            self._turns.move_to_end(game.id)
            return list(turn[1])
        seen = self.changes(game.id)
        h = await self.history(game)
        out: list[ev.Event] = []
        for _, _, events in reversed(h.actions):
            out[:0] = events
            if any(isinstance(e, ev.TurnEnded) for e in events) and len(out) > len(events):
                out = out[len(events):]
                break
        if self.changes(game.id) == seen:  # no move or undo meanwhile
            _keep(self._turns, game.id, (h.seq, out), TURNS_KEPT)
        return list(out)

    async def turn_began(self, game: GameRecord) -> GameState:
        """The position the turn of the game's last action began from: the one after the last action
        before it that ended a turn (the first position if none did). Right after an end of turn, the
        position that turn began from. Kept per game as actions are noted (``note``), so that an end of
        turn does not replay the game; otherwise replayed from its history."""
        starts = self._starts.get(game.id)
        if starts is not None and starts[0] == game.action_count:
            self._starts.move_to_end(game.id)
            return _began(starts[1], game.action_count)
        seen = self.changes(game.id)
        h = await self.history(game)
        state = self.first_state(game)
        kept: tuple[tuple[int, GameState], ...] = ((0, state),)
        for record, action, events in h.actions:
            state, _ = apply(state, action)
            if any(isinstance(e, ev.TurnEnded) for e in events):
                kept = (*kept[-1:], (record.seq, state))
        if self.changes(game.id) == seen and h.seq == game.action_count:  # all of it, no move or undo meanwhile
            _keep(self._starts, game.id, (h.seq, kept), STARTS_KEPT)
        return _began(kept, game.action_count)

    def changes(self, game_id: int) -> tuple[int, int]:
        """A mark of the game's changes: a reader that awaited the database stores what it worked out
        only if the mark is the same after (else a move or an undo came between, and it may be stale).
        A game whose count was forgotten to bound memory changes every other game's mark too: safe."""
        return self._forgotten, self._changes.get(game_id, 0)

    def _changed(self, game_id: int) -> None:
        self._changes[game_id] = self._changes.get(game_id, 0) + 1
        self._changes.move_to_end(game_id)
        while len(self._changes) > CHANGES_KEPT:
            self._changes.popitem(last=False)
            self._forgotten += 1


def _began(starts: tuple[tuple[int, GameState], ...], count: int) -> GameState:
    """Of the positions turns began from (``(actions before it, position)``, oldest first), the last
    one before the ``count``-th action."""
    return next((state for seq, state in reversed(starts) if seq < count), starts[0][1])


def _keep(cache: OrderedDict[int, Any], game_id: int, value: Any, limit: int) -> None:
    """Keep ``value`` for the game as the most recently used of ``cache``, which holds ``limit`` at most."""
    cache[game_id] = value
    cache.move_to_end(game_id)
    while len(cache) > limit:
        cache.popitem(last=False)
