"""Reminders that reach the player (``/tiempo notify``): how each person is told it is their turn.

A person chooses once, for every game on every server (``bot.storage.notify``):

* ``channel`` (everyone's until they choose): the turn post mentions them, as it always did;
* ``dm``: the turn post names them without a ping, and a direct message from the bot reminds them when
  they have not acted within ``reminder_minutes`` of their turn (0: at once), and at half time of a turn
  limit. It names the game, its server and channel (a link), and carries a Play button that opens their
  turn panel; it tells nothing another player could not see. When their direct messages are closed, the
  channel mentions them instead, and says why the first time;
* ``off``: no ping and no direct message.

The direct message is a ``Letter`` stored with the action that makes it due (the outbox's transaction),
sent by the courier when due if the game is still where it was; where the front end cannot send direct
messages (the console), ``dm`` is kept but the person is mentioned as with ``channel``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rules import GameState

from ..play import Refusal, RefusalCode
from ..storage import MODES, GameRecord, Letter
from ..words import Button, Code, Command, Mention, Place, Strong, Text, lines, say, text
from .games import Games, is_ai
from .messages import Caller, DirectOutbox, Outbox, PlayButton, Post, Reply, encode_words

#: what a person who was not reminded by direct message reads, the first time, under the channel's mention
DMS_CLOSED = ("I could not send you a direct message: your direct messages are closed to me, so you are "
              "mentioned here instead. To get them, allow direct messages from this server's members (Privacy "
              "Settings), or choose {channel} to be mentioned here without trying.")


class Reminders:
    """Turns the posts that tell a person of their turn into what their choice asks for."""

    def __init__(self, games: Games, outbox: Outbox, *, minutes: int = 10) -> None:
        self.games = games
        #: minutes after their turn began before a person who has not acted gets a direct message
        self.minutes = minutes
        #: the front end sends direct messages (Discord; not the console)
        self.direct = isinstance(outbox, DirectOutbox)

    async def choose(self, caller: Caller, mode: str | None) -> Reply:
        """``/tiempo notify``: make ``mode`` the caller's choice (or, without one, say what it is)."""
        notices = self.games.storage.notices
        if mode is None:
            return Reply(lines([self.describe(await notices.mode(caller.user_id)),
                                say("To change it: {channel}, {dm} or {off}.",
                                    **{m: Command("notify", f"mode:{m}") for m in MODES})]))
        if mode not in MODES:
            raise Refusal(say("{mode} is not a choice: {modes}, e.g. {example}.", mode=Code(mode),
                              modes=", ".join(MODES), example=Command("notify", "mode:dm")), RefusalCode.BAD_INPUT)
        await notices.choose(caller.user_id, mode, now=self.games.clock())
        return Reply(lines([say("Saved, for every game on every server."), self.describe(mode)]))

    def describe(self, mode: str) -> Text:
        """What ``mode`` does, as the person who chose it reads it (at a table with no direct messages,
        the console, with a word that it is Discord's: the choice is kept for the bot)."""
        if mode == "off":
            told = text("The channel names you without a mention (your turns, and what another player's turn cost "
                        "you), and no direct message is sent.")
        elif mode == "channel":
            told = text("You are mentioned in the game's channel when it is your turn, and at half time of a "
                        "turn limit.")
        else:
            when = ("as soon as it is your turn" if self.minutes == 0 else
                    f"when it is your turn and you have not acted within {self.minutes} minutes")
            told = say("You get a direct message with a Play button {when} (and at half time of a turn limit); the "
                       "channel names you without a mention. If your direct messages are closed, you are mentioned "
                       "in the channel instead.", when=when)
        if not self.direct:
            told = lines([told, "Mentions and direct messages exist only on Discord: at this table you are named at "
                                "your turn as before."])
        return told

    async def apply(self, game: GameRecord, state: GameState, posts: Sequence[Post], *,
                    half_left: str | None = None) -> list[Post | Letter]:
        """``posts`` (``game`` after the action that made them), with each person they mention told as
        they chose: a post pings them only with ``channel`` (with ``dm`` or ``off`` it names them without
        a ping: their turn, a 💥 line of what another's turn cost them); for the person the game now waits
        on, with ``dm``, a direct message is added, due ``minutes`` from now (at once for the half-time
        warning: ``half_left`` is the time left)."""
        if state.finished:
            return list(posts)
        modes = {user: await self.games.storage.notices.mode(user) for user in {u for p in posts for u in p.mentions}}
        silent = {user for user, mode in modes.items() if mode == "off" or (mode == "dm" and self.direct)}
        quiet: list[Post | Letter] = [dataclasses.replace(p, mentions=tuple(u for u in p.mentions if u not in silent))
                                      if silent.intersection(p.mentions) else p for p in posts]
        seat = game.seats[state.waiting_on]
        if is_ai(seat) or modes.get(seat.user_id) != "dm" or not self.direct:
            return quiet
        now = self.games.clock()
        due = now if half_left is not None or self.minutes == 0 else now + self.minutes * 60
        letter = Letter(seat.user_id, encode_words(self.direct_post(game, state, half_left)),
                        encode_words(self.fallback_post(game, state, half_left)), due, game.action_count)
        return [*quiet, letter]

    @staticmethod
    def direct_post(game: GameRecord, state: GameState, half_left: str | None) -> Post:
        """The direct message: the game, its server and channel, the round, and the Play button; nothing
        another player could not see."""
        place = Place(game.guild_id, game.channel_id)
        seat = state.waiting_on
        answer = state.pending is not None and state.pending.decision.player == seat and state.active != seat
        if half_left is not None:
            head = say("Half your turn time is gone in game #{id}: about {left} left.", id=game.id, left=half_left)
        elif answer:
            head = say("Game #{id} waits on your answer.", id=game.id)
        else:
            head = say("It is your turn in game #{id}.", id=game.id)
        return Post(lines([text(Strong("Tiempo")), head,
                           say("Round {round} of 7, in {place}.", round=state.round, place=place),
                           say("Your turn panel opens here when you {play}; only you see it.",
                               play=Button("Play", "play"))]),
                    controls=(PlayButton(game.id),))

    @staticmethod
    def fallback_post(game: GameRecord, state: GameState, half_left: str | None) -> Post:
        """What the channel says instead when the direct message cannot be sent."""
        seat = game.seats[state.waiting_on]
        who = Mention(seat.user_id, seat.name)
        words = (say("{who}, half your turn time is gone: about {left} left in game #{id}.", who=who,
                     left=half_left, id=game.id) if half_left is not None else
                 say("{who}, game #{id} waits on you (round {round} of 7).", who=who, id=game.id, round=state.round))
        return Post(words, controls=(PlayButton(game.id),), mentions=(seat.user_id,))


def told_why(fallback: Post) -> Post:
    """The channel's fallback post, saying (the first time) why the person was not sent a direct message."""
    return dataclasses.replace(fallback, text=lines([fallback.text, say(DMS_CLOSED, channel=Command(
        "notify", "mode:channel"))]))


__all__ = ["DMS_CLOSED", "Reminders", "told_why"]
