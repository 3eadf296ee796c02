"""What each command does: a table from a command's word to its handler, which calls the service.

``HANDLERS`` holds the commands that act at a game (they get a ``Request``: the table, the game as it
stands, who types, the options): ``SLASH``, the commands of ``/tiempo``, each its catalogue entry's
``call`` (but ``hand``, ``board`` and ``undo``, which know the table's game and panel), and ``OWN``, the
console's words for what Discord shows as buttons. The catalogue's commands that need no game
(``ANYWHERE``: ``rules``, ``games``, ``profile``, ``leaderboard``, ``learn``) and the words on a lesson
shown (``LESSON_WORDS``) run without one; ``LOCAL`` holds ``help`` and ``quit``. ``run_command`` carries
one command out and prints its answer with the channel's posts it caused, in order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..service import (
    AGE_NAMES,
    BUILDING_NAMES,
    CATALOGUE,
    RULE_TOPICS,
    SEP,
    SUGGESTIONS,
    Caller,
    PanelView,
    Refusal,
    Reply,
    StorageError,
    TableState,
    Tiempo,
    panel_pick,
    parse_age,
)
from ..words import IN_HERE, Code, Command, Text, as_text, lines, say, series, with_article
from .commands import COMMANDS, ConsoleCommand, help_text
from .parsing import Options
from .table import CHANNEL_ID, ConsoleTable


@dataclass(frozen=True)
class Request:
    """One command typed at the table: the session, the game as it stands, who types, what they gave."""

    table: ConsoleTable
    at: TableState
    caller: Caller
    command: ConsoleCommand
    options: Options

    @property
    def service(self) -> Tiempo:
        return self.table.service

    @property
    def values(self) -> dict[str, str | None]:
        """The options under the names the service knows them by (``to`` is the service's ``age``)."""
        return {o.service_key: self.options[o.name] for o in self.command.options}


#: a command acting at a game: its answer for the caller (None: it printed what it had to say)
Handler = Callable[[Request], Awaitable[Reply | None]]
#: a command that needs no game: False when the table should close
LocalHandler = Callable[[ConsoleTable, Options], bool]


#: the catalogue's commands that need no game at the table (they work anywhere, or read no game)
ANYWHERE = frozenset({"rules", "leaderboard",
                      *(c.word for c in COMMANDS.values() if c.entry is not None and c.entry.anywhere)})
#: the words that act on a lesson shown last (before the turn panel's)
LESSON_WORDS = frozenset({"pick", "ok", "back", "menu"})


# -- the commands of /tiempo: the catalogue's call, or the console's where it knows more -------------

async def _call(r: Request) -> Reply:
    """A command of the catalogue: its entry's ``call`` with the options as typed."""
    assert r.command.entry is not None
    return await r.command.entry.call(r.service, r.caller, r.options)


async def _away(r: Request) -> Reply:
    """``away``; asked first when the caller is the only person at the table the AI does not play for:
    nothing is read while the AI plays, so it would play every turn of theirs to the end of the game
    (``yes`` hands it over)."""
    people = {seat.user_id for i, seat in enumerate(r.at.seats) if not seat.ai_level and i not in r.at.stood_in}
    if len(people) > 1 or r.table.unconfirmed_away == r.at.game_id or r.caller.user_id not in people:
        r.table.unconfirmed_away = None
        return await _call(r)
    r.table.unconfirmed_away = r.at.game_id
    return Reply(say("You are the only person at this table, and nothing typed is read while the AI plays: it would "
                     "play every turn of yours to the end of the game. Type {yes} to hand it your seat for the rest "
                     "of the game, or play on.", yes=Command("yes")))


async def _hand(r: Request) -> Reply:
    """The hand in the table's game (also once it is over)."""
    return await r.service.hand(r.caller, r.at.game_id)


async def _board(r: Request) -> Reply:
    """The picture of the table's game (also once it is over)."""
    return await r.service.board(r.caller, parse_age(r.options["age"]), r.at.game_id)


async def _undo(r: Request) -> Reply:
    """Undo, in the turn panel when one is shown (as its Undo button)."""
    panel = r.table.panel
    if panel is not None and panel.undo:
        return await r.service.panel_undo(r.caller, r.at.game_id)
    return await r.service.undo(r.caller)


async def _rematch(r: Request) -> None:
    """A lobby with the same seats, started at once."""
    if r.at.is_playing:
        raise Refusal(say("Game #{id} is still being played; {quit} to leave it.", id=r.at.game_id,
                          quit=Command("quit")))
    await r.service.rematch(r.caller, r.at.game_id, everyone=True)  # (one keyboard: every seat at it)
    new = await r.service.table_in(CHANNEL_ID)
    assert new is not None
    r.table.remember_seats(new)
    r.table.greeted_anew()
    r.table.say(say("\nA rematch: game #{id}, same seats.", id=new.game_id))
    await r.service.start_game(r.caller, new.game_id)
    return None


# -- after the game: replay and export -----------------------------------------------------------

async def _replay(r: Request) -> Reply:
    """A step of a game (its pictures written as the posts' are); ``next`` and ``prev`` step on."""
    return await CATALOGUE["replay"].call(r.service, r.caller, r.options)


def _stepping(role: str) -> Handler:
    """``next`` or ``prev``: the step its button in the replay shown last goes to."""
    async def handler(r: Request) -> Reply:
        view = r.table.replay
        if view is None:
            raise Refusal(say("Show a replay first: {replay}, e.g. {example}.", replay=Command("replay"),
                              example=Command("replay", str(r.at.game_id))))
        button = next(b for b in view.buttons if b.role == role)
        if button.disabled:
            raise Refusal(say("That was the last step of game #{id}." if role == "next" else
                              "That is the deal of game #{id}: nothing comes before it.", id=view.game_id))
        return await r.service.replay(r.caller, view.game_id, button.step, hands=view.hands)
    return handler


async def _export(r: Request) -> Reply:
    """A finished game's files, written to the pictures folder; where they went."""
    if r.table.screen.pictures.folder is None:
        raise Refusal(say("An export is written to the pictures folder, and this table draws no pictures: start "
                          "it without {option}.", option="--no-pictures"))
    r.table.whisper(say("Drawing the game turn by turn…"))
    reply = await CATALOGUE["export"].call(r.service, r.caller, r.options)
    paths = r.table.screen.pictures.save_files(reply.files)
    folder = r.table.screen.pictures.folder
    return Reply(lines([reply.text, say("Written to {folder}: {files}.", folder=str(folder),
                                         files=", ".join(p.name for p in paths))]))


async def _review(r: Request) -> Reply:
    """A finished game's review, its progress told every quarter of the turns; one reply (the pictures
    written to the pictures folder as a post's are)."""
    shown = -1

    async def progress(done: int, total: int) -> None:
        nonlocal shown
        if done * 4 // total > shown and done < total:
            shown = done * 4 // total
            r.table.whisper(say("Reviewing the game with the AI's top level: turn {done} of {total}…", done=done,
                                total=total))

    parts = await r.service.review(r.caller, _game_option(r), progress)
    said = [x for i, part in enumerate(parts) for x in ([Text(), part.text] if i else [part.text])]
    return Reply(lines(said), gallery=tuple(p for part in parts for p in part.gallery))


def _game_option(r: Request) -> int | None:
    """The ``game`` option as a number (by default, the table's game)."""
    value = (r.options.get("game") or "").strip()
    if not value:
        return r.at.game_id
    if not value.isdigit():
        raise Refusal(say("{game} is a game's number, e.g. {example}.", game="game", example=Command("review", "12")))
    return int(value)


# -- the console's own words: the turn panel and confirming ---------------------------------------

async def _panel_open(r: Request) -> Reply:
    """``play``: the turn panel, as Discord's Play button opens it."""
    return await r.service.panel(r.caller, r.at.game_id)


def _on_panel(step: Callable[[Request, PanelView], Awaitable[Reply]]) -> Handler:
    """A word that acts on the turn panel shown last (``pick``, ``ok``, ``back``, ``menu``)."""
    async def handler(r: Request) -> Reply:
        if r.table.panel is None:
            raise Refusal(say("Open the turn panel first: {play}.", play=Command("play")))
        return await step(r, r.table.panel)
    return handler


async def _pick(r: Request, panel: PanelView) -> Reply:
    number = (r.options.get("number") or "").strip()
    if not number.isdigit() or not 1 <= int(number) <= len(panel.choices):
        raise Refusal(say("Pick a number from 1 to {n}.", n=len(panel.choices)) if panel.choices else
                      say("There is nothing to pick now."))
    return await r.service.panel(r.caller, panel.game_id, panel.version, panel_pick(panel, int(number)))


async def _ok(r: Request, panel: PanelView) -> Reply:
    if not panel.confirm:
        raise Refusal(say("Pick the rest of the action first."))
    return await r.service.panel_confirm(r.caller, panel.game_id, panel.version, panel.path)


async def _back(r: Request, panel: PanelView) -> Reply:
    return await r.service.panel(r.caller, panel.game_id, panel.version, panel.back or ())


async def _menu(r: Request, panel: PanelView) -> Reply:
    return await r.service.panel(r.caller, panel.game_id, panel.version, ())


async def _back_or_seat(r: Request) -> Reply:
    """``back``: while the AI plays the caller's seat, the seat back (``/tiempo back``); else the turn
    panel's previous question."""
    seat = next((i for i, s in enumerate(r.at.seats) if s.user_id == r.caller.user_id and s.ai_level is None), None)
    if seat in r.at.stood_in or r.table.panel is None:
        return await r.service.back(r.caller)
    return await _back(r, r.table.panel)


async def _yes(r: Request) -> Reply:
    """Confirm what the last answer warned about: cancelling the game, handing the only person's seat to
    the AI, or an action that harms you."""
    if r.table.unconfirmed_away == r.at.game_id:
        return await r.service.away(r.caller)
    if r.table.unconfirmed_cancel is not None:
        return await r.service.cancel(r.caller, r.table.unconfirmed_cancel, confirmed=True)
    if r.table.unconfirmed is None:
        raise Refusal(say("There is nothing to confirm."))
    game_id, version, notation = r.table.unconfirmed
    return await r.service.play_confirmed(r.caller, game_id, version, notation)


def _help(table: ConsoleTable, options: Options) -> bool:
    table.say(help_text())
    return True


def _quit(table: ConsoleTable, options: Options) -> bool:
    return False


#: the catalogue's commands that act at the table's game, each its entry's call, but for the few where
#: the console knows more than a channel does (the table's game, also once over; the panel shown)
SLASH: dict[str, Handler] = {
    **{c.word: _call for c in COMMANDS.values() if c.entry is not None and c.word not in ANYWHERE},
    "hand": _hand, "board": _board, "undo": _undo, "replay": _replay, "export": _export,
    "review": _review, "away": _away,
}
#: the console's own words, which are buttons on Discord: the turn panel, confirming, rematch
OWN: dict[str, Handler] = {
    "rematch": _rematch, "play": _panel_open, "pick": _on_panel(_pick), "ok": _on_panel(_ok),
    "back": _back_or_seat, "menu": _on_panel(_menu), "yes": _yes,
    "next": _stepping("next"), "prev": _stepping("prev"),
}
HANDLERS: dict[str, Handler] = {**SLASH, **OWN}
#: the words that need no game: ``help``, ``quit``
LOCAL: dict[str, LocalHandler] = {"help": _help, "quit": _quit}


async def run_command(table: ConsoleTable, command: ConsoleCommand, options: Options) -> bool:
    """Carry out one command and print its answer; False when the table should close. The answer
    comes after the channel's posts it caused, unless the keyboard passes on (then the last words for
    who typed come first)."""
    if command.word not in ("away", "yes"):  # (an ``away`` to confirm is confirmed next, or not at all)
        table.unconfirmed_away = None
    local = LOCAL.get(command.word)
    if local is not None:
        return local(table, options)
    if command.word in ANYWHERE or (command.word in LESSON_WORDS and table.lesson is not None):
        await _without_game(table, command, options)
        return True
    at = await table.where()
    if at is None:
        table.say(say("No game is running {here}.", here=IN_HERE))
        return True
    caller = table.caller_for(at)
    table.held = []
    reply: Reply | None
    refused: Text | None = None  # (said aside: the panel or question shown stays the one to act on)
    try:
        reply = await HANDLERS[command.word](Request(table, at, caller, command, options))
    except Refusal as refusal:
        reply, refused = None, refusal.text
    except StorageError as err:
        reply = Reply(as_text(str(err)))
    finally:
        posts, table.held = table.held, None
    if refused is not None:
        table.whisper(refused)
    after = await table.where()
    passed = after is not None and (after.is_over or after.seats[after.waiting_on].user_id != caller.user_id)
    if reply is not None and passed:  # the keyboard passes on: first the last words for who typed
        table.show(reply, public=reply.public, to=caller)
    for post in posts:
        table.show(post, public=True)
    if reply is not None and not passed:
        table.show(reply, public=reply.public)
    return True


# -- the commands that need no game: rules, one's games and profile, the course -------------------

async def _lesson_step(table: ConsoleTable, caller: Caller, word: str, options: Options) -> Reply:
    """``pick``, ``ok``, ``back`` or ``menu`` on the lesson shown last (as its list and buttons)."""
    view = table.lesson
    assert view is not None
    s = table.service
    if word == "menu":
        return await s.learn(caller)
    if word == "back":
        if view.back is None:
            raise Refusal(say("There is no previous question; {learn} lists the lessons.", learn=Command("learn")))
        return await s.learn_lesson(caller, view.lesson, view.stage, view.back)
    if word == "ok":
        if not view.confirm:
            raise Refusal(say("Pick the rest of the move first."))
        return await s.learn_confirm(caller, view.lesson, view.stage, view.path)
    number = (options.get("number") or "").strip()
    if not number.isdigit() or not 1 <= int(number) <= len(view.choices):
        raise Refusal(say("Pick a number from 1 to {n}.", n=len(view.choices)) if view.choices else
                      say("There is nothing to pick now."))
    key = view.choices[int(number) - 1].key
    if not view.lesson:
        return await s.learn_lesson(caller, key)
    return await s.learn_lesson(caller, view.lesson, view.stage, (*view.base, *key.split(SEP)))


def _player_named(at: TableState, options: Options) -> Options:
    """``profile Ben``: at a table a player is named as the seats name them (Discord picks a member);
    a person's seat becomes their number, an AI seat is said to have no profile. A seat's name made of
    digits is that seat; other digits are a player's number."""
    named = (options.get("player") or "").strip()
    if not named:
        return options
    seat = next((s for s in at.seats if s.name.casefold() == named.casefold()), None)
    if seat is None and named.isdigit():
        return options
    if seat is None:
        raise Refusal(say("No one at this table is called {name}: the seats are {seats}.", name=Code(named),
                          seats=series([s.name for s in at.seats])))
    if seat.ai_level:
        raise Refusal(say("{name} is an AI player: profiles are kept for people.", name=seat.name))
    return {**options, "player": str(seat.user_id), "player_name": seat.name}


async def _without_game(table: ConsoleTable, command: ConsoleCommand, options: Options) -> None:
    """A command that needs no game (``rules``, ``games``, ``learn``…) or a word on the lesson shown."""
    at = await table.where()
    caller = table.caller_for(at) if at is not None else table.someone()
    try:
        if command.word == "profile" and at is not None:
            options = _player_named(at, options)
        if command.word == "games" and at is not None and (at.is_over or at.is_cancelled):  # (no lobby to join here)
            table.whisper(say("Game #{id} {how}: {rematch} starts another with the same seats.", id=at.game_id,
                              how="was cancelled" if at.is_cancelled else "is over", rematch=Command("rematch")))
            return
        if command.entry is not None:
            reply = await command.entry.call(table.service, caller, options)
        else:
            reply = await _lesson_step(table, caller, command.word, options)
    except Refusal as refusal:  # (the lesson shown stays the one to act on)
        table.whisper(refusal.text)
        return
    except StorageError as err:
        table.whisper(as_text(str(err)))
        return
    table.show(reply, public=reply.public)


# -- suggestions: what fits an option now (``?``, or a required option left out) -----------------

async def suggest(table: ConsoleTable, command: ConsoleCommand, options: Options, wanted: str) -> None:
    """What the caller could give for ``wanted`` now (what Discord's autocompletion offers)."""
    at = await table.where()
    if at is None or not at.is_playing:
        return
    caller = table.caller_for(at)
    s, word = table.service, command.word
    values: list[str] = []
    what = Text()
    if wanted in ("cell", "at") and command.plays:
        values = await s.suggest_cells(caller, word, "", kind=options.get("kind") or options.get("to"),
                                       age=options.get("age"), limit=SUGGESTIONS + 1)
        kind = options.get("kind") if word == "build" else None
        what = (say("Cells for {a_kind} now", a_kind=with_article(kind.title())) if kind
                else say("Cells you can name now"))
    elif wanted in ("cards", "discard", "give"):
        values = await s.suggest_cards(caller, word, "", SUGGESTIONS + 1)
        what = say("Cards from your hand")
    elif wanted == "pay":
        values = [f"{pay} ({words})" for pay, words in await s.suggest_payments(
            caller, word, {o.service_key: options[o.name] for o in command.options}, "", SUGGESTIONS + 1)]
        what = say("Ways to pay (cards, then cards per pawn)")
    elif wanted in ("age", "to"):
        values, what = list(AGE_NAMES), say("Ages")
    elif wanted == "topic":
        values, what = list(RULE_TOPICS), say("Topics")
    elif wanted == "kind":
        values, what = list(BUILDING_NAMES), say("Buildings")
    if values:
        more: Text | str = "."
        if len(values) > SUGGESTIONS:  # (one more asked for than is shown: there are more than Discord shows)
            values = values[:SUGGESTIONS]
            more = (say(" … (the first {n}: {play} offers every one, by areas of the board).", n=SUGGESTIONS,
                        play=Command("play")) if wanted in ("cell", "at") else " …")
        table.whisper(say("{what}: {values}{more}", what=what, values=", ".join(values), more=more))
    elif what:
        about = "pay" if wanted == "pay" else "upgrade-at" if wanted == "at" else word
        why = await s.why_no_suggestion(caller, about, kind=options.get("kind") or options.get("to"),
                                        target=options.get("cell"))
        table.whisper(say("{what}: none right now. {why}", what=what, why=why))


__all__ = ["ANYWHERE", "HANDLERS", "LESSON_WORDS", "LOCAL", "OWN", "SLASH", "Handler", "LocalHandler", "Request",
           "run_command", "suggest"]
