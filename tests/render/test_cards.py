"""The cards: one Age as a landscape picture that reads at the size Discord shows in the chat."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from render import Scene, age_card, changed_ages, make_scene, places_card, places_zoom, turn_cards
from render.card import CARD_W, MARGIN, ZOOM, Line, candidates, changes, rows, zoom_box
from render.demo import late_game
from render.layout import geometry
from render.style import LABEL_H, TITLE_H
from rules import Age, Cards, Cell, GameState, Kind, Travel, apply, legal_actions, new_game
from tests.support.positions import junction_pending

#: how Discord shows an image in the chat before it is opened: fitted into this box
CHAT = (550, 350)


def _size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


def test_a_card_fitted_into_the_chat_keeps_cells_and_cube_initials_readable() -> None:
    state, events = late_game()
    w, h = _size(age_card(state, Age.MIGHT, events=events))
    assert w == CARD_W and 1.5 <= w / h <= 1.8  # landscape, like the box the chat fits it into
    scale = min(CHAT[0] / w, CHAT[1] / h)
    cell = geometry(state.map).cell * scale
    assert cell >= 23, cell  # the whole-game picture gives 108 / 2590 * 48 = 2 px a cell in the same box
    assert 26 * scale >= 12.5  # the side column's words


def test_the_after_turn_cards_lead_with_the_board_the_turn_changed_and_keep_every_age() -> None:
    state = new_game(["Ana", "Ben"], seed=3)
    travel = next(a for a in legal_actions(state) if isinstance(a, Travel) and a.to is Age.FAITH)
    after, events = apply(state, travel)  # a pawn arrives on Faith; nothing else changes
    cards = turn_cards(after, events)
    assert [(age, changed) for age, changed, _ in cards] == [(Age.FAITH, True), (Age.MIGHT, False),
                                                            (Age.REASON, False)]
    assert changed_ages(after, events) == [Age.FAITH]


def test_a_board_the_turns_leave_alone_keeps_one_card_drawn_once() -> None:
    """An unchanged board's card shows the board and the colours, not the round or whose turn (those
    are on the changed boards' cards and in the post): two turns that leave it alone give the same
    bytes, drawn once; the first card of a game has the round like every card without events."""
    from render import _unchanged_card

    state = new_game(["Ana", "Ben"], seed=3)
    opening = dict((age, png) for age, _, png in turn_cards(state, ()))
    ana = next(a for a in legal_actions(state) if isinstance(a, Travel) and a.to is Age.FAITH)
    first, events = apply(state, ana)  # Ana's pawn arrives on Faith
    cards = dict((age, (changed, png)) for age, changed, png in turn_cards(first, events))
    assert not cards[Age.REASON][0] and cards[Age.REASON][1] != opening[Age.REASON]
    drawn = _unchanged_card.cache_info().misses
    again = replace(first, round=first.round + 1)  # a later turn: another round, another player to move
    assert dict((age, png) for age, _, png in turn_cards(again, events))[Age.REASON] == cards[Age.REASON][1]
    assert _unchanged_card.cache_info().misses == drawn  # remembered, not drawn again
    built = next(a for a in legal_actions(first) if isinstance(a, Travel) and a.to is Age.REASON)
    moved, events = apply(first, built)  # a pawn arrives on Reason: its card is a changed one now
    assert next(changed for age, changed, _ in turn_cards(moved, events) if age is Age.REASON)


def test_a_pending_decision_leads_with_its_board() -> None:
    state, _ = junction_pending()
    assert turn_cards(state, ())[0][:2] == (Age.MIGHT, True)


def test_the_side_column_lists_what_the_turn_changed_on_the_board_with_owners() -> None:
    state, events = late_game()
    scene = make_scene(state, None, events)
    faith = [(line.badge, line.words + line.tail, line.owner) for line in changes(scene.boards[Age.FAITH], scene)]
    assert faith == [("NEW", "Keep E1", 1), ("DOWN", "Watchtower H10", 3), ("GONE", "Chapel F1", 4),
                     ("GONE", "Hamlet N1", None), (None, "Wilhelmina arrived", 1)]
    assert changes(make_scene(state).boards[Age.FAITH], make_scene(state)) == []  # no events, no changes


def test_the_side_column_lists_a_decision_s_candidates_with_their_owners() -> None:
    state, _ = late_game()
    scene = make_scene(state)
    might = replace(scene.boards[Age.MIGHT], choices=(Cell.parse("J4"), Cell.parse("M5")))
    assert [(line.badge, line.words, line.owner) for line in candidates(might)] == [
        ("J4", "Abbey at J4", 2), ("M5", "Keep at M5", 3)]
    placing = [line.words for line in candidates(might, Kind.KEEP)]
    assert placing == ["Keep on J4-K5", "Keep on M5-N6"]
    pending, _ = junction_pending()
    words = [line.words for line in candidates(make_scene(pending).boards[Age.MIGHT], Kind.WATCHTOWER)]
    assert words == ["Watchtower on E4", "Watchtower on F4", "Watchtower on E5", "Watchtower on F5"]


def test_a_card_draws_nothing_hidden_hands_deck_order_or_secret_ecus() -> None:
    state, events = late_game()
    other = state.clone()
    other.players[0].hand = Cards(r=4)
    other.players[1].ecus += 7
    other.deck = list(reversed(other.deck))
    for age in Age:
        assert age_card(state, age, None, events) == age_card(other, age, None, events)
        assert age_card(state, age, 2, events) == age_card(other, age, 2, events)


def test_a_preview_lists_what_the_action_changes_then_the_question_it_raises() -> None:
    state, events = junction_pending()
    listed = rows(make_scene(state, 0, events), make_scene(state, 0, events).boards[Age.MIGHT], "Preview", True)
    words = [r.words if isinstance(r, Line) else r[1] for r in listed]
    assert words == ["What it changes:", "Hamlet D4", "Then Ben chooses:", "Watchtower on E4", "Watchtower on F4",
                     "Watchtower on E5", "Watchtower on F5"]
    question = rows(make_scene(state), make_scene(state).boards[Age.MIGHT], None, False)
    assert [r.words if isinstance(r, Line) else r[1] for r in question][:2] == ["Ben chooses:", "Watchtower on E4"]


def test_the_start_of_a_game_lists_no_last_turn() -> None:
    state = new_game(["Ana", "Ben"], seed=3)
    scene = make_scene(state)
    assert all(rows(scene, board, None, False) == [] for board in scene.boards)
    assert rows(scene, scene.boards[Age.MIGHT], None, True) == [("title", "Last turn:"),
                                                                ("note", "Nothing changed here.")]


def test_a_long_name_is_shortened_but_what_happened_is_kept() -> None:
    state, events = late_game()
    scene = make_scene(state, None, events)
    arrived = changes(scene.boards[Age.FAITH], scene)[-1]
    assert (arrived.words, arrived.tail) == ("Wilhelmina", " arrived")  # the name alone is cut when too long


def test_a_list_of_places_is_drawn_on_its_board_ringed_and_listed() -> None:
    """The panel's list of places comes with their board: each place ringed and named on it, and
    listed under a title of its own (no "last turn", no one "chooses")."""
    state, _ = late_game()
    places = (Cell.parse("A1"), Cell.parse("B7"))
    png = places_card(state, Age.FAITH, places, Kind.CHAPEL, heading="Where: Chapel")
    plain = age_card(state, Age.FAITH)
    assert _size(png) == _size(plain)
    ringed = Image.open(io.BytesIO(png)).convert("RGB")
    bare = Image.open(io.BytesIO(plain)).convert("RGB")
    lay = geometry(state.map)
    assert ringed.crop((0, 0, 40 + 2 * lay.cell, ringed.height)).tobytes() != bare.crop(
        (0, 0, 40 + 2 * lay.cell, bare.height)).tobytes()  # columns A and B carry the rings
    scene = make_scene(state)
    faith = replace(scene.boards[Age.FAITH], choices=places)
    listed = rows(replace(scene, placing=Kind.CHAPEL), faith, "Where: Chapel", False, pick="The places in the list:")
    assert listed[0] == ("title", "The places in the list:")
    assert [(line.badge, line.words) for line in listed[1:] if isinstance(line, Line)] == [
        ("A1", "Chapel on A1"), ("B7", "Chapel on B7")]


def test_places_in_one_area_are_also_shown_closer_and_spread_ones_are_not() -> None:
    """The part of the places card around its places and a cell beyond, twice its size, each pixel a
    square of four (their names read on a phone); nothing closer for places spread over most of the
    board."""
    state, _ = late_game()
    area = [Cell(c, r) for r in range(8, 12) for c in range(5, 10)]  # F9-J12, a Hamlet's places
    closer = places_zoom(state, Age.MIGHT, area, Kind.HAMLET, 0, heading="Where: Hamlet")
    assert closer is not None
    lay = geometry(state.map)
    with Image.open(io.BytesIO(closer)) as im:
        assert im.size == (ZOOM * 7 * lay.cell, ZOOM * 5 * lay.cell)  # columns E-K, rows 8-12 (the last row)
        zoomed = im.convert("RGB")
    box = zoom_box(state.map, Age.MIGHT, area, 1)
    grid_top = MARGIN + TITLE_H + LABEL_H  # (the card's board: its title bar and column letters above row 1)
    assert box == (lay.grid_x + 4 * lay.cell, grid_top + 7 * lay.cell, lay.grid_x + 11 * lay.cell,
                   grid_top + 12 * lay.cell)  # from the top-left of E8 to the bottom-right of K12
    with Image.open(io.BytesIO(places_card(state, Age.MIGHT, area, Kind.HAMLET, 0, heading="Where: Hamlet"))) as im:
        part = im.convert("RGB").crop(box)
    assert zoomed.resize(part.size, Image.Resampling.NEAREST).tobytes() == part.tobytes()  # that part, each pixel 2x2
    assert zoom_box(state.map, Age.MIGHT, [Cell.parse("A1"), Cell.parse("O12")], 1) is None
    assert places_zoom(state, Age.MIGHT, [Cell.parse("A1"), Cell.parse("K1")], Kind.HAMLET) is None  # 11 of 15
    keeps = zoom_box(state.map, Age.MIGHT, [Cell.parse("C4")], 2)  # a 2x2 building: its whole footprint
    assert keeps is not None and (keeps[2] - keeps[0], keeps[3] - keeps[1]) == (4 * lay.cell, 4 * lay.cell)


# -- the cards as they were drawn before their caches (golden PNGs, as in test_board_pictures) --------


GOLDEN = Path(__file__).parent / "golden"


def _as_golden(name: str, png: bytes) -> None:
    """The picture has exactly the golden's pixels (written anew when TIEMPO_REGEN_GOLDEN=1 is set, as
    in test_board_pictures: then look at it)."""
    path = GOLDEN / name
    if os.environ.get("TIEMPO_REGEN_GOLDEN") == "1":
        path.write_bytes(png)
    got, want = Image.open(io.BytesIO(png)), Image.open(path)
    assert got.size == want.size, f"{name}: size {got.size}, golden {want.size}"
    assert got.convert("RGB").tobytes() == want.convert("RGB").tobytes(), f"{name} differs from its golden"


def _golden_cases() -> dict[str, bytes]:
    state, events = late_game()
    opening = new_game(["Ana", "Ben"], seed=3)
    ana = next(a for a in legal_actions(opening) if isinstance(a, Travel) and a.to is Age.FAITH)
    first, moved = apply(opening, ana)
    area = [Cell(c, r) for r in range(4) for c in range(5, 10)]
    return {"card_late_game_might.png": age_card(state, Age.MIGHT, None, events),
            "card_late_game_faith_preview.png": age_card(state, Age.FAITH, 0, events, heading="Preview"),
            "card_late_game_places.png": places_card(state, Age.MIGHT, area, Kind.HAMLET, 0, heading="Where: Hamlet"),
            "card_opening_reason_unchanged.png": next(png for age, _, png in turn_cards(first, moved)
                                                      if age is Age.REASON)}


def test_the_cards_are_drawn_as_their_goldens_with_cold_and_warm_caches() -> None:
    """A card painted over its cached ground, its bands compressed or taken from the cache, and the card
    taken whole from the cache the second time: the same pixels each time, those of the goldens (drawn
    before these caches existed)."""
    from render import _card, _unchanged_card, png
    from render.card import _ground

    for cache in (_card, _unchanged_card, _ground):
        cache.cache_clear()
    png._bands.clear()
    cold = _golden_cases()
    for name, picture in cold.items():
        _as_golden(name, picture)
    assert _golden_cases() == cold  # (every card from the cache now)
    _card.cache_clear()
    _unchanged_card.cache_clear()
    assert _golden_cases() == cold  # (drawn again over the grounds, the bands from their cache)


def test_a_card_asked_again_is_not_drawn_again_and_a_changed_board_gets_a_new_one() -> None:
    """The cards are remembered whole by what they show: the same card again costs no drawing; a
    state that changes the board (or what the side column says) gives a new card, equal to the one an
    empty cache gives."""
    from render import _card

    state = new_game(["Ana", "Ben"], seed=3)
    first = age_card(state, Age.FAITH)
    drawn = _card.cache_info().misses
    assert age_card(state, Age.FAITH) == first and _card.cache_info().misses == drawn
    ana = next(a for a in legal_actions(state) if isinstance(a, Travel) and a.to is Age.FAITH)
    after, _ = apply(state, ana)
    changed = age_card(after, Age.FAITH)
    assert changed != first and _card.cache_info().misses == drawn + 1
    later = age_card(replace(after, round=after.round + 1), Age.FAITH)  # the side column's round only
    assert later not in (first, changed)
    _card.cache_clear()
    assert age_card(after, Age.FAITH) == changed


def test_the_cards_caches_are_bounded() -> None:
    """The whole cards, the unchanged boards' cards, the grounds and the compressed bands are each
    kept up to a fixed number (the oldest forgotten first)."""
    import render
    from render import png
    from render.card import GROUNDS_KEPT, _ground

    assert render._card.cache_info().maxsize == render.CARDS_KEPT
    assert render._unchanged_card.cache_info().maxsize == render.UNCHANGED_KEPT
    assert _ground.cache_info().maxsize == GROUNDS_KEPT
    kept = png.BANDS_KEPT
    try:
        png.BANDS_KEPT = 30
        png._bands.clear()
        render._card.cache_clear()
        state, events = late_game()
        pictures = [png.encode(Image.new("RGB", (40, 16 * 12), (i, 200, 100))) for i in range(0, 250, 50)]
        pictures.append(age_card(state, Age.REASON, 1, events, heading="Then"))
        assert len(png._bands) == 30
        png._bands.clear()
        render._card.cache_clear()
        assert age_card(state, Age.REASON, 1, events, heading="Then") == pictures[-1]
    finally:
        png.BANDS_KEPT = kept


def test_the_adler_32_of_bands_one_after_the_other_is_that_of_their_scanlines() -> None:
    """A PNG's zlib stream ends with the Adler-32 of all its scanlines, worked out from its bands'."""
    import random
    import zlib

    from render.png import adler32_combine

    rng = random.Random(5)
    for _ in range(200):
        a, b = rng.randbytes(rng.randrange(0, 90_000)), rng.randbytes(rng.randrange(0, 70_000))
        assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)
    assert adler32_combine(1, zlib.adler32(b"\xff" * 70_000), 70_000) == zlib.adler32(b"\xff" * 70_000)


def _forget_drawn_cards() -> None:
    """Empties every cache of drawn cards: whole cards, the boards' last cards, grounds' bands, bands."""
    import render
    from render import png

    render._card.cache_clear()
    render._unchanged_card.cache_clear()
    png._bands.clear()
    png._last.clear()
    png._latest.clear()
    png._grounds.clear()


def _pixels(picture: bytes) -> tuple[tuple[int, int], bytes]:
    im = Image.open(io.BytesIO(picture))
    return im.size, im.convert("RGB").tobytes()


def test_cards_drawn_over_the_boards_last_cards_are_those_drawn_from_scratch() -> None:
    """A game's cards (after each turn, previews, lists of places, for the channel and for different
    players) drawn one after the other, each over its board's last card (only the rows whose drawing
    changed drawn again and compressed), are the cards drawn with every cache empty and the cards painted
    whole and encoded: the same pixels, and the same bytes."""
    from render import png
    from render.card import paint_card
    from tests.support.gameplay import random_game

    _forget_drawn_cards()
    made: list[tuple[bytes, Callable[[], bytes], Callable[[], Image.Image] | None]] = []  # card, again, whole
    for n, step in enumerate(random_game(11, 3, False)):
        if n >= 48:
            break
        state, events, seat, age = step.after, tuple(step.events), step.before.active, Age(n % 3)
        area = [Cell(c, r) for r in range(n % 5, n % 5 + 3) for c in range(4, 8)]
        other = (seat + n) % 3
        for a, _, picture in turn_cards(state, events):
            made.append((picture, lambda s=state, e=events, a=a: next(p for b, _, p in turn_cards(s, e) if b is a),
                         None))
        made.append((age_card(state, age, seat, events, heading="Preview"),
                     lambda s=state, a=age, v=seat, e=events: age_card(s, a, v, e, heading="Preview"),
                     lambda s=state, a=age, v=seat, e=events: paint_card(make_scene(s, v, e), a, heading="Preview",
                                                                         last_turn=bool(e))))
        made.append((places_card(state, age, area, Kind.HAMLET, other, heading="Where: Hamlet"),
                     lambda s=state, a=age, c=area, v=other: places_card(s, a, c, Kind.HAMLET, v,
                                                                         heading="Where: Hamlet"), None))
        made.append((age_card(state, age, None), lambda s=state, a=age: age_card(s, a, None),
                     lambda s=state, a=age: paint_card(make_scene(s), a, last_turn=False)))
    assert len(made) > 200
    for picture, again, whole in made[::3] + made[-6:]:
        _forget_drawn_cards()
        drawn = again()
        assert _pixels(drawn) == _pixels(picture)
        assert drawn == picture
        if whole is not None:
            assert png.encode(whole()) == picture


def test_the_boards_last_cards_are_bounded_and_kept_per_viewer() -> None:
    """The last card of a board is kept for each viewer apart (a player's card is compared only with
    that player's last card), up to a fixed number of boards, the oldest forgotten first."""
    from render import png

    kept = png.LAST_KEPT
    try:
        png.LAST_KEPT = 3
        _forget_drawn_cards()
        state, events = late_game()
        for viewer in (None, 0, 1):
            age_card(state, Age.FAITH, viewer, events)
        assert [board[1:3] for board in png._last] == [(Age.FAITH, None), (Age.FAITH, 0), (Age.FAITH, 1)]  # type: ignore[index]
        age_card(state, Age.REASON, 1, events)
        assert len(png._last) == 3 and (state.map, Age.FAITH, None) not in {board[:3] for board in png._last}  # type: ignore[index]
    finally:
        png.LAST_KEPT = kept


def _scanlines(picture: bytes) -> bytes:
    """The scanlines of a PNG (its IDAT chunks joined and inflated by zlib), checking that the stream
    ends where the chunk ends and that its Adler-32 is right (zlib checks it)."""
    import struct
    import zlib

    data, at, idat = picture[8:], 0, b""
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + size]
        at += 12 + size
    inflater = zlib.decompressobj()
    lines = inflater.decompress(idat)
    assert inflater.eof and not inflater.unused_data
    return lines


