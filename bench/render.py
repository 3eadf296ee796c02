"""Render benchmark: the whole-game picture of a late-game position (render.demo: five players,
round 6, every building type, ruins, markers, population, the last turn's changes).

Prints, and writes to bench/results/render.json:
* the median time of ``game_picture`` (warm caches; the first, cold call is reported apart),
* the PNG's size in bytes,
* the floor: the median time, in the same run, of Pillow encoding an RGB image of the same size
  (the picture's own pixels) to PNG with its default settings, and the ratio of the render time to
  it; and, stricter, the time to encode the very image we output (256 colours, our settings).

    python bench/render.py [--runs 40]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import PIL  # noqa: E402
from PIL import Image  # noqa: E402

from render import board_picture, game_picture  # noqa: E402
from render.demo import late_game  # noqa: E402
from render.paint import PNG_COMPRESS_LEVEL, paint_game, palette  # noqa: E402
from render.scene import make_scene  # noqa: E402
from rules import Age  # noqa: E402


def median_ms(f: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        samples.append(time.perf_counter() - t)
    return round(statistics.median(samples) * 1000, 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    args = ap.parse_args()

    state, events = late_game()
    t = time.perf_counter()
    png = game_picture(state, events=events)  # cold: fonts, palette, static layers, sprites
    cold = round((time.perf_counter() - t) * 1000, 1)

    render_ms = median_ms(lambda: game_picture(state, events=events), args.runs)
    board_ms = median_ms(lambda: board_picture(state, Age.REASON, events=events), args.runs)
    rgb = paint_game(make_scene(state, None, events))
    paint_ms = median_ms(lambda: paint_game(make_scene(state, None, events)), args.runs)
    indexed = rgb.quantize(palette=palette(), dither=Image.Dither.NONE)

    def encode_default() -> None:
        rgb.save(io.BytesIO(), format="PNG")

    def encode_ours() -> None:
        indexed.save(io.BytesIO(), format="PNG", compress_level=PNG_COMPRESS_LEVEL)

    floor_ms = median_ms(encode_default, args.runs)
    ours_ms = median_ms(encode_ours, args.runs)
    result = {
        "picture": "game_picture(render.demo.late_game())",
        "width": rgb.width,
        "height": rgb.height,
        "png_bytes": len(png),
        "render_ms_median": render_ms,
        "render_ms_first_call": cold,
        "paint_only_ms_median": paint_ms,
        "board_picture_ms_median": board_ms,
        "floor_ms_median": floor_ms,
        "floor": "Image.save(PNG) with Pillow's defaults of an RGB image of the same size (the picture's pixels)",
        "ratio_to_floor": round(render_ms / floor_ms, 2),
        "encode_output_ms_median": ours_ms,
        "ratio_to_encoding_the_output": round(render_ms / ours_ms, 2),
        "runs": args.runs,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "pillow": PIL.__version__,
        "machine": platform.machine(),
    }
    for key, value in result.items():
        print(f"{key:32} {value}")
    out = ROOT / "bench" / "results" / "render.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
