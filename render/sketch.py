"""Drawing recorded before it is done, so that a card redraws only the rows that changed.

A ``Sketch`` takes the calls the drawing code makes on a picture (a sprite pasted through its own
mask, a filled rectangle, a line) and keeps them in order, each with the rows it can touch and a key
that says exactly what it draws: the sprite (the very object, which a sketch keeps alive, so its id
is never another sprite's), where, and for a shape its coordinates and colours. ``replay`` does the
calls on a picture, or on a strip of its rows (the calls that meet those rows, moved up).

``changed_rows`` compares two sketches over the same ground: the calls of each that the other lacks,
or that come in another order, give the rows where the two pictures may differ. Everywhere else the
same calls are made in the same order over the same ground, so the pixels are equal.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from PIL import Image, ImageDraw

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

_PASTE, _RECTANGLE, _LINE = 0, 1, 2

#: a call: its key, the first row it may touch and the row after its last, what it is, its sprite (a
#: paste), its coordinates (a point, or two) and a shape's fill, outline and width
Op = tuple[Hashable, int, int, int, Image.Image | None, tuple[int, ...], RGB | None, RGB | None, int]


class Sketch:
    """The drawing calls made on a picture of ``size``, in order (``ops``)."""

    __slots__ = ("ops", "size")

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.ops: list[Op] = []

    @property
    def height(self) -> int:
        return self.size[1]

    def paste(self, sprite: Image.Image, xy: tuple[int, int], mask: Image.Image) -> None:
        """As ``Image.paste(sprite, xy, sprite)``: only a sprite pasted through its own mask."""
        if mask is not sprite:
            raise ValueError("a sketch pastes a sprite through its own mask only")
        x, y = xy
        self.ops.append(((id(sprite), x, y), y, y + sprite.height, _PASTE, sprite, xy, None, None, 0))

    def rectangle(self, xy: Box, fill: RGB | None = None, outline: RGB | None = None, width: int = 1) -> None:
        """As ``ImageDraw.rectangle`` (corners included)."""
        self.ops.append((("r", xy, fill, outline, width), xy[1], xy[3] + 1, _RECTANGLE, None, xy, fill, outline,
                         width))

    def line(self, xy: tuple[int, int, int, int], fill: RGB | None = None, width: int = 0) -> None:
        """As ``ImageDraw.line`` between two points."""
        reach = width + 2  # a wide line's ends and edges, with room to spare
        self.ops.append((("l", xy, fill, width), min(xy[1], xy[3]) - reach, max(xy[1], xy[3]) + reach + 1, _LINE,
                         None, xy, fill, None, width))

    def replay(self, im: Image.Image, top: int = 0) -> None:
        """Make the calls on ``im``, whose first row is row ``top`` of the sketched picture (a strip of
        its rows, or the whole picture): only those that meet its rows, moved up by ``top``."""
        bottom = top + im.height
        im.load()
        core = im.im  # (Image.paste's checks, made once for the sprites in memory in RGBA)
        draw: ImageDraw.ImageDraw | None = None
        for _, y0, y1, kind, sprite, xy, fill, outline, width in self.ops:
            if y1 <= top or y0 >= bottom:
                continue
            if sprite is not None:
                x, y = xy[0], xy[1] - top
                if sprite.mode == "RGBA":
                    core.paste(sprite.im, (x, y, x + sprite.width, y + sprite.height), sprite.im)
                else:
                    im.paste(sprite, (x, y), sprite)
                continue
            draw = draw or ImageDraw.Draw(im)
            a, b, c, d = xy
            if kind == _RECTANGLE:
                draw.rectangle((a, b - top, c, d - top), fill=fill, outline=outline, width=width)
            else:
                draw.line((a, b - top, c, d - top), fill=fill, width=width)


def changed_rows(old: Sequence[Op], new: Sequence[Op]) -> list[tuple[int, int]]:
    """The rows (first, after last) where pictures drawn by the calls ``old`` and ``new`` over the same
    ground may differ: those of the calls that are not in both in the same order. The calls both make
    are matched in order (each call of ``new`` with the first unmatched equal call of ``old`` after the
    last match); a pixel that no other call touches gets the same matched calls, in the same order, in
    both pictures."""
    # the calls both begin and end with, matched at once (two cards of a board share most of them)
    first, most = 0, min(len(old), len(new))
    while first < most and old[first][0] == new[first][0]:
        first += 1
    end = 0
    while end < most - first and old[-1 - end][0] == new[-1 - end][0]:
        end += 1
    old, new = old[first:len(old) - end], new[first:len(new) - end]
    where: dict[Hashable, list[int]] = {}
    for i, op in enumerate(old):
        where.setdefault(op[0], []).append(i)
    matched = bytearray(len(old))
    last = -1
    out: list[tuple[int, int]] = []
    for op in new:
        spot = next((i for i in where.get(op[0], ()) if i > last), -1)
        if spot < 0:
            out.append((op[1], op[2]))
        else:
            matched[spot] = 1
            last = spot
    out += [(op[1], op[2]) for i, op in enumerate(old) if not matched[i]]
    return out


Canvas = Image.Image | Sketch  #: what the drawing code draws on: a picture, or a sketch of one


def pen(im: Canvas) -> ImageDraw.ImageDraw | Sketch:
    """What draws shapes on ``im``: ``ImageDraw.Draw`` on a picture, the sketch itself on a sketch."""
    return im if isinstance(im, Sketch) else ImageDraw.Draw(im)


__all__ = ["Canvas", "Op", "Sketch", "changed_rows", "pen"]