def _bench_cards() -> list[tuple[str, Callable[[], bytes], Callable[[], bytes], Callable[[], Image.Image]]]:
    """bench/render.py's cases: each card, the card drawn before it (its board's last card), and the card
    painted whole."""
    from render.card import paint_card
    from rules import Construct

    state, events = late_game()
    area = [Cell(c, r) for r in range(4) for c in range(5, 10)]
    build = next(a for a in legal_actions(state) if isinstance(a, Construct))
    built, built_events = apply(state, build)
    offered = [build.origin]
    mover = state.active
    return [
        ("after a turn", lambda: age_card(state, Age.MIGHT, None, events), lambda: age_card(state, Age.MIGHT),
         lambda: paint_card(make_scene(state, None, events), Age.MIGHT)),
        ("busy preview", lambda: age_card(state, Age.FAITH, 0, events, heading="Preview"),
         lambda: age_card(state, Age.FAITH, 0),
         lambda: paint_card(make_scene(state, 0, events), Age.FAITH, heading="Preview")),
        ("places", lambda: places_card(state, Age.MIGHT, area, Kind.HAMLET, 0, heading="Where: Hamlet"),
         lambda: age_card(state, Age.MIGHT, 0),
         lambda: paint_card(places_scene(state, Age.MIGHT, area, Kind.HAMLET, 0), Age.MIGHT, heading="Where: Hamlet",
                            last_turn=False, pick="The places in the list:")),
        ("preview of one build", lambda: age_card(built, build.age, mover, built_events, heading="Preview"),
         lambda: places_card(state, build.age, offered, build.kind, mover, heading="Where"),
         lambda: paint_card(make_scene(built, mover, built_events), build.age, heading="Preview")),
    ]


