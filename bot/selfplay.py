"""``tiempo-bot selfplay``: AI players play a whole game; every turn is drawn and written down.

    tiempo-bot selfplay --players 4 --seed 7 --out game7               # four greedy players
    tiempo-bot selfplay --levels strong,greedy,random --iterations 200 # one level per seat

In ``--out`` it writes:

* ``start.txt``   the first position, in the engine's notation (``rules.notation.format_position``);
* ``actions.txt`` every action, one per line (``format_action``), a comment before each turn, so that
  ``python -m rules apply start.txt actions.txt`` replays the game to ``final.txt``;
* ``final.txt``   the last position;
* ``turn-000-start.png`` and ``turn-NNN-roundR-Colour.png``: the picture after every turn;
* ``ranking.json`` the final ranking (places shared on a tie) and how the game was played.

It plays the rules engine directly with ``bot.ai`` players (no storage), new ones for every game.
The game depends only on the seed, the levels and, for ``strong``, ``--iterations``; without it the
strong players think for ``--think`` seconds a turn, and the game depends on the machine's speed too.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from rules import Action, Colour, GameState, Options, apply, format_action, format_position, new_game
from rules import events as ev

from .ai import LEVEL_NAMES, Chooser, Players, get_level
from .config import MAX_AI_PROCESSES, default_ai_processes
from .texts import ecu_word, ranking, who

ROUNDS = 7
MAX_ACTIONS = 20_000  # a game takes a few hundred; more means an AI that never ends its turn


@dataclass(frozen=True)
class Result:
    """A finished self-play game and where its files are."""

    state: GameState
    out: Path
    turns: int
    actions: int
    pictures: list[Path]
    seconds: float
    #: the first position and every action with its events (for a review)
    first: GameState | None = None
    history: tuple[tuple[Action, tuple[ev.Event, ...]], ...] = ()

    @property
    def ranking_path(self) -> Path:
        return self.out / "ranking.json"


class Progress:
    """A text bar on a stream: redrawn in place at a terminal, one line per round otherwise."""

    def __init__(self, stream: TextIO, total: int, width: int = 28) -> None:
        self.stream, self.total, self.width = stream, total, width
        self.tty = stream.isatty()
        self.start = time.monotonic()

    def bar(self, done: int, text: str) -> str:
        filled = round(self.width * min(done, self.total) / self.total) if self.total else self.width
        return (f"[{'#' * filled}{'-' * (self.width - filled)}] {done:>2}/{self.total} turns  {text}  "
                f"{time.monotonic() - self.start:5.1f} s")

    def turn(self, done: int, state: GameState, round_over: bool) -> None:
        text = "game over" if state.finished else f"round {state.round}/{ROUNDS}"
        if self.tty:
            self.stream.write("\r" + self.bar(done, text).ljust(80))
            if state.finished:
                self.stream.write("\n")
        elif round_over or state.finished:
            self.stream.write(self.bar(done, text) + "\n")
        self.stream.flush()


def play_game(levels: Sequence[str], *, seed: int, out: Path, holdem: bool = False, iterations: int | None = None,
              think: float = 1.0, choose: Chooser | None = None, progress: TextIO | None = None,
              pictures: bool = True, processes: int = 1) -> Result:
    """Play a whole game between AI players of ``levels`` (one per seat) and write its files in ``out``.
    ``choose`` is called like ``bot.ai.Players.choose``; by default new players are made for this
    game (so that nothing remembered from an earlier game steers this one), a strong player's
    play-outs using ``processes`` processes at once, and closed at its end."""
    for level in levels:
        get_level(level)
    if not 2 <= len(levels) <= 5:
        raise ValueError(f"Khronos is for 2 to 5 players, not {len(levels)}")
    if choose is not None:
        return _play(levels, seed, out, holdem, iterations, think, choose, progress, pictures)
    players = Players(workers=processes)
    try:
        return _play(levels, seed, out, holdem, iterations, think, players.choose, progress, pictures)
    finally:
        players.close()


def _play(levels: Sequence[str], seed: int, out: Path, holdem: bool, iterations: int | None, think: float,
          choose: Chooser, progress: TextIO | None, pictures: bool) -> Result:
    from render import game_picture

    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("turn-*.png"):
        old.unlink()
    started = time.monotonic()
    state = new_game(player_names(levels), seed=seed, options=Options(holdem=holdem),
                     colours=list(Colour)[: len(levels)])
    (out / "start.txt").write_text(format_position(state), encoding="utf-8")
    written: list[Path] = []

    def picture(name: str, events: Sequence[ev.Event]) -> None:
        if pictures:
            path = out / name
            path.write_bytes(game_picture(state, None, events))
            written.append(path)

    picture("turn-000-start.png", ())
    bar = Progress(progress, ROUNDS * len(levels)) if progress is not None else None
    log: list[str] = [f"# Khronos self-play: seed {seed}, " + ", ".join(
        f"{who(state, i).plain()} {level}" for i, level in enumerate(levels))
        + (f", {iterations} iterations" if iterations is not None else "")
        + (", Hold'em" if holdem else "")]
    turns = actions = 0
    first = state
    history: list[tuple[Action, tuple[ev.Event, ...]]] = []
    turn_events: list[ev.Event] = []
    opened = -1
    while not state.finished:
        if state.turn != opened:
            opened = state.turn
            log.append(f"# turn {state.turn}, round {state.round}: {who(state, state.active).plain()}")
        seat = state.waiting_on
        action = choose(state, seat, levels[seat], seed=seed * 1000 + state.turn, budget_s=think,
                        iterations=iterations)
        log.append(format_action(state, action))
        before = state
        state, events = apply(state, action)
        history.append((action, tuple(events)))
        actions += 1
        turn_events += events
        if actions > MAX_ACTIONS:
            raise RuntimeError(f"the game did not end after {MAX_ACTIONS} actions")
        if any(isinstance(e, ev.TurnEnded) for e in events):
            turns += 1
            ended = next(e.player for e in events if isinstance(e, ev.TurnEnded))
            colour = state.players[ended].colour.value
            picture(f"turn-{turns:03d}-round{before.round}-{colour}.png", turn_events)
            turn_events = []
            if bar is not None:
                bar.turn(turns, state, round_over=state.round != before.round)
    (out / "actions.txt").write_text("\n".join(log) + "\n", encoding="utf-8")
    (out / "final.txt").write_text(format_position(state), encoding="utf-8")
    result = Result(state, out, turns, actions, written, time.monotonic() - started, first, tuple(history))
    result.ranking_path.write_text(json.dumps(ranking_json(result, levels, seed, iterations, holdem), indent=1,
                                              ensure_ascii=False) + "\n", encoding="utf-8")
    return result


def player_names(levels: Sequence[str]) -> list[str]:
    """``Oracle``, ``Magpie 1``, ``Magpie 2``: the level's name, numbered when several seats share it."""
    names: list[str] = []
    for i, level in enumerate(levels):
        if levels.count(level) == 1:
            names.append(get_level(level).display)
        else:
            names.append(f"{get_level(level).display} {levels[: i + 1].count(level)}")
    return names


