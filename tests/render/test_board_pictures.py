"""Board pictures (render/): golden PNGs compared pixel by pixel with a small tolerance, pixel checks
that every building, owner cube, population cube, pawn and mark is where the layout puts it (and a
check that those checks fail when something is missing), byte-identical output, no hidden
information in the picture (R24, A37), and robustness over random legal games.

Golden images are in tests/render/golden/. They are written only when TIEMPO_REGEN_GOLDEN=1 is set:

    TIEMPO_REGEN_GOLDEN=1 python -m pytest tests/render/test_board_pictures.py
"""

from __future__ import annotations

import ast
import io
import os
import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageChops

import render
from render import board_picture, game_picture, make_scene, paint, sprites, style
from render.demo import demo_map, late_game
from render.layout import Layout, cube_box, geometry, slot_boxes
from render.scene import BoardScene, DomainMark, Mark, Scene
from rules import (
    Age,
    Cards,
    Cell,
    Colour,
    Family,
    GameState,
    Kind,
    Options,
    economy,
    legal_actions,
    new_game,
    plain_map,
)
from rules.events import Event
from tests.support.gameplay import random_game
from tests.support.positions import holdem_start, junction_pending

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("TIEMPO_REGEN_GOLDEN") == "1"

#: golden tolerance: a pixel "differs" when a channel is off by more than PIXEL_TOL; at most
#: MAX_DIFFERENT of the pixels may differ (room for FreeType or zlib builds that anti-alias a glyph
#: edge differently), and no 12x12 block may hold more than BLOCK_MAX differing pixels (a missing
#: cube or letter is a block, however few pixels it has)
PIXEL_TOL = 48
MAX_DIFFERENT = 0.002
BLOCK, BLOCK_MAX = 12, 40


# -- golden images ------------------------------------------------------------------------------------


def _rgb(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def compare_golden(name: str, png: bytes, tmp_path: Path) -> None:
    path = GOLDEN / name
    if REGEN:
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(png)
        pytest.skip(f"regenerated {path} (TIEMPO_REGEN_GOLDEN=1)")
    assert path.exists(), f"no golden image {path}: run with TIEMPO_REGEN_GOLDEN=1 to create it, then look at it"
    want, got = _rgb(path.read_bytes()), _rgb(png)
    assert got.size == want.size, f"{name}: size {got.size}, golden {want.size}"
    diff = ImageChops.difference(want, got)
    r, g, b = diff.split()
    mask = ImageChops.lighter(ImageChops.lighter(r, g), b).point(lambda v: 255 if v > PIXEL_TOL else 0)
    different = mask.histogram()[255]
    worst = round(int(mask.reduce(BLOCK).getextrema()[1]) * BLOCK * BLOCK / 255) if different else 0
    if different > MAX_DIFFERENT * want.width * want.height or worst > BLOCK_MAX:
        out = tmp_path / name
        out.write_bytes(png)
        mask.save(tmp_path / f"diff-{name}")
        raise AssertionError(
            f"{name} differs from its golden: {different} pixels (largest cluster {worst} in a {BLOCK}px block); "
            f"actual picture {out}, difference {tmp_path / f'diff-{name}'}. If the change is intended, look at it "
            "and regenerate with TIEMPO_REGEN_GOLDEN=1."
        )


def test_golden_late_game(tmp_path: Path) -> None:
    state, events = late_game()
    compare_golden("late_game.png", game_picture(state, events=events), tmp_path)


def test_golden_late_game_reason_board(tmp_path: Path) -> None:
    state, events = late_game()
    compare_golden("late_game_reason.png", board_picture(state, Age.REASON, events=events), tmp_path)


def test_golden_junction_decision_on_might(tmp_path: Path) -> None:
    state, events = junction_pending()
    compare_golden("junction_pending_might.png", board_picture(state, Age.MIGHT, events=events), tmp_path)


def test_golden_holdem_start_seen_by_a_player(tmp_path: Path) -> None:
    compare_golden("holdem_start_viewer0.png", game_picture(holdem_start(), viewer=0), tmp_path)


@pytest.mark.skipif(REGEN, reason="goldens are being regenerated")
def test_golden_tolerance_still_catches_one_missing_cube(tmp_path: Path) -> None:
    state, events = late_game()
    s = state.clone()
    b = s.boards[Age.MIGHT].at(s.map.index(Cell.parse("G8")))  # Yellow's Watchtower: a 22 px cube
    assert b is not None and b.owner is not None
    s.boards[Age.MIGHT].swap(replace(b, owner=None))
    with pytest.raises(AssertionError, match="differs from its golden"):
        compare_golden("late_game.png", game_picture(s, events=events), tmp_path)


# -- pixel checks: everything is where the layout says ---------------------------------------------


def _share(im: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, int, int], tol: int = 30) -> float:
    """The share of the pixels in ``box`` that have ``colour`` (within ``tol`` on every channel)."""
    region = im.crop(box)
    masks = [band.point([255 if abs(v - c) <= tol else 0 for v in range(256)])
             for band, c in zip(region.split(), colour, strict=True)]
    hit = ImageChops.multiply(ImageChops.multiply(masks[0], masks[1]), masks[2])
    return hit.histogram()[255] / max(1, region.width * region.height)


