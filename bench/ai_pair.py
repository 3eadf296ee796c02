"""Two runs of ``bench/ai.py`` compared game by game: the same seeds, one change between them.

    python bench/ai_pair.py BASE.log[,MORE.log@SEED ...] NEW.log [MORE.log@SEED ...] [--level master]

Reads the per-game lines ``bench/ai.py`` prints (its standard output, saved to a file)::

      master,greedy,greedy game 7/100: greedy=44 master=96 greedy=17  winners=['master']  so far: ...

Game ``N`` of a run started with ``--seed S`` uses seed ``S + N - 1``; games are paired by matchup and
seed: the same deal and, if the seating matches (it is rotated by ``N - 1``: a run that goes on
where another stopped must start at a seed that keeps the rotation, e.g. ``--seed 100`` after
seeds 1–99 of three players), the same seats; only the code (or a switch) differs. A log's name
may end with ``@S``, the ``--seed`` its run was started with (default 1). The logs after the first
are pooled as the new run, and logs joined by commas in the first argument as the base run (a seed
found twice: the first one kept). For each matchup both sides
played, on the seeds both finished, for the level followed (``--level``, default ``master``; it must
hold one seat):

* its win rate in each run (a win shared by ``k`` players counts ``1/k``, as ``bench/ai.py`` counts
  it) and the paired difference, new minus base, with its standard error (over games, of the
  per-game difference in win share) and how many games' results changed;
* its mean margin (its Ecus minus the best other player's) in each run, and the paired difference
  with its standard error.

A paired difference has a far smaller error than the difference of two independent win rates
when the change leaves most games as they were.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

#: one game's line: its matchup, its number, the levels with their final Ecus in seat order, the winners
GAME_LINE = re.compile(r"^\s*(?P<spec>\S+) game (?P<n>\d+)/\d+: (?P<ecus>.*?)\s+winners=\[(?P<winners>[^\]]*)\]")


@dataclass(frozen=True)
class Result:
    """One game of a log, as seen by the followed level: its win share and its margin over the best
    other player (Ecus)."""

    share: float
    margin: int


@dataclass(frozen=True)
class Pairing:
    """One matchup of two runs compared on the games both played (see the module docstring)."""

    spec: str
    games: int
    base_rate: float
    new_rate: float
    diff: float
    diff_error: float
    changed: int
    base_margin: float
    new_margin: float
    margin_diff: float
    margin_error: float


def read_log(text: str, level: str = "master", seed: int = 1) -> dict[tuple[str, int], Result]:
    """The games of a ``bench/ai.py`` log of a run started with ``--seed seed``, by (matchup, seed),
    as ``level`` saw them; lines that are not a game's are skipped, as are games where ``level`` does
    not hold exactly one seat."""
    games: dict[tuple[str, int], Result] = {}
    for line in text.splitlines():
        m = GAME_LINE.match(line)
        if m is None:
            continue
        seats = [tuple(pair.rsplit("=", 1)) for pair in m["ecus"].split()]
        mine = [int(e) for lv, e in seats if lv == level]
        if len(mine) != 1:
            continue
        others = [int(e) for lv, e in seats if lv != level]
        winners = [w.strip().strip("'\"") for w in m["winners"].split(",") if w.strip()]
        share = 1 / len(winners) if level in winners else 0.0
        games[(m["spec"], seed + int(m["n"]) - 1)] = Result(share, mine[0] - max(others, default=0))
    return games


def _mean_error(xs: list[float]) -> tuple[float, float]:
    if not xs:
        return 0.0, 0.0
    mean = statistics.fmean(xs)
    return mean, statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) >= 2 else 0.0


def pair(base: dict[tuple[str, int], Result], new: dict[tuple[str, int], Result]) -> list[Pairing]:
    """Each matchup of both runs compared on the games both played, in the order of ``base``."""
    specs = list(dict.fromkeys(spec for spec, _ in base))
    found: list[Pairing] = []
    for spec in specs:
        keys = sorted(k for k in base if k[0] == spec and k in new)
        if not keys:
            continue
        b = [base[k] for k in keys]
        n = [new[k] for k in keys]
        diff, diff_error = _mean_error([y.share - x.share for x, y in zip(b, n, strict=True)])
        margin_diff, margin_error = _mean_error([float(y.margin - x.margin) for x, y in zip(b, n, strict=True)])
        found.append(Pairing(
            spec=spec, games=len(keys),
            base_rate=statistics.fmean(x.share for x in b), new_rate=statistics.fmean(y.share for y in n),
            diff=diff, diff_error=diff_error,
            changed=sum(x.share != y.share for x, y in zip(b, n, strict=True)),
            base_margin=statistics.fmean(x.margin for x in b), new_margin=statistics.fmean(y.margin for y in n),
            margin_diff=margin_diff, margin_error=margin_error,
        ))
    return found


def report(pairings: list[Pairing], level: str) -> str:
    """The comparison as lines of text."""
    lines = []
    for p in pairings:
        lines.append(
            f"{p.spec}: {p.games} games paired; {level} wins {p.base_rate:.3f} -> {p.new_rate:.3f}, "
            f"difference {p.diff:+.3f} (s.e. {p.diff_error:.3f}), result changed in {p.changed}; "
            f"margin {p.base_margin:+.1f} -> {p.new_margin:+.1f} Ecus, difference {p.margin_diff:+.1f} "
            f"(s.e. {p.margin_error:.1f})")
    return "\n".join(lines) if lines else "no games in common"


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("base", help="the log of the run before the change (LOG or LOG@SEED; several joined by commas)")
    ap.add_argument("new", nargs="+", help="the logs of the runs with it, on the same seeds (LOG or LOG@SEED)")
    ap.add_argument("--level", default="master", help="the level followed (one seat per game)")
    args = ap.parse_args()
    base = read_logs(args.base.split(","), args.level)
    new = read_logs(args.new, args.level)
    print(report(pair(base, new), args.level))


def read_logs(names: list[str], level: str = "master") -> dict[tuple[str, int], Result]:
    """The games of the logs ``names`` pooled (``LOG@SEED``: its run began at ``--seed SEED``); a
    game found in two logs is taken from the first."""
    games: dict[tuple[str, int], Result] = {}
    for name in names:
        path, _, seed = name.rpartition("@") if "@" in name else (name, "", "1")
        games = {**read_log(Path(path).read_text(), level, int(seed)), **games}
    return games


if __name__ == "__main__":
    main()
