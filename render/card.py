"""One Age as a landscape card that reads in the chat before anyone opens it.

Discord fits an image into about 550 x 350 pixels in the chat (400 px wide on a phone). A card is
the board (800 px wide, as in the other pictures) with a side column on its right, 1140 x 680 in
all: shown at one half, a cell is 24 px, a cube initial about 9 px, and the side column's words
13 px or more. The side column says what a reader needs next to the board: the round and whose
turn, what changed on this board during the last turn (or what the preview would change, or the
candidates of a pending decision with their owners), and who is which colour.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from PIL import Image, ImageDraw

from rules import Age, Cell, GameMap, Kind

from . import sprites
from .layout import board_layout
from .paint import LegendItem, _badge_text, _fit, _paste, _text, _wrap, board_base, draw_board, economy_legend
from .scene import BoardScene, Mark, Piece, Scene
from .sketch import Canvas, Sketch, pen
from .style import AGE_BAR, CARD, COIN_EDGE, INK, MUTED, PAGE, RULE, WIDTH, text_length

SIDE_W = 340  #: the side column
CARD_W = WIDTH + SIDE_W
MARGIN = 7  #: above and below the board
TEXT = 26  #: side column text (13 px when the card is shown at one half)
TITLE = 34
LINE_H = 38
CUBE = 28
LEGEND_TEXT = 19  #: the legend's words (about 9 px at one half: read when the card is opened)
LEGEND_ROW = 28


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the side column: a badge (``badge``, its kind ``tone``) or an owner's cube, then
    words."""

    words: str
    badge: str | None = None
    tone: str = "new"
    owner: int | None = None
    tail: str = ""  # words after ``words`` that are never cut (``words`` is shortened to make room)


def changes(board: BoardScene, scene: Scene) -> list[Line]:
    """What changed on ``board`` during the events the scene marks, one line per building, in board
    order: new, upgraded, downsized, populated, renovated buildings, then what was removed, then the
    pawns that arrived."""
    out = [Line(f"{_name(p.kind)} {p.origin}", badge=_badge_text(p), owner=p.owner)
           for p in board.pieces if p.mark is not None]
    out += [Line(f"{_name(g.kind)} {g.origin}", badge="GONE", tone="gone", owner=g.owner)
            for g in board.ghosts if not g.downsized]
    for pl in scene.players:
        for idx in (0, 1):
            if pl.moved[idx] and pl.pawns[idx] is board.age:
                out.append(Line(pl.name, owner=pl.seat, tail=" arrived"))
    return out


def candidates(board: BoardScene, placing: Kind | None = None) -> list[Line]:
    """The buildings a pending decision on ``board`` chooses among, with their owners; or, when it
    places a smaller ``placing`` building (R64), the squares it may cover."""
    out = []
    for cell in board.choices:
        if placing is not None:
            end = Cell(cell.col + placing.level - 1, cell.row + placing.level - 1)
            where = f"{cell}" if placing.level == 1 else f"{cell}-{end}"
            out.append(Line(f"{placing.value} on {where}", badge=str(cell), tone="choice"))
            continue
        piece = _piece_at(board, cell)
        words = f"{_name(piece.kind)} at {cell}" if piece is not None else f"{cell}"
        out.append(Line(words, badge=str(cell), tone="choice", owner=piece.owner if piece is not None else None))
    return out


def ages_changed(scene: Scene) -> list[Age]:
    """The Ages whose boards show a change (a mark, a removed building or an arrived pawn)."""
    return [b.age for b in scene.boards if changes(b, scene)]


