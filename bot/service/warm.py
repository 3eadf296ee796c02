"""Seats the AI keeps warm, as pure bookkeeping: whether the AI plays a seat and at what level, a
seat's time-outs in a row, a seat given back once the game no longer waits on it, and what the channel
reads of it (``standins.py`` is the part of the service that changes it; docs/ai.md says how it works)."""

from __future__ import annotations

import dataclasses

from rules import GameState

from ..storage import GameRecord, StandIn, with_stand_in
from ..words import Command, Mention, Name, Text, say, series
from .community import is_rated
from .games import is_ai
from .messages import Post

#: the AI level that plays a person's seat while they are away
STAND_IN_LEVEL = "greedy"
#: a seat's turn time-outs in a row after which the AI plays it
MISSES_TO_STAND_IN = 2

AWAY = "away"  #: ``StandIn.by``: the person handed the seat over
TIMED_OUT = "time"  #: ``StandIn.by``: the seat's turn timed out twice in a row


def stands_in(game: GameRecord, seat: int) -> bool:
    """Whether the AI plays person's seat ``seat`` now."""
    return game.stand_in(seat).is_standing


def played_by_ai(game: GameRecord, seat: int) -> bool:
    """Whether seat ``seat`` is played by the AI now: an AI seat, or a person's the AI stands in for."""
    return is_ai(game.seats[seat]) or stands_in(game, seat)


def ai_level_of(game: GameRecord, seat: int) -> str | None:
    """The AI level that plays seat ``seat`` now, or None when its person plays it."""
    level = game.seats[seat].ai_level
    return level if level is not None else STAND_IN_LEVEL if stands_in(game, seat) else None


def stood_in_for(game: GameRecord) -> list[int]:
    """The people's seats the AI played at some time in the game, in seat order."""
    return [s.seat for s in game.stand_ins if s.stood]


def missed(game: GameRecord, seat: int) -> tuple[tuple[StandIn, ...], list[Post]]:
    """The seats the AI keeps warm after seat ``seat``'s turn (or answer) timed out, and what the channel
    hears of it: one more time-out in a row; at the second, the AI takes the seat over."""
    if is_ai(game.seats[seat]) or stands_in(game, seat):
        return game.stand_ins, []
    entry = game.stand_in(seat)
    entry = dataclasses.replace(entry, misses=entry.misses + 1)
    posts = []
    person = game.seats[seat]
    if entry.misses >= MISSES_TO_STAND_IN:
        entry = dataclasses.replace(entry, by=TIMED_OUT, back=False, stood=True)
        posts.append(Post(say(
            "🤖 {who}'s time ran out twice in a row, so the AI plays their seat until they are "
            "back: any command or tap of theirs gives it back. It sees their hand as they would, and shows it to "
            "no one.", who=Mention(person.user_id, person.name)), mentions=(person.user_id,)))
    return with_stand_in(game.stand_ins, entry), posts


def settled(game: GameRecord, state: GameState) -> tuple[tuple[StandIn, ...], list[Post]]:
    """After an action (``state`` is the position after it): the seats whose person came back while the
    AI was playing them, given back now that the game no longer waits on them, and the channel's words."""
    stand_ins, posts = game.stand_ins, []
    for entry in game.stand_ins:
        if entry.back and entry.is_standing and (state.finished or state.waiting_on != entry.seat):
            stand_ins = with_stand_in(stand_ins, dataclasses.replace(entry, by=None, back=False, misses=0))
            posts.append(Post(back_words(game, entry.seat)))
    return stand_ins, posts


def turn_note(game: GameRecord, seat: int) -> Text:
    """What the channel reads when the game comes to a seat the AI stands in for."""
    return say("🤖 The AI plays for {who}, who is away; {back} gives them their seat back.",
               who=Name(game.seats[seat].name), back=Command("back"))


def final_note(game: GameRecord) -> Text | None:
    """The final ranking's word on the seats the AI stood in for (None if it stood in for no one)."""
    seats = stood_in_for(game)
    if not seats:
        return None
    names = series(Name(game.seats[s].name) for s in seats)
    if not is_rated(game):
        return say("🤖 The AI stood in for {names} for part of the game.", names=names)
    return say("🤖 The AI stood in for {names} for part of the game; the game is rated as usual (each person "
               "answers for their seat).", names=names)


def back_words(game: GameRecord, seat: int) -> Text:
    return say("👋 {who} is back: their seat is theirs again.", who=Name(game.seats[seat].name))