def _shift(box: tuple[int, int, int, int], x: int, y: int) -> tuple[int, int, int, int]:
    return (box[0] + x, box[1] + y, box[2] + x, box[3] + y)


def check_pixels(png: bytes, scene: Scene, age: Age | None = None) -> list[str]:
    """What of ``scene`` is missing from the picture ``png`` (the whole game if ``age`` is None, else
    that board's picture): every tile (family colour, ruin grey), printed hamlet, control cube and
    renovation marker (owner's colour), population cube, pawn, change ring and pending choice."""
    im = _rgb(png)
    lay: Layout = paint.layout_for(scene, age)
    assert im.size == (lay.width, lay.height)
    geo = lay.geo
    colours = [p.colour for p in scene.players]
    problems: list[str] = []
    for board in scene.boards:
        if lay.board_y[board.age] is None:
            continue
        a = board.age
        for p in board.pieces:
            fp = lay.footprint_box(a, p.origin, p.level)
            where = f"{a.title} {p.kind.value}@{p.origin}"
            if p.printed:
                centre = _shift((-8, -8, 8, 8), (fp[0] + fp[2]) // 2, (fp[1] + fp[3]) // 2)
                if _share(im, centre, style.FAMILY[Family.CIVIL].ink, 40) < 0.15:
                    problems.append(f"printed hamlet missing: {where}")
            else:
                fam = style.FAMILY[p.kind.family]
                fill = style.RUIN_FILL if p.ruin else fam.fill
                inner = (fp[0] + 8, fp[1] + 8, fp[2] - 8, fp[3] - 8)
                if _share(im, inner, fill, 12) < 0.15:
                    problems.append(f"tile missing or wrong (fill): {where}")
                if p.ruin and _share(im, inner, fam.fill, 12) > 0.05:
                    problems.append(f"ruin drawn intact: {where}")
                if not p.ruin and _share(im, inner, style.RUIN_FILL, 12) > 0.05:
                    problems.append(f"intact building drawn as a ruin: {where}")
                sides = [  # the tile's four edges (a badge or a cube may cover one or two)
                    (fp[0] + 4, fp[1] + 20, fp[0] + 6, fp[3] - 20), (fp[2] - 6, fp[1] + 20, fp[2] - 4, fp[3] - 20),
                    (fp[0] + 20, fp[1] + 4, fp[2] - 20, fp[1] + 6), (fp[0] + 20, fp[3] - 6, fp[2] - 20, fp[3] - 4),
                ]
                chosen = any(Cell(p.origin.col + dc, p.origin.row + dr) in board.choices
                             for dr in range(p.level) for dc in range(p.level))  # a choice ring covers the edge
                if not chosen and max(_share(im, side, fam.edge, 40) for side in sides) < 0.6:
                    problems.append(f"tile edge (family colour) missing: {where}")
            seat = p.owner if p.owner is not None else p.marker
            if seat is not None:
                cb = _shift(cube_box(geo, p.level), fp[0], fp[1])
                if _share(im, cb, style.PLAYER[colours[seat]], 30) < 0.2:
                    problems.append(f"cube of {colours[seat].value} missing: {where}")
            if a is Age.REASON and p.kind.family is Family.CIVIL:
                slots = slot_boxes(geo, p.kind)
                for i, sb in enumerate(slots):
                    sb = _shift(sb, fp[0], fp[1])
                    if i < len(p.population):
                        if _share(im, sb, style.PLAYER[colours[p.population[i]]], 30) < 0.2:
                            problems.append(f"population cube {i + 1} missing: {where}")
                    elif any(_share(im, sb, style.PLAYER[c], 20) > 0.3 for c in colours if c is not Colour.WHITE):
                        problems.append(f"population slot {i + 1} should be empty: {where}")
            if p.mark is not None:  # the ring's bottom side (badges sit on the top side)
                bottom_edge = (fp[0] + 12, fp[3] - 3, fp[2] - 12, fp[3] + 1)
                if _share(im, bottom_edge, style.NEW, 40) < 0.3:
                    problems.append(f"change ring missing: {where}")
        for c in board.choices:
            cb = lay.cell_box(a, c)
            host = next((p for p in board.pieces if p.level >= 2 and 0 <= c.col - p.origin.col < p.level
                         and 0 <= c.row - p.origin.row < p.level), None)
            if host is None:  # a ring just inside the cell
                side = (cb[2] - 5, cb[1] + 10, cb[2] - 2, cb[3] - 10)
                if _share(im, side, style.CHOICE, 40) < 0.4:
                    problems.append(f"choice missing: {a.title} {c}")
                continue
            # inside a building of 2×2 or more: a ring around the building, and the cell's name on it or beside it
            fp = lay.footprint_box(a, host.origin, host.level)
            out = sprites.RING_OUT
            ring = (fp[2] + out - 4, fp[1] + 12, fp[2] + out - 2, fp[3] - 12)
            if _share(im, ring, style.CHOICE, 40) < 0.4:
                problems.append(f"choice ring missing: {a.title} {c}")
            near = (cb[0] - 30, cb[1] - 24, cb[2] + 30, cb[3] + 24)
            if _share(im, near, style.CHOICE, 40) < 0.04:
                problems.append(f"choice name missing: {a.title} {c}")
        k = 0
        for pl in reversed(scene.players):
            for idx in (1, 0):
                if pl.pawns[idx] is a:
                    box = lay.pawn_box(a, k)
                    if _share(im, box, style.PLAYER[pl.colour], 30) < 0.12:
                        problems.append(f"pawn {idx + 1} of {pl.colour.value} missing on {a.title}")
                    k += 1
        # no stray pawn beyond the last one
        box = lay.pawn_box(a, k)
        if any(_share(im, box, style.PLAYER[c], 20) > 0.12 for c in colours if c is not Colour.WHITE):
            problems.append(f"a pawn too many on {a.title}")
        problems += _domain_problems(im, lay, board, colours)
    return problems


def _domain_problems(im: Image.Image, lay: Layout, board: BoardScene, colours: list[Colour]) -> list[str]:
    """A domain with one controller is outlined in their colour just outside its cells: most of its outer
    edges show that colour (a tag or a neighbour's corner may cover a few)."""
    out: list[str] = []
    c = lay.geo.cell
    near, far = max(1, round(2 * c / 48)), max(2, round(4 * c / 48))
    gx, gy = lay.grid_origin(board.age)
    for dom in board.domains:
        if len(dom.controllers) != 1:
            continue
        at = {(x.col, x.row) for x in dom.cells}
        bands = []
        for cell in dom.cells:
            x, y = gx + cell.col * c, gy + cell.row * c
            m = c // 4
            if (cell.col, cell.row - 1) not in at:
                bands.append((x + m, y - far, x + c - m, y - near))
            if (cell.col, cell.row + 1) not in at:
                bands.append((x + m, y + c + near, x + c - m, y + c + far))
            if (cell.col - 1, cell.row) not in at:
                bands.append((x - far, y + m, x - near, y + c - m))
            if (cell.col + 1, cell.row) not in at:
                bands.append((x + c + near, y + m, x + c + far, y + c - m))
        colour = style.PLAYER[colours[dom.controllers[0]]]
        shown = sum(_share(im, b, colour, 30) > 0.6 for b in bands)
        if shown < len(bands) * 0.6:
            out.append(f"outline of the {board.age.title} domain of {dom.name} ({colours[dom.controllers[0]].value}): "
                       f"{shown} of {len(bands)} edges")
    return out


def _scene(state: GameState, viewer: int | None = None, events: Sequence[Event] = ()) -> Scene:
    return make_scene(state, viewer, events)


def test_r40_r74_r76_the_scene_draws_the_domains_the_economy_query_gives() -> None:
    """The picture only draws what ``rules.economy`` says: every domain of every Age with its
    controllers and value (R40, R74–R76); the late game has controlled domains on every Age, a tie-free
    Reason majority and a domain no one controls."""
    state, events = late_game()
    scene = _scene(state, None, events)
    worth = economy(state)
    for board in scene.boards:
        assert board.domains == tuple(
            DomainMark(d.name, d.cells, len(d.buildings), d.controllers, d.value, d.contested)
            for d in worth.domains[board.age])
        assert any(d.controllers for d in board.domains)
        assert any(not d.controllers and d.buildings > 1 for d in board.domains)
    might = {str(d.name): (d.controllers, d.value) for d in scene.boards[Age.MIGHT].domains if d.controllers}
    assert might["A1"] == ((0,), 3) and might["E8"] == ((4,), 5)  # Rosa's Castle; Yusuf's Watchtower G8


def test_every_controlled_domain_is_outlined_and_tagged_with_its_value() -> None:
    """Each controlled domain's outline is in its controller's colour, and each has a tag whose value is
    written in gold (the check fails when the marks are left out)."""
    state, events = late_game()
    scene = _scene(state, None, events)
    png = render.age_card(state, Age.MIGHT, None, events)
    im = _rgb(png)
    lay = render.card.board_layout(scene.map, Age.MIGHT, len(scene.players), 0, 0)
    shift = render.card.MARGIN - lay.board_top(Age.MIGHT)  # the card's board sits under its margin
    lay = replace(lay, board_y=(lay.board_top(Age.MIGHT) + shift, None, None))
    colours = [p.colour for p in scene.players]
    assert _domain_problems(im, lay, scene.boards[Age.MIGHT], colours) == []
    gold = _share(im, (0, 0, render.card.WIDTH, im.height), style.COIN_TEXT, 12)
    plain = replace(scene, boards=(replace(scene.boards[0], domains=()), scene.boards[1], scene.boards[2]))
    bare = render.card.paint_card(plain, Age.MIGHT)
    assert _domain_problems(bare, lay, plain.boards[Age.MIGHT], colours) == []  # nothing to outline
    assert _domain_problems(bare, lay, scene.boards[Age.MIGHT], colours) != []  # the check sees them missing
    assert gold > 2 * _share(bare, (0, 0, render.card.WIDTH, bare.height), style.COIN_TEXT, 12)


def test_every_piece_of_the_late_game_is_drawn() -> None:
    state, events = late_game()
    scene = _scene(state, None, events)
    # the position holds what the issue asks for
    pieces = [p for b in scene.boards for p in b.pieces]
    assert {p.kind for p in pieces} == set(Kind)
    assert any(p.ruin for p in pieces) and any(p.renovated for p in pieces)
    assert any(p.marker is not None for p in pieces)
    assert any(len(set(p.population)) >= 2 for p in pieces)
    assert sum(1 for pl in scene.players for _ in pl.pawns) == 10
    assert {p.mark for p in pieces} >= {Mark.NEW, Mark.UP, Mark.DOWN, Mark.POPULATED, Mark.RENOVATED, Mark.MARKER}
    assert any(not g.downsized for b in scene.boards for g in b.ghosts)
    assert check_pixels(game_picture(state, events=events), scene) == []
    for age in Age:
        assert check_pixels(board_picture(state, age, events=events), scene, age) == []


def test_pending_choices_are_marked_and_waiting_player_named() -> None:
    state, events = junction_pending()
    scene = _scene(state, None, events)
    assert scene.boards[Age.MIGHT].choices == tuple(Cell.parse(c) for c in ("E4", "F4", "E5", "F5"))
    assert scene.waiting is not None
    assert scene.waiting.startswith(
        "Ben (White) to choose where the downsized Keep at E4 on Might goes as a Watchtower"
    )
    assert [p.deciding for p in scene.players] == [False, True, False, False]
    hamlet = next(p for p in scene.boards[Age.MIGHT].pieces if p.origin == Cell.parse("D4"))
    assert hamlet.mark is Mark.NEW
    assert check_pixels(game_picture(state, events=events), scene) == []
    assert check_pixels(board_picture(state, Age.MIGHT, events=events), scene, Age.MIGHT) == []


def _without_piece(state: GameState, age: Age, where: str) -> GameState:
    s = state.clone()
    b = s.boards[age].at(s.map.index(Cell.parse(where)))
    assert b is not None
    s.boards[age].take(b.id)
    return s


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("building", "tile missing"),
        ("owner", "cube of Green missing"),
        ("population", "population cube 3 missing"),
        ("marker", "cube of Yellow missing"),
        ("pawn", "pawn 2 of Blue missing on Might"),
        ("ruin", "intact building drawn as a ruin"),
        ("printed", "printed hamlet missing"),
    ],
)
def test_pixel_checks_fail_when_something_is_missing(change: str, expected: str) -> None:
    """The pixel checks are not vacuous: drawing a state with one thing missing, checked against the
    full state's scene, is reported."""
    state, events = late_game()
    scene = _scene(state, None, events)
    s = state.clone()
    reason = s.boards[Age.REASON]
    if change == "building":
        s = _without_piece(s, Age.MIGHT, "M5")
    elif change == "owner":
        b = s.boards[Age.FAITH].at(s.map.index(Cell.parse("J4")))
        assert b is not None
        s.boards[Age.FAITH].swap(replace(b, owner=None))
    elif change == "population":
        b = reason.at(s.map.index(Cell.parse("A10")))
        assert b is not None and len(b.population) == 4
        reason.swap(replace(b, population=b.population[:2]))
    elif change == "marker":
        b = reason.at(s.map.index(Cell.parse("A1")))
        assert b is not None and b.marker is not None
        reason.swap(replace(b, marker=None))
    elif change == "pawn":
        s.players[3].pawns = [Age.REASON, Age.REASON]
    elif change == "ruin":
        b = reason.at(s.map.index(Cell.parse("M5")))
        assert b is not None and not b.ruin
        reason.swap(replace(b, ruin=True))
    elif change == "printed":
        s = _without_piece(s, Age.FAITH, "K3")
    problems = check_pixels(game_picture(s, events=events), scene)
    assert any(expected in p for p in problems), problems