def places_scene(state: GameState, age: Age, places: list[Cell], kind: Kind, viewer: int) -> Scene:
    """The scene ``places_card`` draws."""
    scene = make_scene(state, viewer)
    boards = list(scene.boards)
    boards[age] = replace(boards[age], choices=tuple(places))
    return replace(scene, boards=(boards[0], boards[1], boards[2]), placing=kind)


def test_a_cards_bands_by_zlib_ng_or_by_zlib_decode_to_the_card_painted_whole_cold_over_its_ground_or_its_last_card(
) -> None:
    """With either compressor (zlib-ng's when installed, else zlib's), a card drawn cold (no card of its
    board drawn, its bands started from its ground's), drawn over its board's last card (a busy preview:
    most rows drawn again) and drawn with its bands from the cache: the same bytes each time, a zlib stream
    that zlib inflates (ending where its chunk ends, its Adler-32 right) to the scanlines of the card
    painted whole, whose pixels those of Pillow's own encoder are."""
    import zlib

    from zlib_ng import zlib_ng

    import render
    from render import png
    from render.paint import encode

    kept = png.DEFLATE, png.LEVEL
    try:
        sizes = {}
        for deflate, level in ((zlib_ng, 1), (zlib, 1)):
            png.DEFLATE, png.LEVEL = deflate, level
            for name, draw, before, whole in _bench_cards():
                _forget_drawn_cards()
                cold = draw()
                _forget_drawn_cards()
                before()
                render._card.cache_clear()
                over_last = draw()
                render._card.cache_clear()
                png._last.clear()
                from_bands = draw()  # (over the ground again, every band from the cache)
                assert cold == over_last == from_bands, name
                painted = whole()
                assert _pixels(cold) == _pixels(encode(painted)), name
                want = png.indexed(painted)
                lined = Image.new("P", (want.width + 1, want.height), 0)
                lined.paste(want, (1, 0))
                assert _scanlines(cold) == lined.tobytes(), name
                sizes[deflate.__name__, name] = len(cold)
        assert len(sizes) == 8
    finally:
        png.DEFLATE, png.LEVEL = kept
        _forget_drawn_cards()


