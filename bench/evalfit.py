"""The master level's evaluation learned from games: play seeded games, record every player's
features (``bot.ai.evaluate.FEATURES``) at two points of every turn, fit the final Ecus on them by
least squares, compare the fit with the hand-set evaluation on held-out games, and try an
evaluation in quick games (a greedy player judging by it against greedy players).

    python bench/evalfit.py data [--games 1500] [--seed 1] [--levels greedy] [--out /tmp/evalfit-data.csv]
    python bench/evalfit.py fit [--data FILE] [--pool] [--fixed ecus=1,...] [--out bench/results/evalfit.json]
    python bench/evalfit.py duel [--evaluation fitted|strong|default] [--coef FIT.json] [--weights k=v,...]
                                 [--players 3] [--games 300] [--seed 1]

The table in ``evaluate.FITTED`` comes from

    nice -n 19 python bench/evalfit.py data --games 218 --out /tmp/evalfit-data.csv
    python bench/evalfit.py fit --data /tmp/evalfit-data.csv --pool --fixed ecus=1,cubes=0.02,cards=0.15

``data`` plays ``--games`` games, the number of players cycling 2, 3, 4 (game ``g`` has
``2 + g % 3`` players and seed ``--seed + g``), every seat played by a level of ``--levels`` (by
default ``greedy``: about a second a game on a loaded machine; ``strong`` or ``master`` seats with
``--iterations``). It writes one row per player at the start of every turn and just before every
turn ends (after the active player's moves): the game, the number of players, the round, the
player, whether he is the active one, his features, today's evaluation of him (``evaluate.value``
with the strong level's weights, and ``evaluate.score``: minus half the best other's), and the
outcome: his final Ecus and his share of the win (1/k for a win shared by k players).

``fit`` fits the final Ecus as a linear function of the features (ordinary least squares, pure
Python) on the games whose number is not a multiple of 5 — per number of players and round, or with
``--pool`` per number of players with the slopes shared by all rounds and an intercept per round
(the intercepts take up what the round alone says, so that no feature stands in for the time left).
``--fixed`` coefficients are not fitted (by default an Ecu in hand is an Ecu at the end). On the
games held out it prints, per number of players and part of the game (rounds 1–3, 4, 5–7), the root
mean square error of the final Ecus estimated by the fit, by today's ``value``, and by today's
value rescaled per round (``a + b × value`` fitted on the training games: its level aside, how well
it ranks), and how often the player with the highest estimate is a winner. It writes the
coefficients and those figures to ``--out``; ``evaluate.FITTED`` is copied from its coefficients.

``duel`` plays ``--games`` games of ``--players`` players in which one seat (rotated) plays as the
greedy level does but judges its moves by another evaluation — ``fitted`` (with the coefficients
of a fit report, ``--coef``, or the table in the code), ``strong`` (the strong level's weights, or
those weights changed by ``--weights``) or ``default`` (greedy's own) — and the others are greedy;
it prints that seat's win rate with Wilson's 95% interval (a fair share is 1/players). A greedy
move is judged by the evaluation alone, so a duel tells in minutes whether an evaluation judges
moves better than another; an estimate can predict the final Ecus better and still judge moves
worse (bench/results/evalfit.json, docs/ai.md). Run it with ``nice -n 19`` on a shared machine.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ai import wilson  # noqa: E402
from bot.ai import Players, best_choice, evaluate  # noqa: E402
from bot.ai.common import candidates, end_turn, resolve_pending  # noqa: E402
from bot.ai.evaluate import DEFAULT, FEATURES, Facts, facts, facts_after, features, fitted_score, score, value  # noqa: E402
from bot.ai.levels import STRONG_WEIGHTS  # noqa: E402
from rules import Action, EndTurn, GameState, RuleError, apply, new_game  # noqa: E402

HEAD = ["game", "players", "round", "player", "active", "point", *FEATURES, "old_value", "old_score", "final",
        "won"]


def rows_of(s: GameState, game: int, point: str) -> list[list[object]]:
    """Every player's row at ``s`` (the outcome left out)."""
    f = facts(s)
    out: list[list[object]] = []
    for p in range(len(s.players)):
        out.append([game, len(s.players), s.round, p, int(p == s.active), point, *features(s, p, f),
                    round(value(s, p, STRONG_WEIGHTS, f), 3), round(score(s, p, STRONG_WEIGHTS, f), 3)])
    return out