# -- the same state, the same bytes ---------------------------------------------------------------------


def test_same_state_gives_identical_bytes_even_after_clearing_caches() -> None:
    state, events = late_game()
    first = game_picture(state, events=events)
    again, events2 = late_game()  # built afresh: other objects, same position
    assert game_picture(again, events=events2) == first
    paint.board_base.cache_clear()
    sprites.tile.cache_clear()
    sprites.label.cache_clear()
    sprites.terrain_cell.cache_clear()
    assert game_picture(state, events=events) == first
    assert board_picture(state, Age.FAITH) == board_picture(state.clone(), Age.FAITH)


def test_renders_in_parallel_threads_give_the_same_bytes() -> None:
    """The bot renders through asyncio.to_thread: concurrent renders share the caches and the fonts."""
    from concurrent.futures import ThreadPoolExecutor

    state, events = late_game()
    sprites.label.cache_clear()  # make the threads draw text, not only reuse it
    jobs = [(None, ()), (1, events), (None, events), (3, ())] * 3
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda job: game_picture(state, job[0], job[1]), jobs))
    assert got == [game_picture(state, viewer, evs) for viewer, evs in jobs]


def test_pictures_are_png_of_the_planned_size() -> None:
    state, events = late_game()
    png = game_picture(state, events=events)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    im = Image.open(io.BytesIO(png))
    assert im.width == style.WIDTH == 800  # shown at 400 px on a phone: one half
    assert geometry(state.map).cell == 48  # 24 px per cell on the phone
    assert len(png) < 500_000
    board = Image.open(io.BytesIO(board_picture(state, Age.MIGHT)))
    assert board.width == 800 and board.height < 1000


