"""The commands of a table, once: each command's word, summary, options, examples and service call.

Both front ends are built from ``CATALOGUE``: Discord's ``/tiempo`` group takes its descriptions and
choices from it (and a test checks that its parameters match), the console its words, usage and help.
An entry's ``call`` runs it on the service with the options by name, as typed (``"C4"``, ``"15"``) or
already converted (``15``); a value that cannot be read raises ``Refusal`` with an example of good
input::

    entry = CATALOGUE["build"]
    reply = await entry.call(service, caller, {"kind": "Keep", "cell": "C4", "age": None, "pay": None})
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules import Age, Kind, NotationError

from ..ai import DEFAULT_LEVEL, OFFERED
from ..play import Refusal
from ..storage import MODES
from ..texts import RULES
from ..words import Code, say
from .course import COURSE
from .messages import Caller, Reply
from .review import together

if TYPE_CHECKING:
    from . import Tiempo

#: an option's value as a front end hands it over: typed text, or already a number or a yes/no
Value = str | int | bool | None
Call = Callable[["Tiempo", Caller, Mapping[str, Value]], Awaitable[Reply]]

AGES = tuple(age.title for age in Age)
#: the Ages one builds on (Reason has no buildings)
BUILD_AGES = (Age.MIGHT.title, Age.FAITH.title)
BUILDINGS = tuple(kind.value for kind in Kind)


class Person(int):
    """An option's type: a person, by user id (Discord offers its member picker; at the console, a
    seat's number)."""


@dataclass(frozen=True)
class Option:
    """One option of a command: ``name`` as typed, of ``type`` (``str``, ``int``, ``bool`` or ``Person``), within
    ``minimum``..``maximum`` for a number, one of ``choices`` where it has them; ``key`` is the name
    the service's ``play`` knows it by (``to`` of ``travel`` is an ``age``), where that differs."""

    name: str
    description: str
    type: type = str
    required: bool = False
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    default: Value = None
    key: str = ""

    @property
    def service_key(self) -> str:
        return self.key or self.name


@dataclass(frozen=True)
class Entry:
    """A command: its ``word``, a one-line ``summary``, its ``options`` in order, ``examples`` of it
    as typed at the console, and its ``call`` (which may read, besides the options, ``player_name``:
    the display name of the ``player`` option where the front end knows it). ``plays``: an action in
    the game (``Tiempo.play``);
    ``slow``: it may take a while (it plays an action, waits on the game's lock, or draws a picture),
    so a front end that must answer quickly acknowledges it first."""

    word: str
    summary: str
    options: tuple[Option, ...]
    call: Call
    examples: tuple[str, ...] = ()
    plays: bool = False
    slow: bool = False
    #: it works outside a server's channel too (a direct message with the bot, a user install)
    anywhere: bool = False
    #: the subgroup a front end with a limit of commands puts it in (Discord: 25 a command), or ""
    group: str = ""
    #: the summary at a table that shares one keyboard (the console), where ``summary`` speaks of Discord
    #: (a channel, a server, buttons, taps, a reply only its caller sees); "" where it says the same
    at_table: str = ""

    @property
    def path(self) -> str:
        """The words that name it: ``build``, or ``me games`` in a subgroup."""
        return f"{self.group} {self.word}" if self.group else self.word

    def option(self, name: str) -> Option:
        """The option ``name``; KeyError if the command has none of that name."""
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(name)

    @property
    def usage(self) -> str:
        """The word and its options, optional ones in brackets: ``build kind cell [age] [pay]``."""
        return " ".join([self.word, *(o.name if o.required else f"[{o.name}]" for o in self.options)])


def _text(options: Mapping[str, Value], name: str) -> str | None:
    value = options.get(name)
    return None if value is None else str(value)


def _number(options: Mapping[str, Value], name: str, default: int, example: str) -> int:
    value = options.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise Refusal(say("{name} takes a number, e.g. {example}.", name=Code(name), example=Code(example))) from None


def _age(options: Mapping[str, Value]) -> Age | None:
    value = _text(options, "age")
    try:
        return Age.parse(value) if value else None
    except NotationError as err:
        raise Refusal(str(err)) from None