def play(game: int, seed: int, levels: Sequence[str], iterations: int | None, players: Players) -> list[list[object]]:
    """One game's rows with their outcome."""
    n = 2 + game % 3
    rng = random.Random(seed)
    seats = [rng.choice(levels) for _ in range(n)]
    s = new_game([f"{lv}{i}" for i, lv in enumerate(seats)], seed=seed)
    rows: list[list[object]] = []
    turn = 0
    while not s.finished:
        if s.turn != turn and s.pending is None and s.waiting_on == s.active:
            turn = s.turn
            rows += rows_of(s, game, "start")
        who = s.waiting_on
        a = players.choose(s, who, seats[who], seed=seed * 1009 + s.turn, iterations=iterations)
        if isinstance(a, EndTurn):
            rows += rows_of(s, game, "end")
        s, _ = apply(s, a)
    for r in rows:
        p = int(str(r[3]))
        r += [s.players[p].ecus, round(1 / len(s.winners), 3) if p in s.winners else 0]
    return rows


def data(args: argparse.Namespace) -> None:
    players = Players(workers=1)
    began = time.perf_counter()
    try:
        with open(args.out, "w", newline="") as fh:
            out = csv.writer(fh)
            out.writerow(HEAD)
            for g in range(args.games):
                out.writerows(play(g, args.seed + g, args.levels.split(","), args.iterations, players))
                if (g + 1) % 50 == 0:
                    fh.flush()
                    print(f"{g + 1} games, {time.perf_counter() - began:.0f} s", flush=True)
    finally:
        players.close()


# ---------------------------------------------------------------------------------------------
# duels: a greedy player judging by another evaluation against greedy players

#: the evaluations a duel's greedy player may judge by
EVALUATIONS: dict[str, Callable[[GameState, int, Facts], float]] = {
    "default": lambda s, p, f: score(s, p, DEFAULT, f),
    "strong": lambda s, p, f: score(s, p, STRONG_WEIGHTS, f),
    "fitted": lambda s, p, f: fitted_score(s, p, f),
}


def judged_step(s: GameState, seat: int, judge: Callable[[GameState, int, Facts], float]) -> Action:
    """``levels.greedy_step`` with another evaluation: the move after which ``judge`` rates the
    position best, or the end of the turn when nothing gains."""
    best: Action = end_turn(s, seat)
    known = facts(s)
    best_v = judge(s, seat, known) + 1e-9
    for a in candidates(s, seat):
        try:
            s2, _ = apply(s, a)
        except RuleError:
            continue
        s2, _ = resolve_pending(s2, best_choice)
        v = judge(s2, seat, facts_after(s, known, s2))
        if v > best_v:
            best, best_v = a, v
    return best


def duel(args: argparse.Namespace) -> None:
    """Games of ``--players`` players, one seat (rotated) judging by ``--evaluation``, the others
    greedy; its win rate per game with Wilson's interval."""
    if args.coef:
        load(args.coef)
    judge = EVALUATIONS[args.evaluation]
    if args.weights:
        changed: dict[str, Any] = {k: (tuple(float(x) for x in v.split("/")) if "/" in v else float(v))
                                   for k, v in (kv.split("=") for kv in args.weights.split(","))}
        w = replace(STRONG_WEIGHTS, **changed)

        def judge(s: GameState, p: int, f: Facts) -> float:
            return score(s, p, w, f)
    greedy = Players(workers=1)
    wins = 0.0
    n = args.players
    for g in range(args.games):
        seed, seat = args.seed + g, g % n
        s = new_game([f"p{i}" for i in range(n)], seed=seed)
        while not s.finished:
            who = s.waiting_on
            if who == seat and s.pending is None:
                a = judged_step(s, seat, judge)
            else:
                a = greedy.choose(s, who, "greedy", seed=seed * 1009 + s.turn)
            s, _ = apply(s, a)
        if seat in s.winners:
            wins += 1 / len(s.winners)
    low, high = wilson(wins, args.games)
    print(f"{args.evaluation} ({args.coef or args.weights or 'built in'}) vs greedy, {n} players, {args.games} games: "
          f"{wins / args.games:.3f} [{low:.3f}, {high:.3f}]", flush=True)


def load(path: str) -> None:
    """Use the coefficients of a ``fit`` report (``--out``) as ``evaluate.FITTED``."""
    table = json.loads(Path(path).read_text())["coefficients"]
    evaluate.FITTED = {(int(k.split("/")[0]), int(k.split("/")[1])): tuple(v) for k, v in table.items()}


# ---------------------------------------------------------------------------------------------
# least squares in pure Python


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``x`` with ``a x = b`` (Gaussian elimination with partial pivoting; ``a`` square)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[piv] = m[piv], m[c]
        if abs(m[c][c]) < 1e-12:
            continue
        for r in range(n):
            if r != c and m[r][c]:
                k = m[r][c] / m[c][c]
                m[r] = [x - k * y for x, y in zip(m[r], m[c], strict=True)]
    return [m[i][n] / m[i][i] if abs(m[i][i]) >= 1e-12 else 0.0 for i in range(n)]


