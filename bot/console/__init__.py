"""``tiempo-bot console``: a Khronos table in the terminal.

People share one keyboard (whoever the game waits on types), AI seats play by themselves::

    tiempo-bot console                                   # you against two greedy AI players
    tiempo-bot console --seats "Ana,Ben,ai:strong" --holdem --seed 7
    tiempo-bot console --db khronos.sqlite3              # keep the game; run again to resume it
    tiempo-bot console --learn                           # the course: short lessons, no game

It drives the same table service as the Discord bot (``bot.service.Tiempo`` over a real SQLite
``Storage``), so it says the same things: the channel's posts are printed as they come, each posted
picture is written as a PNG under ``--out`` and its path printed, and a command's private answer is
printed indented. Input lines use the words and options of the ``/tiempo`` slash commands, by name
(``build kind:Keep cell:C4 age:Might``) or in the slash command's order (``build Keep C4 Might``).

The package, by job:

* ``commands`` — the commands, built from the service's command catalogue, and the console's own words (``COMMANDS``);
* ``parsing`` — an input line into a command and its options, ``--seats`` into seats;
* ``handlers`` — what each command does: a table from its word to a handler that calls the service;
* ``table`` — the session at the table (``ConsoleTable``): who is at the keyboard, the prompt, waiting
  for AI players, the controls the last answer offers;
* ``terminal`` — the service's words as text (``to_terminal``), posts and panels printed, pictures
  written, lines read;
* ``session`` — ``tiempo-bot console``'s options, opening or resuming the table, the loop.

It imports of the project only the service's public interface (``bot.service``), the wording layer
(``bot.words``) and the settings (``bot.config``).
"""

from __future__ import annotations

from .commands import COMMANDS, ConsoleCommand, Option, help_text
from .parsing import InputError, MissingOption, SeatSpec, parse_line, parse_seats
from .session import add_arguments, main, play
from .table import ConsoleTable
from .terminal import Pictures, to_terminal

__all__ = ["COMMANDS", "ConsoleCommand", "ConsoleTable", "InputError", "MissingOption", "Option", "Pictures",
           "SeatSpec", "add_arguments", "help_text", "main", "parse_line", "parse_seats", "play", "to_terminal"]
