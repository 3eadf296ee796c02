"""Small pictures drawn once and pasted many times: tiles, pictograms, cubes, pawns, badges, rings,
terrain cells and text labels.

Each sprite is drawn at ``SS``x the size and reduced (a box filter over premultiplied alpha), which
gives smooth edges that ``ImageDraw`` alone does not. Every sprite function is pure and sits behind
a bounded ``lru_cache``: a game uses a few hundred distinct sprites, and a render then only pastes.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw

from rules import Colour, Family, Kind, Terrain

from .layout import PAWN_H, PAWN_W, Geometry, scale, slot_boxes
from .style import (
    CHOICE,
    COIN_TEXT,
    CUBE_EDGE,
    DOMAIN_EDGE,
    DOMAIN_NONE,
    FAMILY,
    FONT_LOCK,
    GONE,
    INK,
    NEW,
    PLAYER,
    PLAYER_TEXT,
    RGB,
    RUIN_BAND,
    RUIN_FILL,
    RUIN_HATCH,
    RUIN_INK,
    TERRAIN_FILL,
    TERRAIN_INK,
    TILE_INSET,
    font,
    text_bbox,
    text_length,
)

SS = 4  #: supersampling factor
RGBA = tuple[int, int, int, int]
Shape = tuple[str, tuple[float, ...]]


def _canvas(w: int, h: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    im = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    return im, ImageDraw.Draw(im)


def _reduce(im: Image.Image) -> Image.Image:
    return im.convert("RGBa").reduce(SS).convert("RGBA")


def _a(c: RGB, alpha: int = 255) -> RGBA:
    return (c[0], c[1], c[2], alpha)


# -- pictograms ---------------------------------------------------------------------------------------
# Shapes in a unit square (x right, y down). "r" rectangle, "p" polygon, "e" ellipse, "d" door (a
# rectangle with a round top), "o" a polygon with a light outline (to separate overlapping shapes).
# Upper-case ops are cut-outs drawn in the tile's light colour (doors, windows).

ICONS: dict[Kind, list[Shape]] = {
    Kind.WATCHTOWER: [
        ("r", (0.36, 0.34, 0.64, 0.94)), ("r", (0.27, 0.22, 0.73, 0.36)),
        ("r", (0.27, 0.08, 0.36, 0.23)), ("r", (0.455, 0.08, 0.545, 0.23)), ("r", (0.64, 0.08, 0.73, 0.23)),
        ("D", (0.44, 0.70, 0.56, 0.94)), ("R", (0.475, 0.44, 0.525, 0.58)),
    ],
    Kind.KEEP: [
        ("r", (0.16, 0.30, 0.84, 0.94)),
        ("r", (0.16, 0.14, 0.28, 0.31)), ("r", (0.35, 0.14, 0.46, 0.31)),
        ("r", (0.54, 0.14, 0.65, 0.31)), ("r", (0.72, 0.14, 0.84, 0.31)),
        ("D", (0.41, 0.64, 0.59, 0.94)), ("D", (0.26, 0.42, 0.34, 0.56)), ("D", (0.66, 0.42, 0.74, 0.56)),
    ],
    Kind.CASTLE: [
        ("r", (0.04, 0.22, 0.30, 0.94)), ("r", (0.70, 0.22, 0.96, 0.94)),
        ("r", (0.04, 0.10, 0.11, 0.23)), ("r", (0.135, 0.10, 0.205, 0.23)), ("r", (0.23, 0.10, 0.30, 0.23)),
        ("r", (0.70, 0.10, 0.77, 0.23)), ("r", (0.795, 0.10, 0.865, 0.23)), ("r", (0.89, 0.10, 0.96, 0.23)),
        ("r", (0.30, 0.44, 0.70, 0.94)),
        ("r", (0.33, 0.34, 0.41, 0.45)), ("r", (0.46, 0.34, 0.54, 0.45)), ("r", (0.59, 0.34, 0.67, 0.45)),
        ("D", (0.41, 0.62, 0.59, 0.94)), ("D", (0.14, 0.36, 0.20, 0.50)), ("D", (0.80, 0.36, 0.86, 0.50)),
    ],
    Kind.CHAPEL: [
        ("r", (0.24, 0.52, 0.76, 0.94)), ("p", (0.14, 0.54, 0.50, 0.28, 0.86, 0.54)),
        ("r", (0.455, 0.02, 0.545, 0.32)), ("r", (0.37, 0.09, 0.63, 0.17)),
        ("D", (0.42, 0.70, 0.58, 0.94)),
    ],
    Kind.MONASTERY: [
        ("r", (0.06, 0.58, 0.62, 0.94)), ("p", (0.02, 0.60, 0.34, 0.40, 0.66, 0.60)),
        ("r", (0.60, 0.30, 0.88, 0.94)), ("p", (0.55, 0.32, 0.74, 0.12, 0.93, 0.32)),
        ("r", (0.715, 0.00, 0.765, 0.14)), ("r", (0.675, 0.035, 0.805, 0.08)),
        ("D", (0.13, 0.68, 0.20, 0.82)), ("D", (0.27, 0.68, 0.34, 0.82)), ("D", (0.41, 0.68, 0.48, 0.82)),
        ("D", (0.69, 0.42, 0.79, 0.56)), ("D", (0.68, 0.76, 0.80, 0.94)),
    ],
    Kind.ABBEY: [
        ("r", (0.06, 0.28, 0.30, 0.94)), ("p", (0.03, 0.30, 0.18, 0.02, 0.33, 0.30)),
        ("r", (0.70, 0.28, 0.94, 0.94)), ("p", (0.67, 0.30, 0.82, 0.02, 0.97, 0.30)),
        ("r", (0.30, 0.46, 0.70, 0.94)), ("p", (0.27, 0.48, 0.50, 0.26, 0.73, 0.48)),
        ("r", (0.475, 0.08, 0.525, 0.28)), ("r", (0.43, 0.13, 0.57, 0.175)),
        ("E", (0.42, 0.50, 0.58, 0.66)), ("D", (0.42, 0.72, 0.58, 0.94)),
        ("D", (0.14, 0.42, 0.22, 0.58)), ("D", (0.78, 0.42, 0.86, 0.58)),
    ],
    Kind.HAMLET: [
        ("r", (0.66, 0.24, 0.76, 0.42)),
        ("r", (0.22, 0.52, 0.78, 0.92)), ("p", (0.10, 0.54, 0.50, 0.20, 0.90, 0.54)),
        ("D", (0.43, 0.68, 0.57, 0.92)), ("R", (0.28, 0.60, 0.37, 0.69)), ("R", (0.63, 0.60, 0.72, 0.69)),
    ],
    Kind.TOWN: [
        ("r", (0.46, 0.42, 0.92, 0.92)), ("p", (0.40, 0.44, 0.69, 0.14, 0.98, 0.44)),
        ("R", (0.74, 0.52, 0.84, 0.62)), ("D", (0.72, 0.72, 0.84, 0.92)),
        ("o", (0.08, 0.58, 0.52, 0.58, 0.52, 0.94, 0.08, 0.94)), ("o", (0.02, 0.60, 0.30, 0.32, 0.58, 0.60)),
        ("r", (0.08, 0.58, 0.52, 0.94)), ("p", (0.02, 0.60, 0.30, 0.32, 0.58, 0.60)),
        ("D", (0.24, 0.76, 0.36, 0.94)), ("R", (0.13, 0.66, 0.21, 0.74)),
    ],
    Kind.CITY: [
        ("r", (0.62, 0.30, 0.96, 0.94)), ("r", (0.70, 0.20, 0.88, 0.31)),
        ("r", (0.04, 0.46, 0.40, 0.94)), ("p", (0.00, 0.48, 0.22, 0.28, 0.44, 0.48)),
        ("o", (0.34, 0.06, 0.66, 0.06, 0.66, 0.94, 0.34, 0.94)),
        ("r", (0.34, 0.06, 0.66, 0.94)),
        ("R", (0.39, 0.14, 0.47, 0.24)), ("R", (0.53, 0.14, 0.61, 0.24)),
        ("R", (0.39, 0.32, 0.47, 0.42)), ("R", (0.53, 0.32, 0.61, 0.42)),
        ("R", (0.39, 0.50, 0.47, 0.60)), ("R", (0.53, 0.50, 0.61, 0.60)),
        ("D", (0.43, 0.74, 0.57, 0.94)),
        ("R", (0.11, 0.58, 0.19, 0.68)), ("R", (0.25, 0.58, 0.33, 0.68)),
        ("R", (0.72, 0.42, 0.80, 0.52)), ("R", (0.84, 0.42, 0.92, 0.52)),
        ("R", (0.72, 0.62, 0.80, 0.72)), ("R", (0.84, 0.62, 0.92, 0.72)),
    ],
}

#: the broken top-right corner and the crack of a ruin pictogram
_BREAK = (0.50, -0.05, 0.58, 0.22, 0.49, 0.36, 0.64, 0.50, 1.05, 0.40, 1.05, -0.05)
_CRACK = ((0.28, 0.45), (0.36, 0.58), (0.30, 0.70), (0.38, 0.84))


def draw_icon(
    d: ImageDraw.ImageDraw, kind: Kind, x: float, y: float, size: float, ink: RGBA, light: RGBA,
    broken: bool = False,
) -> None:
    """Draw ``kind``'s pictogram in the square (x, y, size) of a supersampled canvas."""

    def pt(u: float, v: float) -> tuple[float, float]:
        return (x + u * size, y + v * size)

    def box(c: tuple[float, ...]) -> tuple[float, float, float, float]:
        return (x + c[0] * size, y + c[1] * size, x + c[2] * size, y + c[3] * size)

    for op, c in ICONS[kind]:
        colour = light if op.isupper() else ink
        o = op.lower()
        if o == "r":
            d.rectangle(box(c), fill=colour)
        elif o == "p":
            d.polygon([pt(c[i], c[i + 1]) for i in range(0, len(c), 2)], fill=colour)
        elif o == "o":
            pts = [pt(c[i], c[i + 1]) for i in range(0, len(c), 2)]
            d.polygon(pts, outline=light, width=max(1, round(size * 0.07)))
        elif o == "e":
            d.ellipse(box(c), fill=colour)
        elif o == "d":
            x0, y0, x1, y1 = box(c)
            r = (x1 - x0) / 2
            d.ellipse((x0, y0, x1, y0 + 2 * r), fill=colour)
            d.rectangle((x0, y0 + r, x1, y1), fill=colour)
    if broken:
        d.polygon([pt(_BREAK[i], _BREAK[i + 1]) for i in range(0, len(_BREAK), 2)], fill=light)
        d.line([pt(u, v) for u, v in _CRACK], fill=light, width=max(1, round(size * 0.05)))


