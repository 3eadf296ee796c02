"""Information: a player's private hand, the picture, the scores, the log and the rules reference."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rules import Age, Choose, economy_change

from ..play import Refusal, RefusalCode
from ..storage import GameRecord, Status
from ..texts import RULES, describe_hand, describe_hit, describe_status, narration, who
from ..words import PLAIN, Code, Command, Strong, Text, as_text, lines, listed, render, say, text
from .games import Games, History, find_seat, version_of
from .herald import Herald
from .messages import Caller, HandButtons, Reply

#: lines of "since your last turn" shown with a hand
RECAP_LINES = 12


class Info:
    """Answers the questions a player asks about a game."""

    def __init__(self, games: Games, herald: Herald, clock: Callable[[], float]) -> None:
        self.games = games
        self.herald = herald
        self.clock = clock

    async def hand(self, caller: Caller, game_id: int | None = None, *, recap: bool = True) -> Reply:
        """The caller's private hand, with a recap of what happened since their last action."""
        game = await self.games.playing_here(caller, game_id)
        if game.status is Status.LOBBY:
            raise Refusal(say("Game #{id} has not started: hands are dealt at {start}.", id=game.id,
                              start=Command("start")), RefusalCode.NOT_STARTED)
        if game.snapshot is None:
            raise Refusal(f"Game #{game.id} was cancelled before it started.", RefusalCode.NOT_STARTED)
        seat = find_seat(game, caller)
        state = self.games.state_of(game)
        if seat is None:
            return Reply(f"You are not playing in game #{game.id}; here is where it stands.\n"
                         + describe_status(state, cancelled=game.status is Status.CANCELLED))
        out = describe_hand(state, seat)
        since = lines([x for x in (await self.recap_text(game, seat, limit=None), *await self.hits(game, seat)) if x]
                      ) if recap else Text()
        if since:
            out = text(Strong("Since your last turn:"), "\n", since, "\n\n", out)
        if game.status is Status.CANCELLED:
            out = f"Game #{game.id} was cancelled.\n" + out
        elif game.status is Status.FINISHED:  # (named: a later game of the channel may have been cancelled)
            out = text(Strong(say("Game #{id}", id=game.id).plain()), "\n", out)
        return Reply(out)

    async def recap(self, game: GameRecord, seat: int, limit: int | None = RECAP_LINES) -> str:
        """``recap_text`` in plain words."""
        return render(await self.recap_text(game, seat, limit), PLAIN)

    async def recap_text(self, game: GameRecord, seat: int, limit: int | None = RECAP_LINES) -> Text:
        """What the other players did since ``seat``'s last action, in words (at most ``limit`` lines,
        the last ones; all of them with ``None``)."""
        h = await self.games.history(game)
        out = [line for _, events, after in self.games.retold(game, h, self._since(h, seat))
               for line in narration(after, events)]
        if limit is not None and len(out) > limit:
            earlier = len(out) - limit
            out = [f"… ({earlier} earlier line{'s' if earlier != 1 else ''})", *out[-limit:]]
        return lines(out)

    async def hits(self, game: GameRecord, seat: int) -> list[Text]:
        """What the others' actions since ``seat``'s last one did to their buildings and domains, and
        what each cost them in income outlook (``rules.economy_change``): a line per action that hurt
        them."""
        h = await self.games.history(game)
        start = self._since(h, seat)
        out: list[Text] = []
        before = self.games.first_state(game)
        for i, (_, events, after) in enumerate(self.games.retold(game, h)):
            if i >= start and before.active != seat:  # (an answer to a question counts as the mover's)
                hit = describe_hit(after, economy_change(before, after, events), seat)
                if hit:
                    out.append(say("💥 {who}'s move: {hit}.", who=who(after, before.active), hit=hit))
            before = after
        return out

    @staticmethod
    def _since(h: History, seat: int) -> int:
        """The index of the first action after ``seat``'s last one (answers to questions aside), and
        after the answers to the questions that action asked (the rest of that action: a downsized
        building placed, its ripple on), which are not news to them."""
        since = next((len(h.actions) - i for i, (_, action, _) in enumerate(reversed(h.actions))
                      if action.player == seat and not isinstance(action, Choose)), 0)
        while since and since < len(h.actions) and isinstance(h.actions[since][1], Choose):
            since += 1
        return since

    async def board(self, caller: Caller, age: Age | None = None, game_id: int | None = None) -> Reply:
        """The picture of the whole game or of one Age, for the caller alone."""
        game = await self.games.playing_here(caller, game_id)
        if game.snapshot is None and game.status is Status.CANCELLED:
            raise Refusal(f"Game #{game.id} was cancelled before it started.", RefusalCode.NOT_STARTED)
        if game.snapshot is None:
            raise Refusal(f"Game #{game.id} has no board yet: it has not started.", RefusalCode.NOT_STARTED)
        state = self.games.state_of(game)
        events = await self.games.turn_events(game)
        gallery = await asyncio.to_thread(self.herald.board_cards, game, state, events, age)
        cancelled = game.status is Status.CANCELLED
        if age is not None:
            return Reply(as_text(f"{age.title} — game #{game.id}, round {state.round} of 7"
                                 + (", where it was cancelled." if cancelled else ".")), gallery=gallery,
                         controls=(HandButtons(game.id, version_of(game)),))
        return Reply(text(Strong(f"Game #{game.id}"), "\n", describe_status(state, cancelled=cancelled)),
                     gallery=gallery, controls=(HandButtons(game.id, version_of(game)),))

    async def status(self, caller: Caller) -> Reply:
        """Round, whose turn, public scores and stock."""
        game = await self.games.playing_here(caller)
        state = self.games.state_of(game)
        out = text(Strong(f"Game #{game.id}"), "\n", describe_status(state))  # (never a cancelled one: playing_here)
        if game.turn_deadline is not None and not state.finished:
            left = max(0, int(game.turn_deadline - self.clock()))
            out += f"\nTurn time left: {left // 60} min {left % 60:02d} s."
        return Reply(out)

    async def log(self, caller: Caller, count: int = 15) -> Reply:
        """The last events of the game, in words."""
        game = await self.games.playing_here(caller)
        h = await self.games.history(game)
        state = self.games.state_of(game)
        told = [line for _, events, after in self.games.retold(game, h) for line in narration(after, events)]
        if not told:
            return Reply(say("Game #{id}: nothing has happened yet. {who} plays first.", id=game.id,
                             who=who(state, state.active)))
        count = max(1, min(count, 50))
        shown = told[-count:]
        return Reply(lines([Strong(f"Game #{game.id} — the last {len(shown)} events:"), *shown]))


def rules_reference(topic: str | None) -> Reply:
    """The short rules reference: a topic, or the list of topics and the turn."""
    if topic is None or topic not in RULES:
        topics = listed(Code(t) for t in RULES)
        head = "" if topic is None else f"No topic {topic!r}. "
        return Reply(say("{head}Topics: {topics}. Ask with {ask}.\n\n", head=head, topics=topics,
                         ask=Command("rules", "topic:<topic>")) + RULES["turn"])
    return Reply(RULES[topic])


__all__ = ["Info", "rules_reference"]
