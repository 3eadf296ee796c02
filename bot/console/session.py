"""A console session from start to end: the options of ``tiempo-bot console``, opening (or resuming)
the table, the loop of lines, and the goodbye."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from ..config import MAX_AI_PROCESSES, default_ai_processes
from ..loop import EventLoopError, loop_factory
from ..service import (
    AI_LEVELS,
    Caller,
    Chooser,
    DatabaseUnusableError,
    Storage,
    StorageError,
    TableState,
    Tiempo,
    check_database,
    new_seed,
)
from ..words import Code, Command, Text, say
from .commands import help_text
from .handlers import run_command, suggest
from .parsing import InputError, MissingOption, SeatSpec, UnknownCommand, default_name, parse_line, parse_seats
from .table import CHANNEL_ID, GUILD_ID, ConsoleTable, TerminalOutbox
from .terminal import Lines, Pictures, Screen

DEFAULT_OUT = "tiempo-pictures"

log = logging.getLogger("tiempo.console")


# ---------------------------------------------------------------------------------------------
# Setting the table


async def open_table(table: ConsoleTable, seats: Sequence[SeatSpec], *, holdem: bool, kept: bool = True
                     ) -> TableState:
    """Seat everyone in a new game (people get user ids 1, 2, …) and start it; ``kept``: in a database
    that outlives the table (``--db``), else the greeting says the game goes with it."""
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
    lobby = await service.table_in(CHANNEL_ID)
    assert lobby is not None
    table.remember_seats(lobby)
    table.say(describe_table(lobby))
    if not kept:  # (said at once, not only when it is too late)
        table.say(say("This game is not kept when you leave: to keep it for later, start with {db}.",
                      db=Code("--db FILE")))
    await service.start_game(opener, lobby.game_id)
    return await service.table_of(lobby.game_id)


def describe_table(at: TableState, resumed: bool = False) -> Text:
    """The table's game, its rules, seed and seats (``resumed``: a kept game goes on)."""
    seats = ", ".join(f"{s.name} ({s.colour}{', AI ' + s.ai_level if s.ai_level else ''})" for s in at.seats)
    deal = say(", seed {seed}", seed=at.chosen_seed) if at.chosen_seed is not None else ""
    return say("{head} game #{id}, {rules}{deal}. Seats: {seats}.\nType {help} for the commands, {quit} to "
               "leave.", head="Resuming" if resumed else "Khronos at this terminal:", id=at.game_id,
               rules="Hold'em variant" if at.holdem else "standard rules", deal=deal, seats=seats,
               help=Command("help"), quit=Command("quit"))


async def _setup(table: ConsoleTable, seats: Sequence[SeatSpec], args: argparse.Namespace) -> None:
    """Resume the game in play in the database, else open a new one."""
    service = table.service
    at = await service.table_in(CHANNEL_ID)
    if at is not None and at.is_playing:
        table.remember_seats(at)
        table.say(describe_table(at, resumed=True))
        if args.seats:
            table.say(say("(The saved game goes on with its own seats; {seats} is for a new one.)",
                          seats="--seats"))
        table.say(say("Round {round} of 7: {name} to play.", round=at.round, name=at.labels[at.active]))
        await service.resume()
        return
    if at is not None:  # a lobby left from an interrupted start
        await service.cancel(Caller(GUILD_ID, CHANNEL_ID, 1, "", can_manage=True), at.game_id)
    await open_table(table, seats, holdem=args.holdem, kept=bool(args.db))


async def _learn(table: ConsoleTable) -> None:
    """``--learn``: the course's lessons, at a table with no game."""
    table.humans = [Caller(GUILD_ID, CHANNEL_ID, 1, default_name(), can_manage=True)]
    table.say(say("The course: short lessons, each one idea of Khronos, played with the turn panel's words. "
                  "Type {help} for the commands, {quit} to leave.", help=Command("help"), quit=Command("quit")))
    reply = await table.service.learn(table.someone())
    table.show(reply, public=False)


async def _goodbye(table: ConsoleTable, args: argparse.Namespace) -> None:
    at = await table.where()
    if at is None or not at.is_playing:
        return
    if args.db:
        table.say(say("Game #{id} is saved in {db}; carry on with {again}.", id=at.game_id, db=args.db,
                      again=Code(f"tiempo-bot console --db {args.db}")))
    else:
        table.say(say("The game was not kept (to keep one for later, start with {db}).", db=Code("--db FILE")))


# ---------------------------------------------------------------------------------------------
# The loop