def ranking_json(result: Result, levels: Sequence[str], seed: int, iterations: int | None,
                 holdem: bool) -> dict[str, Any]:
    """The final ranking (``bot.texts.ranking``) and how the game was played."""
    s = result.state
    return {
        "seed": seed,
        "holdem": holdem,
        "iterations": iterations,
        "turns": result.turns,
        "actions": result.actions,
        "winners": [s.players[i].colour.value for i in s.winners],
        "ranking": [{"place": place, "seat": seat, "colour": s.players[seat].colour.value,
                     "name": s.players[seat].name, "level": levels[seat], "ecus": ecus}
                    for place, seat, ecus in ranking(s)],
    }


def summary(result: Result, stream: TextIO) -> None:
    """The ranking and the files, for the terminal."""
    s = result.state
    stream.write(f"Game over after {result.turns} turns ({result.actions} actions, {result.seconds:.1f} s).\n")
    for place, seat, ecus in ranking(s):
        medal = {1: "🥇", 2: "🥈", 3: "🥉"}.get(place, f"{place}.")
        stream.write(f"{medal} {who(s, seat).plain()} — {ecus} {ecu_word(ecus)}\n")
    out = result.out
    stream.write(f"\nWritten to {out}/:\n")
    if result.pictures:
        stream.write(f"  {len(result.pictures)} pictures, {result.pictures[0].name} … {result.pictures[-1].name}\n")
    stream.write("  start.txt, actions.txt, final.txt, ranking.json\n"
                 f"Replay it: {sys.executable} -m rules apply {out / 'start.txt'} {out / 'actions.txt'}\n")


def review(result: Result, stream: TextIO, *, seed: int = 0, iterations: int | None = None,
           deals: int | None = None, progress: TextIO | None = None, pictures: bool = True) -> None:
    """The review after the game (as ``/tiempo records review`` gives it, for every seat): each player's
    three costliest turns by the AI's top level, written to ``stream`` (its progress to ``progress``);
    with ``pictures``, the top level's turn instead as ``review-NNN-AGE.png`` in the game's folder (one
    for each Age it builds on).
    ``iterations`` and ``deals``: the play-outs a turn and the common deals (None: the bot's)."""
    from .service import REVIEW_DEALS, REVIEW_ITERATIONS, costliest, cut, review_costs, seat_words, turn_pictures
    from .words import PLAIN, render

    assert result.first is not None
    steps = cut(result.first, [(a, list(e)) for a, e in result.history])
    seats = range(len(result.state.players))
    play_outs = iterations if iterations is not None else REVIEW_ITERATIONS

    def told(done: int, total: int) -> None:
        if progress is not None and done * 4 // total > (done - 1) * 4 // total:
            progress.write(f"Reviewing with the AI's top level: turn {done} of {total}\n")
            progress.flush()

    costs = review_costs(steps, seats, base=seed, iterations=play_outs,
                         deals=deals if deals is not None else REVIEW_DEALS, progress=told)
    by_index = {s.index: s for s in steps}
    for seat in seats:
        words = seat_words(steps, costs, seat, play_outs, f"Self-play, seed {seed}")
        stream.write("\n" + render(words, PLAIN) + "\n")
        for c in costliest(costs, seat) if pictures else ():
            for picture in turn_pictures(by_index[c.step], c, 0):  # (named tiempo-0-review-N-AGE.png)
                (result.out / f"review-{c.step:03d}-{picture.filename.rsplit('-', 1)[1]}").write_bytes(picture.png)


