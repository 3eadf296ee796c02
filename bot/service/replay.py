"""A game told again turn by turn: one step at a time for a viewer on Discord or at the terminal.

A game's *timeline* is its stored actions replayed through the engine and cut into steps: step 0 is
the deal, then one step per turn (the actions from the one after a turn's end to the next end of
turn, other players' answers to decisions included); a game in play ends with its turn so far. Each
step keeps the position before and after it, its events and its narration (told with the state
right after each action, as the channel heard it). Nothing but the stored game and the step's number
is needed to show a step, so a viewer's buttons work on old messages and after a restart.

What a step shows is what the channel saw: the Age cards of the position after it, drawn for no
viewer (no hand, the deck as a count, Ecus only where the table made them public), the turn's
narration, and, for a finished game when asked, every player's hand before the turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass

from rules import ROUNDS, Action, GameState, apply
from rules import events as ev

from ..play import Refusal, RefusalCode
from ..storage import GameNotFoundError, GameRecord, Status
from ..texts import cards_in_words, ecu_word, narration, ranking, who
from ..words import HERE, IN_HERE, Command, Part, Strong, Text, lines, say, text
from .games import Games
from .herald import Herald
from .messages import Caller, Picture, ReplayButton, ReplayControls, ReplayView, Reply

#: timelines of games kept in memory (a finished game's never changes; a game in play's is made again
#: after each action), and the pictures of that many steps
TIMELINES_KEPT = 16
PICTURES_KEPT = 48


@dataclass(frozen=True)
class Step:
    """One step of a timeline: ``index`` 0 is the deal; then the turn of ``player`` in ``round``.
    ``actions`` are the step's actions, each with the position it was played from; ``complete`` is
    False for the turn in play (told so far); ``played_for`` the places in ``actions`` of those the AI
    or the turn clock played for a person's seat (``PLAYED_FOR_SEAT``: none in a game stored before it)."""

    index: int
    round: int
    player: int
    before: GameState
    after: GameState
    events: tuple[ev.Event, ...] = ()
    narration: tuple[Text | str, ...] = ()
    actions: tuple[tuple[GameState, Action], ...] = ()
    complete: bool = True
    played_for: frozenset[int] = frozenset()

    @property
    def is_deal(self) -> bool:
        return self.index == 0


@dataclass(frozen=True)
class Timeline:
    """A game's steps, for the version of the game it was made from."""

    game: GameRecord
    steps: tuple[Step, ...]

    @property
    def last(self) -> int:
        return len(self.steps) - 1

    @property
    def turns(self) -> int:
        """The turns told (the turn in play counts)."""
        return len(self.steps) - 1

    def rounds(self) -> tuple[tuple[int, int], ...]:
        """``(round, its first step)`` for each round the timeline reaches (the deal is in round 1)."""
        out: dict[int, int] = {}
        for s in self.steps[1:]:
            out.setdefault(s.round, s.index)
        return tuple(out.items())


def cut(first: GameState, actions: list[tuple[Action, list[ev.Event]]],
        played_for: Collection[int] = ()) -> tuple[Step, ...]:
    """The steps of a game from its first position and its actions with their events: a step ends
    with the action whose events end a turn; the actions after the last end of turn make the last
    step (complete only if they ended the game). ``played_for``: the places in ``actions`` of those
    played for a person's seat by the AI or the turn clock (``Step.played_for``)."""
    steps = [Step(0, first.round, first.active, first, first)]
    state = first
    start = first
    taken: list[tuple[GameState, Action]] = []
    said: list[ev.Event] = []
    told: list[Text | str] = []
    done = 0  # the place in ``actions`` of the step's first action
    for i, (action, events) in enumerate(actions):
        before = state
        state, _ = apply(state, action)
        taken.append((before, action))
        said += events
        told += narration(state, [e for e in events if not isinstance(e, ev.TurnBegan)])
        if any(isinstance(e, ev.TurnEnded) for e in events) or state.finished:
            steps.append(Step(len(steps), start.round, start.active, start, state, tuple(said), tuple(told),
                              tuple(taken), played_for=_within(played_for, done, i + 1)))
            start, taken, said, told, done = state, [], [], [], i + 1
    if taken:
        steps.append(Step(len(steps), start.round, start.active, start, state, tuple(said), tuple(told),
                          tuple(taken), complete=False, played_for=_within(played_for, done, len(actions))))
    return tuple(steps)


