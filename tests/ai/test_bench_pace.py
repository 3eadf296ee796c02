"""``bench/ai.py`` records what a CPU second buys the master level on the machine it ran on
(``bench/pace.py``), so that strength figures from two machines can be compared."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, *extra: str) -> tuple[dict[str, object], str]:
    out = tmp_path / "ai.json"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "ai.py"), "--games", "1", "--jobs", "1",
                           "--matchups", "greedy,random", "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text()), done.stdout


@pytest.mark.slow
def test_a_run_records_and_prints_the_play_outs_a_cpu_second_buys_master_here(tmp_path: Path) -> None:
    report, printed = _run(tmp_path)
    pace = report["master_playouts_per_cpu_second_3p"]
    assert isinstance(pace, float) and pace > 0
    assert f"a CPU second here buys master {pace} play-outs" in printed


@pytest.mark.slow
def test_without_the_pace_the_header_says_so_and_the_games_are_played(tmp_path: Path) -> None:
    report, printed = _run(tmp_path, "--no-pace")
    assert report["master_playouts_per_cpu_second_3p"] is None
    assert "buys master" not in printed
    matchups = report["matchups"]
    assert isinstance(matchups, dict) and matchups["greedy,random"]["games"] == 1
