"""The turn panel as the service serves it: the step a player is at, shown privately and updated in
place, and the action committed when they confirm (steps.py works out the steps)."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence

from render import age_card, changed_ages
from rules import INCOME_ROUNDS, Action, Age, GameState, economy
from rules import events as ev

from ..play import Refusal, RefusalCode
from ..storage import GameRecord, Status
from ..texts import cards_in_words, describe_draw, ecu_word, narration, outlook_ages, outlook_line, who
from ..words import Strong, Text, lines, say, text
from .games import Games, find_seat, over_words, version_of
from .hints import hints_on
from .lessons import places_pictures
from .messages import Caller, PanelControls, PanelView, Picture, Reply
from .moves import Moves
from .steps import Listing, StalePath, Step, listing, listing_key, step, step_words

log = logging.getLogger("tiempo.panels")

#: games whose legal actions are remembered between taps (a turn's taps share them until it moves on):
#: as many as are played at once (``games.STATES_KEPT``: a listing is kept with the state it lists);
#: a position's listings and steps take 5-140 kB
LISTINGS_KEPT = 1024


class Panels:
    """Opens a player's panel, moves it along their picks, and plays what they confirm."""

    def __init__(self, games: Games, moves: Moves, *, render: bool = True) -> None:
        self.games = games
        self.moves = moves
        self.render = render
        #: a game's state (the cached object: never changed in place), its listings by ``listing_key``
        #: and the steps shown on it, by seat and path
        self._listings: OrderedDict[int, tuple[GameState, dict[tuple[str, ...], Listing],
                                               dict[tuple[int, tuple[str, ...]], Step]]] = OrderedDict()

    def step(self, game_id: int, state: GameState, seat: int, path: Sequence[str] = (), *,
             with_preview: bool = True) -> Step:
        """``steps.step``, with the legal actions it looks at remembered for the next tap on the
        same position (the list of places, then the preview, then Confirm list the same actions), and
        the steps too (Confirm plays the action its preview named)."""
        kept = self._listings.get(game_id)
        if kept is None or kept[0] is not state:
            kept = (state, {}, {})
        self._listings[game_id] = kept
        self._listings.move_to_end(game_id)
        while len(self._listings) > LISTINGS_KEPT:
            self._listings.popitem(last=False)
        shown = kept[2].get((seat, tuple(path)))
        if shown is not None and (shown.preview is None or shown.preview.after is not None or not with_preview):
            return shown
        key = listing_key(path)
        legal = kept[1].get(key)
        if legal is None:
            legal = kept[1][key] = Listing(state, listing(state, key))
        current = step(state, seat, path, legal=legal, with_preview=with_preview)
        kept[2][(seat, tuple(path))] = current
        return current

    async def pictures_or_none(self, game_id: int, state: GameState, seat: int, current: Step) -> tuple[Picture, ...]:
        """The step's pictures, drawn off the event loop; none when pictures are off or drawing fails
        (the panel is shown all the same)."""
        if not self.render:
            return ()
        try:
            return await asyncio.to_thread(self.pictures, game_id, state, seat, current)
        except Exception:
            log.exception("could not draw the panel's pictures (game %s, seat %s)", game_id, seat)
            return ()

    @staticmethod
    def pictures(game_id: int, state: GameState, seat: int, current: Step) -> tuple[Picture, ...]:
        """The panel's pictures: a preview shows the boards the action changes as they would be (the
        board it is played on first and large), a question waiting on the player shows its board with
        the candidates (also at the preview of an answer that changes no board yet, as one that asks the next
        question), a list of places shows their board with them ringed; other steps show none."""
        ages: list[Age] = []
        if current.preview is not None and current.preview.after is not None:
            after, events = current.preview.after, current.preview.events
            economy(after, since=(state, economy(state)))  # (kept on it for its cards: the boards it left alone
            ages = changed_ages(after, events)             # taken from the position's, not counted again)
            first = getattr(current.preview.action, "age", None)
            ages.sort(key=lambda a: a != first)
        if ages:
            return tuple(Picture(age_card(after, age, seat, events, heading="Preview"),
                                 f"tiempo-{game_id}-preview-{age.title.lower()}.png",
                                 f"{age.title} after this action: what it changes is ringed", lead=i == 0)
                         for i, age in enumerate(ages))
        if state.pending is not None and state.pending.decision.player == seat:
            age = Age(state.pending.decision.age)
            return (Picture(age_card(state, age, seat), f"tiempo-{game_id}-question-{age.title.lower()}.png",
                            f"{age.title}: the choices are ringed and listed on the right"),)
        if current.places is not None:
            places = current.places
            heading = f"Where: {places.kind.value}" if places.kind is not None else "Which building?"
            return places_pictures(state, places, seat, heading, f"tiempo-{game_id}")
        return ()

    async def show(self, caller: Caller, game_id: int | None = None, version: str | None = None,
                   path: Sequence[str] = (), note: Text | str = "", *, seen: GameRecord | None = None) -> Reply:
        """The caller's panel at ``path`` (the menu by default). A panel drawn before the game moved on
        starts again from the menu, saying so. ``seen``: the game being played there (``game_id``, or the
        caller's channel's) as just read, if it was (``StandIns.present``): not read again."""
        game = seen if seen is not None else await self.games.playing_here(caller, game_id)
        seat = find_seat(game, caller)
        if seat is None:
            raise Refusal("You are not playing in this game: the panel is for its players.", RefusalCode.NOT_SEATED)
        state = self.games.state_of(game)
        if version is not None and version != version_of(game):
            path, note = (), "The game moved on since this panel was drawn; here it is as it is now."
        if game.status is not Status.PLAYING or state.finished:
            over = over_words(game)
            return Reply(lines([note, over]) if note else over)
        if state.waiting_on != seat:
            head = _header(state, seat)
            waiting = (say("Waiting for {who} to answer a question.", who=who(state, state.waiting_on))
                       if state.pending else say("It is {who}'s turn.", who=who(state, state.active)))
            return Reply(lines([x for x in (note, head, waiting) if x]),
                         controls=(PanelControls(PanelView(game.id, version_of(game))),))
        if state.pending is not None and (not path or path[0] != "choose"):
            path = ("choose",)
        try:
            current = self.step(game.id, state, seat, path)
        except StalePath:
            note, current = ("That choice is no longer possible; here is what you can do now.",
                             self.step(game.id, state, seat))
        gallery = await self.pictures_or_none(game.id, state, seat, current)
        head = _header(state, seat, brief=bool(current.path))
        return Reply(lines([x for x in (note, head, *step_words(current, state)) if x]), gallery=gallery,
                     controls=(PanelControls(PanelView(
                         game.id, version_of(game), current.path, current.next_base, current.question, current.choices,
                         _back_of(state, current), current.preview is not None,
                         undo=_can_undo(state, seat, current),
                         harms=current.preview is not None and bool(current.preview.harms),
                         hint=hints_on(game.options))),))

    async def confirm(self, caller: Caller, game_id: int, version: str, path: Sequence[str]) -> Reply:
        """Play the action the panel's ``path`` names, then show the panel again."""
        played: list[tuple[GameState, Action]] = []

        def chosen(state: GameState, seat: int) -> Action:
            s = self.step(game_id, state, seat, path, with_preview=False)
            if s.preview is None:
                raise Refusal("Pick the rest of the action first.", RefusalCode.INCOMPLETE)
            played.append((state, s.preview.action))
            return s.preview.action

        try:  # (a Disagreement, the engine refusing what its legal actions offered, is the bot's fault)
            game, new, events = await self.moves.play_action(caller, game_id, version, chosen)
        except StalePath:  # the path names no legal action (nothing was played)
            return await self.show(caller, game_id, None, (), "That choice is no longer possible.")
        except Refusal as refusal:  # the game moved on, or ended: the panel starts again (an ended one says so)
            return await self.show(caller, game_id, None, (), "" if refusal.code is RefusalCode.GAME_OVER
                                   else refusal.text)
        done = narration(new, [e for e in events if not isinstance(e, ev.TurnBegan)])  # (the panel says whose turn)
        drew = describe_draw(played[-1][0], new, played[-1][1]) if played else ""  # (the last try is the one played)
        note = lines([Strong("Done."), *done[:6], *([drew] if drew else [])])
        return await self.show(caller, game.id, None, (), note)  # as the game is now (an AI may have played)

    async def answer(self, caller: Caller, game_id: int, version: str, cell: str) -> Reply:
        """Answer the pending decision with ``cell`` by the channel's button, then show the panel, as
        the panel's own pick and Confirm do. Refused as the typed ``choose`` is (an old button: the
        question was answered, or taken back)."""
        await self.moves.play(caller, "choose", {"cell": cell}, game_id, version)
        return await self.show(caller, game_id, None, (), text(Strong("Done."), f" You answered {cell}."))

    async def undo(self, caller: Caller, game_id: int) -> Reply:
        """Take back the caller's last action of the turn, then show the panel again."""
        try:
            reply = await self.moves.undo(caller, game_id, hand=False)  # the header shows the hand
            note: Text | str = reply.text
        except Refusal as refusal:
            note = "" if refusal.code is RefusalCode.GAME_OVER else refusal.text  # (the panel says it is over)
        return await self.show(caller, game_id, None, (), note)


