"""``bench/ai_pair.py``: two benchmark logs compared game by game."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.ai_pair import pair, read_log, read_logs, report

BASE = """\
  master,greedy,greedy game 1/3: master=69 greedy=11 greedy=63  winners=['master']  so far: master 1.000
  master,greedy,greedy game 2/3: greedy=14 greedy=59 master=55  winners=['greedy']  so far: master 0.500
  master,greedy,greedy game 3/3: greedy=50 master=50 greedy=16  winners=['greedy', 'master']  so far: x
master,greedy,greedy: {"master": {}}
"""
NEW = """\
INCOME_REACH = {4: 1, 7: 1}
  master,greedy,greedy game 1/2: master=82 greedy=12 greedy=64  winners=['master']  so far: master 1.000
  master,greedy,greedy game 2/2: greedy=14 greedy=52 master=60  winners=['master']  so far: master 1.000
"""


def test_games_pair_up_by_number_and_a_shared_win_counts_a_share() -> None:
    base, new = read_log(BASE), read_log(NEW)
    assert [g.share for g in base.values()] == [1.0, 0.0, 0.5]
    assert [g.margin for g in base.values()] == [6, -4, 0]
    (p,) = pair(base, new)
    assert (p.spec, p.games, p.changed) == ("master,greedy,greedy", 2, 1)
    assert (p.base_rate, p.new_rate, p.diff) == (0.5, 1.0, 0.5)
    assert p.diff_error == pytest.approx(0.5)  # differences 0 and 1: s.d. 0.707 over sqrt(2)
    assert (p.base_margin, p.new_margin, p.margin_diff) == (1.0, 13.0, 12.0)
    assert "2 games paired" in report([p], "master")


def test_a_run_begun_at_another_seed_pairs_by_seed() -> None:
    """Game 1 of a run begun at ``--seed 3`` is the base's game 3."""
    later = read_log(NEW, seed=3)
    assert sorted(later) == [("master,greedy,greedy", 3), ("master,greedy,greedy", 4)]
    (p,) = pair(read_log(BASE), later)
    assert (p.games, p.base_rate, p.new_rate) == (1, 0.5, 1.0)


def test_logs_pool_by_seed_and_a_game_found_twice_is_taken_from_the_first(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(BASE)
    (tmp_path / "b.log").write_text(NEW)
    pooled = read_logs([str(tmp_path / "b.log"), f"{tmp_path / 'a.log'}@2"])
    spec = "master,greedy,greedy"
    assert sorted(pooled) == [(spec, 1), (spec, 2), (spec, 3), (spec, 4)]
    assert pooled[(spec, 2)].share == 1.0  # game 2 of b.log, not game 1 of a.log (begun at seed 2)
    assert [pooled[(spec, n)].share for n in (3, 4)] == [0.0, 0.5]
