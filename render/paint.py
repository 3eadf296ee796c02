"""Drawing a ``Scene``: the static board layer (cached per map), the pieces, the panels, the PNG.

Order on a board: terrain and grid (cached), printed hamlets and tiles, the outlines of removed
buildings, the rings of a pending decision's cells, the domains' outlines (on the cell edges, in the
controller's colour), cubes (so that nothing hides an owner), the rings of what changed, then the
badges, each where it covers no cube: first what changed, then each controlled domain's tag (the
controller and the Ecus it would pay now), then the names of the cells offered for a choice. Text is pasted from cached
label sprites, so a render is mostly ``paste`` calls.

The picture is drawn in RGB and stored as a 256-colour PNG: every colour of the style, plus the
colours of a calibration picture, make one fixed palette (computed once per process, the same in
every process), and each pixel takes the nearest palette colour. That costs about 2 ms and makes
the PNG less than half the size and about 5x faster to encode than RGB, with no visible change.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from PIL import Image, ImageDraw

from rules import COLUMNS, TERRAIN_CODES, Age, Cards, Cell, Colour, Family, GameMap, Kind

from . import sprites, style
from .layout import (
    FOOTER_TITLE_H,
    HEADER_H,
    LEGEND_ROW_H,
    PLAYERS_HEAD_H,
    STOCK_ROW_H,
    WAIT_LINE_H,
    Box,
    Layout,
    board_layout,
    cube_box,
    game_layout,
    geometry,
    slot_boxes,
)
from .scene import BoardScene, DomainMark, Mark, Piece, PlayerScene, Scene
from .sketch import Canvas, pen
from .style import (
    ACTIVE_ROW,
    AGE_BAR,
    CARD,
    CHOICE,
    COIN,
    COIN_EDGE,
    FAMILY,
    GRID,
    INK,
    LABEL_H,
    LABEL_W,
    MUTED,
    PAD,
    PAGE,
    RGB,
    RULE,
    TITLE_H,
    WIDTH,
    text_bbox,
    text_length,
)

#: zlib level of the PNG (0-9): 3 is nearly as small as 6 and twice as fast for these pictures
PNG_COMPRESS_LEVEL = 3
WHITE: RGB = (255, 255, 255)


# -- text -----------------------------------------------------------------------------------------


def _paste(im: Canvas, sprite: Image.Image, x: float, y: float) -> None:
    im.paste(sprite, (round(x), round(y)), sprite)


def _text(im: Canvas, x: float, cy: float, text: str, size: int, colour: RGB, bold: bool = False,
          align: str = "l") -> int:
    """Paste ``text`` with its capitals centred on ``cy`` (descenders hang below, as in print);
    ``align`` l/m/r is the side of ``x``. Returns the text's width."""
    t = sprites.label(text, size, colour, bold)
    stroke = 1 if bold else 0
    _, cap_top, _, cap_bottom = text_bbox("H", size, stroke)
    text_top = text_bbox(text, size, stroke)[1]
    y0 = cy - (cap_bottom - cap_top) / 2 + (text_top - cap_top)
    x0 = x if align == "l" else x - t.width if align == "r" else x - t.width / 2
    _paste(im, t, x0, y0)
    return t.width


