"""Where everything goes: the geometry shared by the drawing code and the tests.

A picture is a column of blocks, all ``WIDTH`` pixels wide: a header (round track, whose turn,
any pending decision), the players' panel, the boards stacked Might, Faith, Reason (each with its
title bar, column letters above and below, row numbers left and right), and a footer (stock and
legend). The single-board picture keeps the header, one board and a short legend.

Boxes are ``(x0, y0, x1, y1)`` with ``x1``/``y1`` exclusive.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules import Age, Cell, GameMap, Kind

from .style import BOARD_GAP, CELL, LABEL_H, LABEL_W, PAD, TILE_INSET, TITLE_H, WIDTH

Box = tuple[int, int, int, int]

HEADER_H = 70  #: round track and turn line
WAIT_LINE_H = 27  #: one line of the pending-decision text
PLAYERS_HEAD_H = 24  #: column titles of the players' panel
PLAYER_ROW_H = 42
STOCK_ROW_H = 40
FOOTER_TITLE_H = 32
LEGEND_ROW_H = 40
PAWN_W, PAWN_H = 30, 38


@dataclass(frozen=True, slots=True)
class Geometry:
    """A map's board geometry: the cell size (48 px for maps up to 15 columns) and the grid's place."""

    cols: int
    rows: int
    cell: int
    grid_x: int  # left edge of column A
    board_h: int  # title bar + letters + grid + letters

    @property
    def grid_w(self) -> int:
        return self.cols * self.cell

    @property
    def grid_h(self) -> int:
        return self.rows * self.cell


def geometry(game_map: GameMap) -> Geometry:
    """The grid fills the width between the row-number columns; cells are at most ``CELL`` px."""
    room = WIDTH - 2 * (PAD + LABEL_W)
    cell = max(16, min(CELL, room // game_map.width))
    grid_x = (WIDTH - cell * game_map.width) // 2
    return Geometry(game_map.width, game_map.height, cell, grid_x, TITLE_H + 2 * LABEL_H + game_map.height * cell)


def scale(geo: Geometry, v: float) -> int:
    """A length designed for 48 px cells, at this geometry's cell size."""
    return round(v * geo.cell / CELL)


# -- inside a tile (positions relative to the footprint's top-left pixel) -----------------------------


def cube_box(geo: Geometry, level: int) -> Box:
    """The owner's control cube (Might, Faith) or the renovation marker (Reason): top-right corner."""
    size = scale(geo, {1: 22, 2: 28, 3: 32}[level])
    span = level * geo.cell
    x1 = span - TILE_INSET - scale(geo, 3)
    y0 = TILE_INSET + scale(geo, 3)
    return (x1 - size, y0, x1, y0 + size)


def slot_boxes(geo: Geometry, kind: Kind) -> list[Box]:
    """The population slots of a Civil building on Reason (R31 caps: Hamlet 1, Town 3, City 5),
    along the bottom of the tile (bottom-right corner for a Hamlet)."""
    cap = {Kind.HAMLET: 1, Kind.TOWN: 3, Kind.CITY: 5}[kind]
    span = kind.level * geo.cell
    size = scale(geo, {1: 20, 2: 24, 3: 22}[kind.level])
    gap = scale(geo, 4)
    bottom = span - TILE_INSET - scale(geo, 4)
    if cap == 1:
        x1 = span - TILE_INSET - scale(geo, 3)
        return [(x1 - size, bottom - size, x1, bottom)]
    total = cap * size + (cap - 1) * gap
    x0 = (span - total) // 2
    return [(x0 + i * (size + gap), bottom - size, x0 + i * (size + gap) + size, bottom) for i in range(cap)]


# -- whole pictures -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Layout:
    """The vertical arrangement of one picture."""

    geo: Geometry
    width: int
    height: int
    wait_lines: int
    players_y: int | None  # None: no players' panel (single-board picture)
    n_players: int
    board_y: tuple[int | None, int | None, int | None]  # top of each board block, None if not drawn
    footer_y: int
    full_footer: bool  # stock table and full legend (whole-game picture)

    # -- boards --------------------------------------------------------------------------------------
    def board_top(self, age: Age) -> int:
        y = self.board_y[age]
        if y is None:
            raise ValueError(f"{age.title} is not in this picture")
        return y

    def grid_origin(self, age: Age) -> tuple[int, int]:
        return self.geo.grid_x, self.board_top(age) + TITLE_H + LABEL_H

    def cell_box(self, age: Age, cell: Cell) -> Box:
        x, y = self.grid_origin(age)
        c = self.geo.cell
        return (x + cell.col * c, y + cell.row * c, x + (cell.col + 1) * c, y + (cell.row + 1) * c)

    def footprint_box(self, age: Age, origin: Cell, level: int) -> Box:
        x0, y0, _, _ = self.cell_box(age, origin)
        span = level * self.geo.cell
        return (x0, y0, x0 + span, y0 + span)

    def pawn_box(self, age: Age, index: int) -> Box:
        """The ``index``-th pawn (in seat order) in the board's title bar, from the right."""
        y0 = self.board_top(age) + (TITLE_H - PAWN_H) // 2
        x1 = self.width - PAD - 6 - index * (PAWN_W + 6)
        return (x1 - PAWN_W, y0, x1, y0 + PAWN_H)

    # -- players' panel --------------------------------------------------------------------------------
    def player_row(self, seat: int) -> Box:
        if self.players_y is None:
            raise ValueError("this picture has no players' panel")
        y = self.players_y + PLAYERS_HEAD_H + seat * PLAYER_ROW_H
        return (PAD, y, self.width - PAD, y + PLAYER_ROW_H)


def _header_h(wait_lines: int) -> int:
    return HEADER_H + (wait_lines * WAIT_LINE_H + 8 if wait_lines else 0)


def players_h(n: int) -> int:
    return PLAYERS_HEAD_H + n * PLAYER_ROW_H + 10


def game_layout(game_map: GameMap, n_players: int, wait_lines: int, footer_h: int) -> Layout:
    """Header, players' panel, Might, Faith, Reason, footer (``footer_h`` px: stock and legend)."""
    geo = geometry(game_map)
    players_y = _header_h(wait_lines)
    y = players_y + players_h(n_players)
    tops: list[int] = []
    for _ in Age:
        tops.append(y)
        y += geo.board_h + BOARD_GAP
    return Layout(geo, WIDTH, y + footer_h, wait_lines, players_y, n_players, (tops[0], tops[1], tops[2]), y, True)


def board_layout(game_map: GameMap, age: Age, n_players: int, wait_lines: int, footer_h: int) -> Layout:
    """Header, one board, footer (``footer_h`` px: a short legend)."""
    geo = geometry(game_map)
    top = _header_h(wait_lines)
    tops: list[int | None] = [None, None, None]
    tops[age] = top
    footer_y = top + geo.board_h + BOARD_GAP
    return Layout(geo, WIDTH, footer_y + footer_h, wait_lines, None, n_players, (tops[0], tops[1], tops[2]),
                  footer_y, False)
