"""The console (``tiempo-bot console``) run as a person would: lines in on standard input, what the terminal
showed out (``run_console``), with a stand-in AI (``random_ai``)."""

from __future__ import annotations

import argparse
import io
import random
from pathlib import Path

from bot import console
from rules import Action, EndTurn, GameState, legal_actions


def random_ai(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0,
              iterations: int | None = None) -> Action:
    """A stand-in AI: a legal action, ending the turn often (no dependency on bot.ai)."""
    rng = random.Random(seed)
    actions = legal_actions(state)
    ends = [a for a in actions if isinstance(a, EndTurn)]
    if ends and rng.random() < 0.5:
        return rng.choice(ends)
    return rng.choice(actions)


def args(tmp_path: Path, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    console.add_arguments(parser)
    return parser.parse_args(["--out", str(tmp_path / "pictures"), *extra])


def run_console(tmp_path: Path, lines: str | io.TextIOBase, *extra: str) -> str:
    out = io.StringIO()
    stdin = io.StringIO(lines) if isinstance(lines, str) else lines
    code = console.play(args(tmp_path, *extra), stdin=stdin, stdout=out, choose_ai=random_ai)  # type: ignore[arg-type]
    text = out.getvalue()
    assert code == 0, text
    assert "Traceback" not in text and "Something went wrong" not in text, text
    return text