def _play(word: str) -> Call:
    """The call of an action in the game: ``Tiempo.play`` with the options under the service's names."""

    async def call(service: Tiempo, caller: Caller, options: Mapping[str, Value]) -> Reply:
        entry = CATALOGUE[word]
        return await service.play(caller, word, {o.service_key: _text(options, o.name) for o in entry.options})

    return call


_PAY = Option("pay", "Cards to pay and pawns, e.g. MM 1+1 (default: chosen for you)")
_BUILD_AGE = Option("age", "Might or Faith", choices=BUILD_AGES)
_CELL = Option("cell", "A cell of the building, e.g. C4", required=True)

CATALOGUE: dict[str, Entry] = {e.word: e for e in (
    # -- the lobby --
    Entry("new", "Open a game in this channel", (
        Option("holdem", "Play the Hold'em variant (a face-up reserve to swap with)", bool, default=False),
        Option("seats", "How many seats (2–5)", int, minimum=2, maximum=5, default=5),
        Option("turn_minutes", "Minutes per turn; 0 for no limit", int, minimum=0, maximum=10080),
        Option("tips", "A line of explanation the first time each player meets a ripple, a paradox…", bool,
               default=True),
        Option("hints", "Players may ask the AI for a hint on their turn (the panel's Hint button)", bool,
               default=True)),
        lambda s, c, o: s.new(c, holdem=bool(o.get("holdem")), seats=_number(o, "seats", 5, "seats:4"),
                              turn_minutes=None if o.get("turn_minutes") is None
                              else _number(o, "turn_minutes", 0, "turn_minutes:30"),
                              tips=_yes(o, "tips", True), hints=_yes(o, "hints", True)),
        ("new", "new holdem:True seats:3")),
    Entry("join", "Take a seat in this channel's game", (), lambda s, c, o: s.join(c), ("join",)),
    Entry("leave", "Leave this channel's game before it starts", (), lambda s, c, o: s.leave(c), ("leave",)),
    Entry("start", "Start the game (whoever opened it)", (), lambda s, c, o: s.start_game(c), ("start",),
          slow=True),
    Entry("cancel", "Cancel this channel's game (its opener, or a channel manager)", (),
          lambda s, c, o: s.cancel(c), ("cancel",),
          at_table="Cancel this table's game, for everyone at it"),
    Entry("addbot", "Seat an AI player in the lobby", (
        Option("level", "; ".join(f"{lv.name}{' (default)' if lv.name == DEFAULT_LEVEL else ''}: {lv.description}"
                                  for lv in OFFERED),
               choices=tuple(lv.name for lv in OFFERED), default=DEFAULT_LEVEL),),
        lambda s, c, o: s.add_bot(c, _text(o, "level") or DEFAULT_LEVEL), ("addbot strong",)),
    # -- information --
    Entry("hand", "Your cards, Ecus, cubes and pawns (only you see it)", (), lambda s, c, o: s.hand(c), ("hand",),
          at_table="Your cards, Ecus, cubes and pawns (the others look away)"),
    Entry("board", "The picture of the game, or of one Age (only you see it)", (
        Option("age", "Only this Age", choices=AGES),), lambda s, c, o: s.board(c, _age(o)), ("board Faith",),
        slow=True, at_table="The picture of the game, or of one Age, written to the pictures folder"),
    Entry("status", "Round, whose turn, scores and stock", (), lambda s, c, o: s.status(c), ("status",)),
    Entry("log", "The last events of the game, in words", (
        Option("count", "How many events (1–50)", int, minimum=1, maximum=50, default=15),),
        lambda s, c, o: s.game_log(c, _number(o, "count", 15, "log 30")), ("log 30",)),
    Entry("rules", "A short rules reference", (Option("topic", "What to read about", choices=tuple(RULES)),),
          lambda s, c, o: _rules(s, _text(o, "topic")), ("rules ripples",)),
    # -- play --
    Entry("exchange", "Phase I: pay 2 Ecus, discard 1–4 cards, draw back to 4", (
        Option("cards", "The cards to discard, by colour letter: M Military, R Religious, C Civil", required=True),),
        _play("exchange"), ("exchange MR",), plays=True, slow=True),
    Entry("swap", "Hold'em: take cards of one colour from the reserve, give as many", (
        Option("take", "Cards to take from the reserve, e.g. CC", required=True),
        Option("give", "Cards to give from your hand", required=True)),
        _play("swap"), ("swap CC MR",), plays=True, slow=True),
    Entry("travel", "Move a pawn to another Age (1 Ecu)", (
        Option("pawn", "Which pawn, 1 or 2", int, required=True, minimum=1, maximum=2),
        Option("to", "The Age it goes to", required=True, choices=AGES, key="age")),
        _play("travel"), ("travel 1 Faith",), plays=True, slow=True),
    Entry("build", "Construct a building on Might or Faith", (
        Option("kind", "What to build", required=True, choices=BUILDINGS),
        Option("cell", "Top-left cell, e.g. C4", required=True), _BUILD_AGE, _PAY),
        _play("build"), ("build Keep C4 Might", "build kind:Keep cell:C4 pay:MM 1+1"), plays=True, slow=True),
    Entry("upgrade", "Upgrade a building into a bigger one of its family", (
        _CELL, Option("to", "What it becomes", required=True, choices=BUILDINGS, key="kind"),
        Option("at", "Top-left cell of the new one"), _BUILD_AGE, _PAY),
        _play("upgrade"), ("upgrade C4 Castle",), plays=True, slow=True),
    Entry("demolish", "Demolish a Watchtower, Chapel or Hamlet (1 card and 1 Ecu)", (_CELL, _BUILD_AGE, _PAY),
          _play("demolish"), ("demolish C3 Faith",), plays=True, slow=True),
    Entry("populate", "Reason: put a cube on a Hamlet, Town or City (1 Civil card)", (_CELL, _PAY),
          _play("populate"), ("populate D2",), plays=True, slow=True),
    Entry("renovate", "Reason: renovate a ruin (Keep/Monastery 1 card, Castle/Abbey 2)", (_CELL, _PAY),
          _play("renovate"), ("renovate E2",), plays=True, slow=True),
    Entry("end", "End your turn: discard what you like, draw back to 4", (
        Option("discard", "Cards to discard first, e.g. MC (default: none)"),),
        _play("end"), ("end", "end discard:MC"), plays=True, slow=True),
    Entry("choose", "Answer the decision the game is waiting on", (
        Option("cell", "The cell you choose, e.g. E1", required=True),),
        _play("choose"), ("choose E1",), plays=True, slow=True),
    Entry("undo", "Take back your last action this turn (not after drawing cards)", (),
          lambda s, c, o: s.undo(c), ("undo",), slow=True),
    # -- after the game: replay and export (bot/service/replay.py, exports.py) --
    Entry("replay", "Look back at a game turn by turn, with buttons to step", (
        Option("game", "The game's number (default: this channel's game, or the last that ended here)", int,
               minimum=1),
        Option("step", "The step to show: 0 the deal, then one per turn (default: the newest)", int, minimum=0),
        Option("hands", "Show every hand too (a finished game only)", bool, default=False),
        Option("public", "Post it in the channel for everyone (default: only you see it)", bool, default=False)),
        lambda s, c, o: s.replay(c, _optional(o, "game", "game:12"), _optional(o, "step", "step:5"),
                                 hands=_yes(o, "hands", False), public=_yes(o, "public", False)),
        ("replay", "replay 12 5", "replay game:12 hands:True"), slow=True, group="records",
        at_table="Look back at a game turn by turn (`next` and `prev` go forward and back)"),
    Entry("export", "A finished game's record, animation and web page, as files", (
        Option("game", "The game's number (default: the last that ended in this channel)", int, minimum=1),),
        lambda s, c, o: s.export(c, _optional(o, "game", "game:12")), ("export", "export 12"), slow=True,
        group="records"),
    # -- the review after the game (review.py) --
    Entry("review", "A finished game's costliest turns of each player, by the AI's top level (only you see it)", (
        Option("game", "The game's number (default: the last that ended in this channel)", int, minimum=1),),
        lambda s, c, o: _review(s, c, _optional(o, "game", "game:12")), ("review", "review 12"), slow=True,
        group="records",
        at_table="A finished game's costliest turns of each player, by the AI's top level"),
    # -- between games and after them (community.py), and the course (lessons.py) --
    Entry("games", "Your games in play, on every server (works in a DM with the bot too)", (),
          lambda s, c, o: s.my_games(c), ("games",), anywhere=True, group="me",
          at_table="Your games in play"),
    Entry("profile", "A player's finished games, rating and last games", (
        Option("player", "Whose profile (default: yours)", Person),
        Option("everywhere", "Yours across every server", bool, default=False)),
        lambda s, c, o: s.profile(c, _player(o), _yes(o, "everywhere", False), _text(o, "player_name")),
        ("profile", "profile everywhere:True"), anywhere=True, group="me"),
    Entry("leaderboard", "This server's best ratings, ten a page", (
        Option("page", "Which page", int, minimum=1, maximum=1000, default=1),),
        lambda s, c, o: s.leaderboard(c, _number(o, "page", 1, "leaderboard 2")), ("leaderboard", "leaderboard 2"),
        group="records",
        at_table="The best ratings of the games kept here, ten a page"),
    Entry("learn", "Learn Khronos: short lessons played by taps (only you see them)", (
        Option("lesson", "Open this lesson", choices=tuple(COURSE)),),
        lambda s, c, o: _learn(s, c, _text(o, "lesson")), ("learn", "learn ripples"), slow=True, anywhere=True,
        at_table="Learn Khronos: short lessons played by numbers and `ok`"),
    # -- between turns --
    Entry("notify", "How you are told it is your turn, in every game: channel, dm or off", (
        Option("mode", "channel: a mention; dm: a direct message; off: neither (default: say which now)",
               choices=MODES),),
        lambda s, c, o: s.notify(c, _text(o, "mode")), ("notify dm", "notify"), anywhere=True, group="me"),
    # -- seats the AI keeps warm --
    Entry("away", "Hand your seat to the AI (greedy) until you are back; it never shows your hand", (),
          lambda s, c, o: s.away(c), ("away",), slow=True, group="me",
          at_table="Hand your seat to the AI until you are back; it never shows your hand"),
    Entry("back", "Take your seat back from the AI", (), lambda s, c, o: s.back(c), ("back",), slow=True, group="me"),
    # -- a hint on request (hints.py) --
    Entry("hint", "What the AI's top level would play next for you, and why (only you see it)", (),
          lambda s, c, o: s.hint(c), ("hint",), slow=True, group="me",
          at_table="What the AI's top level would play next for you, and why"),
)}