def _can_undo(state: GameState, seat: int, current: Step) -> bool:
    """Whether the panel offers Undo: on the menu once the player has acted this turn, and on a
    question their own action asked them (taking that action back takes the question away)."""
    if not state.acted or state.active != seat:
        return False
    if state.pending is not None:
        return current.path == ("choose",) and state.pending.decision.player == seat
    return not current.path


def _back_of(state: GameState, current: Step) -> tuple[str, ...] | None:
    """Where the panel's Back button leads (None: no button). A question the game waits on has no
    way back to the menu (the menu would ask it again); an answer picked to it goes back to it."""
    if not current.path or (state.pending is not None and not current.back):
        return None
    return current.back


def _header(state: GameState, seat: int, *, brief: bool = False) -> Text:
    """``Round 3 of 7 · 6 Ecus · hand: 2 Military, 1 Religious · pawn 1 on Might (2 cards left) …``, then
    every player's income outlook in one line (``rules.economy``: the viewer's Age by Age, the others'
    totals, and when income is counted); in rounds 4 and 7, on the player's own turn, what ending it now
    would collect (``brief``ly once an action is being picked)."""
    p = state.players[seat]
    pawns = ", ".join(f"pawn {i + 1} on {p.pawns[i].title} ({p.allowance(i)} card{'s' if p.allowance(i) != 1 else ''}"
                      " left)" for i in (0, 1))
    reserve = f" · reserve: {cards_in_words(state.reserve)}" if state.options.holdem else ""
    money = f"{p.ecus} {ecu_word(p.ecus)}"
    head = text(Strong(f"Round {state.round} of 7"), f" · {money} · hand: {cards_in_words(p.hand)} · {pawns}{reserve}")
    e = economy(state)
    if state.round in INCOME_ROUNDS and state.pending is None and state.active == seat:
        total = e.outlooks[seat].total
        return head + (f"\nIncome round: ending your turn now collects {total} {ecu_word(total)}." if brief else
                       f"\nIncome round: if your turn ended now you would collect {total} {ecu_word(total)}: "
                       f"{outlook_ages(e.outlooks[seat])}.\n" + outlook_line(state, seat, e, you=False))
    return head + "\n" + outlook_line(state, seat, e)


__all__ = ["Panels"]