def _fit(text: str, size: int, width: float, bold: bool = False) -> str:
    """``text`` cut with an ellipsis to fit ``width`` px."""
    extra = 2 if bold else 0
    if text_length(text, size) + extra <= width:
        return text
    while text and text_length(text + "…", size) + extra > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _wrap(text: str, size: int, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if text_length(trial, size) <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


# -- the static layer of a board ------------------------------------------------------------------


@lru_cache(maxsize=12)
def board_base(game_map: GameMap, age: Age) -> Image.Image:
    """A board without its pieces: card, title bar with the Age's name, column letters above and
    below, row numbers left and right, terrain and grid. Drawn once per map and Age (bounded cache)."""
    geo = geometry(game_map)
    im = Image.new("RGB", (WIDTH, geo.board_h), PAGE)
    d = ImageDraw.Draw(im)
    d.rounded_rectangle((4, 0, WIDTH - 5, geo.board_h - 1), radius=10, fill=CARD, outline=RULE, width=1)
    d.rounded_rectangle((4, 0, WIDTH - 5, TITLE_H + 10), radius=10, fill=AGE_BAR[age])
    d.rectangle((4, TITLE_H, WIDTH - 5, TITLE_H + 10), fill=CARD)
    _text(im, PAD + 8, TITLE_H / 2, age.title.upper(), 26, (255, 250, 240), bold=True)
    gx, gy, c = geo.grid_x, TITLE_H + LABEL_H, geo.cell
    size = 17 if c >= 40 else 13
    for col in range(geo.cols):
        cx = gx + col * c + c / 2
        _text(im, cx, TITLE_H + LABEL_H / 2 + 1, COLUMNS[col], size, MUTED, bold=True, align="m")
        _text(im, cx, gy + geo.grid_h + LABEL_H / 2 - 1, COLUMNS[col], size, MUTED, bold=True, align="m")
    for row in range(geo.rows):
        cy = gy + row * c + c / 2
        _text(im, gx - LABEL_W / 2 - 1, cy, str(row + 1), size, MUTED, bold=True, align="m")
        _text(im, gx + geo.grid_w + LABEL_W / 2 + 1, cy, str(row + 1), size, MUTED, bold=True, align="m")
    for i in range(game_map.width * game_map.height):
        cell = game_map.cell(i)
        im.paste(sprites.terrain_cell(game_map.features(i), c), (gx + cell.col * c, gy + cell.row * c))
    grid = Image.new("RGBA", (geo.grid_w + 1, geo.grid_h + 1), (0, 0, 0, 0))
    gd = ImageDraw.Draw(grid)
    for col in range(geo.cols + 1):
        gd.line((col * c, 0, col * c, geo.grid_h), fill=(*GRID, 120), width=1)
    for row in range(geo.rows + 1):
        gd.line((0, row * c, geo.grid_w, row * c), fill=(*GRID, 120), width=1)
    im.paste(grid, (gx, gy), grid)
    d.rectangle((gx - 2, gy - 2, gx + geo.grid_w + 2, gy + geo.grid_h + 2), outline=(90, 80, 64), width=2)
    return im


# -- a board's pieces -----------------------------------------------------------------------------


def _style(p: Piece) -> str:
    return "ruin" if p.ruin else "renovated" if p.renovated else "intact"


def _draw_tile(im: Canvas, lay: Layout, age: Age, p: Piece) -> None:
    geo = lay.geo
    x0, y0, _, _ = lay.footprint_box(age, p.origin, p.level)
    if p.printed:
        _paste(im, sprites.printed_hamlet(geo.cell), x0, y0)
    else:
        slots = len(slot_boxes(geo, p.kind)) if age is Age.REASON and p.kind.family is Family.CIVIL else 0
        _paste(im, sprites.tile(p.kind, geo.cell, _style(p), slots), x0, y0)


def _draw_cubes(im: Canvas, lay: Layout, age: Age, p: Piece, colours: list[Colour]) -> None:
    """The control cube (Might, Faith), the renovation marker and the population cubes (Reason)."""
    geo = lay.geo
    x0, y0, _, _ = lay.footprint_box(age, p.origin, p.level)
    cube_owner = p.owner if p.owner is not None else p.marker
    if cube_owner is not None:
        bx0, by0, bx1, by1 = cube_box(geo, p.level)
        _paste(im, sprites.cube(colours[cube_owner], bx1 - bx0), x0 + bx0 - 2, y0 + by0 - 2)
        if p.marker is not None:  # a renovation half paid (R32): "1/2" under the marker cube
            _text(im, x0 + (bx0 + bx1) / 2, y0 + by1 + 11, "1/2", 15, style.INK, bold=True, align="m")
    if age is Age.REASON and p.kind.family is Family.CIVIL:
        for seat, (sx0, sy0, sx1, _) in zip(p.population, slot_boxes(geo, p.kind), strict=False):
            _paste(im, sprites.cube(colours[seat], sx1 - sx0), x0 + sx0 - 2, y0 + sy0 - 2)


def _badge_text(p: Piece) -> str:
    assert p.mark is not None
    return f"+{p.added}" if p.mark is Mark.POPULATED else p.mark.value


def _protected(lay: Layout, age: Age, p: Piece) -> list[Box]:
    """The boxes on a piece that no badge may cover: its cube (owner or marker, with the "1/2" under
    a marker) and its population slots."""
    geo = lay.geo
    x0, y0, _, _ = lay.footprint_box(age, p.origin, p.level)
    out: list[Box] = []
    if p.printed:  # its house (a printed hamlet is a building too)
        m = geo.cell // 5
        out.append((x0 + m, y0 + m, x0 + geo.cell - m, y0 + geo.cell - m))
    if p.owner is not None or p.marker is not None:
        bx0, by0, bx1, by1 = cube_box(geo, p.level)
        out.append((x0 + bx0 - 2, y0 + by0 - 2, x0 + bx1 + 2, y0 + by1 + (22 if p.marker is not None else 2)))
    if age is Age.REASON and p.kind.family is Family.CIVIL:
        out += [(x0 + a - 2, y0 + b - 2, x0 + c + 2, y0 + d + 2) for a, b, c, d in slot_boxes(geo, p.kind)]
    return out


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _overlap_area(a: Box, b: Box) -> int:
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


class _Badges:
    """Places badges one by one at the first of their candidate positions that covers no cube, no
    population slot and no badge already placed (else at the first candidate), inside the board."""

    def __init__(self, lay: Layout, age: Age, protected: list[Box]) -> None:
        gx, gy = lay.grid_origin(age)
        self.top = gy - 6  # over the column letters' row by a few pixels at most
        self.left = gx - 6
        self.right = gx + lay.geo.grid_w + 6
        self.bottom = gy + lay.geo.grid_h + 6
        self.taken = list(protected)
        self.placed: list[tuple[Image.Image, int, int]] = []

    def add(self, sprite: Image.Image, candidates: Sequence[tuple[float, float]], avoid: Sequence[Box] = (),
            least: bool = False) -> None:
        """Place ``sprite`` at the first candidate that covers nothing taken (nor ``avoid``); failing that,
        at the first candidate, or (``least``: a domain's tag, also kept above the board's foot) at the one
        that covers least."""
        boxes = []
        w, h = sprite.size
        left, top, right, bottom = self.left, self.top, self.right - w, self.bottom - h
        for x, y in candidates:
            xi = round(max(left, min(x, right)))
            yi = round(max(top, min(y, bottom) if least else y))
            boxes.append((xi, yi, xi + w, yi + h))
        # only what lies where a candidate may go needs checking
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        span = (x0, y0, x1, y1)
        near = [t for t in (*self.taken, *avoid) if _overlaps(span, t)]
        box = next((b for b in boxes if not any(_overlaps(b, t) for t in near)), None)
        if box is None:
            box = min(boxes, key=lambda b: sum(_overlap_area(b, t) for t in near)) if least else boxes[0]
        self.taken.append(box)
        self.placed.append((sprite, box[0], box[1]))

    def paste(self, im: Canvas) -> None:
        for sprite, x, y in self.placed:
            _paste(im, sprite, x, y)


#: a controlled domain's outline, just outside its cells (a tile is inset, so none is covered): the dark
#: edge reaches this far out and in, the controller's colour this far out (px at 48 px cells)
EDGE_OUT, EDGE_IN, CORE_OUT = 7, 2, 5
#: a domain without a controller: a dashed line this wide, dashes and gaps this long
DASH_W, DASH, GAP = 3, 9, 7
#: a domain's tag, px high at 48 px cells
TAG_H = 40

Segment = tuple[int, int, int, int]


def _edges(lay: Layout, age: Age, cells: tuple[Cell, ...]) -> list[Segment]:
    """The outer edges of a set of cells, as pixel segments on the grid lines."""
    gx, gy = lay.grid_origin(age)
    c = lay.geo.cell
    at = {(x.col, x.row) for x in cells}
    out: list[Segment] = []
    for cell in cells:
        x, y, col, row = gx + cell.col * c, gy + cell.row * c, cell.col, cell.row
        if (col, row - 1) not in at:
            out.append((x, y, x + c, y))
        if (col, row + 1) not in at:
            out.append((x, y + c, x + c, y + c))
        if (col - 1, row) not in at:
            out.append((x, y, x, y + c))
        if (col + 1, row) not in at:
            out.append((x + c, y, x + c, y + c))
    return out


def _band(lay: Layout, age: Age, cells: tuple[Cell, ...], out: int, inside: int) -> tuple[Box, ...]:
    """Rectangles that make a band along the outer edges of ``cells``, from ``out`` px outside the cells
    to ``inside`` px inside them (``inside`` may be negative), with the outer corners filled. Edges in
    one line are joined (fewer rectangles to draw)."""
    gx, gy = lay.grid_origin(age)
    c = lay.geo.cell
    at = {(x.col, x.row) for x in cells}
    runs: dict[tuple[str, int], list[int]] = {}  # ("up"|"down", row) -> columns; ("left"|"right", col) -> rows
    for col, row in at:
        if (col, row - 1) not in at:
            runs.setdefault(("up", row), []).append(col)
        if (col, row + 1) not in at:
            runs.setdefault(("down", row), []).append(col)
        if (col - 1, row) not in at:
            runs.setdefault(("left", col), []).append(row)
        if (col + 1, row) not in at:
            runs.setdefault(("right", col), []).append(row)
    rects: list[Box] = []
    for (side, line), spots in runs.items():
        spots.sort()
        first = prev = spots[0]
        for v in [*spots[1:], None]:
            if v is not None and v == prev + 1:
                prev = v
                continue
            # a run of edges from ``first`` to ``prev``, reaching round an outer corner at either end (at an
            # inner corner the band of the other side meets it)
            horizontal = side in ("up", "down")
            before = (first - 1, line) if horizontal else (line, first - 1)
            after = (prev + 1, line) if horizontal else (line, prev + 1)
            a = first * c - (out if before not in at else 0)
            b = (prev + 1) * c - 1 + (out if after not in at else 0)
            if side == "up":
                y = gy + line * c
                rects.append((gx + a, y - out, gx + b, y + inside - 1))
            elif side == "down":
                y = gy + (line + 1) * c
                rects.append((gx + a, y - inside, gx + b, y + out - 1))
            elif side == "left":
                x = gx + line * c
                rects.append((x - out, gy + a, x + inside - 1, gy + b))
            else:
                x = gx + (line + 1) * c
                rects.append((x - inside, gy + a, x + out - 1, gy + b))
            if v is not None:
                first = prev = v
    return tuple(rects)


def draw_domains(im: Canvas, lay: Layout, board: BoardScene, colours: list[Colour]) -> None:
    """Each domain's outline around its cells (R40), just outside them so that no tile is covered: in
    its controller's colour inside a dark edge; dark when tied controllers share it (Reason, A34);
    dashed when no one controls a domain of several buildings (a lone building without controller is
    left plain)."""
    d = pen(im)
    for box, fill in _domain_rectangles(lay, board.age, board.domains, tuple(colours)):
        d.rectangle(box, fill=fill)


#: the outlines of boards' domains remembered (a card of a board whose domains did not change draws none)
OUTLINES_KEPT = 256


@lru_cache(maxsize=OUTLINES_KEPT)
def _domain_rectangles(lay: Layout, age: Age, domains: tuple[DomainMark, ...], colours: tuple[Colour, ...]
                       ) -> tuple[tuple[Box, RGB], ...]:
    """The filled rectangles that draw the outlines of ``domains`` (``draw_domains``), in order."""
    out: list[tuple[Box, RGB]] = []
    k = lay.geo.cell / style.CELL
    edge_out, edge_in, core_out = round(EDGE_OUT * k), max(1, round(EDGE_IN * k)), max(2, round(CORE_OUT * k))
    solid = [dom for dom in domains if dom.controllers]
    for dom in solid:
        out += [(box, style.DOMAIN_EDGE) for box in _band(lay, age, dom.cells, edge_out, edge_in)]
    for dom in solid:
        if len(dom.controllers) == 1:
            fill = style.PLAYER[colours[dom.controllers[0]]]
            out += [(box, fill) for box in _band(lay, age, dom.cells, core_out, 0)]
    dash, gap, width = max(4, round(DASH * k)), max(3, round(GAP * k)), max(2, round(DASH_W * k))
    h0, h1 = width // 2, width - width // 2 - 1  # (a dash: a thick segment)
    for dom in domains:
        if dom.controllers or dom.buildings < 2:
            continue
        for x0, y0, x1, y1 in _edges(lay, age, dom.cells):
            length = max(x1 - x0, y1 - y0)
            for a in range(gap // 2, length, dash + gap):
                b = min(length, a + dash)
                sx0, sy0, sx1, sy1 = (x0 + a, y0, x0 + b, y0) if y0 == y1 else (x0, y0 + a, x0, y0 + b)
                out.append(((sx0 - h0, sy0 - h0, sx1 + h1, sy1 + h1), style.DOMAIN_NONE))
    return tuple(out)


@lru_cache(maxsize=OUTLINES_KEPT)
def _tag_places(lay: Layout, age: Age, domains: tuple[tuple[Cell, ...], ...],
                sizes: tuple[tuple[int, int] | None, ...]) -> tuple[tuple[tuple[float, float], ...], ...]:
    """For each domain (its cells), where its tag of ``sizes`` may go (``_tag_spots``; none without a
    tag)."""
    owner = {(x.col, x.row): j for j, cells in enumerate(domains) for x in cells}
    return tuple(_tag_spots(lay, age, domains, owner, k, size) if size is not None else ()
                 for k, size in enumerate(sizes))


def _tag_spots(lay: Layout, age: Age, domains: tuple[tuple[Cell, ...], ...], owner: dict[tuple[int, int], int],
               k: int, size: tuple[int, int]) -> tuple[tuple[float, float], ...]:
    """Where the tag (of ``size``) of the domain ``k`` (of the board's ``domains``' cells) may go: just
    above the top edge of its cells in reading order (the cell above is empty: no other domain touches
    this one), then just below their bottom edge, then beside them; those that come near another
    domain's cells last. The first that covers nothing is taken, else the one that covers least.
    ``owner``: the domain (its place in ``domains``) of each cell, by column and row."""
    tag_w, tag_h = size
    dom_cells = domains[k]
    at = {(x.col, x.row) for x in dom_cells}
    top: list[tuple[float, float]] = []
    bottom: list[tuple[float, float]] = []
    sides: list[tuple[float, float]] = []
    for cell in dom_cells[:10]:  # (reading order: the tag goes near the top)
        x0, y0, x1, y1 = lay.cell_box(age, cell)
        if (cell.col, cell.row - 1) not in at:
            top += [(x0 - 2, y0 - tag_h + 4), (x1 - tag_w + 2, y0 - tag_h + 4)]
        if (cell.col, cell.row + 1) not in at:
            bottom += [(x0 - 2, y1 - 4), (x1 - tag_w + 2, y1 - 4)]
        if (cell.col - 1, cell.row) not in at:
            sides.append((x0 - tag_w + 4, y0 + 4))
        if (cell.col + 1, cell.row) not in at:
            sides.append((x1 - 4, y0 + 4))
    gx, gy = lay.grid_origin(age)
    c = lay.geo.cell
    margin = c // 5

    w, h = tag_w + margin, tag_h + margin
    clear: list[tuple[float, float]] = []
    near: list[tuple[float, float]] = []
    for spot in top + bottom + sides:
        x, y = spot[0] - margin - gx, spot[1] - margin - gy
        cols = range(int(x // c), int((x + w + margin) // c) + 1)
        rows = range(int(y // c), int((y + h + margin) // c) + 1)
        (near if any(owner.get((col, row), k) != k for col in cols for row in rows) else clear).append(spot)
    return (*clear, *near)


def _name_band(lay: Layout, age: Age, p: Piece) -> Box:
    """The strip at the foot of a 2x2 or 3x3 tile with its name (and RUIN or RENOVATED band)."""
    x0, _, x1, y1 = lay.footprint_box(age, p.origin, p.level)
    return (x0 + 4, y1 - lay.geo.cell * 2 // 5, x1 - 4, y1 - 2)


def _ring_foot(lay: Layout, age: Age, p: Piece) -> Box:
    """The foot of a changed building's ring (its badge sits at the top)."""
    x0, _, x1, y1 = lay.footprint_box(age, p.origin, p.level)
    return (x0 - 2, y1 - 6, x1 + 2, y1 + 3)


def _inner(lay: Layout, age: Age, p: Piece) -> Box:
    """The middle of a 1x1 tile (a tag covering it would hide the tile)."""
    x0, y0, x1, y1 = lay.footprint_box(age, p.origin, p.level)
    return (x0 + 10, y0 + 10, x1 - 10, y1 - 10)


def domain_tag(dom: DomainMark, colours: list[Colour], cell: int) -> Image.Image:
    return sprites.domain_tag(tuple(colours[p] for p in dom.controllers), dom.value,
                              max(18, round(TAG_H * cell / style.CELL)))


def draw_board(im: Canvas, lay: Layout, board: BoardScene, scene: Scene) -> None:
    """Everything on one board that changes during a game, over its cached static layer."""
    age = board.age
    cell = lay.geo.cell
    colours = [pl.colour for pl in scene.players]
    k = 0  # pawns in the title bar, right-aligned, seat order read left to right
    for pl in reversed(scene.players):
        for idx in (1, 0):
            if pl.pawns[idx] is age:
                x0, y0, _, _ = lay.pawn_box(age, k)
                _paste(im, sprites.pawn(pl.colour, pl.moved[idx]), x0, y0)
                k += 1
    for p in board.pieces:
        _draw_tile(im, lay, age, p)
    occupied = {(p.origin.col + dc, p.origin.row + dr) for p in board.pieces
                for dr in range(p.level) for dc in range(p.level)}
    badges = _Badges(lay, age, [b for p in board.pieces for b in _protected(lay, age, p)])
    gone: list[tuple[Box, bool]] = []
    for g in board.ghosts:  # under the cubes, so that an owner stays readable
        x0, y0, x1, y1 = lay.footprint_box(age, g.origin, g.kind.level)
        covered = any((g.origin.col + dc, g.origin.row + dr) in occupied
                      for dr in range(g.kind.level) for dc in range(g.kind.level))
        _paste(im, sprites.ghost(x1 - x0, removed=not g.downsized, cross=not covered), x0, y0)
        if not g.downsized:
            gone.append(((x0, y0, x1, y1), covered))
    # a cell offered inside a building of 2×2 or more (where its smaller building goes, or which building
    # is downsized): one ring around the building, which stays whole, rather than one in each cell
    hosts = {c: p for c in board.choices for p in board.pieces
             if p.level >= 2 and 0 <= c.col - p.origin.col < p.level and 0 <= c.row - p.origin.row < p.level}
    for c in board.choices:  # under the cubes too
        if c not in hosts:
            x0, y0, _, _ = lay.cell_box(age, c)
            _paste(im, sprites.choice(cell), x0, y0)
    for p in {id(p): p for p in hosts.values()}.values():
        x0, y0, x1, y1 = lay.footprint_box(age, p.origin, p.level)
        _paste(im, sprites.ring(x1 - x0, "choice"), x0 - sprites.RING_OUT, y0 - sprites.RING_OUT)
    draw_domains(im, lay, board, colours)
    for p in board.pieces:
        _draw_cubes(im, lay, age, p, colours)
    for p in board.pieces:
        if p.mark is None:
            continue
        x0, y0, x1, y1 = lay.footprint_box(age, p.origin, p.level)
        _paste(im, sprites.ring(x1 - x0, "new"), x0 - sprites.RING_OUT, y0 - sprites.RING_OUT)
        b = sprites.badge(_badge_text(p), "new")
        h = b.height
        badges.add(b, [(x0 - 4, y0 - h + 3), (x0 + 3, y0 + 3), (x0 - 4, y1 - 6), (x0 + 3, y1 - h - 3),
                       (x1 - b.width + 4, y1 - 6)])
    for (x0, y0, x1, y1), covered in gone:
        b = sprites.badge("GONE", "gone")
        mid = (x0 + x1 - b.width) / 2
        if covered:  # under what replaced it: on the outline
            badges.add(b, [(mid, y0 - b.height / 2), (mid, y1 - b.height / 2), (x0 - 4, (y0 + y1 - b.height) / 2)])
        else:
            badges.add(b, [(mid, y1 - b.height + 3), (mid, y0 - b.height / 2)])
    # then each domain's tag, clear of a tile's name, a change's ring and the cells offered for a choice
    # (a lone building worth nothing has none: its cube says who holds it)
    names = [_name_band(lay, age, p) if p.level >= 2 else _inner(lay, age, p) for p in board.pieces]
    names += [_ring_foot(lay, age, p) for p in board.pieces if p.mark is not None]
    names += [lay.cell_box(age, c) for c in board.choices]
    tags = [domain_tag(dom, colours, cell) if dom.controllers and (dom.value != 0 or dom.buildings > 1) else None
            for dom in board.domains]
    spots = _tag_places(lay, age, tuple(dom.cells for dom in board.domains),
                        tuple(tag.size if tag is not None else None for tag in tags))
    for tag, places in zip(tags, spots, strict=True):
        if tag is not None:
            badges.add(tag, places, names, least=True)
    for c in board.choices:  # the cell name inside the cell, clear of cubes
        x0, y0, x1, y1 = lay.cell_box(age, c)
        b = sprites.badge(str(c), "choice", size=13)
        at: list[tuple[float, float]] = [(x0 + 1, y1 - b.height - 1), (x1 - b.width - 1, y1 - b.height - 1),
                                         (x0 + 1, y0 + 1)]
        host = hosts.get(c)
        if host is not None:  # (on a building: in the cell's corner farthest from its middle, clear of its picture)
            f0, g0, f1, g1 = lay.footprint_box(age, host.origin, host.level)
            cx, cy = (f0 + f1) / 2, (g0 + g1) / 2
            corners: list[tuple[float, float]] = [(x0 + 2, y0 + 2), (x1 - b.width - 2, y0 + 2),
                                                  (x0 + 2, y1 - b.height - 2), (x1 - b.width - 2, y1 - b.height - 2)]
            at = sorted(corners, key=lambda q: -((q[0] + b.width / 2 - cx) ** 2 + (q[1] + b.height / 2 - cy) ** 2))
            # (the cell the owner's cube fills, top right: just under the cube; else on the building's edge
            # by the cell, like a tab; else beside it)
            if x1 >= f1 - 1 and y0 <= g0 + 1:
                at.append((x1 - b.width - 2, g0 + cube_box(lay.geo, host.level)[3] + 4))
            at += [q for q, edge in ((((x1 - b.width - 2), g0 - b.height + 3), y0 <= g0 + 1),
                                     (((x1 - b.width - 2), g1 - 3), y1 >= g1 - 1)) if edge]
            at += [q for q, edge in (((x1 + 4, (y0 + y1 - b.height) / 2), x1 >= f1 - 1),
                                     (((x0 + x1 - b.width) / 2, g0 - b.height - 4), y0 <= g0 + 1),
                                     ((x0 - b.width - 4, (y0 + y1 - b.height) / 2), x0 <= f0 + 1),
                                     (((x0 + x1 - b.width) / 2, y1 + 4), y1 >= g1 - 1)) if edge]
        badges.add(b, at)
    _draw_areas(im, lay, board, badges, names)
    badges.paste(im)


def _draw_areas(im: Canvas, lay: Layout, board: BoardScene, badges: _Badges, names: Sequence[Box]) -> None:
    """A list of the board's areas: each area boxed, with how many places it holds in its middle (or
    above or below it, clear of a tile's name)."""
    d = pen(im)
    for first, last, count in board.areas:
        x0, y0, _, _ = lay.cell_box(board.age, first)
        _, _, x1, y1 = lay.cell_box(board.age, last)
        d.rectangle((x0 + 2, y0 + 2, x1 - 2, y1 - 2), outline=CHOICE, width=4)
        b = sprites.badge(f"{count} {'place' if count == 1 else 'places'}", "choice", size=22)
        mx, my = (x0 + x1 - b.width) / 2, (y0 + y1 - b.height) / 2
        badges.add(b, [(mx, my), (mx, y0 + 6), (mx, y1 - b.height - 6), (x0 + 6, my), (x1 - b.width - 6, my)],
                   names)


# -- header and players ---------------------------------------------------------------------------


def draw_header(im: Image.Image, lay: Layout, scene: Scene) -> None:
    """Round track (rounds 4 and 7 marked as income rounds), whose turn, and any pending decision."""
    d = ImageDraw.Draw(im)
    cy = 28
    _text(im, PAD + 4, cy, "Round", 20, INK, bold=True)
    x, box = PAD + 80, 36
    for r in range(1, scene.rounds + 1):
        bx = x + (r - 1) * (box + 6)
        current = r == scene.round and not scene.finished
        past = r < scene.round or scene.finished
        income = r in scene.income_rounds
        fill = INK if current else (222, 214, 198) if past else CARD
        edge = COIN_EDGE if income else (150, 140, 120)
        d.rounded_rectangle((bx, 10, bx + box, 10 + box), radius=7, fill=fill, outline=edge, width=3 if income else 2)
        _text(im, bx + box / 2, cy, str(r), 20, WHITE if current else MUTED if past else INK, bold=True, align="m")
        if income:
            d.ellipse((bx + box - 9, 4, bx + box + 5, 18), fill=COIN, outline=COIN_EDGE, width=2)
            _text(im, bx + box / 2, 56, "income", 12, COIN_EDGE, bold=True, align="m")
    right = lay.width - PAD - 4
    room = right - (x + scene.rounds * (box + 6) + 20)
    if scene.finished:
        names = ", ".join(p.name for p in scene.players if p.winner) or "-"
        _text(im, right, cy, _fit(f"Game over - won by {names}", 20, room, bold=True), 20, INK, bold=True, align="r")
    else:
        active = next((p for p in scene.players if p.active), None)
        if active is not None:
            w = _text(im, right, cy, _fit(active.name, 22, room - 100, bold=True), 22, INK, bold=True, align="r")
            cube_x = right - w - 10 - 28
            _paste(im, sprites.cube(active.colour, 28), cube_x - 2, cy - 16)
            _text(im, cube_x - 8, cy, "Turn:", 18, MUTED, bold=True, align="r")
    if scene.waiting:
        y = HEADER_H
        b = sprites.badge("WAITING", "choice", size=14)
        _paste(im, b, PAD + 4, y + (WAIT_LINE_H - b.height) / 2)
        for i, line in enumerate(_wait_text(scene)):
            _text(im, PAD + b.width + 14, y + i * WAIT_LINE_H + WAIT_LINE_H / 2, line, WAIT_SIZE, INK)


WAIT_SIZE = 20  #: the pending decision's text


def _wait_text(scene: Scene) -> list[str]:
    if not scene.waiting:
        return []
    lines = _wrap(scene.waiting, WAIT_SIZE, WIDTH - 2 * PAD - 110)
    if len(lines) > 3:
        lines = [*lines[:2], _fit(" ".join(lines[2:]), WAIT_SIZE, WIDTH - 2 * PAD - 110)]
    return lines


#: column centres (names: left edge) of the players' panel
_COLS = {"name": 66, "ecus": 420, "cubes": 510, "cards": 600, "pawns": 690}


def draw_players(im: Image.Image, lay: Layout, scene: Scene) -> None:
    """One row per seat: cube and name, Ecus (or ? when secret), cubes left, cards in hand, pawns."""
    assert lay.players_y is not None
    head = lay.players_y + PLAYERS_HEAD_H / 2 + 1
    _text(im, PAD + _COLS["name"], head, "Player", 15, MUTED, bold=True)
    for key, title in (("ecus", "Ecus"), ("cubes", "Cubes left"), ("cards", "Cards"), ("pawns", "Pawns")):
        _text(im, PAD + _COLS[key], head, title, 15, MUTED, bold=True, align="m")
    d = ImageDraw.Draw(im)
    for p in scene.players:
        _player_row(im, d, lay.player_row(p.seat), p)


def _player_row(im: Image.Image, d: ImageDraw.ImageDraw, box: Box, p: PlayerScene) -> None:
    x0, y0, x1, y1 = box
    cy = (y0 + y1) / 2
    if p.active:
        d.rounded_rectangle((x0, y0 + 2, x1, y1 - 2), radius=8, fill=ACTIVE_ROW, outline=(220, 180, 60), width=2)
        d.polygon([(x0 + 5, cy - 8), (x0 + 15, cy), (x0 + 5, cy + 8)], fill=INK)
    else:
        d.line((x0, y1 - 1, x1, y1 - 1), fill=RULE, width=1)
    _paste(im, sprites.cube(p.colour, 28), x0 + 20, cy - 16)
    badges = [(t, k) for t, k, on in (("WINNER", "new", p.winner), ("DECIDES", "choice", p.deciding)) if on]
    suffix = " (you)" if p.viewer else ""
    room = _COLS["ecus"] - 40 - _COLS["name"] - sum(sprites.badge(t, k).width + 6 for t, k in badges)
    room -= round(text_length(suffix, 18)) if suffix else 0
    x = x0 + _COLS["name"]
    x += _text(im, x, cy, _fit(p.name, 20, room, bold=True), 20, INK, bold=True)
    if suffix:
        x += _text(im, x, cy, suffix, 18, MUTED)
    x += 8
    for text, kind in badges:
        b = sprites.badge(text, kind)
        _paste(im, b, x, cy - b.height / 2)
        x += b.width + 6
    if p.ecus is None:
        _text(im, x0 + _COLS["ecus"], cy, "?", 22, MUTED, bold=True, align="m")
    else:
        _text(im, x0 + _COLS["ecus"], cy, str(p.ecus), 22, INK, bold=True, align="m")
    _text(im, x0 + _COLS["cubes"], cy, str(p.supply), 22, INK, bold=True, align="m")
    _text(im, x0 + _COLS["cards"], cy, str(p.cards), 22, INK, bold=True, align="m")
    for idx, age in enumerate(p.pawns):
        bx = x0 + _COLS["pawns"] - 37 + idx * 40
        edge = style.NEW if p.moved[idx] else AGE_BAR[age]
        d.rounded_rectangle((bx, cy - 13, bx + 34, cy + 13), radius=6, fill=AGE_BAR[age], outline=edge, width=3)
        _text(im, bx + 17, cy, age.letter, 18, WHITE, bold=True, align="m")


# -- footer: stock and legend ---------------------------------------------------------------------


@lru_cache(maxsize=16)
def mini_tile(kind: Kind, size: int) -> Image.Image:
    """A small square tile with the kind's pictogram (stock table, legend)."""
    fam = FAMILY[kind.family]
    s = sprites.SS
    big = Image.new("RGBA", (size * s, size * s), (0, 0, 0, 0))
    ImageDraw.Draw(big).rounded_rectangle((0, 0, size * s - 1, size * s - 1), radius=5 * s, fill=(*fam.fill, 255),
                                          outline=(*fam.edge, 255), width=2 * s + s // 2)
    inner = round(size * s * 0.72)
    big.alpha_composite(sprites.icon_layer(kind, inner, (*fam.ink, 255)), ((size * s - inner) // 2,) * 2)
    return big.convert("RGBa").reduce(s).convert("RGBA")


LegendItem = tuple[Image.Image, str]


def _legend_items(full: bool) -> list[list[LegendItem]]:
    """The legend's groups; each group starts a new line."""
    terrain: list[LegendItem] = [
        (sprites.terrain_cell(TERRAIN_CODES[code], 30), name)
        for code, name in ((".", "Plain"), ("f", "Forest"), ("m", "Mountain"), ("~", "River"), ("M", "Mixed"))
    ]
    pieces: list[LegendItem] = [
        (sprites.printed_hamlet(32), "Printed hamlet"),
        (mini_tile(Kind.HAMLET, 30), "Hamlet tile"),
        (sprites.tile(Kind.KEEP, 22, "ruin"), "Ruin"),
        (sprites.tile(Kind.KEEP, 22, "renovated"), "Renovated"),
        (sprites.cube(Colour.RED, 22), "Owner (M, F) / population (R)"),
    ]
    economy = economy_legend(None)
    changes: list[LegendItem] = [
        (sprites.badge("NEW", "new"), "built"),
        (sprites.badge("UP", "new"), "upgraded"),
        (sprites.badge("DOWN", "new"), "downsized"),
        (sprites.badge("GONE", "gone"), "removed"),
        (sprites.badge("+1", "new"), "populated"),
        (sprites.badge("1/2", "new"), "renovation begun"),
        (sprites.pawn(Colour.GREEN, True), "travelled"),
        (sprites.badge("C4", "choice", size=13), "a choice to make"),
    ]
    if full:
        return [terrain, pieces, economy, changes]
    return [terrain, economy, [pieces[0], pieces[2], pieces[4]], changes]


def economy_legend(age: Age | None, size: int = 26, short: bool = False) -> list[LegendItem]:
    """The marks of the economy (R40, R74–R76), and on one Age's card the pieces a reader must tell
    apart there: a domain's outline in its controller's colour, a domain no one controls, the tag with
    the controller and the Ecus the domain would pay now; with ``age``, also the printed hamlet, the
    ruin (Reason) and what a cube means on that board."""
    if short:
        who = "majority" if age is Age.REASON else "controller"
        words = ("domain (dark: tied)" if age is Age.REASON else "domain", "no controller", f"{who}, Ecus now")
    else:
        words = ("Domain, in its controller's colour (dark when tied)", "Domain no one controls",
                 "Controller (on Reason the cube majority) and the Ecus it pays now")
    out: list[LegendItem] = [
        (sprites.domain_sample(Colour.RED, size), words[0]),
        (sprites.domain_sample(None, size), words[1]),
        (sprites.domain_tag((Colour.RED,), 3, size + 4), words[2]),
    ]
    if age is None:
        return out
    out.append((sprites.printed_hamlet(size + 4), "printed hamlet"))
    if age is Age.REASON:
        out.append((sprites.tile(Kind.KEEP, (size + 4) // 2, "ruin"), "ruin"))
        out.append((sprites.cube(Colour.RED, size - 6), "population"))
    else:
        out.append((sprites.cube(Colour.RED, size - 6), "owner"))
    return out


def _flow(groups: list[list[LegendItem]], width: int) -> list[list[LegendItem]]:
    rows: list[list[LegendItem]] = []
    for group in groups:
        row: list[LegendItem] = []
        x = 0
        for sprite, text in group:
            w = sprite.width + 6 + round(text_length(text, 15)) + 18
            if row and x + w > width:
                rows.append(row)
                row, x = [], 0
            row.append((sprite, text))
            x += w
        rows.append(row)
    return rows


def _legend_rows(full: bool) -> list[list[LegendItem]]:
    return _flow(_legend_items(full), WIDTH - 2 * PAD - 8)


def footer_height(full: bool) -> int:
    rows = len(_legend_rows(full))
    if full:
        return FOOTER_TITLE_H + 3 * STOCK_ROW_H + 12 + rows * LEGEND_ROW_H + 8
    return rows * LEGEND_ROW_H + 8


def draw_footer(im: Image.Image, lay: Layout, scene: Scene) -> None:
    y = lay.footer_y
    if lay.full_footer:
        mid = y + FOOTER_TITLE_H / 2
        _text(im, PAD + 4, mid, "Tiles in stock", 18, INK, bold=True)
        right: float = lay.width - PAD - 4
        if scene.reserve is not None:
            right = _reserve(im, right, mid, scene.reserve)
        _text(im, right, mid, f"Deck {scene.deck}  ·  Discard {scene.discard}", 16, MUTED, bold=True, align="r")
        y += FOOTER_TITLE_H
        colw = (lay.width - 2 * PAD) // 3
        counts = dict(scene.stock)
        for r, fam in enumerate((Family.MILITARY, Family.RELIGIOUS, Family.CIVIL)):
            for lvl in (1, 2, 3):
                kind = Kind.of(fam, lvl)
                x = PAD + (lvl - 1) * colw
                cy = y + r * STOCK_ROW_H + STOCK_ROW_H / 2
                _paste(im, mini_tile(kind, 32), x + 2, cy - 16)
                _text(im, x + 42, cy, kind.value, 18, INK)
                n = counts[kind]
                _text(im, x + colw - 16, cy, str(n), 20, INK if n else (200, 30, 30), bold=True, align="r")
        y += 3 * STOCK_ROW_H + 6
        ImageDraw.Draw(im).line((PAD, y, lay.width - PAD, y), fill=RULE, width=1)
        y += 6
    for r, items in enumerate(_legend_rows(lay.full_footer)):
        cy = y + r * LEGEND_ROW_H + LEGEND_ROW_H / 2
        x = PAD + 4
        for sprite, text in items:
            _paste(im, sprite, x, cy - sprite.height / 2)
            x += sprite.width + 6
            x += _text(im, x, cy, text, 15, INK) + 18


def _reserve(im: Image.Image, right: float, cy: float, reserve: Cards) -> float:
    """The Hold'em reserve (R33), face up: small cards in the family colours, right-aligned. Returns
    the x where the next text should end."""
    d = ImageDraw.Draw(im)
    x = right
    for fam in reversed(reserve.families()):
        c = FAMILY[fam]
        d.rounded_rectangle((x - 20, cy - 13, x, cy + 13), radius=3, fill=c.fill, outline=c.edge, width=2)
        _text(im, x - 10, cy, fam.value, 15, c.ink, bold=True, align="m")
        x -= 24
    w = _text(im, x - 4, cy, "Reserve", 16, MUTED, bold=True, align="r")
    return x - 4 - w - 24


# -- whole pictures -------------------------------------------------------------------------------


def layout_for(scene: Scene, age: Age | None = None) -> Layout:
    """The layout of the whole-game picture (``age`` None) or of one board's picture."""
    lines = len(_wait_text(scene))
    if age is None:
        return game_layout(scene.map, len(scene.players), lines, footer_height(True))
    return board_layout(scene.map, age, len(scene.players), lines, footer_height(False))


def paint_game(scene: Scene) -> Image.Image:
    lay = layout_for(scene)
    im = Image.new("RGB", (lay.width, lay.height), PAGE)
    draw_header(im, lay, scene)
    draw_players(im, lay, scene)
    for board in scene.boards:
        im.paste(board_base(scene.map, board.age), (0, lay.board_top(board.age)))
        draw_board(im, lay, board, scene)
    draw_footer(im, lay, scene)
    return im


def paint_board(scene: Scene, age: Age) -> Image.Image:
    lay = layout_for(scene, age)
    im = Image.new("RGB", (lay.width, lay.height), PAGE)
    draw_header(im, lay, scene)
    im.paste(board_base(scene.map, age), (0, lay.board_top(age)))
    draw_board(im, lay, scene.boards[age], scene)
    draw_footer(im, lay, scene)
    return im


# -- PNG ------------------------------------------------------------------------------------------


def _style_colours() -> list[RGB]:
    """Every flat colour the style uses: these stay exact in the palette."""
    out: list[RGB] = [PAGE, INK, MUTED, RULE, CARD, GRID, ACTIVE_ROW, COIN, COIN_EDGE, WHITE, (0, 0, 0),
                      style.NEW, style.GONE, style.CHOICE, style.CUBE_EDGE, style.RUIN_FILL, style.RUIN_HATCH,
                      style.RUIN_INK, style.RUIN_BAND, (222, 214, 198), (90, 80, 64), (200, 30, 30)]
    out += list(AGE_BAR.values())
    for fam in FAMILY.values():
        out += [fam.fill, fam.edge, fam.ink]
    out += list(style.PLAYER.values()) + list(style.TERRAIN_FILL.values()) + list(style.TERRAIN_INK.values())
    return list(dict.fromkeys(out))


@lru_cache(maxsize=1)
def palette() -> Image.Image:
    """The fixed 256-colour palette: the style's colours, then the 256-n colours (fast octree) that
    best cover a calibration picture (the demo position with a pending choice on every board).
    Deterministic: the same in every process."""
    from .demo import late_game
    from .scene import make_scene

    state, events = late_game()
    scene = make_scene(state, None, events)
    choices = (Cell(7, 5), Cell(3, 1), Cell(12, 8), Cell(9, 10))
    might, faith, reason = (replace(b, choices=choices) for b in scene.boards)
    scene = replace(scene, boards=(might, faith, reason), waiting="calibration")
    calib = paint_game(scene)
    exact = _style_colours()
    octree = calib.quantize(256 - len(exact), method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    flat: list[int] = [v for c in exact for v in c]
    flat += (octree.getpalette() or [])[: 3 * (256 - len(exact))]
    flat += [0] * (768 - len(flat))
    pal = Image.new("P", (1, 1))
    pal.putpalette(flat)
    return pal


def encode(im: Image.Image) -> bytes:
    """PNG bytes of ``im`` in the fixed palette; the same image always gives the same bytes (no
    timestamp, fixed settings)."""
    indexed = im.quantize(palette=palette(), dither=Image.Dither.NONE)
    buf = io.BytesIO()
    indexed.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue()
