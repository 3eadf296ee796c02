"""What the channel hears: the narration of each accepted action, the board after every turn, a
decision to answer, and the final ranking. Made from the public view only."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence

from render import age_card, changed_ages, turn_cards, warm_up
from rules import Age, Choose, GameState, describe_decision, economy_change
from rules import events as ev

from ..storage import GameRecord, Letter, SeatRecord
from ..texts import describe_hit, describe_standings, ecu_word, narration, ranking, who
from ..words import Button, Command, Mention, Name, Part, Strong, Text, lines, say, series, text
from .community import final_lines, record_finished
from .courier import Courier
from .course import first_tip, tips_on
from .games import Games, is_ai, version_of
from .hints import hints_note
from .lessons import Lessons
from .messages import Answers, HandButtons, Outbox, Picture, PlayButton, Post, RematchButton, encode_post
from .reminders import Reminders
from .steps import choice_label, decision_question
from .warm import final_note, played_by_ai, stands_in, turn_note

log = logging.getLogger("tiempo.herald")

#: decisions with more options than this are answered by command, not buttons
MAX_CHOICE_BUTTONS = 20


def live_key(game: GameRecord, state: GameState) -> str:
    """The ``live`` key of the current turn's running account in the channel."""
    return f"{game.id}-{state.turn}"


def ask_key(game_id: int) -> str:
    """The ``key`` of the post asking game ``game_id``'s pending decision (one at a time)."""
    return f"ask-{game_id}"


def think_key(game_id: int, turn: int) -> str:
    """The ``key`` of the post that ends "… (AI) is thinking…" before turn ``turn`` of game ``game_id``."""
    return f"think-{game_id}-{turn}"


def mention(seat: SeatRecord) -> Part:
    """A person is mentioned; an AI seat is named."""
    return seat.name if is_ai(seat) else Mention(seat.user_id, seat.name)


def hit_line(seat: SeatRecord, hit: str) -> Text:
    """The channel's line for a player a turn hurt (``hit``: ``texts.describe_hit``): a person is
    mentioned and addressed ("💥 @Ben: Your Keep …"); an AI seat's ``hit`` is in the third person
    ("💥 Sibyl's Keep …")."""
    said = hit[:1].upper() + hit[1:]
    if is_ai(seat):
        return say("💥 {hit}.", hit=said)
    return say("💥 {who}: {hit}.", who=mention(seat), hit=said)


