"""The console's commands: the command catalogue's (``bot.service.CATALOGUE``: the words, summaries,
options and examples of ``/tiempo``, in its order, less the lobby's, which ``--seats`` sets), and the
console's own words for what Discord shows as buttons: the turn panel and the course (``play``,
``pick``, ``ok``, ``back``, ``menu``), confirming (``yes``), ``rematch``, ``help`` and ``quit``.

What a command does is ``bot.console.handlers``: a catalogue command runs its entry's ``call``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..service import CATALOGUE, RULE_TOPICS, Entry, Refusal, parse_age


@dataclass(frozen=True)
class Option:
    """One option of a command: ``name`` as typed (the catalogue's), ``key`` as the service wants it."""

    name: str
    required: bool = False
    key: str = ""
    #: for an optional option: does this word fit it? (a positional word that does not is given to the next one)
    fits: Callable[[str], bool] | None = None

    @property
    def service_key(self) -> str:
        return self.key or self.name


@dataclass(frozen=True)
class ConsoleCommand:
    """A command the console understands: its ``word``, what it does (``summary``), its ``options`` in
    the catalogue's order, an ``example`` line, whether it ``plays`` an action in the game, and its
    catalogue ``entry`` (None for the console's own words)."""

    word: str
    summary: str
    options: tuple[Option, ...] = ()
    example: str = ""
    plays: bool = False
    entry: Entry | None = None

    @property
    def usage(self) -> str:
        parts = [self.word] + [o.name if o.required else f"[{o.name}]" for o in self.options]
        return " ".join(parts)


def _is_age(word: str) -> bool:
    try:
        return parse_age(word) is not None
    except Refusal:
        return False


def _is_cell(word: str) -> bool:
    return re.fullmatch(r"[A-Za-z]\d{1,2}", word) is not None


#: which typed words fit an optional option (a word that does not goes to the next option)
_FITS: dict[str, Callable[[str], bool]] = {"age": _is_age, "at": _is_cell}
#: the catalogue's lobby commands: at the console, ``--seats`` sets the table (``new`` is ``rematch``)
LOBBY = frozenset({"new", "join", "leave", "start", "addbot"})


def _from_catalogue(entry: Entry) -> ConsoleCommand:
    options = tuple(Option(o.name, o.required, o.key, None if o.required else _FITS.get(o.name))
                    for o in entry.options)
    example = next((e for e in entry.examples if " " in e), entry.examples[0] if entry.examples else "")
    return ConsoleCommand(entry.word, entry.at_table or entry.summary, options, example, entry.plays, entry)


#: the console's own words, which are buttons on Discord
OWN: tuple[ConsoleCommand, ...] = (
    ConsoleCommand("play", "The turn panel: pick what to do from numbered lists, see what it does, then `ok`"),
    ConsoleCommand("pick", "In the turn panel or a lesson: pick a numbered choice (the number alone does the same)",
                   (Option("number", True),), "pick 2"),
    ConsoleCommand("ok", "In the turn panel or a lesson: play the move it shows"),
    ConsoleCommand("back", "In the turn panel or a lesson: the previous question again; while the AI plays your "
                   "seat: take it back"),
    ConsoleCommand("menu", "In the turn panel: back to the first list (in a lesson: the list of lessons)"),
    ConsoleCommand("yes", "Confirm what you were just asked about (an action that harms you, cancelling the game)"),
    ConsoleCommand("rematch", "After the game: play again with the same seats"),
    ConsoleCommand("next", "In a replay: the next turn"),
    ConsoleCommand("prev", "In a replay: the turn before"),
    ConsoleCommand("help", "This list"),
    ConsoleCommand("quit", "Leave the table (also Ctrl-D)"),
)

COMMANDS: dict[str, ConsoleCommand] = {
    **{word: _from_catalogue(entry) for word, entry in CATALOGUE.items() if word not in LOBBY},
    **{c.word: c for c in OWN},
}

#: other words for some commands
ALIASES = {"exit": "quit", "q": "quit", "?": "help", "new": "rematch", "info": "status", "cards": "hand"}


def help_text() -> str:
    """The list of commands, with examples, as ``help`` prints it."""
    lines = ["Commands (give options by name, `cell:C4`, or in this order):"]
    width = max(len(c.usage) for c in COMMANDS.values())
    for c in COMMANDS.values():
        lines.append(f"  {c.usage.ljust(width)}  {c.summary}")
    lines += ["Examples: `build Keep C4 Might` · `build kind:Keep cell:C4 age:Might pay:MM 1+1` · "
              "`travel 1 Faith` · `end discard:MC` · `choose E1` · `learn ripples`",
              "Put `?` for an option to see what fits now: `build Hamlet ?`, `upgrade ?`, `end discard:?`.",
              f"Rules topics: {', '.join(RULE_TOPICS)}."]
    return "\n".join(lines)


__all__ = ["ALIASES", "COMMANDS", "LOBBY", "OWN", "ConsoleCommand", "Option", "help_text"]