def least_squares(xs: Iterable[Sequence[float]], ys: Iterable[float], ridge: float = 1e-3) -> list[float]:
    """The coefficients minimising the squared error of ``x · c`` against ``y`` (a small ridge keeps
    a feature that never varies at 0)."""
    xtx: list[list[float]] | None = None
    xty: list[float] = []
    for x, y in zip(xs, ys, strict=True):
        if xtx is None:
            xtx = [[0.0] * len(x) for _ in x]
            xty = [0.0] * len(x)
        for i, xi in enumerate(x):
            if xi:
                xty[i] += xi * y
                row = xtx[i]
                for j, xj in enumerate(x):
                    row[j] += xi * xj
    assert xtx is not None, "no rows"
    for i in range(len(xtx)):
        xtx[i][i] += ridge
    return solve(xtx, xty)


def conditional_logit(states: list[list[tuple[list[float], float]]], ridge: float = 1e-2,
                      steps: int = 12) -> list[float]:
    """The weights ``w`` of ``P(j wins) = exp(w · x_j) / sum_k exp(w · x_k)`` over the players of each
    state (``states``: per state, each player's features and share of the win), by Newton's method."""
    k = len(states[0][0][0])
    w = [0.0] * k
    for _ in range(steps):
        grad = [-ridge * c for c in w]
        hess = [[-ridge * (i == j) for j in range(k)] for i in range(k)]
        for group in states:
            us = [sum(a * b for a, b in zip(w, x, strict=True)) for x, _ in group]
            top = max(us)
            es = [math.exp(u - top) for u in us]
            z = sum(es)
            ps = [e / z for e in es]
            mean = [sum(p * x[i] for p, (x, _) in zip(ps, group, strict=True)) for i in range(k)]
            for p, (x, y) in zip(ps, group, strict=True):
                d = [x[i] - mean[i] for i in range(k)]
                for i in range(k):
                    grad[i] += (y - p) * x[i]
                    if d[i]:
                        row = hess[i]
                        for j in range(k):
                            row[j] -= p * d[i] * d[j]
        step = solve([[-v for v in row] for row in hess], grad)
        w = [a + b for a, b in zip(w, step, strict=True)]
    return w


def phase(round_: int) -> int:
    """The part of the game a round belongs to in the report: 0 before the first income round
    (rounds 1–3), 1 the first income round (4), 2 after it (rounds 5–7)."""
    return 0 if round_ < 4 else 1 if round_ == 4 else 2