def test_the_bands_are_compressed_by_zlib_ng_and_by_zlib_where_it_is_missing() -> None:
    import sys
    import zlib

    from zlib_ng import zlib_ng

    from render import png

    assert png._compressor() == (zlib_ng, 1)
    assert png.DEFLATE is zlib_ng
    kept = sys.modules.get("zlib_ng")
    sys.modules["zlib_ng"] = None  # type: ignore[assignment]  # (an import of it now fails)
    try:
        assert png._compressor() == (zlib, 1)
    finally:
        sys.modules["zlib_ng"] = kept  # type: ignore[assignment]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 80), st.integers(0, 2**32 - 1), st.sampled_from(["noise", "few", "rows"]))
def test_any_pixels_in_bands_by_zlib_ng_or_zlib_decode_to_themselves(width: int, height: int, seed: int,
                                                                     kind: str) -> None:
    """Whatever the pixels (noise, a few colours, rows repeated), a picture encoded in bands by either
    compressor decodes to exactly its pixels."""
    import random
    import zlib

    from zlib_ng import zlib_ng

    from render import png

    rng = random.Random(seed)
    if kind == "noise":
        data = rng.randbytes(width * height)
    elif kind == "few":
        data = bytes(rng.choice(b"\x00\x01\x02\x07") for _ in range(width * height))
    else:
        row = rng.randbytes(width)
        data = b"".join(row if rng.random() < 0.7 else rng.randbytes(width) for _ in range(height))
    im = Image.frombytes("P", (width, height), data)
    im.putpalette(png.palette().getpalette() or [])
    kept = png.DEFLATE, png.LEVEL
    try:
        for deflate in (zlib_ng, zlib):
            png.DEFLATE, png.LEVEL = deflate, 1
            png._bands.clear()
            got = Image.open(io.BytesIO(png.encode(im)))
            assert got.tobytes() == data
    finally:
        png.DEFLATE, png.LEVEL = kept
        png._bands.clear()


