"""``bench/bot.py --rhythm steady``: a capacity trial whose tables open evenly over one turn, its p95s
taken over the interactions begun while every table plays (the measuring window), so that it measures
how many games one core serves at a steady rate, not at the bursts of tables opened together."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from bench.bot import (
    ROOT,
    Search,
    Timed,
    began_within,
    by_kind,
    capacity,
    figures,
    measuring_window,
    openings,
    passes,
    row,
    share_within,
    turn_seconds,
    turns_played,
    write_capacity,
)


def test_a_turn_is_as_many_thinks_as_the_players_plan_has_interactions() -> None:
    assert turn_seconds("taps", 3.0) == 24.0  # Play, four picks, Confirm; End, Confirm
    assert turn_seconds("typed", 3.0) == 6.0  # a build, the end


def test_the_openings_are_spread_evenly_over_one_turn() -> None:
    assert openings(4, 24.0) == [0.0, 6.0, 12.0, 18.0]
    at = openings(300, 24.0)
    gaps = [b - a for a, b in itertools.pairwise(at)]
    assert len(at) == 300 and at[0] == 0.0 and at[-1] < 24.0
    assert min(gaps) == pytest.approx(0.08) and max(gaps) == pytest.approx(0.08)
    assert openings(1, 24.0) == [0.0]


def test_a_steady_table_plays_one_turn_more_a_burst_one_as_many_as_asked() -> None:
    assert turns_played(2, "steady") == 3
    assert turns_played(2, "burst") == 2


def test_the_window_runs_from_the_last_table_ready_to_the_first_table_finished() -> None:
    assert measuring_window(ready=[1.0, 5.5, 3.0], finished=[40.0, 31.0, 35.0]) == (5.5, 31.0)


def test_the_window_keeps_the_interactions_by_the_time_they_began() -> None:
    timed = {1: Timed(4.0, 2.0),   # began before the window, answered inside it: out
             2: Timed(5.0, 0.1),   # began at its start: in
             3: Timed(20.0, 0.2),  # inside: in
             4: Timed(30.0, 5.0),  # began at its end, answered after it: in
             5: Timed(30.5, 0.1)}  # after: out
    assert sorted(began_within(timed, (5.0, 30.0))) == [2, 3, 4]
    assert began_within(timed, (31.0, 30.0)) == {}  # a window that never opened


def test_the_p95s_are_those_of_the_window_s_interactions() -> None:
    # the burst's ends (slow) come before the window; inside it, the ends are quick
    timed = {i: Timed(float(i), 0.5) for i in range(10)} | {i: Timed(float(i), 0.02) for i in range(10, 30)}
    kinds = {i: "end" if i % 2 else "pick" for i in range(30)}
    inside = figures(by_kind(began_within(timed, (10.0, 29.0)), kinds), "taps")
    whole = figures(by_kind(timed, kinds), "taps")
    assert inside["end_of_turn_with_picture"] == {"count": 10, "median_ms": 20.0, "p95_ms": 20.0, "max_ms": 20.0}
    assert inside["tap"]["count"] == 10 and inside["tap"]["p95_ms"] == 20.0
    assert whole["end_of_turn_with_picture"]["p95_ms"] == 500.0 and whole["tap"]["count"] == 15
    assert set(inside["by_kind"]) == {"end", "pick"}


def test_the_bot_s_share_of_its_core_in_the_window_is_its_cpu_between_the_first_and_last_arrival() -> None:
    arrivals = [("1", 0.0), ("2", 1.0), ("3", 3.0), ("9", 7.0)]  # the bot's CPU time at each arrival
    timed = {1: Timed(0.0, 0.01), 2: Timed(2.0, 0.01), 3: Timed(6.0, 0.01)}  # 9 is not the window's
    assert share_within(arrivals, timed) == 0.5  # 3 s of CPU in 6 s
    assert share_within(arrivals, {1: timed[1]}) is None


def test_a_steady_trial_s_line_gives_its_window_and_the_whole_trial_s_p95s() -> None:
    def fig(count: int, p95: float) -> dict[str, float]:
        return {"count": count, "median_ms": p95 / 2, "p95_ms": p95, "max_ms": 2 * p95}

    t = {"games_at_once": 300, "by": "taps", "rhythm": "steady", "wall_s": 100.0, "late_answers": 0,
         "tables_failed": 0, "players_cpu_s": 25.0, "bot_core_busy_s": 40.0, "postgres_server_cpu_s": None,
         "load_average_1min_at_end": 0.5, "bot": {"cpu_s": 40.0, "wall_s": 100.0},
         "end_of_turn_with_picture": fig(300, 90.0), "tap": fig(2700, 40.0),
         "whole_trial": {"end_of_turn_with_picture": fig(900, 250.0), "tap": fig(7100, 60.0)},
         "window": {"from_s": 26.4, "to_s": 70.2, "length_s": 43.8, "turn_s": 24.0, "turns": 1.83,
                    "interactions": 3000, "interactions_whole_trial": 9200, "bot_cpu_share": 0.45}}
    line = row(t, 150.0)
    assert "   300   300  2700     90.0     40.0 " in line  # the window's counts and p95s
    assert "    5.0 " in line  # the bot's CPU per answer: the whole trial's 40 s over its 8,000 answers
    assert "ok; window 26-70 s of 100 (1.83 turns of 24.0 s), 3000 of 9200 interactions, bot 45% busy" in line
    assert line.endswith("whole trial p95 250/60 ms")
    t["window"]["length_s"] = 20.0
    assert "(1.83 turns of 24.0 s (shorter than a turn))" in row(t, 150.0)


@pytest.mark.slow
def test_a_tiny_steady_search_passes_and_its_results_carry_the_rhythm_and_the_window(tmp_path: Path) -> None:
    search = Search(first=3, step=3, fine=3, most=3, tap_turns=1, think=0.1, limit_ms=3000.0, repeat=False,
                    rhythm="steady")  # a limit of Discord's 3 s: what is judged is the method, not the machine
    series = capacity("sqlite", "taps", [(str(ROOT), "this checkout")], search,
                      lambda name: str(tmp_path / f"{name}.sqlite3"), None)
    write_capacity(tmp_path / "capacity.json", series)
    (got,) = json.loads((tmp_path / "capacity.json").read_text())["series"]
    assert (got["rhythm"], got["games_at_once"], got["turns_per_game"]) == ("steady", 3, 2)
    assert got["serial"]["rhythm"] == "burst" and "window" not in got["serial"]  # one game: no window to find
    (t,) = got["trials"]
    assert t["rhythm"] == "steady" and passes(t, 3000.0)
    w = t["window"]
    assert w["opened_over_s"] <= w["from_s"] < w["to_s"] <= t["wall_s"]  # from the last table ready on
    assert w["turn_s"] == 0.8 and w["opened_over_s"] == round(0.8 * 2 / 3, 1)
    assert 0 < w["interactions"] < w["interactions_whole_trial"]
    assert 0 < t["end_of_turn_with_picture"]["count"] <= t["whole_trial"]["end_of_turn_with_picture"]["count"]
    assert t["whole_trial"]["by_kind"]["setup"]["count"] == 12 and "setup" not in t["by_kind"]
    assert w["bot_cpu_share"] is not None and w["bot_cpu_share"] > 0