def icon_layer(kind: Kind, size: int, ink: RGBA, broken: bool = False) -> Image.Image:
    """A supersampled pictogram of ``size`` px (already multiplied by ``SS``) on a transparent layer;
    doors, windows and a ruin's broken corner are holes that show what lies under the pictogram."""
    im = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw_icon(ImageDraw.Draw(im), kind, 0, 0, size, ink, (0, 0, 0, 0), broken)
    return im


# -- text ---------------------------------------------------------------------------------------------


#: labels remembered: a card's texts are mostly the same from one card of a game to the next (names,
#: figures), but 400 games at once show more than 1,024 (drawing them again was ~4% of the bot's
#: Python work by taps); 8,192 small pictures, a few kB each
@lru_cache(maxsize=8192)
def label(text: str, size: int, colour: RGB, bold: bool = False) -> Image.Image:
    """``text`` in Aileron, tightly boxed, on a transparent background (drawn at full size: FreeType
    already smooths glyphs). ``bold`` thickens the strokes by one pixel."""
    stroke = 1 if bold else 0
    left, top, right, bottom = text_bbox(text, size, stroke)
    im = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)), (0, 0, 0, 0))
    with FONT_LOCK:
        ImageDraw.Draw(im).text((-left, -top), text, font=font(size), fill=_a(colour), stroke_width=stroke,
                                stroke_fill=_a(colour))
    return im