def test_a_new_game_s_cards_are_drawn_over_the_last_game_s_in_the_rows_that_differ_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A board with no last card of its own (a new game's) is drawn over the last card drawn over the
    same ground, whoever's it was, when fewer rows differ from it than from the ground: two games on
    one map start alike, so the second game's start cards paint far fewer rows than the first's, and
    are the same bytes as when drawn with every cache empty."""
    from render.sketch import Sketch

    painted: list[int] = []
    replay = Sketch.replay

    def counting(self: Sketch, strip: Image.Image, top: int) -> None:
        painted.append(strip.height)
        replay(self, strip, top)

    first = new_game(["Ann", "Bo", "Cyd"], seed=5)
    second = new_game(["Dee", "Eli", "Fay"], seed=6)
    _forget_drawn_cards()
    cold = [png_ for _, _, png_ in turn_cards(second)]
    _forget_drawn_cards()
    monkeypatch.setattr(Sketch, "replay", counting)
    turn_cards(first)
    rows_first, painted[:] = sum(painted), []
    over_first = [png_ for _, _, png_ in turn_cards(second)]
    assert over_first == cold
    assert sum(painted) < rows_first / 2


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every words the cards write (``render.card._text``), in order, as they are drawn."""
    import render.card as card

    said: list[str] = []
    real = card._text

    def text(im: object, x: float, cy: float, words: str, *args: object, **kwargs: object) -> int:
        said.append(words)
        return real(im, x, cy, words, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(card, "_text", text)
    return said


def test_the_last_card_of_a_game_says_who_won_and_every_players_ecus(written: list[str]) -> None:
    """A finished game's card shows its result (the channel's last pictures, and a replay's last step):
    "Game over", who won beside their colour, and at the foot each player's final Ecus by their name."""
    from render.card import sketch_card

    state, _ = late_game()
    state.finished, state.winners = True, (1,)
    sketch_card(make_scene(state, None), Age.MIGHT)
    winner = state.players[1].name
    assert "Game over" in written and "Won by:" in written and winner in written and "To play:" not in written
    for p in state.players:  # (in one column: five names in full, not "Wil…", beside their Ecus)
        assert str(p.ecus) in written and p.name in written, (p.name, written)
    written.clear()
    state.finished, state.winners = False, ()
    sketch_card(make_scene(state, None), Age.MIGHT)
    assert "To play:" in written and "Won by:" not in written


def test_a_shared_win_is_said_so_and_its_winners_are_in_bold_in_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tie (A36: the winners share the win): no one winner's colour beside "Won by:", but "Shared win",
    and every winner's name and Ecus in bold in the colour key."""
    import render.card as card
    from render.card import sketch_card

    state, _ = late_game()
    state.finished, state.winners = True, (0, 2)
    written: list[tuple[str, bool]] = []
    real = card._text

    def text(im: object, x: float, cy: float, words: str, size: int, colour: object, bold: bool = False,
             **kwargs: object) -> int:
        written.append((words, bold))
        return real(im, x, cy, words, size, colour, bold, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(card, "_text", text)
    sketch_card(make_scene(state, None), Age.MIGHT)
    said = [w for w, _ in written]
    assert "Shared win" in said and "Won by:" not in said
    def in_bold(words: str) -> bool:  # (a long name is shortened in the key: "Gas…")
        return any(b and (w == words or (w.endswith("…") and words.startswith(w[:-1]))) for w, b in written)

    for i, p in enumerate(state.players):
        assert in_bold(p.name) == in_bold(str(p.ecus)) == (i in state.winners), p.name


def test_a_side_list_cut_short_keeps_the_note_that_says_what_a_question_mark_means(
        monkeypatch: pytest.MonkeyPatch, written: list[str]) -> None:
    """A preview whose list of choices is too long for the side column ends in "and N more"; the note
    that explains the "?" on the domain tags (R78: a domain's Ecus once the question is answered) is
    still drawn under it, not cut with the choices."""
    import render.card as card
    from render.card import UNANSWERED, sketch_card

    state, _ = late_game()
    long = [("title", "What it changes:"), *[Line(f"change {i}") for i in range(40)], UNANSWERED]
    monkeypatch.setattr(card, "rows", lambda *args, **kwargs: list(long))
    sketch_card(make_scene(state, None), Age.MIGHT)
    assert "change 39" not in written and any(w.startswith("and ") and w.endswith(" more") for w in written)
    assert written.index(UNANSWERED[1]) == written.index(next(w for w in written if w.endswith(" more"))) + 1
    written.clear()
    monkeypatch.setattr(card, "rows", lambda *args, **kwargs: [*long[:3], UNANSWERED])  # (room for all)
    sketch_card(make_scene(state, None), Age.MIGHT)
    assert UNANSWERED[1] in written and not any(w.endswith(" more") for w in written)
    written.clear()  # only notes too many: as many as fit, and no "and 0 more"
    monkeypatch.setattr(card, "rows", lambda *args, **kwargs: [("note", f"note {i}") for i in range(40)])
    sketch_card(make_scene(state, None), Age.MIGHT)
    assert "note 0" in written and "note 39" not in written and not any(w.endswith(" more") for w in written)


def test_an_unchanged_card_of_a_finished_game_gives_its_result_too(written: list[str]) -> None:
    """The last turn left Faith and Reason alone: their "unchanged" cards say the game is over, who won
    and every player's final Ecus, as the changed card does (not "the round and whose turn are in the
    post above"); during the game they stay as they were."""
    import render

    state, events = late_game()
    on_might = [e for e in events if getattr(e, "age", None) is Age.MIGHT]
    render._unchanged_card.cache_clear()
    state.finished, state.winners = True, (1,)
    cards = render.turn_cards(state, on_might)
    assert [changed for _, changed, _ in cards] == [True, False, False]
    assert written.count("Game over") == 3 and written.count("Won by:") == 3
    assert not any(w.startswith("The round and whose") for w in written)  # (a paragraph: wrapped in lines)
    assert all(written.count(str(p.ecus)) >= 3 for p in state.players)
    written.clear()
    render._unchanged_card.cache_clear()
    state.finished, state.winners = False, ()
    render.turn_cards(state, on_might)
    assert written.count("Unchanged") == 2 and "Game over" not in written
    assert any(w.startswith("The round and whose") for w in written)
