"""Moves: an action from a command, a panel, an AI seat or the turn clock, played by one path and
stored before anyone hears of it; undo."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

from rules import Action, Choose, GameState, NotationError, RuleError, apply, format_action, parse_action, to_json
from rules import events as ev

from ..play import Disagreement, Refusal, RefusalCode, Stale, act, refused_or_applied, undo_span
from ..storage import KEEP, GameRecord, Letter, StandIn, Status
from ..texts import describe_draw, describe_hand, describe_status, narration, who, without_dot
from ..words import Button, Command, Strong, lines, listed, say, text
from .games import Games, History, find_seat, is_ai, over_words, turn_deadline, version_of
from .herald import Herald, ask_key, live_key, mention
from .messages import Caller, ConfirmButton, Post, Reply, encode_post
from .steps import answer_words, harms
from .suggest import upgrade_origin
from .warm import played_by_ai, settled, stands_in

log = logging.getLogger("tiempo.service")


def _at(game: GameRecord, version: str | GameRecord) -> bool:
    """Whether ``game`` is still at ``version``: a button's version string, or a record of the game
    read earlier (the same count and the same position: an undo and another action give the same
    count with another position)."""
    if isinstance(version, str):
        return version == version_of(game)
    return version.action_count == game.action_count and version.snapshot == game.snapshot


def _ask_to_confirm(game_id: int, version: str, notation: str, after: GameState, events: list[ev.Event],
                    hurt: list[str]) -> Reply:
    """A reply that shows what an action would do and asks the player to confirm it."""
    said = narration(after, [e for e in events if not isinstance(e, ev.TurnBegan)])
    anyway = say("To play it anyway, {confirm}.", confirm=Button("Confirm", "yes"))
    return Reply(lines([Strong("This harms your own game. Nothing is played yet."), *("• " + x for x in said),
                        *(f"⚠️ It {h}." for h in hurt), anyway]),
                 controls=(ConfirmButton(game_id, version, notation),))


def _answered(game: GameRecord, before: GameState, action: Action) -> list[Post]:
    """When ``action`` answers the pending decision: its question's post settled (no more buttons),
    saying who answered what."""
    if before.pending is None or not isinstance(action, Choose):
        return []
    said = say("✅ {who} answered: {answer}.", who=who(before, action.player), answer=answer_words(before, action))
    return [Post(said, settles=ask_key(game.id))]


def _hand_after(game: GameRecord, caller: Caller, state: GameState, drew: str = "") -> Reply:
    """The caller's hand after their action (only a seated player's action is ever played), after
    what they drew, if they drew."""
    seat = find_seat(game, caller)
    if seat is None:
        raise Refusal("You are not playing in this game.", RefusalCode.NOT_SEATED)
    return Reply(lines([drew, describe_hand(state, seat)]) if drew else describe_hand(state, seat))


def _ai_waited_on(game: GameRecord, state: GameState) -> bool:
    """Whether the game, as just stored, waits on a seat the AI plays (its AI seats must be driven)."""
    seat = state.waiting_on
    return game.status is Status.PLAYING and not state.finished and seat is not None and played_by_ai(game, seat)


def _refuse_while_stood_in(game: GameRecord, state: GameState, seat: int | None) -> None:
    """Refusal while the AI plays ``seat`` for its person and the game waits on it (the AI's turn or
    answer for them: the seat is theirs again once that is done)."""
    if seat is not None and stands_in(game, seat) and state.waiting_on == seat:
        raise Refusal("The AI is playing this for you; your seat is yours again as soon as it is done.",
                      RefusalCode.STOOD_IN)


@dataclass
class OpenGame:
    """A game open for a move, inside its lock: the game as stored, its state, and the seat that moves
    (the caller's, or for the AI seats and the turn clock the seat the game waits on). ``play`` and
    ``commit`` store an action and keep these up to date."""

    moves: Moves
    game: GameRecord
    state: GameState
    seat: int
    played: bool = False

    async def play(self, action: Action, actor_id: int, *, offered: bool = False,
                   lead: Sequence[Post] = (), stand_ins: Sequence[StandIn] | None = None) -> list[ev.Event]:
        """Apply and store ``action``; its events. The rules' refusal is the player's (a Refusal citing
        the rule), unless the action was ``offered`` by the legal actions themselves (the panel, an AI
        seat, the turn clock): then the engine disagrees with itself, a fault of the bot, logged with
        its traceback and raised as Disagreement. ``stand_ins``: the seats the AI keeps warm, stored with
        it (the turn clock counts a time-out)."""
        if not offered:
            new, events = refused_or_applied(self.state, action)
        else:
            try:
                new, events = apply(self.state, action)
            except RuleError as err:
                log.error("game #%s at %s: the engine refused %s, which its legal actions offered",
                          self.game.id, version_of(self.game), format_action(self.state, action), exc_info=True)
                raise Disagreement(f"game #{self.game.id}: legal_actions offered {action}, apply refused it: "
                                   f"{err}") from err
        await self.commit(action, new, events, actor_id, lead=lead, stand_ins=stand_ins)
        return events

    async def commit(self, action: Action, new: GameState, events: list[ev.Event], actor_id: int, *,
                     lead: Sequence[Post] = (), stand_ins: Sequence[StandIn] | None = None) -> None:
        """Store ``action`` (which made ``new`` and ``events`` from this state) with its posts."""
        self.game = await self.moves.commit(self.game, self.state, new, action, events, actor_id, lead=lead,
                                            stand_ins=stand_ins)
        self.state, self.played = new, True


class Moves:
    """Plays the caller's commands, and every other move, by one path (``open``); ``drive`` is told of
    every game that moved (for its AI seats)."""

    def __init__(self, games: Games, herald: Herald, drive: Callable[[int], None],
                 clock: Callable[[], float]) -> None:
        self.games = games
        self.herald = herald
        self.drive = drive
        self.clock = clock

    @contextlib.asynccontextmanager
    async def open(self, game_id: int, *, caller: Caller | None = None, version: str | GameRecord | None = None,
                   flush: bool = True, ai: bool = False) -> AsyncIterator[OpenGame]:
        """The one path of every move, whoever sends it (a typed command, the panel, a confirmation, an
        AI seat, the turn clock), as boardgame.io's master: with the game's lock held, the game reloaded;
        refused (Refusal) unless it is being played, Stale unless it is still at ``version`` (a version
        string from a button, or the record an AI seat worked from: then its very position), Refusal
        unless the ``caller`` plays in it — and, while the AI stands in for the caller, unless the game
        waits on someone else; with ``ai`` (an AI seat's move), Refusal unless the AI plays the seat the
        game waits on (an AI seat, or a person's the AI stands in for). Inside, ``OpenGame.play`` stores
        actions; after the lock, when something was played, the AI seats are driven and (``flush``) the
        channel's posts awaited, so that it hears of the move before the player's answer. Raises
        GameBusyError after 2 s."""
        storage = self.games.storage
        async with storage.lock(game_id):
            game = await storage.get_game(game_id)
            if game.status is Status.LOBBY:
                raise Refusal(say("Game #{id} has not started yet.", id=game.id), RefusalCode.NOT_STARTED)
            if game.status is not Status.PLAYING:
                raise Refusal(over_words(game), RefusalCode.GAME_OVER)
            if version is not None and not _at(game, version):
                raise Stale("The game moved on since this was shown, so nothing was played.")
            state = self.games.state_of(game)
            seat = state.waiting_on if caller is None else find_seat(game, caller)
            if seat is None:
                raise Refusal("You are not playing in this game.", RefusalCode.NOT_SEATED)
            if ai and not played_by_ai(game, seat):
                raise Refusal(f"The AI does not play seat {seat} of game #{game.id} now.", RefusalCode.STOOD_IN)
            if caller is not None:
                _refuse_while_stood_in(game, state, seat)
            opened = OpenGame(self, game, state, seat)
            yield opened
        if opened.played:
            if _ai_waited_on(opened.game, opened.state):  # (a person's turn: no AI task reads the game again)
                self.drive(game_id)
            if flush:
                await self.herald.courier.flush(opened.game.channel_id)

    async def play(self, caller: Caller, command: str, options: dict[str, str | None],
                   game_id: int | None = None, version: str | None = None, *, seen: GameRecord | None = None
                   ) -> Reply:
        """Play ``command`` with ``options`` for the caller; the channel hears what happened, the caller
        gets their hand back. ``version`` (from a button) refuses a click on a stale question. ``seen``:
        the game being played there (``game_id``, or the caller's channel's) as just read, if it was
        (``StandIns.present``): not read again before the game's lock, which reloads it."""
        game = seen if seen is not None else await self.games.playing_here(caller, game_id)
        if game.status is Status.FINISHED:
            raise Refusal(say("Game #{id} is over. Open another with {new}, or {rematch}.", id=game.id,
                              new=Command("new"), rematch=Button("Rematch", "rematch", " under its final ranking")),
                          RefusalCode.GAME_OVER)
        if game.status is Status.CANCELLED:
            raise Refusal(say("Game #{id} was cancelled. Open another with {new}.", id=game.id, new=Command("new")),
                          RefusalCode.GAME_OVER)
        try:
            async with self.open(game.id, version=version) as opened:
                state = opened.state
                _refuse_while_stood_in(opened.game, state, find_seat(opened.game, caller))
                if command == "upgrade" and not options.get("at"):
                    options = {**options, "at": upgrade_origin(state, find_seat(opened.game, caller), options)}
                new, events, action = act(state, opened.game.seats, caller.user_id, command, options)
                hurt = harms(state, new, action.player, events) if command != "choose" else []
                if hurt:  # the player confirms first, by a button (an answer to a question is not asked again)
                    return _ask_to_confirm(opened.game.id, version_of(opened.game), format_action(state, action), new,
                                           events, hurt)
                await opened.commit(action, new, events, caller.user_id)
        except Stale:
            fresh = await self.games.storage.get_game(game.id)
            asked = int(version.split("-")[0]) if version and version.split("-")[0].isdigit() else 0
            gone = "taken back" if fresh.action_count < asked else "already answered"
            raise Stale(f"That question was {gone}; here is the game as it is now.\n"
                        + describe_status(self.games.state_of(fresh))) from None
        return _hand_after(opened.game, caller, new, describe_draw(state, new, action))

    async def play_confirmed(self, caller: Caller, game_id: int, version: str, notation: str) -> Reply:
        """Play the action ``notation`` names, which the caller confirmed (it harms their own buildings)."""
        async with self.open(game_id, caller=caller, version=version) as opened:
            try:
                action = parse_action(notation, opened.state)
            except NotationError as err:
                raise Refusal(str(err), RefusalCode.BAD_INPUT) from None
            if action.player != opened.seat:
                raise Refusal("That confirmation is another player's.", RefusalCode.NOT_ALLOWED)
            await opened.play(action, caller.user_id)
        return _hand_after(opened.game, caller, opened.state)

    async def play_action(self, caller: Caller, game_id: int, version: str,
                          choose: Callable[[GameState, int], Action]) -> tuple[GameRecord, GameState, list[ev.Event]]:
        """Play the action ``choose(state, seat)`` names for the caller in game ``game_id`` at
        ``version`` (a stale version is refused: Stale); returns the game, the new state and the
        events. The action is one the legal actions offer (the panel's): the engine refusing it is
        a Disagreement, a fault of the bot."""
        async with self.open(game_id, caller=caller, version=version) as opened:
            events = await opened.play(choose(opened.state, opened.seat), caller.user_id, offered=True)
        return opened.game, opened.state, events

    async def commit(self, game: GameRecord, before: GameState, new: GameState, action: Action,
                     events: list[ev.Event], actor_id: int, *, lead: Sequence[Post] = (),
                     stand_ins: Sequence[StandIn] | None = None) -> GameRecord:
        """Store the action with its posts (``lead`` before them: a note on why it was played), then
        tell the channel. Call with the game's lock held. ``stand_ins`` (the seats the AI keeps warm,
        by default as they are) are stored with it, less those whose person came back once the game
        no longer waits on them."""
        text = format_action(before, action)
        status = Status.FINISHED if new.finished else None
        storage = self.games.storage
        snapshot = to_json(new)
        # the posts are made first and stored with the action (the outbox): a crash after the commit
        # cannot lose them, and they are sent outside the lock
        current = game.stand_ins if stand_ins is None else tuple(stand_ins)
        warm, back = settled(dataclasses.replace(game, stand_ins=current), new)
        after = dataclasses.replace(game, action_count=game.next_seq, snapshot=snapshot,
                                    status=status or game.status, stand_ins=warm)
        if any(isinstance(e, ev.TurnEnded) for e in events):  # its post tells the whole turn: the turn
            await self.games.turn_events(game)                 # so far is cached, and note() adds this action;
            await self.games.turn_began(game)                  # and so is the position the turn began from
        self.games.note(after, action, events, new, actor_id, text)
        try:
            answered = _answered(game, before, action)
            # told as the AI played it: a turn it ended for a person who is back is told whole, as an AI's
            told = await self.herald.posts_and_letters(dataclasses.replace(after, stand_ins=current), new, events)
            posts = [p if isinstance(p, Letter) else encode_post(p) for p in [*lead, *answered, *back, *told]]
            deadline = (dict(turn_deadline=None if new.finished else turn_deadline(game, self.clock()))
                        if any(isinstance(e, (ev.TurnBegan, ev.GameEnded)) for e in events) else {})
            game = await storage.append_action(game.id, game.next_seq, actor_id, text, snapshot, status=status,
                                               now=self.clock(), posts=posts, **deadline,
                                               stand_ins=warm if warm != game.stand_ins else KEEP)
        except BaseException:
            self.games.forget(game.id)  # the caches went ahead of the database
            # the database may have stored it all the same (a failure while committing): its posts, if
            # any, go out now rather than at the next sweep
            self.herald.courier.kick(game.channel_id)
            raise
        await self.herald.announce(game, new, events)
        return game

    async def undo(self, caller: Caller, game_id: int | None = None, *, hand: bool = True) -> Reply:
        """Take back the caller's last action of this turn, when it revealed nothing hidden. The reply
        shows the hand after it, unless ``hand`` is False (the turn panel's header shows it)."""
        game = await self.games.playing_here(caller, game_id)
        async with self.open(game.id, caller=caller) as opened:
            game, state, seat = opened.game, opened.state, opened.seat
            h = await self.games.history(game)
            count = undo_span(state, seat, [(action, events) for _, action, events in h.actions])
            taken = h.actions[-count:]
            before = self.games.replay(game, History(0, h.actions[:-count]))
            own = without_dot(text(*[part for i, line in enumerate(narration(before, taken[0][2])[:2])
                                      for part in ((" " if i else ""), line)]))
            answers = [(a.player, a.cell) for _, a, _ in taken[1:] if isinstance(a, Choose)]
            told = say("↩️ {who} takes back their last action: “{what}”.", who=who(before, seat), what=own)
            if answers:
                told = told + " The answers given to it are taken back too: " + listed(
                    text(mention(game.seats[p]), f" chose {cell}") for p, cell in answers) + "."
            others = tuple(dict.fromkeys(game.seats[p].user_id for p, _ in answers if p != seat
                                         and not is_ai(game.seats[p])))
            # told in the turn's running account, unless it takes back others' answers: they are pinged
            # the account of a lone action told in it is replaced by the undo's line, not followed by it
            alone = count == 1 and not any(isinstance(e, (ev.DecisionRequested, ev.TurnEnded)) for e in taken[0][2])
            posts = [encode_post(Post(told, mentions=others, live=None if others else live_key(game, before),
                                      retracts=alone and not others))]
            if state.pending is not None or answers:  # the question it asked is no more
                posts.insert(0, encode_post(Post(say("↩️ Taken back by {who}: no answer is needed.",
                                                     who=who(before, seat)), settles=ask_key(game.id))))
            game = await self.games.storage.truncate_last_action(game.id, game.action_count, to_json(before),
                                                                 count=count, now=self.clock(), posts=posts)
            self.games.forget_last(game, h, before, count)
        self.herald.courier.kick(game.channel_id)
        await self.herald.courier.flush(game.channel_id)
        if not hand:
            return Reply(say("{undone} It was: {what}.", undone=Strong("Undone."), what=own))
        return Reply("Undone.\n" + describe_hand(before, seat))
