"""The picture's look in one place: sizes, colours and the font.

Sizes are in image pixels. The whole-game picture is ``WIDTH`` (800) pixels wide, so that Discord's
phone preview (about 400 px wide) shows it at exactly one half: a board cell is then 24 px on the
phone, a tile letter or cube initial at least 8 px. Phones with a 2x or 3x screen show the 800 px
image at full sharpness.

The font is Aileron Regular, the TrueType font that Pillow (>= 10.1) embeds and returns from
``ImageFont.load_default(size=...)``. Aileron is by Sora Sagano (dotcolon.net) and is dedicated to
the public domain under CC0 1.0 (the font's copyright field: "No Rights Reserved."), so it may be
used and redistributed freely. Being embedded in
Pillow, it is the same on every host (no system fonts). Its character set is limited to ASCII and
a few Latin-1 signs; ``safe_text`` keeps text inside it.
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache

from PIL import ImageFont

from rules import Colour, Family, Terrain

RGB = tuple[int, int, int]

# -- geometry -------------------------------------------------------------------------------------

WIDTH = 800  #: the whole-game picture and the single-board picture
CELL = 48  #: one grid cell
PAD = 12  #: outer padding left and right
LABEL_W = 28  #: the row-number column on each side of a board
LABEL_H = 22  #: the column-letter row above and below a board
TITLE_H = 46  #: a board's title bar (Age name, pawns)
BOARD_GAP = 10  #: space between two boards
TILE_INSET = 3  #: a tile is drawn this far inside its footprint

# -- colours --------------------------------------------------------------------------------------

PAGE: RGB = (244, 239, 227)  # parchment
INK: RGB = (43, 38, 32)
MUTED: RGB = (120, 110, 96)
RULE: RGB = (210, 200, 180)  # thin separators
CARD: RGB = (250, 247, 240)  # panels
GRID: RGB = (150, 140, 112)

#: Ages: the dark title bar of each board
AGE_BAR: dict[int, RGB] = {0: (110, 46, 30), 1: (78, 44, 98), 2: (28, 78, 90)}


class FamilyColours:
    """A family's tile colours: a light ``fill``, a saturated ``edge`` (the game's tile colour), a dark
    ``ink`` for the pictogram."""

    def __init__(self, fill: RGB, edge: RGB, ink: RGB) -> None:
        self.fill = fill
        self.edge = edge
        self.ink = ink


FAMILY: dict[Family, FamilyColours] = {
    Family.MILITARY: FamilyColours((252, 200, 140), (226, 112, 20), (122, 50, 0)),  # orange
    Family.RELIGIOUS: FamilyColours((244, 180, 218), (196, 30, 128), (112, 8, 72)),  # fuchsia
    Family.CIVIL: FamilyColours((172, 205, 246), (34, 104, 206), (10, 56, 124)),  # blue
}

RUIN_FILL: RGB = (200, 194, 184)
RUIN_HATCH: RGB = (170, 163, 152)
RUIN_INK: RGB = (104, 96, 86)
RUIN_BAND: RGB = (70, 64, 58)

#: Player colours, each paired with its initial (Colour.letter) on every cube and pawn.
PLAYER: dict[Colour, RGB] = {
    Colour.RED: (214, 38, 52),
    Colour.WHITE: (248, 248, 244),
    Colour.GREEN: (34, 150, 64),
    Colour.BLUE: (30, 84, 214),
    Colour.YELLOW: (250, 204, 20),
}
#: the initial's colour on a cube of that colour
PLAYER_TEXT: dict[Colour, RGB] = {
    Colour.RED: (255, 255, 255),
    Colour.WHITE: (30, 30, 30),
    Colour.GREEN: (255, 255, 255),
    Colour.BLUE: (255, 255, 255),
    Colour.YELLOW: (30, 30, 30),
}
CUBE_EDGE: RGB = (25, 22, 20)

#: terrain: background colour and pattern ink
TERRAIN_FILL: dict[Terrain, RGB] = {
    Terrain.PLAIN: (236, 231, 196),
    Terrain.FOREST: (184, 214, 156),
    Terrain.MOUNTAIN: (214, 200, 180),
    Terrain.RIVER: (160, 205, 238),
}
TERRAIN_INK: dict[Terrain, RGB] = {
    Terrain.PLAIN: (196, 186, 128),
    Terrain.FOREST: (58, 118, 48),
    Terrain.MOUNTAIN: (118, 96, 74),
    Terrain.RIVER: (44, 116, 184),
}

#: what changed during the last turn
NEW: RGB = (255, 200, 0)  # gold ring: built, rippled, upgraded, downsized, populated, renovated
GONE: RGB = (226, 24, 24)  # red dashed outline and cross: removed by paradox, destroyed, demolished
CHOICE: RGB = (0, 190, 220)  # cyan: the cells a pending decision offers
ACTIVE_ROW: RGB = (255, 236, 170)
COIN: RGB = (236, 180, 30)
COIN_EDGE: RGB = (150, 100, 0)
COIN_TEXT: RGB = (255, 206, 60)  # a domain's value, gold on dark
#: a domain's outline: the controller's colour (``PLAYER``) inside a dark edge; dashed without controller
DOMAIN_EDGE: RGB = (25, 22, 20)
DOMAIN_NONE: RGB = (92, 84, 72)

# -- font -----------------------------------------------------------------------------------------


#: FreeType faces may be used by one thread at a time: every use of a font goes through this lock
#: (renders run in worker threads, ``asyncio.to_thread``, and share the cached fonts)
FONT_LOCK = threading.Lock()


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont:
    """Aileron Regular at ``size`` px, loaded once per size (it ships inside Pillow). Use it under
    ``FONT_LOCK``, or through ``text_length`` and ``text_bbox``."""
    with FONT_LOCK:
        f = ImageFont.load_default(size=size)
    if not isinstance(f, ImageFont.FreeTypeFont):  # pragma: no cover - Pillow built without FreeType
        raise RuntimeError("render needs Pillow with FreeType support (ImageFont.load_default(size=...))")
    return f


@lru_cache(maxsize=8192)
def text_length(text: str, size: int) -> float:
    """The advance width of ``text`` at ``size`` px (remembered: the same names and labels are
    measured on every picture)."""
    f = font(size)
    with FONT_LOCK:
        return f.getlength(text)


@lru_cache(maxsize=8192)
def text_bbox(text: str, size: int, stroke: int = 0) -> tuple[int, int, int, int]:
    """The ink box of ``text`` drawn at (0, 0) with its ascender on top (Pillow's ``getbbox``)."""
    f = font(size)
    with FONT_LOCK:
        left, top, right, bottom = f.getbbox(text, stroke_width=stroke)
    return int(left), int(top), int(right), int(bottom)


#: characters the embedded Aileron draws (checked against Pillow 10.1-13: ASCII and these)
_EXTRA = frozenset("©«°±´·»‘’“”…")


def safe_text(text: str, fallback: str = "?") -> str:
    """``text`` reduced to characters the font can draw: accents are dropped (``José`` -> ``Jose``),
    anything else becomes ``?``; control characters are removed. A result with no letter or digit
    left (``周杰`` -> ``??``) gives ``fallback`` instead (the player's colour, for a name)."""
    out: list[str] = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch):
            continue
        if 32 <= ord(ch) < 127 or ch in _EXTRA:
            out.append(ch)
        elif ch.isspace():
            out.append(" ")
        elif unicodedata.category(ch).startswith("C"):
            continue
        else:
            out.append("?")
    result = " ".join("".join(out).split())
    return result if any(ch.isalnum() for ch in result) else fallback
