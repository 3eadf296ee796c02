"""Maps: grid size, terrain per cell and printed hamlets, shared by the three boards (R1; ruling A2).

A map file is plain text (see ``rules/maps/default.map`` and ``docs/map.md``)::

    name: The Valley
    size: 15x12
    grid:
    ...............
    ..f~...         (one line per row, one character per cell)
    hamlets: C2 E5 ...

Terrain codes: ``.`` plain, ``f`` forest, ``m`` mountain, ``~`` river, and the mixed cells
``F`` plain+forest, ``M`` forest+mountain, ``P`` plain+mountain, ``R`` river+forest,
``W`` river+plain. A cell is classified by R36: river beats mountain beats forest beats plain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from importlib import resources

from .errors import NotationError


class Terrain(Enum):
    """How a cell counts for construction (R36)."""

    PLAIN = "plain"
    FOREST = "forest"
    MOUNTAIN = "mountain"
    RIVER = "river"


#: Map code -> the terrain features drawn in that cell.
TERRAIN_CODES: dict[str, frozenset[Terrain]] = {
    ".": frozenset({Terrain.PLAIN}),
    "f": frozenset({Terrain.FOREST}),
    "m": frozenset({Terrain.MOUNTAIN}),
    "~": frozenset({Terrain.RIVER}),
    "F": frozenset({Terrain.PLAIN, Terrain.FOREST}),
    "M": frozenset({Terrain.FOREST, Terrain.MOUNTAIN}),
    "P": frozenset({Terrain.PLAIN, Terrain.MOUNTAIN}),
    "R": frozenset({Terrain.RIVER, Terrain.FOREST}),
    "W": frozenset({Terrain.RIVER, Terrain.PLAIN}),
}
CODE_OF_FEATURES: dict[frozenset[Terrain], str] = {v: k for k, v in TERRAIN_CODES.items()}

COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def classify(features: frozenset[Terrain]) -> Terrain:
    """R36: any river makes a river cell; otherwise any mountain; otherwise any forest; else plain."""
    for terrain in (Terrain.RIVER, Terrain.MOUNTAIN, Terrain.FOREST):
        if terrain in features:
            return terrain
    return Terrain.PLAIN


class MapError(ValueError):
    """A map file that cannot be loaded; the message names the file, the line and the fix."""


@dataclass(frozen=True, slots=True)
class Cell:
    """A grid cell: column (0 = A) and row (0 = row 1). ``Cell.parse("C4")``, ``str(cell) == "C4"``."""

    col: int
    row: int

    @staticmethod
    def parse(text: str) -> Cell:
        """Parse ``C4`` (case-insensitive). Raises ``NotationError`` with an example on bad input."""
        m = re.fullmatch(r"\s*([A-Za-z])\s*([1-9]\d?)\s*", text)
        if not m:
            raise NotationError(f"{text.strip()!r} is not a cell: write a column letter and a row number, e.g. C4")
        return Cell(COLUMNS.index(m.group(1).upper()), int(m.group(2)) - 1)

    def __str__(self) -> str:
        return f"{COLUMNS[self.col]}{self.row + 1}"

    def __lt__(self, other: Cell) -> bool:
        """Reading order: row by row, then column by column."""
        return (self.row, self.col) < (other.row, other.col)

    def __repr__(self) -> str:
        return f"Cell({self})"


@dataclass(frozen=True, slots=True)
class Block:
    """A square block of cells (``GameMap.blocks``): its top-left cell, its cells and the cells around
    it (both as ``GameMap.footprint`` and ``GameMap.neighbours`` give them), and whether it covers a
    river, forest or mountain cell (R35–R39)."""

    origin: Cell
    cells: tuple[int, ...]
    ring: tuple[int, ...]
    river: bool
    forest: bool
    mountain: bool


@dataclass(frozen=True)
class GameMap:
    """The region shown on all three boards: size, terrain features per cell, printed hamlet cells."""

    name: str
    width: int
    height: int
    #: filled in by __post_init__: cells classified forest, mountain, river (R36)
    forest_cells: frozenset[int] = field(init=False, repr=False, compare=False)
    mountain_cells: frozenset[int] = field(init=False, repr=False, compare=False)
    river_cells: frozenset[int] = field(init=False, repr=False, compare=False)
    #: filled in by __post_init__: ``around[len(cells)][cells[0]]`` is ``neighbours(cells)`` for a
    #: square block (a building's cells), found without hashing them
    around: dict[int, tuple[tuple[int, ...], ...]] = field(init=False, repr=False, compare=False)
    #: one code per cell, row by row (see ``TERRAIN_CODES``)
    codes: str
    hamlets: tuple[Cell, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_terrain", tuple(classify(TERRAIN_CODES[c]) for c in self.codes))
        object.__setattr__(self, "_hamlet_index", frozenset(self.index(c) for c in self.hamlets))
        terrain: tuple[Terrain, ...] = self._terrain  # type: ignore[attr-defined]
        object.__setattr__(self, "forest_cells", frozenset(i for i, t in enumerate(terrain) if t is Terrain.FOREST))
        object.__setattr__(self, "mountain_cells", frozenset(i for i, t in enumerate(terrain) if t is Terrain.MOUNTAIN))
        object.__setattr__(self, "river_cells", frozenset(i for i, t in enumerate(terrain) if t is Terrain.RIVER))
        object.__setattr__(self, "_blocks", {})
        w, h = self.width, self.height
        object.__setattr__(self, "around", {
            size * size: tuple(
                _neighbours(w, h, cells) if (cells := _footprint(w, h, i % w, i // w, size)) is not None else ()
                for i in range(w * h)
            )
            for size in (1, 2, 3)
        })

    # -- geometry -----------------------------------------------------------------------------
    def index(self, cell: Cell) -> int:
        return cell.row * self.width + cell.col

    def cell(self, index: int) -> Cell:
        return Cell(index % self.width, index // self.width)

    def contains(self, cell: Cell) -> bool:
        return 0 <= cell.col < self.width and 0 <= cell.row < self.height

    def parse_cell(self, text: str) -> Cell:
        """Parse a cell and check that it is on this map; the error names the valid range."""
        last_col = COLUMNS[self.width - 1]
        try:
            cell = Cell.parse(text)
        except ValueError:
            t = text.strip()
            if re.fullmatch(r"[A-Za-z]\d+", t):  # shaped like a cell, but row 0
                raise NotationError(f"{t} is not a cell: columns A–{last_col}, rows 1–{self.height}") from None
            raise NotationError(f"{t!r} is not a cell: columns A–{last_col}, rows 1–{self.height}, e.g. C4") from None
        if not self.contains(cell):
            raise NotationError(f"{text.strip()} is not a cell: columns A–{last_col}, rows 1–{self.height}")
        return cell

    def terrain(self, index: int) -> Terrain:
        return self._terrain[index]  # type: ignore[attr-defined,no-any-return]

    def features(self, index: int) -> frozenset[Terrain]:
        return TERRAIN_CODES[self.codes[index]]

    def is_printed_hamlet(self, index: int) -> bool:
        return index in self._hamlet_index  # type: ignore[attr-defined]

    def footprint(self, origin: Cell, size: int) -> tuple[int, ...] | None:
        """Cell indices of the size×size block whose top-left cell is ``origin`` (ruling A1), or None
        if the block leaves the board."""
        return _footprint(self.width, self.height, origin.col, origin.row, size)

    def neighbours(self, cells: tuple[int, ...]) -> tuple[int, ...]:
        """Cells outside ``cells`` that share an edge with one of them (adjacency, §0)."""
        return _neighbours(self.width, self.height, cells)

    def blocks(self, size: int) -> tuple[Block, ...]:
        """Every size×size block on the board, origins in reading order, with what construction asks of
        its cells (found once per map and size, then kept on the map)."""
        kept: dict[int, tuple[Block, ...]] = self._blocks  # type: ignore[attr-defined]
        found = kept.get(size)
        if found is None:
            ring = self.around[size * size]  # (the cells around each block, by its first cell)
            found = kept[size] = tuple(
                Block(
                    Cell(col, row), cells, ring[row * self.width + col],
                    not self.river_cells.isdisjoint(cells), not self.forest_cells.isdisjoint(cells),
                    not self.mountain_cells.isdisjoint(cells),
                )
                for row in range(self.height - size + 1)
                for col in range(self.width - size + 1)
                if (cells := _footprint(self.width, self.height, col, row, size)) is not None
            )
        return found

    # -- text form ----------------------------------------------------------------------------
    def to_text(self) -> str:
        rows = [self.codes[r * self.width : (r + 1) * self.width] for r in range(self.height)]
        return (
            f"name: {self.name}\nsize: {self.width}x{self.height}\ngrid:\n"
            + "\n".join(rows)
            + "\nhamlets: "
            + " ".join(str(c) for c in self.hamlets)
            + "\n"
        )


@cache
def _footprint(width: int, height: int, col: int, row: int, size: int) -> tuple[int, ...] | None:
    if col < 0 or row < 0 or col + size > width or row + size > height:
        return None
    return tuple((row + dr) * width + col + dc for dr in range(size) for dc in range(size))


@cache
def _neighbours(width: int, height: int, cells: tuple[int, ...]) -> tuple[int, ...]:
    inside = set(cells)
    out: list[int] = []
    for i in cells:
        r, c = divmod(i, width)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < height and 0 <= cc < width:
                j = rr * width + cc
                if j not in inside and j not in out:
                    out.append(j)
    return tuple(sorted(out))


def parse_map(text: str, source: str = "<map>") -> GameMap:
    """Parse a map file. Raises ``MapError`` naming the source, the line and what is wrong."""
    name = ""
    size: tuple[int, int] | None = None
    rows: list[str] = []
    hamlet_words: list[tuple[int, str]] = []
    in_grid = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if sep and key in {"name", "size", "grid", "hamlets"}:
            in_grid = key == "grid"
            if key == "name":
                name = value.strip()
            elif key == "size":
                m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", value)
                if not m:
                    raise MapError(f"{source}, line {lineno}: size must look like '15x12' (columns x rows)")
                size = (int(m.group(1)), int(m.group(2)))
            elif key == "hamlets":
                hamlet_words.extend((lineno, w) for w in value.replace(",", " ").split())
            continue
        if in_grid:
            if sep:
                raise MapError(
                    f"{source}, line {lineno}: expected 'name:', 'size:', 'grid:' or 'hamlets:', got {line!r}"
                )
            row = line.strip()
            bad = sorted({ch for ch in row if ch not in TERRAIN_CODES})
            if bad:
                raise MapError(
                    f"{source}, line {lineno}: unknown terrain code(s) {' '.join(map(repr, bad))}; "
                    f"use one of {' '.join(TERRAIN_CODES)}"
                )
            rows.append(row)
            continue
        raise MapError(f"{source}, line {lineno}: expected 'name:', 'size:', 'grid:' or 'hamlets:', got {line!r}")
    if size is None:
        raise MapError(f"{source}: missing 'size: COLSxROWS' line")
    width, height = size
    if not (3 <= width <= len(COLUMNS) and 3 <= height <= 99):
        raise MapError(f"{source}: size {width}x{height} is out of range (3–26 columns, 3–99 rows)")
    if len(rows) != height:
        raise MapError(f"{source}: the grid has {len(rows)} rows but size says {height}")
    for r, row in enumerate(rows, start=1):
        if len(row) != width:
            raise MapError(f"{source}: grid row {r} has {len(row)} cells but size says {width}")
    game_map = GameMap(name or source, width, height, "".join(rows), ())
    hamlets: list[Cell] = []
    for lineno, word in hamlet_words:
        try:
            cell = game_map.parse_cell(word)
        except ValueError as exc:
            raise MapError(f"{source}, line {lineno}: printed hamlet {exc}") from None
        if cell in hamlets:
            raise MapError(f"{source}, line {lineno}: printed hamlet {cell} is listed twice")
        if game_map.terrain(game_map.index(cell)) is Terrain.RIVER:
            raise MapError(f"{source}, line {lineno}: printed hamlet {cell} is on a river cell")
        hamlets.append(cell)
    return GameMap(game_map.name, width, height, game_map.codes, tuple(hamlets))


def plain_map(width: int = 15, height: int = 12, hamlets: tuple[Cell, ...] = ()) -> GameMap:
    """An all-plain map (the scenario tests' default board)."""
    return GameMap("plain", width, height, "." * (width * height), hamlets)


@cache
def load_map(name: str = "default") -> GameMap:
    """Load a map shipped in ``rules/maps/NAME.map``. Raises ``MapError`` if missing or broken."""
    if not re.fullmatch(r"[a-z0-9_-]+", name):
        raise MapError(f"map name {name!r}: use lower-case letters, digits, '-' or '_'")
    path = resources.files("rules").joinpath("maps").joinpath(f"{name}.map")
    if not path.is_file():
        known = sorted(p.name[:-4] for p in resources.files("rules").joinpath("maps").iterdir()
                       if p.name.endswith(".map"))
        raise MapError(f"no map named {name!r}; known maps: {', '.join(known)}")
    return parse_map(path.read_text(encoding="utf-8"), source=f"maps/{name}.map")
