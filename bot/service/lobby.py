"""The lobby: open a game, take or leave seats, seat AI players, start, cancel, rematch."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from rules import Colour, to_json

from ..ai import DEFAULT_LEVEL, LEVEL_NAMES, LEVELS, OFFERED
from ..play import Refusal, RefusalCode
from ..storage import ChannelBusyError, GameRecord, Letter, SeatRecord, Status
from ..texts import who
from ..words import HERE, Button, Command, Here, Mention, Name, Strong, Text, as_text, lines, listed, say, series
from .games import Games, find_seat, is_ai, over_words, turn_deadline
from .herald import Herald
from .messages import Caller, CancelButton, LobbyButtons, Post, Reply, encode_post

AI_LEVELS = LEVEL_NAMES
AI_NAMES = {level.name: level.display for level in LEVELS}
#: the user id an AI seat carries (never a Discord user: snowflakes are far larger)
AI_USER_BASE = 1000
#: the longest turn limit, in minutes (a week)
MAX_TURN_MINUTES = 7 * 24 * 60


class Lobby:
    """Games before they start (and their end by cancelling); ``drive`` and ``stop`` start and stop a
    game's AI seats."""

    def __init__(self, games: Games, herald: Herald, *, clock: Callable[[], float], seed_source: Callable[[], int],
                 default_turn_minutes: int, drive: Callable[[int], None], stop: Callable[[int], None]) -> None:
        self.games = games
        self.herald = herald
        self.clock = clock
        self.seed_source = seed_source
        self.default_turn_minutes = default_turn_minutes
        self.drive = drive
        self.stop = stop

    async def new(self, caller: Caller, *, holdem: bool = False, seats: int = 5,
                  turn_minutes: int | None = None, tips: bool = True, hints: bool = True) -> Reply:
        """Open a lobby in the caller's channel, with the caller in the first seat (``tips``: first-time
        tips in the game, ``bot.service.course.tips_on``; ``hints``: players may ask for a hint,
        ``bot.service.hints``)."""
        if not 2 <= seats <= 5:
            raise Refusal("A game has 2 to 5 seats.", RefusalCode.BAD_INPUT)
        if turn_minutes is not None and not 0 <= turn_minutes <= MAX_TURN_MINUTES:
            raise Refusal(f"The turn limit is in minutes, from 0 (none) to {MAX_TURN_MINUTES} (a week).",
                          RefusalCode.BAD_INPUT)
        minutes = self.default_turn_minutes if turn_minutes is None else turn_minutes
        options = {"holdem": holdem, "seats": seats, "turn_minutes": minutes, "tips": tips,
                   "hints": hints}
        first = SeatRecord(caller.user_id, caller.name, Colour.RED.value)
        try:
            game = await self.games.storage.create_game(
                guild_id=caller.guild_id, channel_id=caller.channel_id, opener_id=caller.user_id,
                seed=self.seed_source(), options=options, seats=[first], now=self.clock())
        except ChannelBusyError as busy:
            raise Refusal(say("{here} already has game #{id}. Finish it or {cancel} it first (a thread "
                              "counts as its own channel).", here=Here(capital=True), id=busy.game_id,
                              cancel=Command("cancel")), RefusalCode.BUSY) from None
        return self._reply(game, say("{name} opens game #{id}.", name=Name(caller.name), id=game.id))

    @staticmethod
    def describe(game: GameRecord) -> Text:
        """The lobby: its rules, its seats, and how to join and start."""
        seats = int(game.options.get("seats", 5))
        minutes = int(game.options.get("turn_minutes", 0))
        rules = ["Hold'em variant" if game.options.get("holdem") else "standard rules",
                 f"{minutes} min per turn" if minutes else "no turn limit"]
        if game.options.get("hints", True) is False:
            rules.append("no hints")
        out: list[Text | str] = [Strong(f"Khronos — game #{game.id}") + f" ({', '.join(rules)}). "
                                 f"Seats: {len(game.seats)}/{seats}."]
        for s in game.seats:
            tag = f" — AI ({s.ai_level})" if is_ai(s) else ""
            out.append(say("• {colour} {name}{tag}", colour=s.colour, name=Name(s.name), tag=tag))
        out.append(say("Join with {join}; the opener starts with {start} once {least} players are seated.",
                       join=Command("join", or_button=True), start=Command("start"),
                       least=f"2–{seats}" if seats > 2 else "2"))
        return lines(out)

    def _reply(self, game: GameRecord, headline: Text | str) -> Reply:
        """The lobby as a public message; the next one (or the start) takes the buttons of this one."""
        return Reply(headline + "\n" + self.describe(game), controls=(LobbyButtons(game.id),), public=True,
                     key=lobby_key(game.id))

    async def _lobby(self, caller: Caller, game_id: int | None = None) -> GameRecord:
        game = await (self.games.storage.get_game(game_id) if game_id is not None else self.games.here(caller))
        if game.status is not Status.LOBBY:
            raise Refusal(f"Game #{game.id} has already {'started' if game.status is Status.PLAYING else 'ended'}.",
                          RefusalCode.STARTED if game.status is Status.PLAYING else RefusalCode.GAME_OVER)
        return game

    async def join(self, caller: Caller, game_id: int | None = None) -> Reply:
        """Take the next free seat (and colour)."""
        game = await self._lobby(caller, game_id)
        async with self.games.storage.lock(game.id):
            game = await self._lobby(caller, game.id)
            if any(s.user_id == caller.user_id for s in game.seats):
                raise Refusal(f"You are already seated in game #{game.id}.", RefusalCode.SEATS)
            if len(game.seats) >= int(game.options.get("seats", 5)):
                raise Refusal(f"Game #{game.id} is full.", RefusalCode.SEATS)
            colour = _free_colour(game)
            seats = [*game.seats, SeatRecord(caller.user_id, caller.name, colour)]
            game = await self.games.storage.update_lobby(game.id, seats=seats, now=self.clock())
        return self._reply(game, say("{name} joins as {colour}.", name=Name(caller.name), colour=colour))

    async def add_bot(self, caller: Caller, level: str = DEFAULT_LEVEL) -> Reply:
        """Seat an AI player of ``level`` (the opener, or a channel manager)."""
        if level not in AI_LEVELS:
            raise Refusal(f"AI levels: {', '.join(lv.name for lv in OFFERED)}.", RefusalCode.BAD_INPUT)
        game = await self._lobby(caller)
        async with self.games.storage.lock(game.id):
            game = await self._lobby(caller, game.id)
            _check_opener(game, caller, "seat an AI player")
            if len(game.seats) >= int(game.options.get("seats", 5)):
                raise Refusal(f"Game #{game.id} is full.", RefusalCode.SEATS)
            colour = _free_colour(game)
            used = {s.user_id for s in game.seats}
            user_id = next(AI_USER_BASE + i for i in range(5) if AI_USER_BASE + i not in used)
            name = AI_NAMES[level]
            taken = {s.name for s in game.seats}
            if name in taken:
                name = next(f"{name} {n}" for n in range(2, 7) if f"{name} {n}" not in taken)
            seats = [*game.seats, SeatRecord(user_id, name, colour, ai_level=level)]
            game = await self.games.storage.update_lobby(game.id, seats=seats, now=self.clock())
        return self._reply(game, f"{name}, an AI player ({level}), sits down as {colour}.")

    async def leave(self, caller: Caller, game_id: int | None = None) -> Reply:
        """Leave a lobby (a started game cannot be left: ask for it to be cancelled)."""
        game = await (self.games.here(caller) if game_id is None else self.games.storage.get_game(game_id))
        if game.status is Status.PLAYING:
            if find_seat(game, caller) is None:
                raise Refusal(f"You are not seated in game #{game.id}.", RefusalCode.NOT_SEATED)
            raise Refusal(say("Game #{id} has started; a seat cannot be left now. To have the AI play your turns "
                              "until you are back, {away} ({back} takes the seat back). If the game must stop, the "
                              "opener or a channel manager can {cancel} it.", id=game.id, away=Command("away"),
                              back=Command("back"), cancel=Command("cancel")), RefusalCode.STARTED)
        game = await self._lobby(caller, game.id)
        async with self.games.storage.lock(game.id):
            game = await self._lobby(caller, game.id)
            if not any(s.user_id == caller.user_id for s in game.seats):
                raise Refusal(f"You are not seated in game #{game.id}.", RefusalCode.NOT_SEATED)
            seats = [s for s in game.seats if s.user_id != caller.user_id]
            if not seats:
                await self.games.storage.set_status(game.id, Status.CANCELLED, now=self.clock())
                gone = Post(as_text("This game was cancelled."), settles=lobby_key(game.id))
                await self.games.storage.posts.add(game, [encode_post(gone)], self.clock())
                self.herald.courier.kick(game.channel_id)
                return Reply(say("{name} leaves; nobody is left, so game #{id} is cancelled.", name=Name(caller.name),
                                 id=game.id), public=True)
            game = await self.games.storage.update_lobby(game.id, seats=seats, now=self.clock())
        return self._reply(game, say("{name} leaves.", name=Name(caller.name)))

    async def cancel(self, caller: Caller, game_id: int | None = None, *, confirmed: bool = False) -> Reply:
        """Cancel the channel's game (the opener, or a channel manager). A game in play is cancelled
        only once confirmed: the reply to the first ask carries a button that confirms."""
        if game_id is None and await self.games.storage.active_game_in_channel(caller.channel_id) is None:
            ended = await self.games.last_ended_here(caller.channel_id)
            if ended is not None:  # (just over, or cancelled: said so, not "no game here")
                raise Refusal(say("{over} There is nothing to cancel. Open a new one with {new}.",
                                  over=over_words(ended, already=True), new=Command("new")), RefusalCode.GAME_OVER)
        game = await (self.games.here(caller) if game_id is None else self.games.storage.get_game(game_id))
        if not game.status.is_active:
            raise Refusal(over_words(game, already=True), RefusalCode.GAME_OVER)
        _check_opener(game, caller, "cancel it")
        if game.status is Status.PLAYING and not confirmed:
            state = self.games.state_of(game)
            return Reply(say("Game #{id} is being played (round {round} of 7). Cancelling ends it for good, for "
                             "everyone at the table. To cancel it, {confirm}.", id=game.id, round=state.round,
                             confirm=Button("Cancel the game", "yes")), controls=(CancelButton(game.id),))
        async with self.games.storage.lock(game.id):
            fresh = await self.games.storage.get_game(game.id)
            if not fresh.status.is_active:
                raise Refusal(over_words(fresh, already=True), RefusalCode.GAME_OVER)
            await self.games.storage.set_status(game.id, Status.CANCELLED, now=self.clock())
            if fresh.status is Status.LOBBY:  # its lobby's buttons go
                gone = Post(as_text("This game was cancelled."), settles=lobby_key(game.id))
                await self.games.storage.posts.add(fresh, [encode_post(gone)], self.clock())
        self.herald.courier.kick(game.channel_id)
        self.stop(game.id)
        return Reply(say("Game #{id} was cancelled by {name}.", id=game.id, name=Name(caller.name)), public=True)

    async def start(self, caller: Caller, game_id: int | None = None) -> Reply:
        """Start the lobby: deal, draw the first player, post the first board."""
        game = await self._lobby(caller, game_id)
        async with self.games.storage.lock(game.id):
            game = await self._lobby(caller, game.id)
            _check_opener(game, caller, "start it")
            if len(game.seats) < 2:
                raise Refusal(say("Khronos needs at least 2 players: wait for someone to {join}, or seat an AI "
                                  "with {addbot}.", join=Command("join"), addbot=Command("addbot")), RefusalCode.SEATS)
            state = self.games.first_state(game)
            snapshot = to_json(state)
            opening = say("Game #{id} begins: {n} players, 7 rounds. {who} was drawn to play first.", id=game.id,
                          n=len(game.seats), who=who(state, state.active))
            # the first board is stored with the start (the outbox): a crash right after cannot lose it
            started = dataclasses.replace(game, status=Status.PLAYING, snapshot=snapshot)
            post = await self.herald.board_post(started, state, [opening], ())
            begun = Post(as_text("The game has started: its first board is below."), settles=lobby_key(game.id))
            posts = [p if isinstance(p, Letter) else encode_post(p)  # the first player told as they chose
                     for p in [begun, *await self.herald.reminders.apply(started, state, [post])]]
            game = await self.games.storage.start_game(game.id, snapshot,
                                                       turn_deadline=turn_deadline(game, self.clock()),
                                                       now=self.clock(), posts=posts)
            self.games.remember(game, state)
        self.herald.courier.kick(game.channel_id)
        self.herald.courier.kick_letters()
        await self.herald.courier.flush(game.channel_id)
        self.drive(game.id)
        seated = listed(who(state, i) for i in range(len(state.players)))
        return Reply(say("Game #{id} started: {seated}. Its first board is posted below.", id=game.id, seated=seated))

    async def rematch(self, caller: Caller, game_id: int, *, everyone: bool = False) -> Reply:
        """A new lobby in the same channel, after a game that ended or was cancelled, opened by the caller
        with the game's AI seats; its other people are asked to join (``everyone``: seated at once, as at
        one keyboard). Asked for again once that lobby is open, the asker joins it."""
        old = await self.games.storage.get_game(game_id)
        if old.status in (Status.LOBBY, Status.PLAYING):
            raise Refusal(say("Game #{id} is not over.", id=old.id), RefusalCode.NOT_ALLOWED)
        if not any(s.user_id == caller.user_id for s in old.seats if not is_ai(s)):
            raise Refusal(f"Only the players of game #{old.id} can ask for its rematch.", RefusalCode.NOT_ALLOWED)
        seats = [caller_seat := next(s for s in old.seats if s.user_id == caller.user_id)]
        seats += [s for s in old.seats if s is not caller_seat and (everyone or is_ai(s))]
        try:
            game = await self.games.storage.create_game(
                guild_id=old.guild_id, channel_id=old.channel_id, opener_id=caller.user_id, seed=self.seed_source(),
                options=dict(old.options), seats=seats, now=self.clock())
        except ChannelBusyError as busy:
            there = await self.games.storage.get_game(busy.game_id)
            people = {s.user_id for s in old.seats if not is_ai(s)}
            seated = find_seat(there, caller) is not None
            if there.status is Status.LOBBY and there.opener_id in people and not seated:
                return await self.join(caller, there.id)  # (another player of the game asked first: this one joins)
            if seated and there.status is Status.LOBBY and there.opener_id == caller.user_id:
                raise Refusal(say("You opened game #{id}: start it with {start} once everyone is seated.",
                                  id=there.id, start=Command("start")), RefusalCode.NOT_ALLOWED) from None
            if seated and there.status is Status.LOBBY:
                raise Refusal(say("You are already seated in game #{id}. Its opener starts it with {start}.",
                                  id=there.id, start=Command("start")), RefusalCode.NOT_ALLOWED) from None
            if seated:
                raise Refusal(say("You are already playing in game #{id}.", id=there.id),
                              RefusalCode.NOT_ALLOWED) from None
            raise Refusal(say("{here} already has game #{id}.", here=Here(capital=True), id=busy.game_id),
                          RefusalCode.BUSY) from None
        asked = [] if everyone else [s for s in old.seats if not is_ai(s) and s is not caller_seat]
        if not asked:
            return self._reply(game, say("{name} asks for a rematch of game #{id}: same seats.", name=Name(caller.name),
                                         id=old.id))
        reply = self._reply(game, say("{name} asks for a rematch of game #{id}. {asked}: {join} to play again.",
                                      name=Name(caller.name), id=old.id,
                                      asked=series(Mention(s.user_id, s.name) for s in asked),
                                      join=Command("join", or_button=True)))
        pinged = [s.user_id for s in asked if await self.games.storage.notices.mode(s.user_id) == "channel"]
        return dataclasses.replace(reply, mentions=tuple(pinged))  # (as each chose to be told: ``notify``)


def lobby_key(game_id: int) -> str:
    """The ``key`` of game ``game_id``'s lobby message (one at a time: the newest has the buttons)."""
    return f"lobby-{game_id}"


def _free_colour(game: GameRecord) -> str:
    taken = {s.colour for s in game.seats}
    return next(c.value for c in Colour if c.value not in taken)


def _check_opener(game: GameRecord, caller: Caller, what: str) -> None:
    if caller.user_id != game.opener_id and not caller.can_manage:
        name = next((s.name for s in game.seats if s.user_id == game.opener_id), "who opened it")
        raise Refusal(say("Only the player who opened game #{id} ({opener}) or someone who may manage {here} can "
                          "{what}.", id=game.id, opener=Mention(game.opener_id, name), here=HERE, what=what),
                  RefusalCode.NOT_ALLOWED)