def _optional(options: Mapping[str, Value], name: str, example: str) -> int | None:
    """A number that may be left out (None)."""
    value = options.get(name)
    return None if value is None or value == "" else _number(options, name, 0, example)


def _yes(options: Mapping[str, Value], name: str, default: bool) -> bool:
    """A yes/no option: ``True``/``False`` as given, or typed (``yes``, ``off``…; its own name, as the
    console's ``replay 1 5 hands`` gives it, is yes)."""
    value = options.get(name)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in ("true", "yes", "on", "1", name.lower()):
        return True
    if word in ("false", "no", "off", "0"):
        return False
    raise Refusal(say("{name} is yes or no, e.g. {example}.", name=Code(name), example=Code(f"{name}:no")))


def _player(options: Mapping[str, Value]) -> int | None:
    """The ``player`` option: a user id (Discord gives a member; the console a seat's number)."""
    value = options.get("player")
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise Refusal(say("{name} takes a player, e.g. {example}.", name=Code("player"),
                          example=Code("profile 2"))) from None


async def _learn(service: Tiempo, caller: Caller, lesson: str | None) -> Reply:
    return await (service.learn_lesson(caller, lesson.lower()) if lesson else service.learn(caller))


async def _review(service: Tiempo, caller: Caller, game_id: int | None) -> Reply:
    """The review's parts as one reply (the Discord front end sends them one message each)."""
    return together(await service.review(caller, game_id))


async def _rules(service: Tiempo, topic: str | None) -> Reply:
    return service.rules(topic)


#: the words that name each command nested in a subgroup (``{"games": "me games"}``), for the wording layer
PATHS: Mapping[str, str] = {word: entry.path for word, entry in CATALOGUE.items() if entry.group}

__all__ = ["AGES", "BUILDINGS", "BUILD_AGES", "CATALOGUE", "PATHS", "Entry", "Option", "Person", "Value"]

