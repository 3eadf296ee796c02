"""A game turn by turn, as one animated picture and as pictures for a web page.

    frame = replay_frame(state, events, caption)        # the three Ages and the turn's words, one image
    webp = encode_animation(frames, durations)           # an animated WebP under a size budget
    small = card_webp(png)                               # a card (PNG bytes) as a small WebP

A frame is drawn for no viewer (the public scene: no hand, the deck as a count), the size of an Age
card (1140 x 680) in four quarters: Might, Faith, Reason as ``age_card`` draws them at half size, and
the turn's caption in the fourth. Pure synchronous functions; the bot calls them off the event loop.
Imports only ``rules`` and Pillow.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from rules import Age, GameState
from rules.events import Event

from .card import CARD_W, paint_card
from .paint import _fit, _text, _wrap, palette
from .scene import make_scene
from .style import CARD, INK, MUTED, PAGE, RULE

#: Discord refuses an upload over 10 MB (10 * 2**20 bytes, the files of a message together); an
#: animation leaves room for the other files of an export
UPLOAD_LIMIT = 10 * 2**20
ANIMATION_BUDGET = 3 * 2**20
#: WebP qualities tried in turn until the animation fits, then the frames are made smaller
QUALITIES = (80, 65, 50, 35)
FRAME_H = 680
CAPTION_TITLE = 30
CAPTION_TEXT = 22
CAPTION_LINE = 30


def replay_frame(state: GameState, events: Sequence[Event], caption: Sequence[str]) -> Image.Image:
    """One frame: the three Age cards of ``state`` for no viewer (``age_card``'s, with what
    ``events`` changed marked) at half size in three quarters (Might, Faith, Reason, reading order),
    and the caption in the fourth: its first line as a title, the others wrapped below, cut with "…"
    when they do not fit. In the pictures' 256-colour palette, one byte a pixel: a game's frames
    stay small until they are encoded."""
    scene = make_scene(state, None, events)
    im = Image.new("RGB", (CARD_W, FRAME_H), PAGE)
    qw, qh = CARD_W // 2, FRAME_H // 2
    for age in Age:
        card = paint_card(scene, age, last_turn=bool(events))
        im.paste(card.reduce(2), ((age % 2) * qw, (age // 2) * qh))  # exactly one half: a box filter is enough
    _caption(im, qw, qh, qw, qh, caption)
    return im.quantize(palette=palette(), dither=Image.Dither.NONE)


def _caption(im: Image.Image, x0: int, y0: int, w: int, h: int, caption: Sequence[str]) -> None:
    d = ImageDraw.Draw(im)
    d.rounded_rectangle((x0 + 6, y0 + 6, x0 + w - 8, y0 + h - 8), radius=10, fill=CARD, outline=RULE, width=1)
    left, room = x0 + 22, w - 44
    y = y0 + 36
    if caption:
        _text(im, left, y, _fit(caption[0], CAPTION_TITLE, room, bold=True), CAPTION_TITLE, INK, bold=True)
        y += CAPTION_LINE + 12
    bottom = y0 + h - 24
    rows = [row for line in caption[1:] for row in (_wrap(line, CAPTION_TEXT, room) or [""])]
    fits = max(0, (bottom - y) // CAPTION_LINE + 1)
    if len(rows) > fits:
        rows = [*rows[: max(0, fits - 1)], "…"]
    for row in rows:
        _text(im, left, y, _fit(row, CAPTION_TEXT, room), CAPTION_TEXT, INK if row != "…" else MUTED)
        y += CAPTION_LINE


def encode_animation(frames: Sequence[Image.Image], durations: Sequence[int], budget: int = ANIMATION_BUDGET
                     ) -> bytes:
    """The frames as an animated WebP that loops, each shown for its duration (ms), at most
    ``budget`` bytes: lower qualities are tried, then smaller frames. Raises ValueError without frames
    or with as many durations as frames missing."""
    if not frames or len(durations) != len(frames):
        raise ValueError("an animation needs frames, each with its duration")
    scale = 1.0
    while True:
        shown = frames if scale == 1.0 else [f.convert("RGB").resize(
            (round(f.width * scale), round(f.height * scale)), Image.Resampling.LANCZOS) for f in frames]
        for quality in QUALITIES:
            out = _webp(shown, durations, quality)
            if len(out) <= budget:
                return out
        scale *= 0.75


def _webp(frames: Sequence[Image.Image], durations: Sequence[int], quality: int) -> bytes:
    buf = io.BytesIO()
    frames[0].save(buf, format="WEBP", save_all=True, append_images=list(frames[1:]), duration=list(durations),
                   loop=0, quality=quality, method=2)  # 4 is 2.2 times slower for 3 % less
    return buf.getvalue()


def card_webp(png: bytes, quality: int = 80, scale: float = 1.0) -> bytes:
    """A card's PNG bytes as a (still) WebP, several times smaller, for a page that holds many;
    ``scale`` below 1 makes it smaller still."""
    buf = io.BytesIO()
    with Image.open(io.BytesIO(png)) as im:
        rgb = im.convert("RGB")
        if scale != 1.0:
            rgb = rgb.resize((round(rgb.width * scale), round(rgb.height * scale)), Image.Resampling.LANCZOS)
        rgb.save(buf, format="WEBP", quality=quality, method=4)
    return buf.getvalue()


__all__ = ["ANIMATION_BUDGET", "UPLOAD_LIMIT", "card_webp", "encode_animation", "replay_frame"]
