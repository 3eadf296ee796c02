"""``python -m rules``: play and inspect positions from the command line.

    python -m rules new --players 4 --seed 7 [--holdem] [--names Ana,Ben,Cy,Di]   # a new game
    python -m rules show POSITION                       # the position, normalised
    python -m rules legal POSITION [--kind Keep] [--age M] [--json]
    python -m rules apply POSITION [ACTIONS|-] [--json]  # apply actions (one per line)

POSITION and ACTIONS are files in the notation of docs/notation.md ('-' reads standard input).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from . import Age, Colour, Kind, Options, RuleError, apply, legal_actions, load_map, new_game
from .actions import Construct, Demolish, Populate, Renovate, Upgrade
from .events import Event
from .notation import format_action, format_position, parse_action, parse_position
from .serial import event_to_dict, state_to_dict


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _cmd_new(args: argparse.Namespace) -> int:
    colours = [c.value for c in Colour][: args.players]
    names = [n.strip() for n in args.names.split(",")] if args.names else colours
    if len(names) != args.players:
        raise ValueError(f"--names lists {len(names)} names for {args.players} players")
    state = new_game(names, seed=args.seed, options=Options(holdem=args.holdem), game_map=load_map(args.map))
    sys.stdout.write(format_position(state))
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    sys.stdout.write(format_position(parse_position(_read(args.position))))
    return 0


def _cmd_legal(args: argparse.Namespace) -> int:
    state = parse_position(_read(args.position))
    narrowed = bool(args.kind or args.age)
    acts = legal_actions(
        state,
        types=[Construct, Upgrade, Demolish, Populate, Renovate] if narrowed else None,
        kinds=[Kind.parse(args.kind)] if args.kind else None,
        ages=[Age.parse(args.age)] if args.age else None,
    )
    lines = [format_action(state, a) for a in acts]
    if args.json:
        print(json.dumps({"count": len(lines), "actions": lines}, indent=1))
    else:
        print("\n".join(lines))
    return 0


def _cmd_apply(args: argparse.Namespace) -> int:
    state = parse_position(_read(args.position))
    events: list[Event] = []
    text = _read(args.actions) if args.actions else ""
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            state, evs = apply(state, parse_action(line, state))
        except (RuleError, ValueError) as exc:
            code = exc.code if isinstance(exc, RuleError) else "bad-input"
            rule = exc.rule if isinstance(exc, RuleError) else ""
            if args.json:
                print(json.dumps({"error": {"line": lineno, "action": line, "code": code, "rule": rule,
                                            "message": str(exc)}}, indent=1))
            else:
                sys.stderr.write(f"line {lineno}: {line}: {exc}" + (f" ({rule})" if rule else "") + "\n")
            return 1
        events.extend(evs)
    if args.json:
        print(json.dumps({"position": format_position(state), "state": state_to_dict(state),
                          "events": [event_to_dict(e) for e in events]}, indent=1))
    else:
        sys.stdout.write(format_position(state))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rules", description="Play and inspect Khronos positions.")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("new", help="print the position of a new game")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--holdem", action="store_true", help="play with the Hold'em reserve (R33)")
    p.add_argument("--map", default="default")
    p.add_argument("--names", help="comma-separated player names")
    p.set_defaults(run=_cmd_new)
    p = sub.add_parser("show", help="print a position, normalised")
    p.add_argument("position")
    p.set_defaults(run=_cmd_show)
    p = sub.add_parser("legal", help="list the legal actions of a position")
    p.add_argument("position")
    p.add_argument("--kind", help="only actions on this building type, e.g. Keep")
    p.add_argument("--age", help="only actions on this board: M, F or R")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_cmd_legal)
    p = sub.add_parser("apply", help="apply actions (one per line) and print the new position")
    p.add_argument("position")
    p.add_argument("actions", nargs="?", help="a file of actions, or - for standard input")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_cmd_apply)
    args = ap.parse_args(argv)
    try:
        result: int = args.run(args)
        sys.stdout.flush()
        return result
    except BrokenPipeError:  # (the reader stopped early: ``| head``) nothing more to say, and no error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (so that the exit's flush is quiet)
        return 0
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