def play(args: argparse.Namespace, *, stdin: TextIO | None = None, stdout: TextIO | None = None,
         choose_ai: Chooser | None = None) -> int:
    """Run a console table until ``quit`` or the end of the input. Returns the exit code."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    try:
        seats = parse_seats(args.seats) if args.seats else [SeatSpec(default_name()), SeatSpec("", "greedy"),
                                                            SeatSpec("", "greedy")]
    except ValueError as err:
        sys.stderr.write(f"tiempo-bot console: {err}\n")
        return 2
    if not 1 <= args.processes <= MAX_AI_PROCESSES:
        sys.stderr.write(f"tiempo-bot console: --processes must be from 1 to {MAX_AI_PROCESSES}\n")
        return 2
    if not 0 < args.think < float("inf"):
        sys.stderr.write("tiempo-bot console: --think must be a number of seconds greater than 0, like --think 2.5\n")
        return 2
    try:
        new_loop = loop_factory()
    except EventLoopError as err:
        sys.stderr.write(f"tiempo-bot console: {err}\n")
        return 2
    with tempfile.TemporaryDirectory(prefix="tiempo-console-") as tmp, asyncio.Runner(loop_factory=new_loop) as runner:
        db = Path(args.db) if args.db else Path(tmp) / "table.sqlite3"
        try:
            if args.db:  # (as the bot checks its own: a missing folder made, anything else said in a sentence)
                runner.run(check_database(str(db)))
            storage = runner.run(Storage.open(str(db)))
        except DatabaseUnusableError as err:
            sys.stderr.write(f"tiempo-bot console: {err}\n")
            return 2
        except (StorageError, OSError, sqlite3.Error) as err:
            sys.stderr.write(f"tiempo-bot console: cannot open {db}: {err}\n")
            return 2
        outbox = TerminalOutbox()
        service = Tiempo(storage, outbox, ai_think_seconds=args.think, ai_processes=args.processes,
                         choose_ai=choose_ai, render=not args.no_pictures, seed_source=_seeds(args.seed))
        bold = stdout is sys.stdout and stdout.isatty() and "NO_COLOR" not in os.environ
        pictures = Pictures(None if args.no_pictures else Path(args.out))
        table = ConsoleTable(service, Screen(stdout, pictures, bold=bold))
        outbox.table = table
        try:
            if args.learn:
                runner.run(_learn(table))
            else:
                runner.run(_setup(table, seats, args))
            _loop(runner, table, Lines(stdin, stdout))
        except KeyboardInterrupt:
            table.say(say("\nInterrupted."))
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
    return lambda: given.pop() if given else new_seed()


def _loop(runner: asyncio.Runner, table: ConsoleTable, lines: Lines) -> None:
    turn: tuple[int, int] | None = None  # (the game, its turn) when the last line was asked for
    while True:
        runner.run(table.settle())
        at = runner.run(table.where())
        now = (at.game_id, at.turn) if at is not None else None
        if turn is not None and now != turn and lines.set_aside():  # (typed while others played)
            table.whisper(say("What you typed while the others played was set aside: the board has changed "
                              "since. Type it again if you still want it."))
        turn = now
        line = lines.read(runner.run(table.prompt()))
        if line is None:
            return
        if not line.strip():
            continue
        try:
            command, options = parse_line(line)
        except MissingOption as err:
            if err.text:
                table.whisper(err.text)
            runner.run(suggest(table, err.command, err.options, err.wanted))
            continue
        except UnknownCommand as err:  # the words it is close to, or the whole help
            table.whisper(err.text)
            if not err.close:
                table.say(help_text())
            continue
        except InputError as err:
            table.whisper(err.text)
            table.say(help_text())
            continue
        try:
            if not runner.run(run_command(table, command, options)):
                return
        except Exception as err:  # a bug: logged with its traceback; the table goes on, the game was not changed
            log.exception("console command %r failed", line.strip())
            table.say(say("Something went wrong and nothing was changed: {error}: {why}", error=type(err).__name__,
                          why=str(err)))


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
    parser.add_argument("--learn", action="store_true",
                        help="the course: short lessons played by numbers and `ok` (no game; progress kept with --db)")
    parser.add_argument("--seed", type=int, help="the deal's seed, to play the same game again")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help=f"the folder for the pictures of the game (default: ./{DEFAULT_OUT})")
    parser.add_argument("--no-pictures", action="store_true", help="do not draw pictures (faster)")
    parser.add_argument("--db", help="keep the game in this SQLite file, and resume it when run again")
    parser.add_argument("--think", type=float, default=2.0, metavar="SECONDS",
                        help="how long the strong and master AI levels may think per turn (default: 2)")
    parser.add_argument("--processes", type=int, default=default_ai_processes(), metavar="N",
                        help="how many processes the strong AI's look-ahead uses at once "
                        f"(default here: {default_ai_processes()}, one per core, at most 2)")
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


__all__ = ["add_arguments", "describe_table", "main", "open_table", "play"]
