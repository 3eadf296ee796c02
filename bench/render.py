"""Render benchmark: the pictures the bot sends, timed against Pillow encoding their own pixels.

The bot sends cards (render.age_card: one Age, 1140 x 680, after a turn, as a preview, for a
decision) and places cards (render.places_card: a list's places ringed on the board). For each, on
the late-game position of render.demo (five players, round 6, every building type, the events of a
busy turn; and the preview of one building after the list of its places, as a player taps them),
the median time of:

* the card as the bot makes it, in two states of render.png's memory (the band cache and the
  boards' last cards): ``cold`` (both empty: the first picture of a board) and ``after the board's
  last card`` (they hold what drawing the card before it left: the same board's card without the
  turn's marks for a new turn's card or a list of places, the list of places for a preview), drawn
  each time (the cache of whole cards emptied before each call; the cards' grounds, fonts and
  sprites are drawn once per process and kept); and ``again``: the same card asked for again (taken
  whole from the cache of cards: the scene made and looked up);
* Pillow encoding the card's own pixels: the 256-colour image the card decodes to, saved as PNG by
  Pillow at compress_level 1 (its fastest) and at its default level; and the RGB image the card is
  painted as, saved with Pillow's defaults.

The ratios are the card's time over each. Also the tall whole-game picture (render.game_picture),
which the bot sends no longer, for comparison with older figures. Writes bench/results/render.json.

    python bench/render.py [--runs 40] [--cpu] [--baseline REV]

``--cpu`` times the process's CPU (``time.process_time``) instead of the wall clock: on a shared,
loaded machine the time spent waiting for a core is left out (every timed call runs in this thread).
``--baseline REV`` first runs this benchmark on another revision's code (``git archive REV`` in a
temporary directory, this file in place of its bench/render.py, the same options, in a process of its
own), so that a change is judged by figures from one run on one machine; they are written under
``baseline``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import PIL  # noqa: E402
from PIL import Image  # noqa: E402

import render  # noqa: E402
from render import age_card, game_picture, places_card, png  # noqa: E402
from render.card import paint_card  # noqa: E402
from render.demo import late_game  # noqa: E402
from render.scene import make_scene  # noqa: E402
from rules import Age, Cell, Construct, GameState, Kind, apply, legal_actions, placements  # noqa: E402
from rules.events import Event  # noqa: E402

#: the clock timed calls are measured by (``--cpu``: this process's CPU time)
CLOCK: list[Callable[[], float]] = [time.perf_counter]


def median_ms(f: Callable[[], object], runs: int, before: Callable[[], object] = lambda: None) -> float:
    """The median time of ``f()`` over ``runs`` calls, ``before()`` (untimed) ahead of each."""
    samples = []
    clock = CLOCK[0]
    for _ in range(runs):
        before()
        t = clock()
        f()
        samples.append(clock() - t)
    return round(statistics.median(samples) * 1000, 2)


#: the boards' last cards (render.png; a revision before them has none: an empty stand-in)
LAST: dict[Hashable, object] = getattr(png, "_last", {})
#: the last card drawn over each ground, whoever's board (render.png; an empty stand-in before it)
LATEST: dict[Hashable, object] = getattr(png, "_latest", {})


def with_memo(bands: dict[Any, bytes], last: dict[Hashable, object],
              latest: dict[Hashable, object] | None = None) -> Callable[[], None]:
    """Sets the band cache to ``bands``, the boards' last cards to ``last`` and the grounds' last
    cards to ``latest`` (copies; none when None), and empties the cache of whole cards, before a
    timed call."""
    def reset() -> None:
        png._bands.clear()
        png._bands.update(bands)
        LAST.clear()
        LAST.update(last)
        LATEST.clear()
        LATEST.update(latest or {})
        render._card.cache_clear()
    return reset


def figures(name: str, draw: Callable[[], bytes], previous: Callable[[], bytes], rgb: Image.Image,
            runs: int) -> dict[str, object]:
    """One picture: its time cold, after its board's last card and again, and the floors."""
    out = draw()
    png._bands.clear()
    LAST.clear()
    LATEST.clear()
    render._card.cache_clear()
    previous()
    primed, last, latest = dict(png._bands), dict(LAST), dict(LATEST)
    cold = median_ms(draw, runs, with_memo({}, {}))
    warm = median_ms(draw, runs, with_memo(primed, last, latest))
    again = median_ms(draw, runs)
    own = Image.open(io.BytesIO(out))
    own.load()  # the 256-colour pixels the card decodes to

    def pillow(**options: int) -> Callable[[], None]:
        return lambda: own.save(io.BytesIO(), format="PNG", **options)

    fastest = median_ms(pillow(compress_level=1), runs)
    default = median_ms(pillow(), runs)
    rgb_default = median_ms(lambda: rgb.save(io.BytesIO(), format="PNG"), runs)
    return {"picture": name, "size": list(own.size), "png_bytes": len(out),
            "ms_cold": cold, "ms_after_the_boards_last_card": warm, "ms_again": again,
            "pillow_own_pixels_level1_ms": fastest, "pillow_own_pixels_default_ms": default,
            "pillow_rgb_default_ms": rgb_default,
            "ratio_to_pillow_own_pixels_level1": {"cold": round(cold / fastest, 2),
                                                  "after_last_card": round(warm / fastest, 2),
                                                  "again": round(again / fastest, 2)},
            "ratio_to_pillow_own_pixels_default": {"cold": round(cold / default, 2),
                                                   "after_last_card": round(warm / default, 2)},
            "ratio_to_pillow_rgb_default": {"cold": round(cold / rgb_default, 2),
                                            "after_last_card": round(warm / rgb_default, 2)}}


