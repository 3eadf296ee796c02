"""Reading what is typed: an input line into a command and its options, ``--seats`` into the seats."""

from __future__ import annotations

import contextlib
import difflib
import getpass
import re
from dataclasses import dataclass

from ..service import AI_LEVELS
from ..words import Code, Command, Text, as_text, say, series
from .commands import ALIASES, COMMANDS, ConsoleCommand

#: a command's options by name, as typed (None: not given)
Options = dict[str, str | None]


class InputError(Exception):
    """A line that is not a command the console understands; ``text`` says why (``str()`` the same in
    plain words)."""

    def __init__(self, text: Text | str) -> None:
        self.text = as_text(text)
        super().__init__(self.text.plain())


class UnknownCommand(InputError):
    """A first word that is no command: the words it is close to, if any, are suggested."""

    def __init__(self, word: str) -> None:
        # (an alias as it is typed: ``new`` is the rematch, refused during a game, not a slip for ``end``)
        self.close = difflib.get_close_matches(word.lower().lstrip("/"), [*COMMANDS, *ALIASES], n=3, cutoff=0.75)
        if self.close:
            super().__init__(say("There is no command {word}. Did you mean {close}? ({help} lists them all.)",
                                 word=repr(word), close=_either([Command(w) for w in self.close]),
                                 help=Command("help")))
        else:
            super().__init__(say("There is no command {word}.", word=repr(word)))


def _either(items: list[Command]) -> Text:
    """``a``, ``a or b``, ``a, b or c``."""
    return series(items, "or")


class MissingOption(InputError):
    """A command without a value it needs, or with ``?`` for one: the console suggests values."""

    def __init__(self, text: Text | str, command: ConsoleCommand, options: Options, wanted: str) -> None:
        super().__init__(text)
        self.command, self.options, self.wanted = command, options, wanted


def parse_line(line: str) -> tuple[ConsoleCommand, Options]:
    """The command of an input line and its options by name (``None`` when not given). Options are
    given as ``name:value`` (or ``name=value``) or by position, in the slash command's order; the last
    option named or placed takes the rest of the line (``pay:MM 1+1``). Raises InputError (MissingOption
    for a required option left out, or ``?`` for one)."""
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
        raise UnknownCommand(words[0])
    given = _given(command, words[1:])
    options: Options = {o.name: (" ".join(given[o.name]) or None) if o.name in given else None
                        for o in command.options}
    asked = [o.name for o in command.options if options[o.name] == "?"]
    missing = [o.name for o in command.options if o.required and not options[o.name]]
    if asked or missing:
        options = {k: (None if v == "?" else v) for k, v in options.items()}
        text = Text() if asked and not missing else say(
            "{command} needs {options}: {usage}{example}.", command=Command(command.word),
            options=" and ".join(missing), usage=Code(command.usage),
            example=say(", e.g. {example}", example=Code(command.example)) if command.example else "")
        raise MissingOption(text, command, options, (asked + missing)[0])
    return command, options


def _given(command: ConsoleCommand, tokens: list[str]) -> dict[str, list[str]]:
    """The words given to each option, by name or by position."""
    names = [o.name for o in command.options]
    given: dict[str, list[str]] = {}
    last: str | None = None  # the option that takes the words that follow
    keyed = False
    for token in tokens:
        m = re.fullmatch(r"([A-Za-z]+)[:=](.*)", token)
        if m and m.group(1).lower() in names:
            name = m.group(1).lower()
            if name in given:
                raise InputError(say("The option {name} is given twice.", name=name))
            given[name] = [m.group(2)] if m.group(2) else []
            last, keyed = name, True
            continue
        if keyed and last is not None:  # after ``name:value``, the words that follow belong to it
            given[last].append(token)
            continue
        after = names.index(last) if last is not None else -1
        free = [o for o in command.options if o.name not in given and names.index(o.name) > after]
        while len(free) > 1 and not free[0].required and free[0].fits is not None and not free[0].fits(token):
            free.pop(0)
        if free:
            last = free[0].name
            given[last] = [token]
        elif last is not None:
            given[last].append(token)
        else:
            raise InputError(say("{command} takes no options.", command=Command(command.word)))
    return given


@dataclass(frozen=True)
class SeatSpec:
    """A seat as ``--seats`` names it: a person's name, or an AI player's level (``ai``)."""

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
    """``Ana,Ben,ai:greedy`` → the seats; ``ai`` alone is a greedy AI player. Raises ValueError."""
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


__all__ = ["InputError", "MissingOption", "Options", "SeatSpec", "default_name", "parse_line", "parse_seats"]
