"""``replay`` and ``export`` at the terminal (``tiempo-bot console``): a stored game's steps printed with
their pictures written as PNGs, ``next`` and ``prev`` stepping; a finished game's files written to
the pictures folder; bad input answered with a sentence."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from PIL import Image

from rules import keyed_seed
from tests.support.console_play import run_console
from tests.support.replayed import play_game


def stored(tmp_path: Path) -> Path:
    """Game #1, finished at the console's table (three players, random legal play)."""
    path = tmp_path / "table.sqlite3"
    asyncio.run(play_game(str(path), 5, ["ana", "ben", "cy"], deal=keyed_seed(5)))
    return path


def test_replay_steps_with_next_and_prev_and_writes_the_pictures(tmp_path: Path) -> None:
    db = stored(tmp_path)
    out = run_console(tmp_path, "replay 1 0\nnext\nnext\nprev\nreplay 1 999 hands\nnext\nreplay game:99\n"
                                "replay\nquit\n", "--db", str(db), "--seats", "Ana,ai:greedy")  # (hands: as help says)
    assert "Game #1 — the deal." in out
    turns = int(re.search(r"the deal\. \w+ \(\w+\) plays first\. (\d+) turns follow\.", out)[1])  # type: ignore[index]
    headings = re.findall(rf"Game #1 — turn (\d+) of {turns}, round \d of 7", out)
    assert headings == ["1", "2", "1", str(turns)], headings
    assert "Type `next` to go forward." in out and "Type `next` to go forward, or `prev` to go back." in out
    assert "`replay game:1 step:<number>` shows any turn (step 0 is the deal)." in out
    assert "Hands before this turn:" in out and "Final ranking:" in out
    assert "That was the last step of game #1." in out
    assert "There is no game #99." in out
    assert re.search(r"Game #2 — (turn \d+ of \d+|the deal)", out)  # the table's game in play, up to now
    written = sorted(p.name for p in (tmp_path / "pictures").glob("*replay*.png"))
    assert any(name.endswith("tiempo-1-replay-0-might.png") for name in written)
    assert len([n for n in written if "-1-replay-" in n]) == 5 * 3  # three cards a step, five steps shown
    for line in out.split("\n"):
        if "replay" in line and line.strip().startswith("[pictures:"):
            for path in line.strip()[len("[pictures: "):-1].split(", "):
                with Image.open(path) as im:
                    assert im.size == (1140, 680)


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
def test_export_writes_the_files_to_the_pictures_folder(tmp_path: Path) -> None:
    db = stored(tmp_path)
    out = run_console(tmp_path, "export 1\nexport 2\nexport 77\nquit\n", "--db", str(db), "--seats",
                      "Ana,ai:greedy")
    folder = tmp_path / "pictures"
    names = ["tiempo-1-start.txt", "tiempo-1-actions.txt", "tiempo-1.webp", "tiempo-1.html"]
    assert f"Written to {folder}: {', '.join(names)}." in out
    assert "open `tiempo-1.html` in any browser to step through the game" in out and "python -m" not in out
    assert all((folder / n).stat().st_size > 0 for n in names)
    with Image.open(folder / "tiempo-1.webp") as im:
        assert im.format == "WEBP" and im.n_frames > 7
    assert "Game #2 is still being played: only a finished game is exported." in out
    assert "There is no game #77." in out


def test_without_pictures_an_export_says_why(tmp_path: Path) -> None:
    out = run_console(tmp_path, "export 1\nnext\nquit\n", "--db", str(stored(tmp_path)), "--seats",
                      "Ana,ai:greedy", "--no-pictures")
    assert "this table draws no pictures: start it without --no-pictures." in out
    assert "Show a replay first: `replay`, e.g. `replay 2`." in out