# -- hidden information (R24, A37) ----------------------------------------------------------------------


def test_r24_hands_deck_order_and_rng_never_change_the_picture() -> None:
    """R24: hands and the order of the draw pile are secret; the picture never depends on them."""
    state, events = late_game()
    other = state.clone()
    other.players[0].hand = Cards(c=4)
    other.players[2].hand = Cards(m=2, r=2)
    other.deck = list(reversed(other.deck))
    random.Random(1).shuffle(other.discard)
    other.rng ^= 0xDEADBEEF
    assert [p.hand.total for p in other.players] == [p.hand.total for p in state.players]
    for viewer in (None, 0, 3):
        assert game_picture(other, viewer, events) == game_picture(state, viewer, events)
    assert board_picture(other, Age.REASON, 1) == board_picture(state, Age.REASON, 1)


def test_the_number_of_cards_in_hand_is_shown_not_the_cards() -> None:
    state, _ = late_game()
    scene = _scene(state)
    assert [p.cards for p in scene.players] == [p.hand.total for p in state.players]
    fields = {f for cls in (type(scene), type(scene.players[0])) for f in cls.__dataclass_fields__}
    assert not fields & {"hand", "deck_order", "rng", "base"}


def test_a37_secret_ecus_are_hidden_except_from_their_owner() -> None:
    """A37: with Ecus secret, a player sees only his own (and everyone's once the game is over)."""
    state, events = late_game()
    state.options = Options(ecus_public=False)
    richer = state.clone()
    richer.players[1].ecus += 40
    assert game_picture(richer, None, events) == game_picture(state, None, events)
    assert game_picture(richer, 0, events) == game_picture(state, 0, events)
    assert game_picture(richer, 1, events) != game_picture(state, 1, events)
    scene = _scene(state, 1)
    assert [p.ecus for p in scene.players] == [None, state.players[1].ecus, None, None, None]
    assert [p.viewer for p in scene.players] == [False, True, False, False, False]
    state.finished, state.winners = True, (2,)
    assert all(p.ecus is not None for p in _scene(state).players)  # revealed at the end (R22)