# ---------------------------------------------------------------------------------------------
# Entry point


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``tiempo-bot selfplay``."""
    parser.description = ("AI players play a whole game of Khronos. Writes the picture after every turn, the "
                          "actions in the engine's notation and the final ranking.")
    parser.add_argument("--players", type=int, help="how many players, 2–5 (default 4, or as many as --levels)")
    parser.add_argument("--seed", type=int, help="the game's seed (default: a random one, printed)")
    parser.add_argument("--out", default="tiempo-selfplay", help="the folder to write to (default ./tiempo-selfplay)")
    parser.add_argument("--level", default="greedy", choices=LEVEL_NAMES, help="every player's level (default greedy)")
    parser.add_argument("--levels", help="one level per seat, comma-separated, e.g. strong,greedy,random")
    parser.add_argument("--iterations", type=int,
                        help="the strong players' search per turn: makes a game depend on the seed only")
    parser.add_argument("--think", type=float, default=1.0, metavar="SECONDS",
                        help="without --iterations, how long a strong player thinks per turn (default 1)")
    parser.add_argument("--processes", type=int, default=default_ai_processes(), metavar="N",
                        help="how many processes a strong player's look-ahead uses at once "
                        f"(default here: {default_ai_processes()}, one per core, at most 2)")
    parser.add_argument("--holdem", action="store_true", help="play the Hold'em variant")
    parser.add_argument("--no-pictures", action="store_true", help="write no pictures (faster)")
    parser.add_argument("--review", action="store_true",
                        help="after the game, each player's three costliest turns by the AI's top level (and, with "
                        "pictures, the top level's turn instead as review-NNN-AGE.png)")
    parser.add_argument("--review-iterations", type=int, metavar="N",
                        help="the review's play-outs a turn (default: the bot's)")
    parser.add_argument("--review-deals", type=int, metavar="N",
                        help="the common deals on which the review plays out the top level's turn and the turn "
                        "played (default: the bot's)")
    parser.set_defaults(func=main)


def levels_of(args: argparse.Namespace) -> list[str]:
    """The level of each seat from ``--levels`` or ``--players`` and ``--level``."""
    if args.levels:
        levels = [x.strip().lower() for x in args.levels.split(",")]
        if args.players is not None and args.players != len(levels):
            raise ValueError(f"--levels names {len(levels)} players but --players says {args.players}")
    else:
        levels = [args.level] * (4 if args.players is None else args.players)
    for level in levels:
        get_level(level)
    if not 2 <= len(levels) <= 5:
        raise ValueError(f"Khronos is for 2 to 5 players, not {len(levels)}")
    return levels


def main(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None,
         choose: Chooser | None = None) -> int:
    """``tiempo-bot selfplay``. Returns the exit code."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        levels = levels_of(args)
    except ValueError as err:
        stderr.write(f"tiempo-bot selfplay: {err}\n")
        return 2
    if args.iterations is not None and args.iterations < 1:
        stderr.write("tiempo-bot selfplay: --iterations must be at least 1\n")
        return 2
    if args.review_iterations is not None and args.review_iterations < 1:
        stderr.write("tiempo-bot selfplay: --review-iterations must be at least 1\n")
        return 2
    if args.review_deals is not None and args.review_deals < 1:
        stderr.write("tiempo-bot selfplay: --review-deals must be at least 1\n")
        return 2
    if not 1 <= args.processes <= MAX_AI_PROCESSES:
        stderr.write(f"tiempo-bot selfplay: --processes must be from 1 to {MAX_AI_PROCESSES}\n")
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**6)
    seats = ", ".join(f"{name} ({colour.value}, {level})"
                      for name, colour, level in zip(player_names(levels), Colour, levels, strict=False))
    holdem = ", Hold'em variant" if args.holdem else ""
    stderr.write(f"Self-play, seed {seed}{holdem}: {seats}.\n")
    try:
        result = play_game(levels, seed=seed, out=Path(args.out), holdem=args.holdem, iterations=args.iterations,
                           think=args.think, choose=choose, progress=stderr, pictures=not args.no_pictures,
                           processes=args.processes)
    except KeyboardInterrupt:
        stderr.write("\nInterrupted.\n")
        return 130
    except OSError as err:
        stderr.write(f"tiempo-bot selfplay: {err}\n")
        return 2
    summary(result, stdout)
    if args.review:
        review(result, stdout, seed=seed, iterations=args.review_iterations, deals=args.review_deals,
               progress=stderr, pictures=not args.no_pictures)
    return 0


__all__ = ["Result", "add_arguments", "levels_of", "main", "play_game", "ranking_json", "review"]