def fit(args: argparse.Namespace) -> None:
    with open(args.data, newline="") as fh:
        rows = list(csv.DictReader(fh))
    fixed = {kv.split("=")[0]: float(kv.split("=")[1]) for kv in args.fixed.split(",") if kv}

    def x_of(r: dict[str, str]) -> list[float]:
        return [float(r[f]) for f in FEATURES]

    # one fit per number of players and round, or (``--pool``) per number of players with the
    # slopes shared by all rounds and an intercept per round
    groups: dict[tuple[int, int], list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        groups[(int(r["players"]), 0 if args.pool else int(r["round"]))].append(r)
    free = [i for i, name in enumerate(FEATURES) if name not in fixed and name != "one"]
    part = [(i, fixed[name]) for i, name in enumerate(FEATURES) if name in fixed]
    one = FEATURES.index("one")
    coef: dict[tuple[int, int], list[float]] = {}
    for (n, rd), rs in sorted(groups.items()):
        train = [r for r in rs if int(r["game"]) % 5]
        # the fixed coefficients' part of the final Ecus is taken off; the rest is fitted
        found = least_squares(([x_of(r)[i] for i in free] + [float(int(r["round"]) == k) for k in range(1, 8)]
                               for r in train),
                              (float(r["final"]) - sum(c * x_of(r)[i] for i, c in part) for r in train))
        for k in range(1, 8):
            if rd and k != rd:
                continue
            cs = [0.0] * len(FEATURES)
            for i, c in zip(free, found, strict=False):
                cs[i] = c
            for i, c in part:
                cs[i] = c
            cs[one] = found[len(free) + k - 1]
            coef[(n, k)] = cs

    def fitted(r: dict[str, str]) -> float:
        c = coef[(int(r["players"]), int(r["round"]))]
        return sum(a * b for a, b in zip(c, x_of(r), strict=True))

    scale: dict[tuple[int, int], list[float]] = {}
    for r in rows:
        key = (int(r["players"]), int(r["round"]))
        if key not in scale:
            train = [q for q in rows if int(q["game"]) % 5 and (int(q["players"]), int(q["round"])) == key]
            scale[key] = least_squares(([1.0, float(q["old_value"])] for q in train),
                                       (float(q["final"]) for q in train))

    def calibrated(r: dict[str, str]) -> float:
        a, b = scale[(int(r["players"]), int(r["round"]))]
        return a + b * float(r["old_value"])

    report: dict[str, object] = {"rows": len(rows), "games": len({r["game"] for r in rows}), "features": FEATURES,
                                 "coefficients": {f"{n}/{rd}": [round(c, 4) for c in cs]
                                                  for (n, rd), cs in sorted(coef.items())}}
    held: dict[str, dict[str, object]] = {}
    for n in sorted({key[0] for key in groups}):
        for ph in (None, 0, 1, 2):
            test = [r for r in rows if int(r["game"]) % 5 == 0 and int(r["players"]) == n
                    and (ph is None or phase(int(r["round"])) == ph)]
            if not test:
                continue
            rmse_fit = math.sqrt(sum((fitted(r) - float(r["final"])) ** 2 for r in test) / len(test))
            rmse_old = math.sqrt(sum((float(r["old_value"]) - float(r["final"])) ** 2 for r in test) / len(test))
            # today's value given its best chance: rescaled (a + b × value) per round on the training games
            rmse_cal = math.sqrt(sum((calibrated(r) - float(r["final"])) ** 2 for r in test) / len(test))
            # the player with the highest estimate at each recorded point: is he a winner?
            by_point: dict[tuple[str, ...], list[dict[str, str]]] = defaultdict(list)
            seq = 0
            for i, r in enumerate(test):
                if i and r["player"] == "0":
                    seq += 1
                by_point[(r["game"], str(seq))].append(r)
            hit_fit = sum(float(max(rs, key=fitted)["won"]) for rs in by_point.values()) / len(by_point)
            hit_old = sum(float(max(rs, key=lambda r: float(r["old_value"]))["won"])
                          for rs in by_point.values()) / len(by_point)
            name = f"{n}p" + ("" if ph is None else f"/{ph}")
            held[name] = {"rows": len(test), "rmse_fit": round(rmse_fit, 2), "rmse_old": round(rmse_old, 2),
                          "rmse_old_rescaled": round(rmse_cal, 2),
                          "top_wins_fit": round(hit_fit, 3), "top_wins_old": round(hit_old, 3)}
            print(f"{name:6} rows {len(test):6}  RMSE fit {rmse_fit:6.2f}  old {rmse_old:6.2f} "
                  f"(rescaled {rmse_cal:6.2f})  "
                  f"top estimate wins: fit {hit_fit:.3f}  old {hit_old:.3f}")
    report["held_out"] = held
    for (n, ph), cs in sorted(coef.items()):
        print(f"    ({n}, {ph}): (" + ", ".join(f"{c:.3f}" for c in cs) + "),")
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="play games and record features and outcomes")
    d.add_argument("--games", type=int, default=1500)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--levels", default="greedy", help="levels the seats are drawn from (comma-separated)")
    d.add_argument("--iterations", type=int, default=None, help="fixed play-outs for strong or master seats")
    d.add_argument("--out", default="/tmp/evalfit-data.csv")
    f = sub.add_parser("fit", help="fit the final Ecus on the features and compare on held-out games")
    f.add_argument("--data", default="/tmp/evalfit-data.csv")
    f.add_argument("--fixed", default="ecus=1", help="coefficients not fitted (name=value,...; default: an Ecu in "
                   "hand is an Ecu at the end)")
    f.add_argument("--pool", action="store_true", help="slopes shared by all rounds, an intercept per round")
    f.add_argument("--out", default=str(ROOT / "bench" / "results" / "evalfit.json"))
    u = sub.add_parser("duel", help="a greedy player judging by another evaluation against greedy players")
    u.add_argument("--evaluation", choices=sorted(EVALUATIONS), default="fitted")
    u.add_argument("--coef", default=None, help="a fit report whose coefficients the fitted evaluation uses")
    u.add_argument("--weights", default=None, help="the strong level's weights changed (name=value,...; risk as "
                   "a/b/c): the evaluation judged by")
    u.add_argument("--players", type=int, default=3)
    u.add_argument("--games", type=int, default=300)
    u.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    {"data": data, "fit": fit, "duel": duel}[args.cmd](args)


if __name__ == "__main__":
    main()