def test_public_ecus_are_shown_to_everyone() -> None:
    state, _ = late_game()
    assert [p.ecus for p in _scene(state).players] == [p.ecus for p in state.players]


def test_a_viewer_who_is_not_a_seat_is_refused() -> None:
    state, _ = late_game()
    with pytest.raises(ValueError, match="not a seat"):
        game_picture(state, viewer=5)


# -- events of the last turn ----------------------------------------------------------------------------


def test_last_turn_events_become_marks_and_ghosts() -> None:
    state, events = late_game()
    scene = _scene(state, None, events)
    marks = {(b.age, p.origin): p.mark for b in scene.boards for p in b.pieces if p.mark}
    assert marks[(Age.MIGHT, Cell.parse("E1"))] is Mark.UP
    assert marks[(Age.FAITH, Cell.parse("E1"))] is Mark.NEW
    assert marks[(Age.MIGHT, Cell.parse("D10"))] is Mark.NEW
    assert marks[(Age.FAITH, Cell.parse("H10"))] is Mark.DOWN
    assert marks[(Age.REASON, Cell.parse("J4"))] is Mark.RENOVATED
    town = next(p for p in scene.boards[Age.REASON].pieces if p.origin == Cell.parse("D3"))
    assert town.mark is Mark.POPULATED and town.added == 2
    ghosts = {(b.age, g.origin, g.downsized) for b in scene.boards for g in b.ghosts}
    assert (Age.FAITH, Cell.parse("F1"), False) in ghosts  # paradox victim under White's new Keep
    assert (Age.MIGHT, Cell.parse("H5"), False) in ghosts  # destroyed
    assert (Age.FAITH, Cell.parse("H10"), True) in ghosts  # the Keep's old footprint
    assert scene.players[1].moved == (False, True)
    assert _scene(state).boards[0].ghosts == ()  # no events, no marks
    im = _rgb(game_picture(state, events=events))
    lay = paint.layout_for(scene)
    gone = lay.footprint_box(Age.MIGHT, Cell.parse("H5"), 1)
    assert _share(im, gone, style.GONE, 40) > 0.08


