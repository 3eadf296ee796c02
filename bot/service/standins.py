"""Seats the AI keeps warm: a person's seat played by the ``greedy`` level while they are away.

A seat is handed to the AI when its player's turn times out twice in a row (a turn limit is on), or on
purpose (``/tiempo me away``). The seat keeps its person; the game records that the AI stands in
(``GameRecord.stand_ins``), and the AI thinks from the seat's own view, as for any AI seat: nothing
of the hand is shown to anyone. The channel is told each time the AI takes a seat over, at each turn
it plays for it, and when the person has it back.

The person takes it back with ``/tiempo me back`` — or, when it was handed over by the turn clock, with
any command or tap of theirs in the game. It is theirs again at once, unless the game waits on that
seat right now (the AI is in the middle of its turn, or of an answer): then the AI finishes that, and
the seat is theirs from the moment the game no longer waits on it (their next turn is theirs). A
person who handed their seat over on purpose keeps it handed over while they look (their hand, the
board), until they play or say ``back``.

Each seat's time-outs in a row are counted (``StandIn.misses``) and reset when its person acts.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Sequence

from ..play import Refusal, RefusalCode
from ..storage import GameBusyError, GameRecord, StandIn, Status, with_stand_in
from ..words import Command, say
from .games import Games, find_seat, over_words
from .herald import Herald
from .messages import Caller, Post, Reply, encode_post
from .warm import AWAY, back_words, stands_in


class StandIns:
    """A person hands their seat to the AI (``away``), takes it back (``back``), or is seen acting
    (``present``: their time-outs in a row are forgotten, and a seat the turn clock handed over is theirs
    again)."""

    def __init__(self, games: Games, herald: Herald, drive: Callable[[int], None],
                 clock: Callable[[], float]) -> None:
        self.games = games
        self.herald = herald
        self.drive = drive
        self.clock = clock

    async def _seated(self, caller: Caller, game_id: int | None) -> tuple[GameRecord, int] | None:
        """The game being played (``game_id``, or the caller's channel's) and the caller's seat in it."""
        storage = self.games.storage
        game = await (storage.get_game(game_id) if game_id is not None
                      else storage.active_game_in_channel(caller.channel_id))
        if game is None or game.status is not Status.PLAYING:
            return None
        seat = find_seat(game, caller)
        return None if seat is None else (game, seat)

    async def away(self, caller: Caller) -> Reply:
        """Hand the caller's seat to the AI until they take it back (``/tiempo me away``)."""
        game, seat = await self._required(caller)
        async with self.games.storage.lock(game.id):
            game = await self.games.storage.get_game(game.id)
            entry = game.stand_in(seat)
            if entry.is_standing and not entry.back:
                raise Refusal(say("The AI already plays your seat; {back} takes it back.", back=Command("back")),
                              RefusalCode.STOOD_IN)
            entry = dataclasses.replace(entry, by=AWAY, back=False, stood=True, misses=0)
            told = Post(say("🤖 {who} hands their seat to the AI for now. It sees their hand as "
                            "they would and shows it to no one; {back} gives it back.",
                            who=game.seats[seat].name, back=Command("back")))
            await self._store(game, with_stand_in(game.stand_ins, entry), [told])
        await self._told(game)
        self.drive(game.id)
        return Reply(say("The AI plays your seat in game #{id} from now on; your hand stays yours "
                         "alone. Take your seat back with {back}.", id=game.id,
                         back=Command("back")))

    async def back(self, caller: Caller) -> Reply:
        """Take the caller's seat back from the AI (``/tiempo me back``): at once, or once the AI has finished
        what it is playing for them now."""
        game, seat = await self._required(caller)
        async with self.games.storage.lock(game.id):
            game = await self.games.storage.get_game(game.id)
            if not stands_in(game, seat):
                raise Refusal(say("Your seat in game #{id} is yours: the AI does not play it.", id=game.id),
                              RefusalCode.STOOD_IN)
            now = await self._came_back(game, seat)
        await self._told(game)
        if now:
            return Reply(say("Your seat in game #{id} is yours again.", id=game.id))
        return Reply(say("The AI finishes what it is playing for you now; from then on your seat in game #{id} is "
                         "yours again.", id=game.id))

    async def present(self, caller: Caller, game_id: int | None = None, *, plays: bool = True) -> GameRecord | None:
        """The caller acted in the game (``plays``: a move or a tap of the turn panel; else a look at their
        hand or the board): their time-outs in a row are forgotten, and the seat the AI stands in for is
        theirs again (one handed over on purpose, only when they play). Nothing is done when nothing
        changes (no write), or when the game is busy (their next command does it). Returns the game
        being played (``game_id``, or the caller's channel's) as read, when the caller is seated in it
        and nothing was written: what the command goes on with (it reloads it under the game's lock)."""
        found = await self._seated(caller, game_id)
        if found is None:
            return None
        if not _changes(found[0].stand_in(found[1]), plays):
            return found[0]
        game, seat = found
        with contextlib.suppress(GameBusyError):
            async with self.games.storage.lock(game.id):
                game = await self.games.storage.get_game(game.id)
                entry = game.stand_in(seat)
                if game.status is not Status.PLAYING or not _changes(entry, plays):
                    return None
                if entry.is_standing:
                    await self._came_back(game, seat)
                else:
                    await self._store(game, with_stand_in(game.stand_ins, dataclasses.replace(entry, misses=0)), [])
            await self._told(game)
        return None

    async def _required(self, caller: Caller) -> tuple[GameRecord, int]:
        found = await self._seated(caller, None)
        if found is None:
            game = await self.games.playing_here(caller)  # no game here, or a lobby: says which
            if game.status is not Status.PLAYING:
                raise Refusal(over_words(game), RefusalCode.GAME_OVER)
            raise Refusal("You are not playing in this game.", RefusalCode.NOT_SEATED)
        return found

    async def _came_back(self, game: GameRecord, seat: int) -> bool:
        """The person of seat ``seat`` came back (inside the game's lock): theirs at once (True) unless
        the game waits on the seat now, then once it no longer does (``settled``)."""
        state = self.games.state_of(game)
        entry = game.stand_in(seat)
        if state.waiting_on == seat:
            await self._store(game, with_stand_in(game.stand_ins, dataclasses.replace(entry, back=True, misses=0)),
                              [])
            return False
        entry = dataclasses.replace(entry, by=None, back=False, misses=0)
        await self._store(game, with_stand_in(game.stand_ins, entry), [Post(back_words(game, seat))])
        return True

    async def _store(self, game: GameRecord, stand_ins: Sequence[StandIn], posts: Sequence[Post]) -> None:
        """Store the seats the AI keeps warm, with the channel's posts (sent after the lock: ``_told``)."""
        await self.games.storage.set_stand_ins(game.id, stand_ins, posts=[encode_post(p) for p in posts],
                                               now=self.clock())
        if posts:
            self.herald.courier.kick(game.channel_id)

    async def _told(self, game: GameRecord) -> None:
        """Outside the lock: the channel hears what was stored before the caller reads the answer."""
        await self.herald.courier.flush(game.channel_id)


def _changes(entry: StandIn, plays: bool) -> bool:
    """Whether a person's act changes their seat's entry: time-outs to forget, or a seat to give back."""
    if entry.is_standing:
        return not entry.back and (plays or entry.by != AWAY)
    return entry.misses > 0