def paint_card(scene: Scene, age: Age, *, heading: str | None = None, last_turn: bool = True,
               unchanged: bool = False, pick: str | None = None) -> Image.Image:
    """The card of ``age``: the board with its marks, and the side column. ``heading`` replaces the
    round line (e.g. "Preview"); ``last_turn`` lists what the scene's events changed (False when no
    events were given: the start of a game, a question's board). ``unchanged``: a board the last
    turn left as it was, beside the cards of the boards it changed: its side column says only that
    and who is which colour (no round, no whose turn: those are on the changed boards' cards and in
    the post), so that the card stays the same, turn after turn, until the board changes. ``pick``:
    the board's ``choices`` are the places a list offers (not a decision's), listed under that title."""
    ground, sketch = sketch_card(scene, age, heading=heading, last_turn=last_turn, unchanged=unchanged, pick=pick)
    im = ground.copy()
    sketch.replay(im)
    return im


def sketch_card(scene: Scene, age: Age, *, heading: str | None = None, last_turn: bool = True,
                unchanged: bool = False, pick: str | None = None) -> tuple[Image.Image, Sketch]:
    """The card of ``age`` (``paint_card``'s arguments) as its ground (``_ground``: never changed) and
    the drawing calls that make the card over it."""
    board = scene.boards[age]
    lay = board_layout(scene.map, age, len(scene.players), 0, 0)
    ground = _ground(scene.map, age, _key_columns(scene), -(-len(scene.players) // _key_columns(scene)))
    sketch = Sketch(ground.size)
    # the board drawn as in the single-board picture, its top moved up under the margin
    draw_board(sketch, replace(lay, board_y=tuple(MARGIN if a is age else None for a in Age)), board, scene)  # type: ignore[arg-type]
    _side(sketch, scene, board, heading, last_turn, unchanged, pick)
    return ground, sketch


#: how many times its size the part of a card around a list's places is shown (``zoom_box``)
ZOOM = 2
#: the most of a board's width or height a list's places may span to be shown closer
ZOOM_MOST = 0.6


def zoom_box(game_map: GameMap, age: Age, cells: list[Cell], level: int) -> tuple[int, int, int, int] | None:
    """The part of a card of ``age`` that holds the places ``cells`` (the top-left cells of a building
    ``level`` cells wide) and a cell around them, in the card's pixels; None when they spread over
    most of the board (``ZOOM_MOST``), where the card itself is as close as it gets."""
    if not cells:
        return None
    c0, r0 = min(c.col for c in cells), min(c.row for c in cells)
    c1, r1 = max(c.col for c in cells) + level - 1, max(c.row for c in cells) + level - 1
    if c1 - c0 + 1 > ZOOM_MOST * game_map.width or r1 - r0 + 1 > ZOOM_MOST * game_map.height:
        return None
    lay = replace(board_layout(game_map, age, 1, 0, 0), board_y=tuple(MARGIN if a is age else None for a in Age))  # type: ignore[arg-type]
    x0, y0, _, _ = lay.cell_box(age, Cell(max(0, c0 - 1), max(0, r0 - 1)))
    _, _, x1, y1 = lay.cell_box(age, Cell(min(game_map.width - 1, c1 + 1), min(game_map.height - 1, r1 + 1)))
    return x0, y0, x1, y1


#: card grounds remembered (one per map, Age and size of the colour key; about 2.3 MB each)
GROUNDS_KEPT = 24


@lru_cache(maxsize=GROUNDS_KEPT)
def _ground(game_map: GameMap, age: Age, columns: int, lines: int) -> Image.Image:
    """What every card of ``age`` on ``game_map`` shows whatever the game: the page, the board without
    its pieces (``board_base``), the side column's card with the Age's name, and its legend (placed
    above a colour key of ``lines`` lines in ``columns`` columns). Never changed: a card is drawn on a
    copy."""
    lay = board_layout(game_map, age, 1, 0, 0)
    bh = lay.geo.board_h
    im = Image.new("RGB", (CARD_W, bh + 2 * MARGIN), PAGE)
    im.paste(board_base(game_map, age), (0, MARGIN))
    d = ImageDraw.Draw(im)
    x0, x1 = WIDTH + 2, CARD_W - 10
    d.rounded_rectangle((x0, MARGIN, x1, im.height - MARGIN - 1), radius=10, fill=CARD, outline=RULE, width=1)
    d.rounded_rectangle((x0, MARGIN, x1, MARGIN + 56), radius=10, fill=AGE_BAR[age])
    d.rectangle((x0, MARGIN + 46, x1, MARGIN + 56), fill=CARD)
    left, room = x0 + 16, x1 - x0 - 32
    _text(im, left, MARGIN + 25, age.title.upper(), TITLE, (255, 250, 240), bold=True)
    _legend(im, _legend_top(im.height, age, room, lines), age, left, x1, room)
    return im


def _result(im: Canvas, scene: Scene, left: int, y: int, room: int, *, preview: bool = False) -> int:
    """The line under the side column's title: who won a finished game ("Won by:" with their colour, or
    "Shared win": the key below has the winners in bold), else whose turn it is; where the next line goes."""
    winners = [p for p in scene.players if p.winner] if scene.finished and not preview else []
    active = None if scene.finished else next((p for p in scene.players if p.active), None)
    if len(winners) > 1:
        _text(im, left, y, "Shared win", TEXT, MUTED, bold=True)
        return y + LINE_H
    if not winners and active is None:
        return y
    who, label = (winners[0], "Won by:") if winners else (active, "To play:")
    assert who is not None
    w = _text(im, left, y, label, TEXT, MUTED, bold=True)
    _paste(im, sprites.cube(who.colour, CUBE), left + w + 8, y - CUBE / 2 - 2)
    _text(im, left + w + 8 + CUBE + 10, y, _fit(who.name, TEXT, room - w - CUBE - 20, bold=True), TEXT, INK, bold=True)
    return y + LINE_H


Row = tuple[str, str] | Line  #: a title or a note (``("title" | "note", words)``), or a line
#: the note under a question's candidates that says what a domain tag's "?" means (kept when the list is cut)
UNANSWERED: tuple[str, str] = ("note", "?: its Ecus, once answered")


def rows(scene: Scene, board: BoardScene, heading: str | None, last_turn: bool, pick: str | None = None
         ) -> list[Row]:
    """The side column's list: what changed (a preview's changes, or the last turn's), then the
    candidates of a pending decision on this board; or, with ``pick``, the places a list offers."""
    if pick is not None:
        if not board.choices and board.areas:  # (a list of the board's areas, boxed with their places)
            return [("title", pick), ("note", "each box is one, with how"), ("note", "many places it holds;"),
                    ("note", "the list names it by its"), ("note", "columns and rows (a lone"),
                    ("note", "place by its cell).")]
        if not board.choices:
            return [("title", pick), ("note", "by its columns (letters)"), ("note", "and rows (numbers),"),
                    ("note", "as on the board's edges;"), ("note", "then its places are ringed.")]
        return [("title", pick), *candidates(board, scene.placing)]
    out: list[Row] = []
    if heading is not None or (last_turn and not board.choices):
        out.append(("title", "What it changes:" if heading is not None else "Last turn:"))
        items = changes(board, scene)
        out += items or [("note", "Nothing changed here.")]  # (short: "… on this board." was cut)
    if board.choices:
        chooser = next((p.name for p in scene.players if p.deciding), "")
        out.append(("title", f"{'Then ' if out else ''}{chooser} chooses:"))
        out += candidates(board, scene.placing)
        if any(dom.value is None and dom.controllers for dom in board.domains):  # (a tag shows "?")
            out.append(UNANSWERED)
    return out


def _side(im: Canvas, scene: Scene, board: BoardScene, heading: str | None, last_turn: bool,
          unchanged: bool = False, pick: str | None = None) -> None:
    """The side column's words over its ground (``_ground``: its card, the Age's name, the legend)."""
    d = pen(im)
    x0, x1 = WIDTH + 2, CARD_W - 10
    left, room = x0 + 16, x1 - x0 - 32
    key_top = _legend_top(im.height, board.age, room, -(-len(scene.players) // _key_columns(scene))) - 6
    y = MARGIN + 86
    if unchanged:  # (a finished game's: its result first, as on its other cards)
        _text(im, left, y, "Game over" if scene.finished else "Unchanged", TEXT + 2, INK, bold=True)
        y += LINE_H + 4
        if scene.finished:
            y = _result(im, scene, left, y, room) + 10
        for paragraph in ("Nothing changed on this board during the last turn.",
                          *(() if scene.finished else ("The round and whose turn are in the post above.",))):
            for words in _wrap(paragraph, TEXT - 2, room):
                _text(im, left, y, words, TEXT - 2, MUTED)
                y += LINE_H - 6
            y += LINE_H - 6
        _key(im, scene, left, x1, room)
        return
    if heading is not None:
        _text(im, left, y, _fit(heading, TEXT + 2, room, bold=True), TEXT + 2, INK, bold=True)
    elif scene.finished:  # (who won below it, and at the foot every player's Ecus: the game's result)
        _text(im, left, y, "Game over", TEXT + 2, INK, bold=True)
    else:
        income = "  income" if scene.round in scene.income_rounds else ""
        w = _text(im, left, y, f"Round {scene.round} of {scene.rounds}", TEXT + 2, INK, bold=True)
        if income:
            _text(im, left + w, y, income, TEXT - 4, COIN_EDGE, bold=True)
    y += LINE_H
    y = _result(im, scene, left, y, room, preview=heading is not None) + 6
    d.line((left, y, x1 - 16, y), fill=RULE, width=2)
    y += 30
    listed = rows(scene, board, heading, last_turn, pick)
    tail = listed[-1:] if listed and listed[-1] == UNANSWERED else []  # (said below "and N more" if cut)
    room_rows = max(0, int((key_top - 10 - y) // LINE_H))  # (none on a small board's crowded card)
    shown = listed if len(listed) <= room_rows else listed[: max(0, room_rows - 1 - len(tail))]
    more = sum(isinstance(r, Line) for r in listed[len(shown):])  # (the lines left out: not notes, not titles)
    if not more:  # (only notes left out: as many as fit, and no "and N more")
        shown = listed[:room_rows]
    cut = len(shown) < len(listed) and more > 0 and room_rows > 0
    for row in shown:
        if isinstance(row, Line):
            _line(im, scene, left, y, room, row)
        elif row[0] == "title":
            words = row[1]
            if text_length(words, TEXT) + 2 > room:  # a long name: shorten it, keep "chooses:"
                name, _, verb = words.rpartition(" ")
                words = f"{_fit(name, TEXT, room - text_length(' ' + verb, TEXT) - 4, bold=True)} {verb}"
            _text(im, left, y, words, TEXT, MUTED, bold=True)
        else:
            _text(im, left, y, _fit(row[1], TEXT - 2, room), TEXT - 2, MUTED)
        y += LINE_H
    if cut:
        _text(im, left, y, f"and {more} more", TEXT, MUTED)
        if tail:
            _text(im, left, y + LINE_H, _fit(UNANSWERED[1], TEXT - 2, room), TEXT - 2, MUTED)
    _key(im, scene, left, x1, room)


@lru_cache(maxsize=8)
def _legend_rows(age: Age, room: int) -> list[list[LegendItem]]:
    rows: list[list[LegendItem]] = [[]]
    x = 0
    for sprite, words in economy_legend(age, 22, short=True):
        w = sprite.width + 6 + round(text_length(words, LEGEND_TEXT)) + 14
        if rows[-1] and x + w > room:
            rows.append([])
            x = 0
        rows[-1].append((sprite, words))
        x += w
    return rows


def _legend_top(height: int, age: Age, room: int, key_lines: int) -> int:
    """The top of the legend's rows, above a colour key of ``key_lines`` lines."""
    return _key_top_of(height, key_lines) - len(_legend_rows(age, room)) * LEGEND_ROW - 8


def _legend(im: Image.Image, top: int, age: Age, left: int, x1: int, room: int) -> None:
    """The marks of this Age's board explained (domain outlines, the controller's tag, printed hamlet,
    ruin, cube), from ``top``, just above who is which colour."""
    ImageDraw.Draw(im).line((left, top - 6, x1 - 16, top - 6), fill=RULE, width=2)
    for r, items in enumerate(_legend_rows(age, room)):
        cy = top + 2 + r * LEGEND_ROW + LEGEND_ROW / 2
        x: float = left
        for sprite, words in items:
            _paste(im, sprite, x, cy - sprite.height / 2)
            x += sprite.width + 6
            x += _text(im, x, cy, words, LEGEND_TEXT, MUTED) + 14


def _key_columns(scene: Scene) -> int:
    """Two columns for four or five players; one for a finished game's (each name in full beside its final
    Ecus: the side column has room, as it lists nothing more to play)."""
    return 2 if len(scene.players) > 3 and not scene.finished else 1


def _key_top(im: Canvas, scene: Scene) -> int:
    return _key_top_of(im.height, -(-len(scene.players) // _key_columns(scene)))


def _key_top_of(height: int, lines: int) -> int:
    return height - MARGIN - 16 - lines * (LINE_H - 4)


def _key(im: Canvas, scene: Scene, left: int, x1: int, room: int) -> None:
    """Who is which colour, at the foot of the side column (two columns for four or five players): the
    initials on the board read as names."""
    key_top = _key_top(im, scene)
    pen(im).line((left, key_top - 8, x1 - 16, key_top - 8), fill=RULE, width=2)
    columns = _key_columns(scene)
    lines = -(-len(scene.players) // columns)
    width = room // columns
    for i, pl in enumerate(scene.players):
        x = left + (i // lines) * width
        cy = key_top + 10 + (i % lines) * (LINE_H - 4) + (LINE_H - 4) / 2
        _paste(im, sprites.cube(pl.colour, CUBE - 4), x, cy - (CUBE - 4) / 2 - 2)
        size = TEXT - 2 if columns == 1 else TEXT - 4
        ecus = f"{pl.ecus}" if scene.finished and pl.ecus is not None else ""  # (the final score, the winner's bold)
        room_left = width - CUBE - 12 - (round(text_length(ecus, size)) + 24 if ecus else 0)
        _text(im, x + CUBE + 8, cy, _fit(pl.name, size, room_left, bold=pl.winner), size, INK, bold=pl.winner)
        if ecus:
            _text(im, x + width - 14, cy, ecus, size, INK, bold=pl.winner, align="r")


def _line(im: Canvas, scene: Scene, x: float, cy: float, room: float, line: Line) -> None:
    if line.badge is not None:
        b = sprites.badge(line.badge, line.tone, size=20)
        _paste(im, b, x, cy - b.height / 2)
        x += b.width + 8
        room -= b.width + 8
    cube = CUBE - 6
    if line.owner is not None:
        room -= cube + 12
    whole = line.words + line.tail
    size = TEXT if text_length(whole, TEXT) <= room else TEXT - 3  # a long name: a little smaller
    words = _fit(line.words, size, room - text_length(line.tail, size)) + line.tail
    w = _text(im, x, cy, words, size, INK)
    if line.owner is not None:  # after the words, as on the board (top-right of a tile)
        _paste(im, sprites.cube(scene.players[line.owner].colour, cube), x + w + 8, cy - cube / 2 - 2)


def _piece_at(board: BoardScene, cell: Cell) -> Piece | None:
    for p in board.pieces:
        if p.origin.col <= cell.col < p.origin.col + p.level and p.origin.row <= cell.row < p.origin.row + p.level:
            return p
    return None


def _name(kind: Kind) -> str:
    return str(kind.value)


__all__ = ["CARD_W", "ZOOM", "Line", "Mark", "ages_changed", "candidates", "changes", "paint_card", "rows",
           "sketch_card", "zoom_box"]