def fit_size(text: str, width: int, start: int, smallest: int = 9) -> int:
    """The largest font size from ``start`` down at which ``text`` fits in ``width`` pixels."""
    size = start
    while size > smallest and text_length(text, size) > width:
        size -= 1
    return size


def _paste_centered(base: Image.Image, sprite: Image.Image, cx: float, cy: float) -> None:
    base.alpha_composite(sprite, (round(cx - sprite.width / 2), round(cy - sprite.height / 2)))


# -- tiles --------------------------------------------------------------------------------------------


def _rounded(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], r: float, **kw: object) -> None:
    d.rounded_rectangle(box, radius=r, **kw)  # type: ignore[arg-type]


@lru_cache(maxsize=128)
def tile(kind: Kind, cell: int, style: str, slots: int = 0) -> Image.Image:
    """A building tile covering its whole footprint (level x level cells), with the tile inset.

    ``style``: ``"intact"`` (Might, Faith, a Civil building on Reason), ``"ruin"`` (Reason, ruin side
    up: grey, hatched, broken pictogram, a dark RUIN band) or ``"renovated"`` (Reason: intact colours
    and a RENOVATED band in the family colour). ``slots`` draws that many empty population slots
    (their places come from ``layout.slot_boxes``; the caller draws the cubes).
    """
    level = kind.level
    span = level * cell
    geo = Geometry(1, 1, cell, 0, 0)
    fam = FAMILY[kind.family]
    ruin = style == "ruin"
    fill = RUIN_FILL if ruin else fam.fill
    im, d = _canvas(span, span)
    s = SS
    ins = TILE_INSET * s
    radius = scale(geo, 7) * s
    edge_w = max(2, scale(geo, 3)) * s
    box = (ins, ins, span * s - ins - 1, span * s - ins - 1)
    _rounded(d, (box[0] + 2 * s, box[1] + 2 * s, box[2] + 2 * s, box[3] + 2 * s), radius, fill=(0, 0, 0, 70))
    _rounded(d, box, radius, fill=_a(fill))
    if ruin:  # diagonal hatching, clipped to the tile
        hatch = Image.new("L", im.size, 0)
        hd = ImageDraw.Draw(hatch)
        step = scale(geo, 9) * s
        for k in range(-span * s, span * s, step):
            hd.line((k, span * s, k + span * s, 0), fill=255, width=max(1, scale(geo, 2)) * s)
        mask = Image.new("L", im.size, 0)
        _rounded(ImageDraw.Draw(mask), box, radius, fill=255)
        im.paste(Image.new("RGBA", im.size, _a(RUIN_HATCH)), (0, 0), ImageChops.multiply(hatch, mask))
    band_h = scale(geo, 15 if level == 2 else 18) if style in ("ruin", "renovated") and level > 1 else 0
    if band_h:
        by1 = span * s - ins - edge_w // 2
        d.rectangle((ins + edge_w // 2, by1 - band_h * s, span * s - ins - edge_w // 2 - 1, by1),
                    fill=_a(RUIN_BAND) if ruin else _a(fam.edge))
    _rounded(d, box, radius, outline=_a(fam.edge), width=edge_w)

    ink = _a(RUIN_INK if ruin else fam.ink)
    name_at: tuple[float, float, int] | None = None
    if level == 1:
        size = scale(geo, 26 if slots else 28)
        ix = TILE_INSET + scale(geo, 4)
        iy = span - TILE_INSET - scale(geo, 4) - size
    else:
        bottom = span - TILE_INSET - scale(geo, 4)
        if slots:
            bottom = min(b[1] for b in slot_boxes(geo, kind)) - scale(geo, 3)
        if band_h:
            bottom = span - TILE_INSET - edge_w // s - band_h - scale(geo, 2)
        name_size = scale(geo, 16 if level == 2 else 20)
        name_h = name_size + scale(geo, 2)
        iy = TILE_INSET + scale(geo, 6)
        size = max(8, min(bottom - name_h - iy, scale(geo, 60 if level == 2 else 84)))
        cube_room = scale(geo, {2: 28, 3: 32}[level]) + scale(geo, 6)
        ix = max(TILE_INSET + scale(geo, 6), (span - size) // 2 - (cube_room // 2 if level == 2 else 0))
        name_at = (span / 2, iy + size + scale(geo, 2) + name_h / 2, name_size)
    im.alpha_composite(icon_layer(kind, size * s, ink, broken=ruin), (ix * s, iy * s))
    out = _reduce(im)
    if name_at is not None:
        inner = span - 2 * TILE_INSET
        cx, cy, name_size = name_at
        nsize = fit_size(kind.value, inner - scale(geo, 8), name_size)
        _paste_centered(out, label(kind.value, nsize, RUIN_INK if ruin else fam.ink, bold=True), cx, cy)
        if band_h:
            word = "RUIN" if ruin else "RENOVATED"
            bsize = fit_size(word, inner - scale(geo, 10), scale(geo, 13 if level == 2 else 16))
            _paste_centered(out, label(word, bsize, (255, 255, 255), bold=True), span / 2,
                            span - TILE_INSET - edge_w / s / 2 - band_h / 2)
    for x0, y0, x1, y1 in slot_boxes(geo, kind)[:slots] if slots else ():
        _slot(out, (x0, y0, x1, y1), fam.ink)
    return out


def _slot(base: Image.Image, box: tuple[int, int, int, int], ink: RGB) -> None:
    """An empty population place: a thin rounded outline."""
    w, h = box[2] - box[0], box[3] - box[1]
    im, d = _canvas(w, h)
    _rounded(d, (SS, SS, w * SS - SS - 1, h * SS - SS - 1), 3 * SS, outline=_a(ink, 150), width=SS + SS // 2,
             fill=(255, 255, 255, 90))
    base.alpha_composite(_reduce(im), (box[0], box[1]))


@lru_cache(maxsize=16)
def printed_hamlet(cell: int) -> Image.Image:
    """A printed hamlet (R3): drawn on the board itself, not a tile: a house in the Civil ink on a
    pale disc with a dotted ring, no tile edge and no shadow."""
    im, d = _canvas(cell, cell)
    s = SS
    m = 5 * s * cell // 48
    d.ellipse((m, m, cell * s - m, cell * s - m), fill=(255, 255, 255, 150))
    # dotted ring
    cx = cy = cell * s / 2
    r = cell * s / 2 - m
    for k in range(20):
        a0 = k * 2 * math.pi / 20
        a1 = a0 + math.pi / 20
        d.line(
            [(cx + r * math.cos(a0), cy + r * math.sin(a0)), (cx + r * math.cos(a1), cy + r * math.sin(a1))],
            fill=_a(FAMILY[Family.CIVIL].ink), width=max(s, 2 * s * cell // 48),
        )
    size = round(cell * s * 0.56)
    im.alpha_composite(icon_layer(Kind.HAMLET, size, _a(FAMILY[Family.CIVIL].ink)),
                       ((cell * s - size) // 2, (cell * s - size) // 2 - s))
    return _reduce(im)


# -- cubes, pawns -------------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def cube(colour: Colour, size: int) -> Image.Image:
    """A player's cube with his initial (colour-blind safe): rounded square, dark edge, light rim."""
    pad = 2
    w = size + 2 * pad
    im, d = _canvas(w, w)
    s = SS
    d.rounded_rectangle((pad * s + s, pad * s + s, (pad + size) * s + s, (pad + size) * s + s), radius=3 * s,
                        fill=(0, 0, 0, 90))
    d.rounded_rectangle((pad * s - s, pad * s - s, (pad + size) * s + s - 1, (pad + size) * s + s - 1),
                        radius=4 * s, fill=(255, 255, 255, 230))
    d.rounded_rectangle((pad * s, pad * s, (pad + size) * s - 1, (pad + size) * s - 1), radius=3 * s,
                        fill=_a(PLAYER[colour]), outline=_a(CUBE_EDGE), width=max(s, size * s // 12))
    out = _reduce(im)
    letter = label(colour.letter, max(8, round(size * 0.72)), PLAYER_TEXT[colour], bold=size >= 16)
    _paste_centered(out, letter, w / 2, w / 2)
    return out


@lru_cache(maxsize=32)
def pawn(colour: Colour, moved: bool) -> Image.Image:
    """An adventurer pawn (a meeple) in the player's colour with his initial; a gold halo if it
    travelled during the last turn."""
    w, h = PAWN_W, PAWN_H
    im, d = _canvas(w, h)
    s = SS
    body = [
        (0.50, 0.30), (0.78, 0.42), (0.98, 0.50), (0.96, 0.60), (0.76, 0.60), (0.86, 0.98),
        (0.14, 0.98), (0.24, 0.60), (0.04, 0.60), (0.02, 0.50), (0.22, 0.42),
    ]
    pts = [(u * (w - 2) * s + s, v * (h - 2) * s + s) for u, v in body]
    head = (0.28 * w * s, 0.02 * h * s + s, 0.72 * w * s, 0.02 * h * s + 0.44 * w * s + s)
    if moved:
        halo = Image.new("RGBA", im.size, (0, 0, 0, 0))
        hd = ImageDraw.Draw(halo)
        hd.polygon(pts, outline=_a(NEW), width=5 * s)
        hd.ellipse(head, outline=_a(NEW), width=5 * s)
        im.alpha_composite(halo)
    edge = _a(CUBE_EDGE)
    d.polygon(pts, fill=_a(PLAYER[colour]), outline=edge, width=int(1.5 * s))
    d.ellipse(head, fill=_a(PLAYER[colour]), outline=edge, width=int(1.5 * s))
    out = _reduce(im)
    letter = label(colour.letter, 17, PLAYER_TEXT[colour], bold=True)
    _paste_centered(out, letter, w / 2, h * 0.75)
    return out


# -- marks: changes, choices --------------------------------------------------------------------------


@lru_cache(maxsize=256)
def badge(text: str, kind: str, size: int = 14) -> Image.Image:
    """A small pill with ``text``: ``"new"`` (gold, dark text), ``"gone"`` (red, white text),
    ``"choice"`` (cyan, dark text)."""
    bg = {"new": NEW, "gone": GONE, "choice": CHOICE}[kind]
    fg = (255, 255, 255) if kind == "gone" else INK
    t = label(text, size, fg, bold=True)
    w, h = t.width + 10, size + 6
    im, d = _canvas(w, h)
    d.rounded_rectangle((0, 0, w * SS - 1, h * SS - 1), radius=h * SS // 2, fill=_a(CUBE_EDGE))
    d.rounded_rectangle((SS + SS // 2, SS + SS // 2, w * SS - 1 - SS - SS // 2, h * SS - 1 - SS - SS // 2),
                        radius=h * SS // 2 - SS, fill=_a(bg))
    out = _reduce(im)
    _paste_centered(out, t, w / 2, h / 2)
    return out


@lru_cache(maxsize=256)
def domain_tag(colours: tuple[Colour, ...], value: int | None, height: int = 40) -> Image.Image:
    """A domain's tag: a square in each controller's colour with their initial, then the Ecus the domain
    would pay now, in gold on dark (a dark pill with no square: no controller); ``?`` (None) while a
    question leaves its board unsettled."""
    number = label("?" if value is None else str(value), round(height * 0.74), COIN_TEXT, bold=True)
    seg = height - 4
    w = 2 + len(colours) * seg + number.width + 16
    im, d = _canvas(w, height)
    s = SS
    d.rounded_rectangle((0, 0, w * s - 1, height * s - 1), radius=7 * s, fill=_a(CUBE_EDGE))
    for i, c in enumerate(colours):
        x0 = (2 + i * seg) * s
        box = (x0, 2 * s, x0 + seg * s - (s if i < len(colours) - 1 else 0) - 1, (height - 2) * s - 1)
        d.rounded_rectangle(box, radius=5 * s, fill=_a(PLAYER[c]))
    out = _reduce(im)
    for i, c in enumerate(colours):
        _paste_centered(out, label(c.letter, round(seg * 0.72), PLAYER_TEXT[c], bold=True), 2 + i * seg + seg / 2,
                        height / 2)
    _paste_centered(out, number, w - 8 - number.width / 2, height / 2)
    return out


@lru_cache(maxsize=8)
def domain_sample(colour: Colour | None, size: int = 26) -> Image.Image:
    """The legend's sample of a domain's outline: a square edged in ``colour`` inside a dark edge, or
    dashed grey (``None``: no controller)."""
    im, d = _canvas(size, size)
    s = SS
    if colour is not None:
        d.rectangle((0, 0, size * s - 1, size * s - 1), outline=_a(DOMAIN_EDGE), width=7 * s)
        d.rectangle((2 * s, 2 * s, (size - 2) * s - 1, (size - 2) * s - 1), outline=_a(PLAYER[colour]), width=3 * s)
    else:
        step = size * s / 4
        for i in range(4):
            a, b = round(i * step + step * 0.15), round(i * step + step * 0.75)
            for box in ((a, 0, b, 3 * s), (a, size * s - 3 * s, b, size * s - 1), (0, a, 3 * s, b),
                        (size * s - 3 * s, a, size * s - 1, b)):
                d.rectangle(box, fill=_a(DOMAIN_NONE))
    return _reduce(im)


RING_OUT = 2  #: a ring reaches this far outside the footprint (into the gap between tiles)


@lru_cache(maxsize=32)
def ring(span: int, kind: str) -> Image.Image:
    """A ring around a footprint of ``span`` px, ``RING_OUT`` px larger on each side, with dark rims:
    gold (``new``), something changed there during the last turn; cyan (``choice``), a building a
    pending decision is about (its cells offered are named on it)."""
    colour = {"new": NEW, "choice": CHOICE}[kind]
    n = span + 2 * RING_OUT
    im, d = _canvas(n, n)
    s = SS
    r = 9 * s
    d.rounded_rectangle((0, 0, n * s - 1, n * s - 1), radius=r, outline=_a(CUBE_EDGE), width=6 * s)
    d.rounded_rectangle((s, s, n * s - 1 - s, n * s - 1 - s), radius=r - s, outline=_a(colour), width=4 * s)
    return _reduce(im)


@lru_cache(maxsize=8)
def choice(cell: int) -> Image.Image:
    """A cell a pending decision offers: a cyan ring with dark rims just inside the cell."""
    im, d = _canvas(cell, cell)
    s = SS
    d.rounded_rectangle((s, s, cell * s - 1 - s, cell * s - 1 - s), radius=7 * s, outline=_a(CUBE_EDGE), width=5 * s)
    d.rounded_rectangle((2 * s, 2 * s, cell * s - 1 - 2 * s, cell * s - 1 - 2 * s), radius=6 * s,
                        outline=_a(CHOICE), width=3 * s)
    return _reduce(im)


@lru_cache(maxsize=32)
def ghost(span: int, removed: bool, cross: bool = True) -> Image.Image:
    """Where a building was: a dashed outline; if ``removed`` (paradox, destruction, demolition), red,
    with a cross if ``cross`` (nothing stands there now), else (the old footprint of a downsized
    building) dotted in the gold of its DOWN badge (a dark dashed line is a domain no one controls)."""
    colour = GONE if removed else NEW
    im, d = _canvas(span, span)
    s = SS
    w = 4 * s
    m = 2 * s
    dash, gap = (8 * s, 5 * s) if removed else (3 * s, 6 * s)
    side = span * s - 2 * m
    for x0, y0, dx, dy in ((m, m, 1, 0), (m, span * s - m, 1, 0), (m, m, 0, 1), (span * s - m, m, 0, 1)):
        t = 0
        while t < side:
            t1 = min(side, t + dash)
            d.line((x0 + dx * t, y0 + dy * t, x0 + dx * t1, y0 + dy * t1), fill=_a(colour, 235), width=w)
            t = t1 + gap
    if removed and cross:
        c = span * s / 2
        k = min(span * s // 4, 14 * s)
        d.line((c - k, c - k, c + k, c + k), fill=_a(GONE, 200), width=5 * s)
        d.line((c - k, c + k, c + k, c - k), fill=_a(GONE, 200), width=5 * s)
    return _reduce(im)


# -- terrain ------------------------------------------------------------------------------------------

TERRAIN_ORDER = (Terrain.RIVER, Terrain.PLAIN, Terrain.FOREST, Terrain.MOUNTAIN)


def _motifs(d: ImageDraw.ImageDraw, terrain: Terrain, spots: list[tuple[float, float, float]], n: int) -> None:
    """Draw ``terrain``'s pattern motif at each (u, v, size) spot of an n-px supersampled square."""
    ink = _a(TERRAIN_INK[terrain])
    for u, v, k in spots:
        x, y, z = u * n, v * n, k * n
        if terrain is Terrain.PLAIN:  # a grass tuft: three short strokes
            w = max(SS, round(z * 0.13))
            d.line((x - z * 0.3, y - z * 0.35, x - z * 0.12, y + z * 0.2), fill=ink, width=w)
            d.line((x, y - z * 0.5, x, y + z * 0.2), fill=ink, width=w)
            d.line((x + z * 0.3, y - z * 0.35, x + z * 0.12, y + z * 0.2), fill=ink, width=w)
        elif terrain is Terrain.FOREST:  # a fir: two stacked triangles and a trunk
            d.rectangle((x - z * 0.07, y + z * 0.25, x + z * 0.07, y + z * 0.5), fill=_a((110, 80, 50)))
            d.polygon([(x - z * 0.42, y + z * 0.3), (x, y - z * 0.2), (x + z * 0.42, y + z * 0.3)], fill=ink)
            d.polygon([(x - z * 0.32, y - z * 0.02), (x, y - z * 0.5), (x + z * 0.32, y - z * 0.02)], fill=ink)
        elif terrain is Terrain.MOUNTAIN:  # a peak with a snow cap
            left, top, right = (x - z * 0.55, y + z * 0.4), (x, y - z * 0.45), (x + z * 0.55, y + z * 0.4)
            d.polygon([left, top, right], fill=ink)
            d.polygon([(x - z * 0.18, y - z * 0.17), top, (x + z * 0.18, y - z * 0.17), (x + z * 0.06, y - z * 0.1),
                       (x - z * 0.04, y - z * 0.19)], fill=_a((250, 248, 240)))
        else:  # river: a wave across the whole spot width
            pts = []
            steps = 16
            for i in range(steps + 1):
                t = i / steps
                pts.append((x - z / 2 + t * z, y + math.sin(t * 2 * math.pi) * z * 0.08))
            d.line(pts, fill=ink, width=max(SS, round(n * 0.05)), joint="curve")


#: motif spots (u, v, size) for a whole cell and for each half of a mixed cell
_WHOLE: dict[Terrain, list[tuple[float, float, float]]] = {
    Terrain.PLAIN: [(0.28, 0.34, 0.26), (0.70, 0.70, 0.26)],
    Terrain.FOREST: [(0.28, 0.36, 0.44), (0.72, 0.34, 0.40), (0.50, 0.74, 0.44)],
    Terrain.MOUNTAIN: [(0.36, 0.46, 0.66), (0.74, 0.70, 0.42)],
    Terrain.RIVER: [(0.5, 0.28, 1.0), (0.5, 0.54, 1.0), (0.5, 0.80, 1.0)],
}


def _half_spots(terrain: Terrain, first: bool) -> list[tuple[float, float, float]]:
    """Motifs inside the top-left (``first``) or bottom-right triangle of a mixed cell."""
    if terrain is Terrain.RIVER:
        return [(0.3, 0.20, 0.6), (0.22, 0.42, 0.44)] if first else [(0.7, 0.58, 0.6), (0.78, 0.82, 0.44)]
    k = {Terrain.PLAIN: 0.26, Terrain.FOREST: 0.36, Terrain.MOUNTAIN: 0.42}[terrain]
    return [(0.30, 0.30, k)] if first else [(0.70, 0.70, k)]


def _terrain_layer(terrain: Terrain, n: int, spots: list[tuple[float, float, float]]) -> Image.Image:
    im = Image.new("RGBA", (n, n), _a(TERRAIN_FILL[terrain]))
    _motifs(ImageDraw.Draw(im), terrain, spots, n)
    return im


@lru_cache(maxsize=32)
def terrain_cell(features: frozenset[Terrain], cell: int) -> Image.Image:
    """One cell's terrain: its colour and pattern; a mixed cell is split along the diagonal, the first
    feature (river, plain, forest, mountain order) in the top-left half."""
    n = cell * SS
    kinds = [t for t in TERRAIN_ORDER if t in features]
    if len(kinds) == 1:
        im = _terrain_layer(kinds[0], n, _WHOLE[kinds[0]])
    else:
        a, b = kinds[0], kinds[1]
        im = _terrain_layer(b, n, _half_spots(b, first=False))
        top = _terrain_layer(a, n, _half_spots(a, first=True))
        mask = Image.new("L", (n, n), 0)
        ImageDraw.Draw(mask).polygon([(0, 0), (n, 0), (0, n)], fill=255)
        im.paste(top, (0, 0), mask)
        ImageDraw.Draw(im).line((n, 0, 0, n), fill=_a(TERRAIN_INK[a], 110), width=SS)
    return _reduce(im)
