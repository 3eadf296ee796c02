"""``tiempo-bot selfplay``: a whole AI game written to files that the engine's command line replays."""

from __future__ import annotations

import argparse
import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import bot.service.review
from bot import selfplay
from bot.ai import Analysis
from bot.config import default_ai_processes
from bot.texts import ranking
from rules import Action, EndTurn, GameState, format_position, legal_actions, parse_position

ROOT = Path(__file__).resolve().parents[2]


def random_ai(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0,
              iterations: int | None = None) -> Action:
    """A stand-in AI (no dependency on bot.ai): a legal action, ending the turn often."""
    rng = random.Random(f"{seed}/{state.turn}/{len(legal_actions(state))}")
    actions = legal_actions(state)
    ends = [a for a in actions if isinstance(a, EndTurn)]
    if ends and rng.random() < 0.4:
        return rng.choice(ends)
    return rng.choice(actions)


def replay(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rules", "apply", str(out / "start.txt"), str(out / "actions.txt")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)


@pytest.mark.slow
def test_a_game_is_written_turn_by_turn_and_replays_to_the_same_end(tmp_path: Path) -> None:
    out = tmp_path / "game"
    progress = io.StringIO()
    result = selfplay.play_game(["random", "greedy", "random"], seed=5, out=out, choose=random_ai, progress=progress)
    state = result.state
    assert state.finished and result.turns == 21 == state.turn

    # a picture after every turn, numbered, valid PNGs
    pictures = sorted(out.glob("turn-*.png"))
    assert [p.name for p in pictures] == [p.name for p in result.pictures]
    assert pictures[0].name == "turn-000-start.png" and len(pictures) == 22
    assert pictures[1].name.startswith("turn-001-round1-") and pictures[-1].name.startswith("turn-021-round7-")
    for p in (pictures[0], pictures[10], pictures[-1]):
        with Image.open(p) as im:
            im.verify()
            assert im.format == "PNG" and im.size[0] >= 600

    # the log replays with python -m rules apply to the final position
    actions = (out / "actions.txt").read_text().splitlines()
    assert sum(1 for a in actions if a and not a.startswith("#")) == result.actions
    assert actions[0].startswith("# Khronos self-play: seed 5")
    done = replay(out)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (out / "final.txt").read_text() == format_position(state)
    assert parse_position((out / "start.txt").read_text()).turn == 1

    # the ranking, as the bot ranks
    data = json.loads((out / "ranking.json").read_text())
    replayed = parse_position(done.stdout)
    assert [(r["place"], r["seat"], r["ecus"]) for r in data["ranking"]] == ranking(replayed)
    assert [r["level"] for r in sorted(data["ranking"], key=lambda r: r["seat"])] == ["random", "greedy", "random"]
    assert [r["name"] for r in sorted(data["ranking"], key=lambda r: r["seat"])] == ["Dice 1", "Magpie", "Dice 2"]
    assert data["winners"] == [replayed.players[i].colour.value for i in replayed.winners]
    assert data["seed"] == 5 and data["turns"] == 21

    # progress: one bar line per round when the stream is not a terminal
    bars = progress.getvalue().splitlines()
    assert len(bars) == 7 and bars[-1].startswith("[" + "#" * 28 + "] 21/21 turns  game over")


@pytest.mark.slow
def test_the_same_seed_plays_the_same_game(tmp_path: Path) -> None:
    for name in ("a", "b"):
        selfplay.play_game(["random", "random"], seed=9, out=tmp_path / name, choose=random_ai, pictures=False)
    assert (tmp_path / "a" / "actions.txt").read_text() == (tmp_path / "b" / "actions.txt").read_text()
    assert not list((tmp_path / "a").glob("*.png"))


@pytest.mark.slow
def test_the_strong_player_is_deterministic_with_an_iteration_budget(tmp_path: Path) -> None:
    for name in ("a", "b"):
        selfplay.play_game(["strong", "random"], seed=2, out=tmp_path / name, iterations=1, pictures=False)
    assert (tmp_path / "a" / "actions.txt").read_text() == (tmp_path / "b" / "actions.txt").read_text()
    assert replay(tmp_path / "a").stdout == (tmp_path / "a" / "final.txt").read_text()


@pytest.mark.slow
def test_the_command_line(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "bot", "selfplay", "--players", "2", "--level", "random", "--seed",
                          "4", "--out", str(tmp_path / "g")], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stderr.startswith("Self-play, seed 4: Dice 1 (Red, random), Dice 2 (White, random).")
    assert "14/14 turns  game over" in out.stderr
    assert "Game over after 14 turns" in out.stdout and "🥇" in out.stdout
    # (the Python that ran it, which has the engine: a bare `python` may not)
    g = tmp_path / "g"
    replay = f"Replay it: {sys.executable} -m rules apply {g / 'start.txt'} {g / 'actions.txt'}"
    assert replay in out.stdout
    again = subprocess.run(replay.removeprefix("Replay it: ").split(), capture_output=True, text=True, timeout=60,
                           cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == (g / "final.txt").read_text(), again.stderr
    assert len(list((tmp_path / "g").glob("turn-*.png"))) == 15


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    selfplay.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_levels_and_players() -> None:
    assert selfplay.levels_of(parse()) == ["greedy"] * 4
    assert selfplay.levels_of(parse("--players", "2", "--level", "strong")) == ["strong", "strong"]
    assert selfplay.levels_of(parse("--levels", "Strong, greedy,random")) == ["strong", "greedy", "random"]
    for argv, words in [(("--players", "6"), "2 to 5"), (("--levels", "greedy"), "2 to 5"),
                        (("--levels", "greedy,wise"), "'wise' is not an AI level"),
                        (("--levels", "greedy,greedy", "--players", "3"), "--players says 3")]:
        with pytest.raises(ValueError, match=words):
            selfplay.levels_of(parse(*argv))
    err = io.StringIO()
    assert selfplay.main(parse("--players", "1"), stdout=io.StringIO(), stderr=err) == 2
    assert "2 to 5 players" in err.getvalue()


def test_the_number_of_processes_is_checked() -> None:
    assert parse().processes == default_ai_processes()
    err = io.StringIO()
    assert selfplay.main(parse("--processes", "0"), stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue() == "tiempo-bot selfplay: --processes must be from 1 to 8\n"


def test_a_review_after_the_game_names_each_players_costliest_turns(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``--review``: after the ranking, each seat's part of the review (as the bot's), its progress on
    the error stream and the top level's turns drawn in the game's folder; ``--review-iterations`` and
    ``--review-deals`` reach every turn's analysis (here fewer than the bot's, for speed)."""
    analysed: list[tuple[object, object]] = []
    analyse = bot.service.review.analyse

    def kept(*args: Any, **kwargs: Any) -> Analysis:
        analysed.append((kwargs["iterations"], kwargs["deals"]))
        return analyse(*args, **kwargs)

    monkeypatch.setattr(bot.service.review, "analyse", kept)
    out, err = io.StringIO(), io.StringIO()
    argv = ("--players", "2", "--seed", "4", "--out", str(tmp_path / "g"), "--review", "--review-iterations", "2",
            "--review-deals", "2")
    assert selfplay.main(parse(*argv), stdout=out, stderr=err, choose=random_ai) == 0, err.getvalue()
    said = out.getvalue()
    assert said.index("🥇") < said.index("Self-play, seed 4 — the review of Magpie 1 (Red)'s turns by the AI's top "
                                         "level, each from what they saw then (2 imagined games a turn; a hint "
                                         "imagines its own, so the two may suggest different turns):")
    assert "Self-play, seed 4 — the review of Magpie 2 (White)'s turns" in said
    turns = re.findall(r"^\d\. Round \d, turn (\d+): about \d+ Ecus? lost\.$", said, re.M)
    assert turns and said.count("\nThe top level would have played: ") == len(turns)
    assert "Reviewing with the AI's top level: turn 14 of 14" in err.getvalue()
    assert analysed == [(2, 2)] * 14
    written = [p.name.removesuffix(".png").split("-") for p in (tmp_path / "g").glob("review-*.png")]
    assert sorted({int(n) for _, n, _ in written}) == sorted(int(t) for t in turns)  # a picture or two a turn
    assert all(age in ("might", "faith", "reason") for _, _, age in written) and len(written) <= 2 * len(turns)
    for option in ("--review-iterations", "--review-deals"):
        err = io.StringIO()
        assert selfplay.main(parse("--review", option, "0"), stdout=io.StringIO(), stderr=err) == 2
        assert err.getvalue() == f"tiempo-bot selfplay: {option} must be at least 1\n"
