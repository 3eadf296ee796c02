"""Turn panel benchmark: how long one step of the panel takes to work out on busy mid-game positions
(the first list, the list a building's place is picked from, that list with what each place does to
the economy, ``rules.economy_change``, as the panel will say it, a preview of the action with its
consequences, and that preview with its picture: the cards of the boards it changes, as PNG),
median and p95; and the three cards of an after-turn post. A tap on Discord costs one such step plus
storage and the network. Prints the figures and writes bench/results/panel.json.

    python bench/panel.py [--games 6] [--positions 60] [--cpu]

``--cpu`` times the process's CPU time (``time.process_time``) instead of the wall clock: on a shared,
loaded machine the time spent waiting for a core is left out, so two checkouts compare fairly.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.engine import play  # noqa: E402
from bot.service.panels import Panels  # noqa: E402
from bot.service.steps import path_to, step  # noqa: E402
from render import turn_cards  # noqa: E402
from rules import Construct, GameState, apply, economy, economy_change, legal_actions  # noqa: E402
from rules.events import Event  # noqa: E402


def best_of(s: GameState, fn: Callable[[GameState], object], runs: int = 3,
            clock: Callable[[], float] = time.perf_counter) -> float:
    """The best of ``runs`` calls on fresh copies of ``s`` (nothing the engine caches on a state is
    reused: every tap loads the game anew), in milliseconds."""
    best = float("inf")
    for _ in range(runs):
        fresh = s.clone()
        began = clock()
        fn(fresh)
        best = min(best, clock() - began)
    return best * 1000


def figures(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2),
            "max_ms": round(ordered[-1], 2), "samples": len(ordered)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--cpu", action="store_true", help="time CPU time, not the wall clock")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter

    def timed(s: GameState, fn: Callable[[GameState], object]) -> float:
        return best_of(s, fn, clock=clock)

    kept: list[GameState] = []
    for seed in range(1, args.games + 1):
        play(seed, keep=kept)
    positions = random.Random(7).sample(kept, min(args.positions, len(kept)))
    menu, places, places_economy, previews, pictured, cards = [], [], [], [], [], []
    for s in positions:
        seat = s.active
        menu.append(timed(s, lambda x, seat=seat: step(x, seat)))
        builds = [a for a in legal_actions(s) if isinstance(a, Construct)]
        if not builds:
            continue
        build = random.Random(s.turn).choice(builds)
        path = path_to(s, seat, build)
        # the list the build's place is picked from (after an area, when there are more than 25 places):
        # each place in it is tried, to mark those that harm the player
        at = next(path[:n] for n in range(1, len(path))
                  if any(c.key == str(build.origin) for c in step(s, seat, path[:n]).choices))
        places.append(timed(s, lambda x, seat=seat, p=at: step(x, seat, p)))
        # what each place of that list does to the economy (the panel applies each place already, to
        # mark harm: the extra cost is the economy before, once, and after each place)
        keys = {c.key for c in step(s, seat, at).choices}
        tried = {str(a.origin): a for a in builds if a.kind is build.kind and a.age is build.age
                 and str(a.origin) in keys}
        afters = [apply(s, a) for a in tried.values()]

        def with_economy(x: GameState, seat: int = seat, p: tuple[str, ...] = at,
                         afters: list[tuple[GameState, list[Event]]] = afters) -> None:
            step(x, seat, p)
            known = economy(x)
            for after, events in afters:
                economy_change(x, after, events, known=known)

        places_economy.append(timed(s, with_economy))
        previews.append(timed(s, lambda x, seat=seat, p=path: step(x, seat, p)))
        pictured.append(timed(s, lambda x, seat=seat, p=path: Panels.pictures(1, x, seat, step(x, seat, p))))
        cards.append(timed(s, lambda x: turn_cards(x, ())))
    result = {"machine": platform.platform(), "python": platform.python_version(), "positions": len(positions),
              "clock": "cpu" if args.cpu else "wall",
              "menu": figures(menu), "places": figures(places), "places_economy": figures(places_economy),
              "preview": figures(previews),
              "preview_with_picture": figures(pictured), "turn_cards": figures(cards)}
    for name in ("menu", "places", "places_economy", "preview", "preview_with_picture", "turn_cards"):
        f = result[name]
        assert isinstance(f, dict)
        print(f"{name:20} median {f['median_ms']:7.2f} ms   p95 {f['p95_ms']:7.2f} ms   max {f['max_ms']:7.2f} ms"
              f"   ({f['samples']} positions)")
    out = ROOT / "bench" / "results" / "panel.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