@pytest.mark.slow
def test_real_engine_events_through_a_random_game_render_and_check(tmp_path: Path) -> None:
    """Random legal games (2-5 players, with and without Hold'em): after each turn the picture with
    that turn's events is drawn and every piece, cube and pawn is found in it."""
    checked = 0
    for seed, players, holdem in ((3, 5, False), (8, 2, True), (21, 4, False)):
        turn_events: list[Event] = []
        for step in random_game(seed, players, holdem):
            turn_events.extend(step.events)
            done = any(type(e).__name__ == "TurnEnded" for e in step.events)
            if step.after.pending is not None or (done and step.after.turn % 3 == 0):
                state = step.after
                scene = _scene(state, None, turn_events)
                problems = check_pixels(game_picture(state, events=turn_events), scene)
                assert problems == [], (seed, state.turn, problems)
                checked += 1
            if done:
                turn_events = []
    assert checked >= 10


@pytest.mark.slow
def test_a_finished_game_names_its_winners_and_shows_every_ecu() -> None:
    last = None
    for step in random_game(5, 3, False):
        last = step
    assert last is not None and last.after.finished
    state = last.after
    scene = _scene(state, None, last.events)
    assert [p.winner for p in scene.players] == [i in state.winners for i in range(3)]
    assert not any(p.active for p in scene.players)
    assert check_pixels(game_picture(state, events=last.events), scene) == []


