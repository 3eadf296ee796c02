"""OpenGame limits: a reminder at half time, and the end of the turn of a player whose time ran out."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

from rules import Action, Choose, EndTurn, GameState, legal_actions

from ..play import Refusal
from ..storage import PLAYED_FOR_SEAT, GameBusyError, Letter, Status
from ..texts import who
from ..words import as_text, say
from .games import Games
from .herald import Herald, mention
from .messages import Post, encode_post
from .moves import Moves, OpenGame
from .warm import missed, played_by_ai

log = logging.getLogger("tiempo.service")

#: at most this many actions are played for a player whose time ran out (answers, then the end of the turn)
TIME_OUT_ACTIONS = 50


def safe_action(state: GameState) -> Action | None:
    """What is played for a seat that cannot or did not act: the first answer to its question, or the
    end of its turn discarding as little as possible (None if neither is possible)."""
    if state.pending is not None:
        d = state.pending.decision
        return Choose(d.player, d.options[0])
    ends = [a for a in legal_actions(state, types=(EndTurn,)) if isinstance(a, EndTurn)]
    return min(ends, key=lambda a: a.discard.total) if ends else None


def time_left(seconds: float) -> str:
    """A time left in words, as exact as it matters: "40 s" under two minutes (by tens of seconds),
    "12 min" under two hours, then "3 h 20 min"."""
    if seconds < 120:
        return f"{max(10, round(seconds / 10) * 10)} s"
    minutes = round(seconds / 60)
    if minutes < 120:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min" if minutes % 60 else f"{minutes // 60} h"


class TurnClock:
    """Checks the turn limits of every game (``tick``), on a timer (``run``)."""

    def __init__(self, games: Games, herald: Herald, moves: Moves, clock: Callable[[], float]) -> None:
        self.games = games
        self.herald = herald
        self.moves = moves
        self.clock = clock

    async def tick(self) -> None:
        """Warn at half time, and end the turn of a player whose time ran out."""
        now = self.clock()
        for game in await self.games.storage.due_games(now):
            if game.turn_deadline is None or game.status is not Status.PLAYING or not self.games.mine(game):
                continue
            minutes = int(game.options.get("turn_minutes", 0))
            if now >= game.turn_deadline:
                with contextlib.suppress(GameBusyError):  # someone is moving in it: the next tick will see
                    await self.time_out(game.id)
            elif minutes and not game.half_warned and now >= game.turn_deadline - minutes * 30:
                state = self.games.state_of(game)
                seat = game.seats[state.waiting_on]
                warning = Post(say("{who}, half your turn time is gone: about {left} left in game #{id}.",
                                   who=mention(seat), left=time_left(game.turn_deadline - now), id=game.id),
                               mentions=(seat.user_id,))
                quiet = played_by_ai(game, state.waiting_on)  # no reminder for the AI, nor a person it stands in for
                told = await self.herald.reminders.apply(  # as the player chose (/tiempo notify)
                    game, state, [warning], half_left=time_left(game.turn_deadline - now))
                posts = [p if isinstance(p, Letter) else encode_post(p) for p in told]
                if await self.games.storage.mark_half_warned(  # unless the turn ended meanwhile
                        game.id, deadline=game.turn_deadline, posts=[] if quiet else posts, now=now):
                    self.herald.courier.kick(game.channel_id)
                    self.herald.courier.kick_letters()

    async def time_out(self, game_id: int) -> None:
        """Answer the open questions with their first option and end the active player's turn."""
        try:
            async with self.moves.open(game_id, flush=False) as opened:
                await self._play_for(opened)
        except Refusal:  # the game ended meanwhile
            return

    async def _play_for(self, opened: OpenGame) -> None:
        """In ``time_out``: the first answers and the end of the turn, if its time is still up. The seat
        the game waited on has one more time-out in a row; at the second, the AI plays it (warm.py).
        Its actions are stored as ``PLAYED_FOR_SEAT``: no one's own (the review leaves their turns out)."""
        game, state = opened.game, opened.state
        if game.turn_deadline is None or self.clock() < game.turn_deadline:
            return
        active = state.active
        if state.waiting_on != active:
            note = say("Time is up: {who} did not answer, so the first choice is taken, and {active}'s turn ends.",
                       who=who(state, state.waiting_on), active=who(state, active))
        else:
            note = say("Time is up for {who}: the turn ends", who=who(state, active)) + (
                ", taking the first choice of the open question." if state.pending is not None else ".")
        # told with the first action it plays, with the count of time-outs: in the outbox, after the lock
        stand_ins, handed = missed(game, state.waiting_on)
        lead = [Post(as_text(note)), *handed]
        for _ in range(TIME_OUT_ACTIONS):
            if state.finished or state.active != active:
                break
            action = safe_action(state)
            if action is None:
                break
            await opened.play(action, PLAYED_FOR_SEAT, offered=True, lead=lead,
                              stand_ins=stand_ins if lead else None)
            state, lead = opened.state, []