class Herald:
    """Posts to the game's channel through the front end's outbox."""

    def __init__(self, games: Games, outbox: Outbox, *, render: bool = True, reminder_minutes: int = 10) -> None:
        self.games = games
        self.outbox = outbox
        self.render = render
        #: sends the posts stored with actions (the outbox), outside the games' locks
        self.courier = Courier(games.storage, outbox, games.owns)
        #: how the person the game waits on is told (``/tiempo notify``): a ping, a direct message, nothing
        self.reminders = Reminders(games, outbox, minutes=reminder_minutes)

    def board_cards(self, game: GameRecord, state: GameState, events: Sequence[ev.Event], age: Age | None = None
                    ) -> tuple[Picture, ...]:
        """The public cards of the game as it is now ("Board now"): of ``age``, or of each Age, every
        one whole (round, whose turn, colour key), those ``events`` changed (or where a decision waits)
        first and shown large, the others together below. None when pictures are off."""
        if not self.render:
            return ()
        try:
            asked = state.pending.decision.age if state.pending is not None else None
            marked = set(changed_ages(state, events)) | ({asked} if asked is not None else set())
            ages = [age] if age is not None else sorted(Age, key=lambda a: (a not in marked, a))
            return tuple(Picture(age_card(state, a, None, events), f"tiempo-{game.id}-now-{a.title.lower()}.png",
                                 f"{a.title} now" + (": the choices are ringed in cyan" if a == asked else
                                                      ": what changed is ringed in gold" if a in marked else ""),
                                 a in marked or not marked or age is not None)
                         for a in ages)
        except Exception:  # words without pictures rather than no answer
            log.exception("could not draw the cards of game %s", game.id)
            return ()

    async def resume(self) -> None:
        """After a start-up: send the posts a stop left unsent (``Courier.resume``); meanwhile, when
        pictures are drawn, load what they need in a thread (``render.warm_up``: the fonts, the
        grounds), so that the first game started does not wait for it."""
        await self.courier.resume()
        if self.render:
            await asyncio.to_thread(warm_up)

    def cards(self, game: GameRecord, state: GameState, events: Sequence[ev.Event], name: str) -> tuple[Picture, ...]:
        """The three Ages as cards that read in the chat, the ones ``events`` changed (or where a
        decision waits) first and shown large, the others together below (none when pictures are off)."""
        if not self.render:
            return ()
        asked = state.pending.decision.age if state.pending is not None else None
        try:
            cards = turn_cards(state, events)
        except Exception:  # a post without pictures rather than no post
            log.exception("could not draw the cards of game %s", game.id)
            return ()
        return tuple(Picture(png, f"tiempo-{game.id}-{name}-{age.title.lower()}.png", f"{age.title}: " + (
            "the choices are ringed in cyan" if age == asked else
            "what changed is ringed in gold" if changed else "no change"), changed)
            for age, changed, png in cards)

    def decision_card(self, game: GameRecord, state: GameState) -> tuple[Picture, ...]:
        """The board of the pending decision, its candidates ringed and listed with their owners."""
        if not self.render or state.pending is None:
            return ()
        age = state.pending.decision.age
        try:
            png = age_card(state, age)
        except Exception:
            log.exception("could not draw the decision of game %s", game.id)
            return ()
        return (Picture(png, f"tiempo-{game.id}-v{game.action_count}-decision.png",
                        f"{age.title}: the choices are ringed and listed on the right"),)

    async def posts(self, game: GameRecord, state: GameState, events: list[ev.Event]) -> list[Post]:
        """What the channel hears of one action (``game`` is the game after it): its narration; after a
        turn, the board; after the game, the ranking; a question, with its board."""
        said = narration(state, [e for e in events if not isinstance(e, ev.TurnBegan)])
        if state.finished:
            return [await self.final_post(game, state, said, events)]
        ended = next((e for e in events if isinstance(e, ev.TurnEnded)), None)
        if ended is not None:
            turn_events = await self.games.turn_events(game)
            thought: list[Post] = []
            if played_by_ai(game, ended.player):  # an AI's turn is told in one message, with the board
                said = narration(state, [e for e in turn_events if not isinstance(e, ev.TurnBegan)])
                if is_ai(game.seats[ended.player]):  # (a person's seat the AI stood in for keeps its note)
                    played = say("{name} (AI) has played: its turn is below.", name=game.seats[ended.player].name)
                    thought = [Post(played, settles=think_key(game.id, state.turn - 1))]  # "is thinking…" no more
            # what the turn cost the others first: the economy it works out from the turn's start (only
            # the boards the turn changed are counted again) is the one the cards then show
            hits, pinged = await self.hits(game, state, turn_events, ended.player)
            post = await self.board_post(game, state, said, turn_events, await self.tips(game, turn_events))
            if hits:  # (first: what the turn cost the others)
                post = dataclasses.replace(post, text=lines([*hits, post.text]),
                                           mentions=tuple(dict.fromkeys((*post.mentions, *pinged))))
            return [*thought, post]
        if state.pending is not None and any(isinstance(e, ev.DecisionRequested) for e in events):
            said = narration(state, [e for e in events if not isinstance(e, (ev.TurnBegan, ev.DecisionRequested))])
            gallery = await asyncio.to_thread(self.decision_card, game, state)
            return [dataclasses.replace(self.decision_post(game, state, said), gallery=gallery)]
        actor = _actor(events, state)
        if said and not (played_by_ai(game, actor) and actor == state.active):
            return [Post(lines(said), live=live_key(game, state))]
        return []

    async def posts_and_letters(self, game: GameRecord, state: GameState, events: list[ev.Event]
                                ) -> list[Post | Letter]:
        """``posts``, with the person the game then waits on told as they chose (``/tiempo notify``):
        their ping kept or not, and a direct message to send when it is due (``Reminders.apply``)."""
        return await self.reminders.apply(game, state, await self.posts(game, state, events))

    async def announce(self, game: GameRecord, state: GameState, events: list[ev.Event]) -> None:
        """An action and its posts were stored (``game`` is the game after it): send the posts; after
        the last, record the game's results and ratings (a failure is logged: ``Community.catch_up``
        records it later)."""
        self.courier.kick(game.channel_id)
        if self.reminders.minutes == 0:  # a direct message may be due at once
            self.courier.kick_letters()
        if state.finished:
            try:
                await record_finished(self.games, game)
            except Exception:
                log.exception("could not record the results of game %s", game.id)

    async def still_thinking(self, game: GameRecord, turn: int, name: str, level: str) -> None:
        """An AI seat's turn ``turn`` runs long: its "is thinking…" post says so (through the outbox)."""
        note = say("{name} (AI) is still thinking: a {level} player's turn can take a while…", name=name,
                   level=level)
        post = Post(note, settles=think_key(game.id, turn))
        await self.games.storage.posts.add(game, [encode_post(post)], self.games.clock())
        self.courier.kick(game.channel_id)

    def decision_post(self, game: GameRecord, state: GameState, before: Sequence[Text | str]) -> Post:
        """The question of the pending decision, to the player it is for, with a button per answer."""
        if state.pending is None:
            raise ValueError("no decision is pending")
        d = state.pending.decision
        seat = game.seats[d.player]
        question = decision_question(state)  # as the panel asks it
        ask = say("{who}, {question}", who=mention(seat), question=question[:1].lower() + question[1:])
        choices = (tuple((choice_label(state, Choose(d.player, c))[:80], str(c)) for c in d.options)
                   if len(d.options) <= MAX_CHOICE_BUTTONS else ())
        if not choices:  # too many for buttons: named here
            ask = say("{ask} ({cells}) Answer with {choose}.", ask=ask, cells=", ".join(map(str, d.options)),
                      choose=Command("choose"))
        answers = (Answers(game.id, version_of(game), choices),) if choices else ()
        if stands_in(game, d.player):  # the AI answers for a person away: no ping, no Play button
            return Post(lines([*before, ask, turn_note(game, d.player)]), controls=answers)
        if is_ai(seat):  # no buttons no one at the table may press: the AI answers in a moment
            return Post(lines([*before, say("{who} (AI) is about to {what}.", who=Name(seat.name),
                                            what=describe_decision(state, d))]), key=ask_key(game.id))
        play = (PlayButton(game.id),)
        return Post(lines([*before, ask]), controls=(*answers, *play),
                    mentions=(seat.user_id,) if not is_ai(seat) else (), key=ask_key(game.id))

    async def hits(self, game: GameRecord, state: GameState, turn_events: Sequence[ev.Event], actor: int
                   ) -> tuple[list[Text], tuple[int, ...]]:
        """A line for each player the turn just ended (``actor``'s) hurt: what happened to their
        buildings and domains and what it cost them in income outlook, mentioning them once; and the
        user ids to ping. None when the turn hurt no one else (or its start cannot be found)."""
        before = await self.games.turn_began(game)
        change = economy_change(before, state, turn_events)
        out: list[Text] = []
        pinged: list[int] = []
        for p in change.harmed(besides=actor):
            seat = game.seats[p]
            hit = describe_hit(state, change, p, named=is_ai(seat))
            if hit:
                out.append(hit_line(seat, hit))
                if not is_ai(seat):
                    pinged.append(seat.user_id)
        return out, tuple(pinged)

    async def board_post(self, game: GameRecord, state: GameState, narration: Sequence[Text | str],
                         events: Sequence[ev.Event], tips: Sequence[Text] = ()) -> Post:
        """The board after a turn (or at the start), the first-time ``tips``, the scores, and whose turn
        it is."""
        gallery = await asyncio.to_thread(self.cards, game, state, events, f"v{game.action_count}")
        seat = game.seats[state.waiting_on]
        scores = describe_standings(state)
        if state.pending is not None:
            post = self.decision_post(game, state, [*narration, *tips, "", scores])
            return dataclasses.replace(post, gallery=gallery,
                                       controls=(*post.controls, HandButtons(game.id, version_of(game))))
        turn = (f"{seat.name} (AI) is thinking…" if is_ai(seat) else
                turn_note(game, state.waiting_on) if stands_in(game, state.waiting_on) else
                say("{who}, your turn (round {round} of 7).", who=mention(seat), round=state.round))
        person = not played_by_ai(game, state.waiting_on)
        play = (PlayButton(game.id),) if person else ()
        return Post(lines([*narration, *tips, "", scores, "", turn]), gallery=gallery,
                    controls=(*play, HandButtons(game.id, version_of(game))),
                    mentions=(seat.user_id,) if person else (),
                    key=think_key(game.id, state.turn) if is_ai(seat) else None)

    async def tips(self, game: GameRecord, events: Sequence[ev.Event]) -> list[Text]:
        """The first-time tips a turn's ``events`` give the people seated (each tip once per person,
        marked given now: they are part of the turn's post, stored with the action), unless the game's
        ``tips`` option is off. A failure is logged and costs only the tips."""
        if not tips_on(game.options) or first_tip(events, ()) is None:  # (no tip fits: nobody's is read)
            return []
        given: dict[str, tuple[Text, list[str]]] = {}  # the people given each tip, by its key
        try:
            lessons = Lessons(self.games.storage, render=False)
            for seat in {s.user_id: s for s in game.seats if not is_ai(s)}.values():
                tip = await lessons.tip(seat.user_id, events)
                if tip is not None:
                    given.setdefault(tip.key, (tip.text, []))[1].append(seat.name)
        except Exception:
            log.exception("could not give the first-time tips of game %s", game.id)
        return [say("{who}: {tip}", who=series(Name(name) for name in names), tip=tip) for tip, names in given.values()]

    async def final_post(self, game: GameRecord, state: GameState, narration: Sequence[Text | str],
                         events: Sequence[ev.Event] = ()) -> Post:
        """The end of the game: the last events, the ranking, each player's statistics and change of
        rating, and a Rematch button. ``events``: the last action's (not stored yet)."""
        cards = await asyncio.to_thread(self.cards, game, state, (), "final")
        gallery = tuple(dataclasses.replace(c, lead=True, description=c.description.split(":")[0]) for c in cards)
        out: list[Text | str] = [*narration[-8:], "", text(Strong(f"Game #{game.id} is over."))]
        for place, seat, ecus in ranking(state):
            medal = {1: "🥇", 2: "🥈", 3: "🥉"}.get(place, f"{place}.")
            out.append(say("{medal} {who} — {ecus} {word}", medal=medal, who=who(state, seat), ecus=ecus,
                           word=ecu_word(ecus)))
        stood = final_note(game)
        if stood is not None:
            out.append(stood)
        hinted = hints_note(game)
        if hinted is not None:
            out.append(hinted)
        try:  # the ranking rather than no final post (which would keep the last action from being stored)
            out += ["", *await final_lines(self.games, game, state, events)]
        except Exception:
            log.exception("could not tell the statistics and ratings of game %s", game.id)
        if any(not is_ai(seat) for seat in game.seats):
            out.append(say("Which turns cost each player most, and what the AI would have played instead: {review}.",
                           review=Command("review", f"game:{game.id}")))
        out.append(say("Play again: {rematch}.", rematch=Button("Rematch", "rematch")))
        return Post(lines(out), gallery=gallery,
                    controls=(HandButtons(game.id, version_of(game)), RematchButton(game.id)))


def _actor(events: Sequence[ev.Event], state: GameState) -> int:
    for e in events:
        player = getattr(e, "player", None)
        if isinstance(player, int):
            return player
    return state.active
