"""``tiempo-bot console``: a Khronos table in the terminal.

People share one keyboard (whoever the game waits on types), AI seats play by themselves::

    tiempo-bot console                                   # you against two greedy AI players
    tiempo-bot console --seats "Ana,Ben,ai:strong" --holdem --seed 7
    tiempo-bot console --db khronos.sqlite3              # keep the game; run again to resume it

It drives the same table service as the Discord bot (``bot.service.Tiempo`` over a real SQLite
``Storage``), so it says the same things: the channel's posts are printed as they come, each posted
picture is written as a PNG under ``--out`` and its path printed, and a command's private answer is
printed indented. Input lines use the words and options of the ``/tiempo`` slash commands, by name
(``build kind:Keep cell:C4 age:Might``) or in the slash command's order (``build Keep C4 Might``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import logging
import os
import random
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from rules import Action, Age, GameState, Kind, NotationError

from .ai.helpers import MAX_WORKERS, default_workers
from .play import Refusal
from .service import AI_LEVELS, SEP, Caller, PanelView, Post, Reply, Tiempo, version_of
from .storage import GameRecord, Status, Storage, StorageError
from .texts import RULES, who
from .words import Style, Text, as_text, render

GUILD_ID = 1
CHANNEL_ID = 1
DEFAULT_OUT = "tiempo-pictures"

log = logging.getLogger("tiempo.console")

# ---------------------------------------------------------------------------------------------
# The commands: the words and options of /tiempo (bot.discord_app), in the slash commands' order


@dataclass(frozen=True)
class Option:
    """One option of a command: ``name`` as typed (the slash command's), ``key`` as the service wants it."""

    name: str
    required: bool = False
    key: str = ""
    #: for an optional option: does this word fit it? (a positional word that does not is given to the next one)
    fits: Callable[[str], bool] | None = None

    @property
    def service_key(self) -> str:
        return self.key or self.name


@dataclass(frozen=True)
class Command:
    word: str
    summary: str
    options: tuple[Option, ...] = ()
    example: str = ""
    plays: bool = False  # an action in the game (service.play)

    @property
    def usage(self) -> str:
        parts = [self.word] + [o.name if o.required else f"[{o.name}]" for o in self.options]
        return " ".join(parts)


def _is_age(word: str) -> bool:
    try:
        Age.parse(word)
    except NotationError:
        return False
    return True


def _is_cell(word: str) -> bool:
    return re.fullmatch(r"[A-Za-z]\d{1,2}", word) is not None


_AGE = Option("age", fits=_is_age)
_PAY = Option("pay")

COMMANDS: dict[str, Command] = {c.word: c for c in (
    Command("hand", "your cards, Ecus, cubes and pawns, and what happened since your last turn"),
    Command("board", "the picture of the game, or of one Age (written as a PNG)", (Option("age"),), "board Faith"),
    Command("status", "round, whose turn, scores and stock"),
    Command("log", "the last events of the game, in words", (Option("count"),), "log 30"),
    Command("rules", "a short rules reference", (Option("topic"),), "rules ripples"),
    Command("exchange", "Phase I: pay 2 Ecus, discard 1–4 cards, draw back to 4", (Option("cards", True),),
            "exchange MR", plays=True),
    Command("swap", "Hold'em: take cards of one colour from the reserve, give as many",
            (Option("take", True), Option("give", True)), "swap CC MR", plays=True),
    Command("travel", "move a pawn to another Age (1 Ecu)", (Option("pawn", True), Option("to", True, "age")),
            "travel 1 Faith", plays=True),
    Command("build", "construct a building on Might or Faith",
            (Option("kind", True), Option("cell", True), _AGE, _PAY), "build Keep C4 Might", plays=True),
    Command("upgrade", "upgrade a building into a bigger one of its family",
            (Option("cell", True), Option("to", True, "kind"), Option("at", fits=_is_cell), _AGE, _PAY),
            "upgrade C4 Castle", plays=True),
    Command("demolish", "demolish a Watchtower, Chapel or Hamlet (1 card and 1 Ecu)",
            (Option("cell", True), _AGE, _PAY), "demolish C3 Faith", plays=True),
    Command("populate", "Reason: put a cube on a Hamlet, Town or City (1 Civil card)",
            (Option("cell", True), _PAY), "populate D2", plays=True),
    Command("renovate", "Reason: renovate a ruin (Keep/Monastery 1 card, Castle/Abbey 2)",
            (Option("cell", True), _PAY), "renovate E2", plays=True),
    Command("end", "end your turn: discard what you like, draw back to 4", (Option("discard"),), "end discard:MC",
            plays=True),
    Command("choose", "answer the decision the game is waiting on", (Option("cell", True),), "choose E1",
            plays=True),
    Command("undo", "take back your last action this turn (not after drawing cards)"),
    Command("play", "the turn panel: pick what to do from numbered lists, see what it does, then `ok`"),
    Command("pick", "in the turn panel: pick a numbered choice (typing the number alone does the same)",
            (Option("number", True),), "pick 2"),
    Command("ok", "in the turn panel: play the action it shows"),
    Command("back", "in the turn panel: the previous question again"),
    Command("menu", "in the turn panel: back to the first list"),
    Command("yes", "confirm what you were just asked about (an action that harms you, cancelling the game)"),
    Command("rematch", "after the game: play again with the same seats"),
    Command("cancel", "give the game up (it cannot be resumed)"),
    Command("help", "this list"),
    Command("quit", "leave the table (also Ctrl-D)"),
)}

ALIASES = {"exit": "quit", "q": "quit", "?": "help", "new": "rematch", "info": "status", "cards": "hand"}


class InputError(Exception):
    """A line that is not a command the console understands; ``str()`` says why."""


def parse_line(line: str) -> tuple[Command, dict[str, str | None]]:
    """The command of an input line and its options by name (``None`` when not given). Options are
    given as ``name:value`` (or ``name=value``) or by position, in the slash command's order; the last
    option named or placed takes the rest of the line (``pay:MM 1+1``)."""
    words = line.split()
    if words and words[0].lower() in ("/tiempo", "tiempo"):
        words = words[1:]
    if not words:
        raise InputError("")
    word = words[0].lower().lstrip("/")
    if word.isdigit() and len(words) == 1:  # a number alone picks from the turn panel
        words, word = ["pick", word], "pick"
    word = ALIASES.get(word, word)
    command = COMMANDS.get(word)
    if command is None:
        raise InputError(f"There is no command {words[0]!r}.")
    names = [o.name for o in command.options]
    given: dict[str, list[str]] = {}
    last: str | None = None  # the option that takes the words that follow
    keyed = False
    for token in words[1:]:
        m = re.fullmatch(r"([A-Za-z]+)[:=](.*)", token)
        if m and m.group(1).lower() in names:
            name = m.group(1).lower()
            if name in given:
                raise InputError(f"The option {name} is given twice.")
            given[name] = [m.group(2)] if m.group(2) else []
            last, keyed = name, True
            continue
        if keyed and last is not None:  # after ``name:value``, the words that follow belong to it
            given[last].append(token)
            continue
        free = [o for o in command.options if o.name not in given and names.index(o.name) > _index(names, last)]
        while len(free) > 1 and not free[0].required and free[0].fits is not None and not free[0].fits(token):
            free.pop(0)
        if free:
            last = free[0].name
            given[last] = [token]
        elif last is not None:
            given[last].append(token)
        else:
            raise InputError(f"`{command.word}` takes no options.")
    options: dict[str, str | None] = {o.name: (" ".join(given[o.name]) or None) if o.name in given else None
                                      for o in command.options}
    asked = [o.name for o in command.options if options[o.name] == "?"]
    missing = [o.name for o in command.options if o.required and not options[o.name]]
    if asked or missing:
        options = {k: (None if v == "?" else v) for k, v in options.items()}
        text = "" if asked and not missing else (
            f"`{command.word}` needs {' and '.join(missing)}: `{command.usage}`"
            + (f", e.g. `{command.example}`." if command.example else "."))
        raise MissingOption(text, command, options, (asked + missing)[0])
    return command, options


class MissingOption(InputError):
    """A command without a value it needs, or with ``?`` for one: the console suggests values."""

    def __init__(self, text: str, command: Command, options: dict[str, str | None], wanted: str) -> None:
        super().__init__(text)
        self.command, self.options, self.wanted = command, options, wanted


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _index(names: list[str], name: str | None) -> int:
    return names.index(name) if name is not None else -1


def help_text() -> str:
    lines = ["Commands (the words of /tiempo; give options by name, `cell:C4`, or in this order):"]
    width = max(len(c.usage) for c in COMMANDS.values())
    for c in COMMANDS.values():
        lines.append(f"  {c.usage.ljust(width)}  {c.summary}")
    lines += ["Examples: `build Keep C4 Might` · `build kind:Keep cell:C4 age:Might pay:MM 1+1` · "
              "`travel 1 Faith` · `end discard:MC` · `choose E1`",
              "Put `?` for an option to see what fits now: `build Hamlet ?`, `upgrade ?`, `end discard:?`.",
              f"Rules topics: {', '.join(RULES)}."]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Seats


@dataclass(frozen=True)
class SeatSpec:
    name: str
    ai: str | None = None


def default_name() -> str:
    """The login name, capitalised, for the default table (``Player`` when it says nothing)."""
    with contextlib.suppress(Exception):
        name = getpass.getuser().strip()
        if name and name != "root" and len(name) <= 24:
            return name[:1].upper() + name[1:]
    return "Player"


def parse_seats(text: str) -> list[SeatSpec]:
    """``Ana,Ben,ai:greedy`` → the seats; ``ai`` alone is a greedy AI player."""
    seats: list[SeatSpec] = []
    for raw in text.split(","):
        entry = raw.strip()
        if not entry:
            raise ValueError(f"--seats has an empty entry: {text!r}")
        if entry.lower() == "ai" or entry.lower().startswith("ai:"):
            level = entry[3:].strip().lower() or "greedy"
            if level not in AI_LEVELS:
                raise ValueError(f"{level!r} is not an AI level: use {', '.join(AI_LEVELS)} (e.g. ai:greedy)")
            seats.append(SeatSpec("", level))
            continue
        if len(entry) > 32:
            raise ValueError(f"the name {entry[:32]!r}… is too long (32 characters at most)")
        if any(s.ai is None and s.name.lower() == entry.lower() for s in seats):
            raise ValueError(f"two seats are called {entry!r}")
        seats.append(SeatSpec(entry))
    if not 2 <= len(seats) <= 5:
        raise ValueError(f"Khronos is for 2 to 5 players; --seats names {len(seats)}")
    if all(s.ai for s in seats):
        raise ValueError("at least one seat must be a person (to watch AI players only: tiempo-bot selfplay)")
    return seats


# ---------------------------------------------------------------------------------------------
# Output


BOLD, RESET = "\033[1m", "\033[0m"
#: how the service's words look at the terminal: names for mentions, the console's own command words
TERMINAL = Style(here="this table")
TERMINAL_BOLD = Style(strong=BOLD + "{}" + RESET, here="this table")


def to_terminal(text: Text | str, *, bold: bool = False) -> str:
    """The service's words as the terminal shows them (bold only on a terminal that can)."""
    return render(as_text(text), TERMINAL_BOLD if bold else TERMINAL)


class Pictures:
    """Writes posted pictures as numbered PNG files in a folder (created when the first comes)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.count: int | None = None

    def save(self, png: bytes, filename: str) -> Path | None:
        if self.folder is None:
            return None
        if self.count is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            numbers = [int(m.group(1)) for p in self.folder.iterdir() if (m := re.match(r"(\d+)-", p.name))]
            self.count = max(numbers, default=0)
        self.count += 1
        path = self.folder / f"{self.count:03d}-{filename}"
        path.write_bytes(png)
        return path


    def save_post(self, post: Post) -> str | None:
        """Save a post's picture and gallery; the line that says where they are (None: none saved)."""
        pictures = [*([(post.png, post.filename)] if post.png is not None else []),
                    *((p.png, p.filename) for p in post.gallery)]
        paths = [str(path) for png, name in pictures if (path := self.save(png, name)) is not None]
        return f"[picture{'s' if len(paths) > 1 else ''}: {', '.join(paths)}]" if paths else None


class TerminalOutbox:
    """The service's channel posts, printed (the console sets ``table`` before the first post)."""

    def __init__(self) -> None:
        self.table: Table | None = None

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        if self.table is None:
            return
        if self.table.held is not None:
            self.table.held.append(post)
        else:
            self.table.show(post, public=True)


# ---------------------------------------------------------------------------------------------
# The table


@dataclass
class Table:
    """One console session: the service, who sits where, and the streams."""

    service: Tiempo
    out: TextIO
    pictures: Pictures
    bold: bool = False
    humans: list[Caller] = field(default_factory=list)
    game_id: int | None = None
    #: the turn panel shown last (its numbered choices, ``ok``, ``back`` and ``menu`` act on it)
    panel: PanelView | None = None
    #: an action the player was warned about and may confirm with ``yes``: (game, version, notation)
    unconfirmed: tuple[int, str, str] | None = None
    #: a game in play whose cancelling the player may confirm with ``yes``
    unconfirmed_cancel: int | None = None
    #: the game version the last public post showed the board of (it said whose turn it is)
    last_board: str | None = None
    #: the channel's posts while a command runs, to print in order with its answer
    held: list[Post] | None = None
    _announced: set[tuple[int, int, bool]] = field(default_factory=set)
    _last_human: int | None = None
    _greeted: tuple[int, int] | None = None

    # -- printing ---------------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def whisper(self, text: str) -> None:
        """What only the person at the keyboard should read (Discord's private answers): indented."""
        self.say("\n".join("  " + line if line else "" for line in text.split("\n")))

    def show(self, post: Post, *, public: bool, to: Caller | None = None) -> None:
        """A post (public) or a reply (private: indented) as the terminal shows it; ``to`` names who a
        private reply is for when several people share the keyboard."""
        text = to_terminal(post.text, bold=self.bold)
        if to is not None and not public and len(self.humans) > 1:
            text = f"(for {to.name} only)\n{text}"
        note = self.pictures.save_post(post)
        if public:
            self.say()
            if note is not None:  # before the text, which ends with whose turn it is
                self.say(note)
            self.say(text)
            self.last_board = post.version if post.hand_game is not None else None
        else:
            self.whisper(text)
            if note is not None:
                self.whisper(note)
        if post.choices:
            self.say("Answer with " + " or ".join(f"`choose {cell}`" for _, cell in post.choices) + ".")
        if not public:
            self.unconfirmed, self.unconfirmed_cancel = post.confirm, post.cancel_game
            self.panel = post.panel
            if post.panel is not None:
                self.show_panel(post.panel)

    def show_panel(self, panel: PanelView) -> None:
        """A turn panel's choices, numbered, and what can be typed."""
        for i, c in enumerate(panel.choices, 1):
            self.whisper(f"{i:>3}. {c.label}" + (f" — {c.detail}" if c.detail else ""))
        hints = (["a number to pick"] if panel.choices else []) + (["`ok` to play it"] if panel.confirm else [])
        hints += (["`back`"] if panel.back is not None else []) + (["`menu`"] if panel.path else [])
        hints += ["`undo`"] if panel.undo else []
        if not panel.choices and not panel.confirm:
            hints.append("`play` to look again")
        self.whisper("Type " + ", ".join(hints) + ".")

    # -- the game ---------------------------------------------------------------------------------

    async def game(self) -> GameRecord | None:
        if self.game_id is None:
            return None
        return await self.service.storage.get_game(self.game_id)

    async def where(self) -> tuple[GameRecord, GameState] | None:
        game = await self.game()
        if game is None or game.snapshot is None:
            return None
        return game, self.service.state_of(game)

    def remember_seats(self, game: GameRecord) -> None:
        self.game_id = game.id
        self.humans = [Caller(GUILD_ID, CHANNEL_ID, s.user_id, s.name, can_manage=True)
                       for s in game.seats if s.ai_level is None]

    def caller_for(self, game: GameRecord, state: GameState) -> Caller:
        """The person at the keyboard: the seat the game waits on, else the last one who typed."""
        seat = game.seats[state.waiting_on]
        if seat.ai_level is None and not state.finished:
            self._last_human = seat.user_id
        wanted = self._last_human
        return next((c for c in self.humans if c.user_id == wanted), self.humans[0])

    async def settle(self) -> None:
        """Wait until no AI seat is thinking, saying who thinks when it takes a moment."""
        idle = asyncio.ensure_future(self.service.idle())
        try:
            while not idle.done():
                await asyncio.wait({idle}, timeout=0.3)
                if idle.done():
                    break
                here = await self.where()
                if here is None:
                    continue
                game, state = here
                seat = game.seats[state.waiting_on]
                key = (state.turn, state.waiting_on, state.pending is not None)
                if state.finished or seat.ai_level is None or key in self._announced:
                    continue
                self._announced.add(key)
                if state.pending is None and self.last_board == version_of(game):
                    continue  # the board post just said who is thinking
                self.say(f"… {seat.name} is thinking")
        finally:
            await idle

    async def prompt(self) -> str:
        """The prompt for the next line; greets a person at the start of their turn."""
        here = await self.where()
        if here is None:
            return "> "
        game, state = here
        if game.status is Status.CANCELLED:
            return f"[game #{game.id} was cancelled] > "
        if state.finished or game.status is not Status.PLAYING:
            return f"[game #{game.id} is over] > "
        seat = game.seats[state.waiting_on]
        name = who(state, state.waiting_on)
        if seat.ai_level is not None:
            return f"[waiting for {name}] > "
        turn = (state.turn, state.waiting_on)
        if state.pending is None and self._greeted != turn and state.active == state.waiting_on:
            self._greeted = turn
            await self.greet(game, state)
        ask = ", choose" if state.pending is not None else ""
        return f"[round {state.round}] {name}{ask} > "

    async def greet(self, game: GameRecord, state: GameState) -> None:
        """The start of a person's turn: with one person at the table, their hand at once; with several,
        who takes the keyboard."""
        caller = self.caller_for(game, state)
        if len(self.humans) > 1:
            self.say()
            self.say(f"── Pass the keyboard to {who(state, state.active)}. `hand` shows your cards. ──")
            return
        with contextlib.suppress(Refusal, StorageError):
            reply = await self.service.hand(caller, recap=False)  # the console has just printed what happened
            self.whisper(to_terminal(reply.text, bold=self.bold))

    async def run(self, command: Command, options: dict[str, str | None]) -> bool:
        """Carry out one command; False when the table should close."""
        if command.word == "quit":
            return False
        if command.word == "help":
            self.say(help_text())
            return True
        if command.word == "rules":
            self.show(Tiempo.rules(options["topic"]), public=False)
            return True
        here = await self.where()
        if here is None:
            self.say("No game is running at this table.")
            return True
        game, state = here
        caller = self.caller_for(game, state)
        self.held = []
        try:
            reply = await self._reply(game, caller, command, options)
        except Refusal as refusal:
            reply = Reply(refusal.text)
        except StorageError as err:
            reply = Reply(as_text(str(err)))
        finally:
            posts, self.held = self.held, None
        after = await self.where()
        passed = after is not None and self._waits_on(after) != caller.user_id
        if reply is not None and passed:  # the keyboard passes on: first the last words for who typed
            self.show(reply, public=reply.public, to=caller)
        for post in posts:
            self.show(post, public=True)
        if reply is not None and not passed:
            self.show(reply, public=reply.public)
        return True

    async def suggest(self, command: Command, options: dict[str, str | None], wanted: str) -> None:
        """What the caller could give for ``wanted`` now (what Discord's autocompletion offers)."""
        here = await self.where()
        if here is None or here[0].status is not Status.PLAYING:
            return
        caller = self.caller_for(*here)
        s, word = self.service, command.word
        values: list[str] = []
        what = ""
        if wanted in ("cell", "at") and command.plays:
            values = await s.suggest_cells(caller, word, "", kind=options.get("kind") or options.get("to"),
                                           age=options.get("age"))
            kind = options.get("kind") if word == "build" else None
            what = f"Cells for {_a(kind.title())} now" if kind else "Cells you can name now"
        elif wanted in ("cards", "discard", "give"):
            values = await s.suggest_cards(caller, word, "")
            what = "Cards from your hand"
        elif wanted == "pay" and hasattr(s, "suggest_payments"):
            values = [f"{pay} ({words})" for pay, words in await s.suggest_payments(
                caller, word, {o.service_key: options[o.name] for o in command.options}, "")]
            what = "Ways to pay (cards, then cards per pawn)"
        elif wanted in ("age", "to"):
            values, what = [a.title for a in Age], "Ages"
        elif wanted == "topic":
            values, what = list(RULES), "Topics"
        elif wanted == "kind":
            values, what = [k.value for k in Kind], "Buildings"
        if values:
            more = " …" if len(values) >= 25 else "."  # the service offers 25, as Discord shows
            self.whisper(f"{what}: {', '.join(values)}{more}")
        elif what:
            about = "pay" if wanted == "pay" else "upgrade-at" if wanted == "at" else word
            why = await s.why_no_suggestion(caller, about, kind=options.get("kind") or options.get("to"),
                                            target=options.get("cell"))
            self.whisper(f"{what}: none right now. {why}")

    @staticmethod
    def _waits_on(here: tuple[GameRecord, GameState]) -> int | None:
        game, state = here
        return None if state.finished else game.seats[state.waiting_on].user_id

    async def _reply(self, game: GameRecord, caller: Caller, command: Command,
                     options: dict[str, str | None]) -> Reply | None:
        s = self.service
        word = command.word
        if word == "hand":
            return await s.hand(caller, game.id)
        if word == "board":
            age = options["age"]
            try:
                return await s.board(caller, Age.parse(age) if age else None, game.id)
            except NotationError as err:
                raise Refusal(str(err)) from None
        if word == "status":
            return await s.status(caller)
        if word == "log":
            try:
                count = int(options["count"] or 15)
            except ValueError:
                raise Refusal("`log` takes a number of events, e.g. `log 30`.") from None
            return await s.game_log(caller, count)
        if word in ("play", "pick", "ok", "back", "menu"):
            return await self.panel_command(game, caller, word, options)
        if word == "undo":
            if self.panel is not None and self.panel.undo:
                return await s.panel_undo(caller, game.id)
            return await s.undo(caller)
        if word == "yes":
            if self.unconfirmed_cancel is not None:
                return await s.cancel(caller, self.unconfirmed_cancel, confirmed=True)
            if self.unconfirmed is None:
                raise Refusal("There is nothing to confirm.")
            game_id, version, notation = self.unconfirmed
            return await s.play_confirmed(caller, game_id, version, notation)
        if word == "cancel":
            return await s.cancel(caller)
        if word == "rematch":
            return await self.rematch(game, caller)
        values = {o.service_key: options[o.name] for o in command.options}
        return await s.play(caller, word, values)

    async def panel_command(self, game: GameRecord, caller: Caller, word: str, options: dict[str, str | None]) -> Reply:
        """``play``, ``pick N``, ``ok``, ``back`` and ``menu``: the turn panel, as on Discord."""
        s, panel = self.service, self.panel
        if word == "play" or panel is None:
            if word != "play":
                raise Refusal("Open the turn panel first: `play`.")
            return await s.panel(caller, game.id)
        if word == "pick":
            number = (options.get("number") or "").strip()
            if not number.isdigit() or not 1 <= int(number) <= len(panel.choices):
                raise Refusal(f"Pick a number from 1 to {len(panel.choices)}." if panel.choices else
                              "There is nothing to pick now.")
            key = panel.choices[int(number) - 1].key
            return await s.panel(caller, panel.game_id, panel.version, (*panel.base, *key.split(SEP)))
        if word == "ok":
            if not panel.confirm:
                raise Refusal("Pick the rest of the action first.")
            return await s.panel_confirm(caller, panel.game_id, panel.version, panel.path)
        if word == "back":
            return await s.panel(caller, panel.game_id, panel.version, panel.back or ())
        return await s.panel(caller, panel.game_id, panel.version, ())

    async def rematch(self, game: GameRecord, caller: Caller) -> Reply | None:
        if game.status is Status.PLAYING:
            raise Refusal(f"Game #{game.id} is still being played; `quit` to leave it.")
        await self.service.rematch(caller, game.id)  # a lobby with the same seats; start it at once
        new = await self.service.storage.active_game_in_channel(CHANNEL_ID)
        assert new is not None
        self.remember_seats(new)
        self._greeted = None
        self.say(f"\nA rematch: game #{new.id}, same seats.")
        await self.service.start_game(caller, new.id)
        return None


# ---------------------------------------------------------------------------------------------
# Setting the table


async def open_table(table: Table, seats: Sequence[SeatSpec], *, holdem: bool) -> GameRecord:
    """Seat everyone in a new game (people get user ids 1, 2, …) and start it."""
    service = table.service
    people = [s for s in seats if s.ai is None]
    ids = {id(s): i + 1 for i, s in enumerate(people)}
    opener = Caller(GUILD_ID, CHANNEL_ID, 1, people[0].name, can_manage=True)
    await service.new(opener, holdem=holdem, seats=len(seats), turn_minutes=0)
    for spec in [people[0], *(s for s in seats if s is not people[0])][1:]:
        if spec.ai is None:
            await service.join(Caller(GUILD_ID, CHANNEL_ID, ids[id(spec)], spec.name, can_manage=True))
        else:
            await service.add_bot(opener, spec.ai)
    game = await service.storage.active_game_in_channel(CHANNEL_ID)
    assert game is not None
    table.remember_seats(game)
    table.say(describe_table(game))
    await service.start_game(opener, game.id)
    return await service.storage.get_game(game.id)


def describe_table(game: GameRecord, resumed: bool = False) -> str:
    rules = "Hold'em variant" if game.options.get("holdem") else "standard rules"
    seats = ", ".join(f"{s.name} ({s.colour}{', AI ' + s.ai_level if s.ai_level else ''})" for s in game.seats)
    head = "Resuming" if resumed else "Khronos at this terminal:"
    return (f"{head} game #{game.id}, {rules}, seed {game.seed}. Seats: {seats}.\n"
            "Type `help` for the commands, `quit` to leave.")


# ---------------------------------------------------------------------------------------------
# The loop


class Lines:
    """Input lines: ``input()`` with line editing at a terminal, else the stream's lines (echoed)."""

    def __init__(self, stream: TextIO, out: TextIO) -> None:
        self.stream, self.out = stream, out
        self.interactive = stream is sys.stdin and stream.isatty() and out is sys.stdout
        if self.interactive:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401  (line editing and history for input())

    def read(self, prompt: str) -> str | None:
        if self.interactive:
            try:
                return input(prompt)
            except EOFError:
                self.out.write("\n")
                return None
        self.out.write(prompt)
        line = self.stream.readline()
        if not line:
            self.out.write("\n")
            self.out.flush()
            return None
        self.out.write(line if line.endswith("\n") else line + "\n")  # the transcript shows what was typed
        self.out.flush()
        return line


def play(args: argparse.Namespace, *, stdin: TextIO | None = None, stdout: TextIO | None = None,
         choose_ai: Callable[..., Action] | None = None) -> int:
    """Run a console table until ``quit`` or the end of the input. Returns the exit code."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    try:
        seats = parse_seats(args.seats) if args.seats else [SeatSpec(default_name()), SeatSpec("", "greedy"),
                                                            SeatSpec("", "greedy")]
    except ValueError as err:
        sys.stderr.write(f"tiempo-bot console: {err}\n")
        return 2
    if not 1 <= args.processes <= MAX_WORKERS:
        sys.stderr.write(f"tiempo-bot console: --processes must be from 1 to {MAX_WORKERS}\n")
        return 2
    with tempfile.TemporaryDirectory(prefix="tiempo-console-") as tmp, asyncio.Runner() as runner:
        db = Path(args.db) if args.db else Path(tmp) / "table.sqlite3"
        try:
            storage = runner.run(Storage.open(str(db)))
        except (StorageError, OSError) as err:
            sys.stderr.write(f"tiempo-bot console: cannot open {db}: {err}\n")
            return 2
        outbox = TerminalOutbox()
        service = Tiempo(storage, outbox, ai_think_seconds=args.think, ai_processes=args.processes,
                         choose_ai=choose_ai,
                         render=not args.no_pictures, seed_source=_seeds(args.seed))
        bold = stdout is sys.stdout and stdout.isatty() and "NO_COLOR" not in os.environ
        table = Table(service, stdout, Pictures(None if args.no_pictures else Path(args.out)), bold=bold)
        outbox.table = table
        lines = Lines(stdin, stdout)
        try:
            runner.run(_setup(table, seats, args))
            _loop(runner, table, lines)
        except KeyboardInterrupt:
            table.say("\nInterrupted.")
        finally:
            with contextlib.suppress(BaseException):
                runner.run(_goodbye(table, args))
            with contextlib.suppress(BaseException):
                runner.run(service.close())
            with contextlib.suppress(BaseException):
                runner.run(storage.close())
    return 0


def _seeds(first: int | None) -> Callable[[], int] | None:
    """``--seed`` for the first game; a rematch gets a new deal."""
    if first is None:
        return None
    given = [first]
    return lambda: given.pop() if given else random.SystemRandom().randrange(2**31)


async def _setup(table: Table, seats: Sequence[SeatSpec], args: argparse.Namespace) -> None:
    storage = table.service.storage
    game = await storage.active_game_in_channel(CHANNEL_ID)
    if game is not None and game.status is Status.PLAYING:
        table.remember_seats(game)
        table.say(describe_table(game, resumed=True))
        if args.seats:
            table.say("(The saved game goes on with its own seats; --seats is for a new one.)")
        here = await table.where()
        assert here is not None
        table.say(f"Round {here[1].round} of 7: {who(here[1], here[1].active)} to play.")
        await table.service.resume()
        return
    if game is not None:  # a lobby left from an interrupted start
        await storage.set_status(game.id, Status.CANCELLED)
    await open_table(table, seats, holdem=args.holdem)


async def _goodbye(table: Table, args: argparse.Namespace) -> None:
    here = await table.where()
    if here is None or here[1].finished or here[0].status is not Status.PLAYING:
        return
    if args.db:
        table.say(f"Game #{here[0].id} is saved in {args.db}; carry on with `tiempo-bot console --db {args.db}`.")
    else:
        table.say("The game was not kept (to keep one for later, start with `--db FILE`).")


def _loop(runner: asyncio.Runner, table: Table, lines: Lines) -> None:
    while True:
        runner.run(table.settle())
        line = lines.read(runner.run(table.prompt()))
        if line is None:
            return
        if not line.strip():
            continue
        try:
            command, options = parse_line(line)
        except MissingOption as err:
            if str(err):
                table.whisper(str(err))
            runner.run(table.suggest(err.command, err.options, err.wanted))
            continue
        except InputError as err:
            table.whisper(str(err))
            table.say(help_text())
            continue
        try:
            if not runner.run(table.run(command, options)):
                return
        except Exception as err:  # a bug: logged with its traceback; the table goes on, the game was not changed
            log.exception("console command %r failed", line.strip())
            table.say(f"Something went wrong and nothing was changed: {type(err).__name__}: {err}")


# ---------------------------------------------------------------------------------------------
# Entry point


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``tiempo-bot console``."""
    parser.description = ("Play Khronos at this terminal: people take turns at the keyboard, AI seats play "
                          "by themselves. Type `help` at the prompt for the commands.")
    parser.add_argument("--seats", help="the seats in order, comma-separated: a name for a person, ai:LEVEL for an "
                        f"AI player ({', '.join(AI_LEVELS[:-1])} or {AI_LEVELS[-1]}); default: you against two greedy "
                        'AI players, e.g. "Ana,Ben,ai:greedy"')
    parser.add_argument("--holdem", action="store_true", help="play the Hold'em variant (a face-up reserve)")
    parser.add_argument("--seed", type=int, help="the deal's seed, to play the same game again")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help=f"the folder for the pictures of the game (default: ./{DEFAULT_OUT})")
    parser.add_argument("--no-pictures", action="store_true", help="do not draw pictures (faster)")
    parser.add_argument("--db", help="keep the game in this SQLite file, and resume it when run again")
    parser.add_argument("--think", type=float, default=2.0, metavar="SECONDS",
                        help="how long the strong AI may think per turn (default: 2)")
    parser.add_argument("--processes", type=int, default=default_workers(), metavar="N",
                        help="how many processes the strong AI's look-ahead uses at once "
                        f"(default here: {default_workers()}, one per core, at most 2)")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """``tiempo-bot console``."""
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]
    try:
        return play(args)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly, like other tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


__all__ = ["COMMANDS", "InputError", "add_arguments", "help_text", "main", "parse_line", "parse_seats", "play",
            "to_terminal"]
