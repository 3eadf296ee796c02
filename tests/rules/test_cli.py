"""``python -m rules``: a new game, legal actions, applying actions, rule errors with exit code 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: every test here runs ``python -m rules`` in a process of its own
pytestmark = pytest.mark.slow


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rules", *args], input=stdin, capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[2])


def test_r9_new_prints_a_position_that_show_reproduces(tmp_path: Path) -> None:
    out = run("new", "--players", "3", "--seed", "1", "--names", "Ana María,Ben,Cy")
    assert out.returncode == 0, out.stderr
    assert "players: Red White Green" in out.stdout and "names: Red=Ana María, White=Ben, Green=Cy" in out.stdout
    game = tmp_path / "game.txt"
    game.write_text(out.stdout)
    assert run("show", str(game)).stdout == out.stdout


def test_legal_lists_actions_that_apply_accepts(tmp_path: Path) -> None:
    game = tmp_path / "game.txt"
    game.write_text(run("new", "--players", "3", "--seed", "1").stdout)
    listed = run("legal", str(game), "--kind", "Hamlet", "--age", "M").stdout.splitlines()
    assert listed and all(" build Hamlet " in line for line in listed)
    out = run("apply", str(game), "-", stdin=listed[0] + "\n")
    assert out.returncode == 0, out.stderr
    assert "M: Hamlet@" in out.stdout


def test_a_reader_that_stops_early_is_no_error(tmp_path: Path) -> None:
    """``python -m rules legal game.txt | head -1``: the listing stops quietly, exit 0."""
    game = tmp_path / "game.txt"
    game.write_text(run("new", "--players", "4", "--seed", "1").stdout)
    out = subprocess.run(f"'{sys.executable}' -m rules legal '{game}' | head -1", shell=True, capture_output=True,
                         text=True, timeout=60, cwd=Path(__file__).resolve().parents[2],
                         executable="/bin/bash")
    assert len(out.stdout.splitlines()) == 1 and out.stderr == "", out.stderr
    piped = subprocess.run(["bash", "-o", "pipefail", "-c", f"'{sys.executable}' -m rules legal '{game}' | head -1"],
                           capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert piped.returncode == 0, piped.stderr


def test_r27_a_rule_error_names_the_line_and_the_rule_and_exits_1(tmp_path: Path) -> None:
    game = tmp_path / "game.txt"
    game.write_text(run("new", "--players", "3", "--seed", "1").stdout)  # Green to play, hand MCCC
    out = run("apply", str(game), "-", stdin="Green travel 1 F\nGreen build Keep C9 on M\n")
    assert out.returncode == 1
    assert out.stderr.startswith("line 2: Green build Keep C9 on M: A Keep needs 2 Military (M) cards")
    assert out.stderr.rstrip().endswith("(R27)")
    out = run("apply", str(game), "-", "--json", stdin="Green build Keep C44 on M\n")
    assert out.returncode == 1
    error = json.loads(out.stdout)["error"]
    assert error["code"] == "bad-input" and "C44 is not a cell: columns A–O, rows 1–12" in error["message"]


def test_apply_json_reports_position_state_and_events(tmp_path: Path) -> None:
    game = tmp_path / "game.txt"
    game.write_text(run("new", "--players", "3", "--seed", "1").stdout)
    out = run("apply", str(game), "-", "--json", stdin="Green build Hamlet C9 on M\nGreen end\n")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [e["type"] for e in data["events"]][:2] == ["Built", "TurnEnded"]
    assert data["state"]["format"] == 1 and "active: Red" in data["position"]


def test_unreadable_input_exits_2_with_a_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("players: Red Red\n")
    out = run("show", str(bad))
    assert out.returncode == 2 and out.stderr.startswith("error: players:")