def _within(places: Collection[int], start: int, stop: int) -> frozenset[int]:
    """Those of ``places`` from ``start`` to before ``stop``, counted from ``start``."""
    return frozenset(p - start for p in places if start <= p < stop)


class Replays:
    """Finds a game to replay, cuts it into steps (cached by the game's version) and tells a step."""

    def __init__(self, games: Games, herald: Herald) -> None:
        self.games = games
        self.herald = herald
        self._timelines: OrderedDict[int, Timeline] = OrderedDict()
        self._pictures: OrderedDict[tuple[int, int, str | None, int], tuple[Picture, ...]] = OrderedDict()

    async def find(self, caller: Caller, game_id: int | None, command: str = "replay") -> GameRecord:
        """The game ``game_id`` of the caller's server, or the channel's game (in play, or the last
        that ended there). Raises Refusal for a number that names no game, another server's game, and
        a game that never started; and, with no number where no game was played, one that says how to
        name a game to ``command`` (the one asking: replay, review, export)."""
        if game_id is None:
            try:
                game = await self.games.playing_here(caller)
            except Refusal as refused:
                if refused.code is RefusalCode.GAME_OVER:  # (the channel's last game was cancelled)
                    raise Refusal(say("{why} To see an earlier game, name it by its number: {example}.",
                                      why=refused.text, example=Command(command, "game:12")), refused.code) from None
                if refused.code is not RefusalCode.NO_GAME:
                    raise
                raise Refusal(say("No game is in play or over {here}. Name one by its number: {example} (a game's "
                                  "number is in its posts, \"Game #12 is over.\"; {profile} lists your last "
                                  "games).", here=IN_HERE, example=Command(command, "game:12"),
                                  profile=Command("profile")), RefusalCode.NO_GAME) from None
        else:
            try:
                found = await self.games.storage.get_game(game_id)
            except GameNotFoundError:
                raise Refusal(say("There is no game #{id}. A game's number is in its posts (\"Game #12 is "
                                  "over.\"); without one, {command} takes the game of {here}.", id=game_id,
                                  command=Command(command), here=HERE), RefusalCode.NO_GAME) from None
            game = found
            if game.guild_id != caller.guild_id:
                raise Refusal(say("Game #{id} is not one of this server's games: a replay shows the games "
                                  "played here.", id=game.id))
            if game.status is Status.LOBBY:
                raise Refusal(say("Game #{id} has not started yet: there is nothing to replay. Its opener "
                                  "starts it with {start}.", id=game.id, start=Command("start")))
        if game.snapshot is None:
            raise Refusal(say("Game #{id} was cancelled before it started: there is nothing to replay.",
                              id=game.id))
        return game

    async def timeline(self, game: GameRecord) -> Timeline:
        """The game's steps, made again only when the game changed."""
        kept = self._timelines.get(game.id)
        if kept is not None and kept.game.action_count == game.action_count and kept.game.snapshot == game.snapshot:
            self._timelines.move_to_end(game.id)
            return kept
        h = await self.games.history(game)
        first = self.games.first_state(game)
        steps = await asyncio.to_thread(cut, first, [(action, events) for _, action, events in h.actions],
                                        {i for i, (record, _, _) in enumerate(h.actions) if record.played_for_seat})
        made = Timeline(game, steps)
        self._timelines[game.id] = made
        while len(self._timelines) > TIMELINES_KEPT:
            self._timelines.popitem(last=False)
        return made

    async def pictures(self, line: Timeline, step: Step) -> tuple[Picture, ...]:
        """The Age cards after ``step`` as the channel saw them after that turn: those it changed first
        and large, the others small below; at the deal, the three boards."""
        game = line.game
        key = (game.id, game.action_count, game.snapshot, step.index)
        kept = self._pictures.get(key)
        if kept is not None:
            self._pictures.move_to_end(key)
            return kept
        cards = await asyncio.to_thread(self.herald.cards, game, step.after, step.events, f"replay-{step.index}")
        if step.is_deal:
            cards = tuple(dataclasses.replace(c, lead=True, description=c.description.split(":")[0])
                          for c in cards)
        self._pictures[key] = cards
        while len(self._pictures) > PICTURES_KEPT:
            self._pictures.popitem(last=False)
        return cards

    async def show(self, caller: Caller, game_id: int | None = None, step: int | None = None, *,
                   hands: bool = False, public: bool = False) -> Reply:
        """Step ``step`` of the game (the newest when None; a number past either end shows that end),
        with the controls to step on. ``hands`` shows every hand, once the game is over."""
        game = await self.find(caller, game_id)
        line = await self.timeline(game)
        index = line.last if step is None else max(0, min(step, line.last))
        shown = line.steps[index]
        over = game.status is Status.FINISHED
        words = self.words(line, shown, hands=hands and over)
        if hands and not over:
            words = lines([words, say("Hands are shown once the game is over: this one is still {status}.",
                                      status="being played" if game.status is Status.PLAYING else "unfinished")])
        view = ReplayView(game.id, index, line.last, hands and over, shown.round,
                          buttons(index, line.last, live=game.status is Status.PLAYING), line.rounds())
        return Reply(words, gallery=await self.pictures(line, shown), controls=(ReplayControls(view),),
                     public=public)

    @staticmethod
    def words(line: Timeline, step: Step, *, hands: bool = False, footer: bool = True) -> Text:
        """A step in words: which step of how many, whose turn in which round, its narration; after
        the last turn of a finished game, the ranking; with ``hands``, the hands before the turn; with
        ``footer``, how to ask for another step."""
        game, s = line.game, step.after
        title = Strong(f"Game #{game.id}")
        if step.is_deal:
            if not line.turns and game.status is Status.CANCELLED:
                follow = text("The game was cancelled before a turn was played.")
            else:
                follow = text("1 turn follows.") if line.turns == 1 else say("{n} turns follow.", n=line.turns)
            out: list[Text | Part] = [say("{game} — the deal. {who} plays first. {follow}", game=title,
                                         who=who(s, s.active), follow=follow)]
        else:
            out = [say("{game} — turn {turn} of {turns}{sofar}, round {round} of {rounds}: {who}.", game=title,
                       turn=step.index, turns=line.turns, sofar=" (so far)" if not step.complete else "",
                       round=step.round, rounds=ROUNDS, who=who(s, step.player)),
                   *(step.narration or ["Nothing public happened yet."])]
        if hands:
            b = step.before
            out.append(Strong("Hands before this turn:" if not step.is_deal else "Hands dealt:"))
            out += [say("{who}: {cards} ({code}), {ecus} {word}", who=who(b, i), cards=cards_in_words(p.hand),
                        code=str(p.hand), ecus=p.ecus, word=ecu_word(p.ecus)) for i, p in enumerate(b.players)]
        if step.index == line.last and s.finished:
            out.append(Strong("Final ranking:"))
            out += [say("{place}. {who} — {ecus} {word}", place=place, who=who(s, seat), ecus=ecus, word=ecu_word(ecus))
                    for place, seat, ecus in ranking(s)]
        if footer:
            out.append(text("\n", say("{replay} shows any turn (step 0 is the deal).",
                                      replay=Command("replay", f"game:{game.id} step:<number>", or_button=True))))
        return lines(out)


def buttons(step: int, last: int, *, live: bool = False) -> tuple[ReplayButton, ...]:
    """⏮ ◀ ▶ ⏭ for step ``step`` of ``0 .. last``; ⏭ goes to the newest step when pressed, so in a
    game in play (``live``) it stays on at the newest step: it shows the turns played since."""
    return (ReplayButton("first", "⏮", 0, step == 0), ReplayButton("prev", "◀", max(0, step - 1), step == 0),
            ReplayButton("next", "▶", min(last, step + 1), step >= last),
            ReplayButton("last", "⏭", None, step >= last and not live))


__all__ = ["Replays", "Step", "Timeline", "buttons", "cut"]