# -- other maps, names, fonts ---------------------------------------------------------------------------


def test_the_default_map_and_other_sizes_render() -> None:
    s = new_game(["A", "B", "C"], seed=1)  # rules/maps/default.map
    scene = _scene(s)
    assert check_pixels(game_picture(s), scene) == []
    for game_map in (plain_map(26, 20), plain_map(3, 3, (Cell(1, 1),))):
        s = new_game(["A", "B"], seed=2, game_map=game_map)
        geo = geometry(game_map)
        assert geo.grid_x >= style.PAD + style.LABEL_W - 1 and geo.grid_x + geo.grid_w <= style.WIDTH - 30
        assert check_pixels(game_picture(s), _scene(s)) == []


def test_every_terrain_code_is_drawn_with_its_own_pattern() -> None:
    from rules import TERRAIN_CODES

    cells = {code: sprites.terrain_cell(TERRAIN_CODES[code], 48).convert("RGB").tobytes() for code in TERRAIN_CODES}
    assert len(set(cells.values())) == len(TERRAIN_CODES)
    assert set(demo_map().codes) == set(TERRAIN_CODES)  # the goldens show every code
    for code, features in TERRAIN_CODES.items():  # the pattern ink of every feature appears in the cell
        im = sprites.terrain_cell(features, 48).convert("RGB")
        for t in features:
            assert _share(im, (0, 0, 48, 48), style.TERRAIN_INK[t], 25) > 0.01, (code, t)


def test_names_are_reduced_to_the_fonts_characters() -> None:
    assert style.safe_text("José Ñúñez") == "Jose Nunez"
    assert style.safe_text("周杰") == "?"
    assert style.safe_text("Zoë 周") == "Zoe ?"
    assert style.safe_text("a\u200bb\tc") == "ab c"
    assert style.safe_text("", fallback="Red") == "Red"
    scene = _scene(holdem_start())
    assert [p.name for p in scene.players] == ["Emilie", "White"]  # nothing drawable left: the colour


def test_the_font_ships_with_pillow() -> None:
    f = style.font(20)
    assert f.getname() == ("Aileron", "Regular")


def test_caches_are_bounded() -> None:
    for cached in (paint.board_base, sprites.tile, sprites.label, sprites.cube, sprites.terrain_cell, style.font):
        assert cached.cache_info().maxsize is not None


def test_render_imports_only_rules_pillow_zlib_ng_and_the_standard_library() -> None:
    import sys

    allowed = {"rules", "PIL", "zlib_ng"} | set(sys.stdlib_module_names)  # (zlib-ng: a faster zlib, render.png)
    for path in Path(render.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_legal_listing_is_unaffected_by_rendering() -> None:
    """Rendering reads the state and never changes it."""
    state, events = junction_pending()
    before = legal_actions(state)
    snapshot = state.clone()
    game_picture(state, events=events)
    board_picture(state, Age.REASON, viewer=1)
    assert state.boards == snapshot.boards and state.players == snapshot.players
    assert legal_actions(state) == before


def test_a_picture_compressed_in_bands_decodes_to_the_pixels_of_the_plain_encoder_whatever_the_cache_held() -> None:
    """render.png compresses a picture's rows in bands and takes the bands it compressed before from a
    cache: the picture decodes to the pixels Pillow's encoder gives (paint.encode), and its bytes are
    the same with a cold cache, a warm one, and one full of another picture's bands."""
    from render import png
    from render.card import paint_card

    state, events = late_game()
    scene = make_scene(state, None, events)
    card = paint_card(scene, Age.MIGHT, last_turn=True)
    preview = paint_card(scene, Age.MIGHT, heading="Preview")  # most of its bands are the card's
    png._bands.clear()
    cold = png.encode(card)
    png.encode(preview)
    assert png.encode(card) == cold
    for im in (card, preview, paint_card(scene, Age.REASON, last_turn=True)):
        ours = Image.open(io.BytesIO(png.encode(im)))
        ours.load()
        pillows = Image.open(io.BytesIO(paint.encode(im)))
        assert ours.size == pillows.size and ours.mode == "P"
        assert ours.convert("RGB").tobytes() == pillows.convert("RGB").tobytes()