def places(state: GameState) -> list[Cell]:
    """The places a list offers for a Hamlet on Might: those of one area of 5 x 4 cells where one can
    be built (by any player), else the area's cells."""
    area = [Cell(c, r) for r in range(4) for c in range(5, 10)]
    free = {cell for s in range(len(state.players)) for cell in placements(state, s, Kind.HAMLET, Age.MIGHT)}
    return [c for c in area if c in free] or area


def baseline(rev: str, runs: int, cpu: bool) -> dict[str, object]:
    """The figures of this benchmark run on revision ``rev``'s code, with the same options."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory(prefix="render-baseline-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        (Path(tmp) / "bench" / "render.py").write_bytes(Path(__file__).read_bytes())  # the same measurements
        env = {**os.environ, "PYTHONPATH": tmp}
        subprocess.run([sys.executable, str(Path(tmp) / "bench" / "render.py"), "--runs", str(runs),
                        *(["--cpu"] if cpu else [])], cwd=tmp, env=env, check=True, capture_output=True)
        found: dict[str, object] = json.loads((Path(tmp) / "bench" / "results" / "render.json").read_text())
    return {"rev": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True,
                                  text=True, check=True).stdout.strip(), **found}


def one_build(state: GameState) -> tuple[Construct, list[Cell], GameState, list[Event]]:
    """The first building the player to move may construct, the places its list offers (those for that
    building on that Age in the area of 5 x 4 cells of the first, as the bot lists them by area), and the
    state and events after it."""
    first = next(a for a in legal_actions(state) if isinstance(a, Construct))

    def area(cell: Cell) -> tuple[int, int]:
        return cell.col // 5, cell.row // 4

    cells = list(dict.fromkeys(a.origin for a in legal_actions(state)
                               if isinstance(a, Construct) and a.kind is first.kind and a.age is first.age
                               and area(a.origin) == area(first.origin)))
    after, events = apply(state, first)
    return first, cells, after, events


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--cpu", action="store_true", help="time the process's CPU, not the wall clock")
    ap.add_argument("--baseline", metavar="REV", help="also time this revision's cards, first, in the same run")
    args = ap.parse_args()
    if args.cpu:
        CLOCK[0] = time.process_time
    before = baseline(args.baseline, args.runs, args.cpu) if args.baseline else None
    state, events = late_game()
    t = time.perf_counter()
    age_card(state, Age.MIGHT, None, events)  # cold: fonts, palette, static layers, sprites
    first_call = round((time.perf_counter() - t) * 1000, 1)
    scene = make_scene(state, None, events)
    seat, cells = 0, places(state)
    build, offered, built, built_events = one_build(state)
    mover, where = state.active, f"Where: {build.kind.value}"
    pictures = [
        figures("age_card after a turn (Might)", lambda: age_card(state, Age.MIGHT, None, events),
                lambda: age_card(state, Age.MIGHT), paint_card(scene, Age.MIGHT, last_turn=True), args.runs),
        figures("age_card preview (Faith)", lambda: age_card(state, Age.FAITH, 0, events, heading="Preview"),
                lambda: age_card(state, Age.FAITH, 0),
                paint_card(make_scene(state, 0, events), Age.FAITH, heading="Preview"), args.runs),
        figures("places_card (Hamlet on Might, an area's places)",
                lambda: places_card(state, Age.MIGHT, cells, Kind.HAMLET, seat, heading="Where: Hamlet"),
                lambda: age_card(state, Age.MIGHT, seat), paint_card(make_scene(state, seat), Age.MIGHT),
                args.runs),
        figures(f"age_card preview of one build after its places card ({build.kind.value} on {build.age.title})",
                lambda: age_card(built, build.age, mover, built_events, heading="Preview"),
                lambda: places_card(state, build.age, offered, build.kind, mover, heading=where),
                paint_card(make_scene(built, mover, built_events), build.age, heading="Preview"), args.runs),
    ]
    whole = median_ms(lambda: game_picture(state, events=events), max(5, args.runs // 4))
    result = {"position": "render.demo.late_game()", "first_call_ms": first_call, "pictures": pictures,
              "game_picture_ms_median (not sent any more)": whole, "band_rows": png.BAND_ROWS,
              "band_compressor": getattr(getattr(png, "DEFLATE", None), "__name__", "zlib"),
              "runs": args.runs, "clock": "process CPU" if args.cpu else "wall", "cpus": os.cpu_count(),
              "load_average": [round(x, 2) for x in os.getloadavg()],
              "python": platform.python_version(), "pillow": PIL.__version__, "machine": platform.machine()}
    if before is not None:
        result["baseline"] = before
    for p in pictures:
        print(f"{p['picture']}: {p['png_bytes']} bytes; {p['ms_cold']} ms cold, {p['ms_after_the_boards_last_card']} "
              f"ms after the board's last card, {p['ms_again']} ms again; Pillow on its own pixels "
              f"{p['pillow_own_pixels_level1_ms']} ms "
              f"(level 1), {p['pillow_own_pixels_default_ms']} ms (default); RGB default "
              f"{p['pillow_rgb_default_ms']} ms")
        for key in ("ratio_to_pillow_own_pixels_level1", "ratio_to_pillow_own_pixels_default",
                    "ratio_to_pillow_rgb_default"):
            print(f"    {key:38} {p[key]}")
    print(f"whole-game picture (not sent any more): {whole} ms; load average {result['load_average']}")
    if before is not None:
        then = before["pictures"]
        assert isinstance(then, list)
        olds = {str(old["picture"]): old for old in then}
        for now in pictures:
            old = olds.get(str(now["picture"]))
            if old is None:
                continue
            print(f"{now['picture']}: against {before['rev']} (its load average {before['load_average']}): "
                  f"cold {old['ms_cold']} -> {now['ms_cold']} ms, after the board's last card "
                  f"{old['ms_after_the_boards_last_card']} -> {now['ms_after_the_boards_last_card']} ms; ratio to "
                  f"Pillow level 1 {old['ratio_to_pillow_own_pixels_level1']} -> "
                  f"{now['ratio_to_pillow_own_pixels_level1']}")
    out = ROOT / "bench" / "results" / "render.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
