"""The console's commands: the words and options of ``/tiempo`` (the slash commands' names, in their
order), and the console's own words for the turn panel, confirming, leaving and help.

Each command is data — its word, a summary, its options, an example and whether it plays an action —
as the shared command catalogue will be; what a command does is ``bot.console.handlers``'s table,
keyed by the same word."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..service import RULE_TOPICS, Refusal, parse_age


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
class ConsoleCommand:
    """A command the console understands: its ``word``, what it does (``summary``), its ``options`` in
    the slash command's order, an ``example`` line, and whether it ``plays`` an action in the game."""

    word: str
    summary: str
    options: tuple[Option, ...] = ()
    example: str = ""
    plays: bool = False

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


_AGE = Option("age", fits=_is_age)
_PAY = Option("pay")

COMMANDS: dict[str, ConsoleCommand] = {c.word: c for c in (
    ConsoleCommand("hand", "your cards, Ecus, cubes and pawns, and what happened since your last turn"),
    ConsoleCommand("board", "the picture of the game, or of one Age (written as a PNG)", (Option("age"),),
                   "board Faith"),
    ConsoleCommand("status", "round, whose turn, scores and stock"),
    ConsoleCommand("log", "the last events of the game, in words", (Option("count"),), "log 30"),
    ConsoleCommand("rules", "a short rules reference", (Option("topic"),), "rules ripples"),
    ConsoleCommand("exchange", "Phase I: pay 2 Ecus, discard 1–4 cards, draw back to 4", (Option("cards", True),),
                   "exchange MR", plays=True),
    ConsoleCommand("swap", "Hold'em: take cards of one colour from the reserve, give as many",
                   (Option("take", True), Option("give", True)), "swap CC MR", plays=True),
    ConsoleCommand("travel", "move a pawn to another Age (1 Ecu)",
                   (Option("pawn", True), Option("to", True, "age")), "travel 1 Faith", plays=True),
    ConsoleCommand("build", "construct a building on Might or Faith",
                   (Option("kind", True), Option("cell", True), _AGE, _PAY), "build Keep C4 Might", plays=True),
    ConsoleCommand("upgrade", "upgrade a building into a bigger one of its family",
                   (Option("cell", True), Option("to", True, "kind"), Option("at", fits=_is_cell), _AGE, _PAY),
                   "upgrade C4 Castle", plays=True),
    ConsoleCommand("demolish", "demolish a Watchtower, Chapel or Hamlet (1 card and 1 Ecu)",
                   (Option("cell", True), _AGE, _PAY), "demolish C3 Faith", plays=True),
    ConsoleCommand("populate", "Reason: put a cube on a Hamlet, Town or City (1 Civil card)",
                   (Option("cell", True), _PAY), "populate D2", plays=True),
    ConsoleCommand("renovate", "Reason: renovate a ruin (Keep/Monastery 1 card, Castle/Abbey 2)",
                   (Option("cell", True), _PAY), "renovate E2", plays=True),
    ConsoleCommand("end", "end your turn: discard what you like, draw back to 4", (Option("discard"),),
                   "end discard:MC", plays=True),
    ConsoleCommand("choose", "answer the decision the game is waiting on", (Option("cell", True),), "choose E1",
                   plays=True),
    ConsoleCommand("undo", "take back your last action this turn (not after drawing cards)"),
    ConsoleCommand("play", "the turn panel: pick what to do from numbered lists, see what it does, then `ok`"),
    ConsoleCommand("pick", "in the turn panel: pick a numbered choice (typing the number alone does the same)",
                   (Option("number", True),), "pick 2"),
    ConsoleCommand("ok", "in the turn panel: play the action it shows"),
    ConsoleCommand("back", "in the turn panel: the previous question again; while the AI plays your seat: take it "
                   "back"),
    ConsoleCommand("menu", "in the turn panel: back to the first list"),
    ConsoleCommand("yes", "confirm what you were just asked about (an action that harms you, cancelling the game)"),
    ConsoleCommand("rematch", "after the game: play again with the same seats"),
    ConsoleCommand("cancel", "give the game up (it cannot be resumed)"),
    ConsoleCommand("away", "hand your seat to the AI (greedy) until you are `back`; it never shows your hand"),
    ConsoleCommand("help", "this list"),
    ConsoleCommand("quit", "leave the table (also Ctrl-D)"),
)}

#: other words for some commands
ALIASES = {"exit": "quit", "q": "quit", "?": "help", "new": "rematch", "info": "status", "cards": "hand"}


def help_text() -> str:
    """The list of commands, with examples, as ``help`` prints it."""
    lines = ["Commands (the words of /tiempo; give options by name, `cell:C4`, or in this order):"]
    width = max(len(c.usage) for c in COMMANDS.values())
    for c in COMMANDS.values():
        lines.append(f"  {c.usage.ljust(width)}  {c.summary}")
    lines += ["Examples: `build Keep C4 Might` · `build kind:Keep cell:C4 age:Might pay:MM 1+1` · "
              "`travel 1 Faith` · `end discard:MC` · `choose E1`",
              "Put `?` for an option to see what fits now: `build Hamlet ?`, `upgrade ?`, `end discard:?`.",
              f"Rules topics: {', '.join(RULE_TOPICS)}."]
    return "\n".join(lines)


__all__ = ["ALIASES", "COMMANDS", "ConsoleCommand", "Option", "help_text"]
