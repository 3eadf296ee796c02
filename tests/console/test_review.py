"""``review`` at the terminal (``tiempo-bot console``): a finished game's review, its progress told as it
runs, each player's costliest turns with their pictures written to the pictures folder; a stranger's
and a game in play's refused with a sentence."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

import bot.service.review
from rules import keyed_seed
from tests.support.console_play import run_console
from tests.support.replayed import play_game


def test_review_at_the_console_prints_the_progress_then_each_players_turns(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.service.review, "REVIEW_ITERATIONS", 2)  # (the bot's own review makes more)
    monkeypatch.setattr(bot.service.review, "REVIEW_DEALS", 2)
    db = tmp_path / "table.sqlite3"
    asyncio.run(play_game(str(db), 5, ["Ana", "Ben"], deal=keyed_seed(5), ids=[1, 2]))
    out = run_console(tmp_path, "review 1\nreview\nreview 9\nquit\n", "--db", str(db), "--seats", "Ana,ai:greedy")
    progress = re.findall(r"Reviewing the game with the AI's top level: turn (\d+) of (\d+)…", out)
    assert len(progress) == 4 and progress[0][0] == "1", progress  # every quarter
    assert "Game #1 — the review of Ana (" in out and "Game #1 — the review of Ben (" in out
    assert out.index("the review of Ana (") < out.index("the review of Ben (")  # the asker's own first
    turns = re.findall(r"\d\. Round \d, turn (\d+): about \d+ Ecus? lost\.", out)
    assert 2 <= len(turns) <= 6
    written = (tmp_path / "pictures").glob("*-tiempo-1-review-*.png")  # (numbered as the folder's pictures are)
    names = [p.name.split("-", 1)[1].removesuffix(".png").rsplit("-", 2) for p in written]
    assert sorted({int(t) for _, t, _ in names}) == sorted(int(t) for t in turns)  # a picture or two a turn
    assert {(head, age in ("might", "faith", "reason")) for head, _, age in names} == {("tiempo-1-review", True)}
    assert "Game #2 is still being played: a review comes once a game is over." in out  # the table's own game
    assert "There is no game #9." in out
