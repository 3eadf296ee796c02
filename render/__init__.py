"""Board pictures: the game as a PNG a player can read on a phone.

The whole interface::

    png = game_picture(state, viewer=None, events=last_turn_events)   # the three Ages, stacked
    png = board_picture(state, Age.REASON, viewer=seat)                # one Age, on request

Both are pure synchronous functions returning PNG bytes; the bot calls them through
``asyncio.to_thread``. They draw only what ``viewer`` may see (R24, A37): never a hand or the
order of the draw pile, and other players' Ecus only when the table made them public. The same
arguments always give byte-identical PNG bytes. A PNG is compressed in bands of rows, and a band
compressed before (the same rows of a board on the last card) comes from a cache (``render.png``); a
card paints and compresses only the rows where its drawing differs from its board's last card's.

``render`` imports only ``rules``, Pillow and zlib-ng (``render.png``'s compressor, when installed).
Layout and look: ``docs/render.md``.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from PIL import Image

from rules import Age, Cell, GameState, Kind, new_game
from rules.events import Event

from .card import ZOOM, ages_changed, sketch_card, zoom_box
from .paint import paint_board, paint_game
from .png import encode, encode_sketch
from .scene import BoardScene, Scene, make_scene

#: unchanged boards' cards remembered (about 70 kB each, so at most about 70 MB): two for each of 512
#: games played at once (a game's next turn comes after every other game's, so a bound below what is
#: played at once keeps none of them: at 400 typed games the bot spent 7.6 ms of CPU an answer with
#: 512, 6.5 with 2,048, one trial each)
UNCHANGED_KEPT = 1024
#: other cards remembered whole (about 85 kB each), by what they show (their scene): a card asked for
#: again (the board a turn changed, asked for by "Board now"; a preview or a list of places shown again
#: by a tap on Back; a question's board drawn again) is not drawn again
CARDS_KEPT = 256


def game_picture(state: GameState, viewer: int | None = None, events: Sequence[Event] = ()) -> bytes:
    """The whole game as PNG bytes: round track, whose turn (and any pending decision), the
    players' Ecus, cubes, card counts and pawns, the boards Might, Faith and Reason stacked, the tiles
    in stock and a legend. ``events`` (those of the last turn) are highlighted on the boards.

    ``viewer`` is a seat index (that player's own view) or None (the channel). Raises ``ValueError``
    if ``viewer`` is not a seat."""
    return encode(paint_game(make_scene(state, viewer, events)))


def board_picture(
    state: GameState, age: Age, viewer: int | None = None, events: Sequence[Event] = ()
) -> bytes:
    """One Age as PNG bytes: the header (round, turn, pending decision), the board with its pawns
    and the changes of ``events``, and a short legend. Arguments as for ``game_picture``."""
    return encode(paint_board(make_scene(state, viewer, events), Age(age)))


def age_card(state: GameState, age: Age, viewer: int | None = None, events: Sequence[Event] = (), *,
             heading: str | None = None) -> bytes:
    """One Age as a landscape card (1140 x 680) that reads at the size Discord shows in the chat
    (about 550 x 350): the board with the changes of ``events`` or a pending decision's candidates
    marked, and a side column with the round, whose turn, what changed (or the candidates and their
    owners) and who is which colour. ``heading`` replaces the round line ("Preview"). Without
    ``events`` (a question's board) the side column lists no changes."""
    return _card(make_scene(state, viewer, events), Age(age), heading, bool(events), None)


def places_card(state: GameState, age: Age, places: Sequence[Cell], kind: Kind | None = None,
                viewer: int | None = None, *, heading: str = "Pick a place",
                areas: Sequence[tuple[Cell, Cell, int]] = ()) -> bytes:
    """One Age as a card with ``places`` (the cells a list offers) ringed and named on the board and
    listed in the side column: a ``kind`` to build there as "Keep on C4-D5", otherwise the building
    that stands on each (with its owner). ``heading`` replaces the round line. With no ``places``, the
    board as it stands for a list of its ``areas`` (each area's first and last cell and how many places
    it holds: each boxed, with its count; the columns and rows that name them on the board's edges)."""
    scene = make_scene(state, viewer)
    boards = list(scene.boards)
    boards[age] = replace(boards[age], choices=tuple(places), areas=tuple(areas))
    scene = replace(scene, boards=(boards[0], boards[1], boards[2]), placing=kind)
    return _card(scene, Age(age), heading, False, "The places in the list:" if places else "Pick an area:")


def places_zoom(state: GameState, age: Age, places: Sequence[Cell], kind: Kind | None = None,
                viewer: int | None = None, *, heading: str = "Pick a place") -> bytes | None:
    """The part of ``places_card`` (same arguments) around its places, ``ZOOM`` times its size, so that
    their names read on a phone; None when the places spread over most of the board."""
    box = zoom_box(state.map, Age(age), list(places), kind.level if kind is not None else 1)
    if box is None:
        return None
    card = places_card(state, age, places, kind, viewer, heading=heading)
    with Image.open(io.BytesIO(card)) as im:  # (in the card's palette: each pixel made a square, no new colour)
        part = im.crop(box)
    return encode(part.resize((part.width * ZOOM, part.height * ZOOM), Image.Resampling.NEAREST))


def turn_cards(state: GameState, events: Sequence[Event] = (), viewer: int | None = None
               ) -> list[tuple[Age, bool, bytes]]:
    """A card for each of the three Ages, ``(age, changed, png)``: first the Ages that ``events``
    changed (or where a decision is pending), in board order, then the others. Without ``events``
    (the start or the end of a game) every card has the round and whose turn, and lists no "last
    turn"; with them, an Age they left as it was gets the ``unchanged`` card, which stays the same
    (and is drawn once) until its board changes."""
    scene = make_scene(state, viewer, events)
    changed = set(ages_changed(scene)) | {b.age for b in scene.boards if b.choices}
    order = sorted(Age, key=lambda a: (a not in changed, a))
    return [(age, age in changed, _card(scene, age, None, bool(events), None)
             if age in changed or not events else _unchanged_card(_unchanged_scene(scene, age), age))
            for age in order]


def _unchanged_scene(scene: Scene, age: Age) -> Scene:
    """Only what the ``unchanged`` card of ``age`` shows: its board, its pawns, and who is which
    colour (two turns that leave the board alone give equal scenes, hence one drawing); after the last
    turn also the result: who won and every player's final Ecus."""
    elsewhere = Age((age + 1) % 3)
    over = scene.finished
    players = tuple(replace(p, ecus=p.ecus if over else None, supply=0, cards=0, moved=(False, False), active=False,
                            deciding=False, viewer=False, winner=p.winner and over,
                            pawns=(p.pawns[0] if p.pawns[0] is age else elsewhere,
                                   p.pawns[1] if p.pawns[1] is age else elsewhere))
                    for p in scene.players)
    boards = tuple(b if b.age is age else BoardScene(b.age, (), (), ()) for b in scene.boards)
    return replace(scene, round=0, income_rounds=(), players=players, boards=boards,  # type: ignore[arg-type]
                   stock=(), deck=0, discard=0, reserve=None, waiting=None, finished=over, placing=None)


@lru_cache(maxsize=CARDS_KEPT)
def _card(scene: Scene, age: Age, heading: str | None, last_turn: bool, pick: str | None) -> bytes:
    """A card as PNG bytes (``paint_card``'s arguments), drawn once for as long as it is remembered."""
    return _drawn(scene, age, heading, last_turn, False, pick)


@lru_cache(maxsize=UNCHANGED_KEPT)
def _unchanged_card(scene: Scene, age: Age) -> bytes:
    return _drawn(scene, age, None, True, True, None)


def _drawn(scene: Scene, age: Age, heading: str | None, last_turn: bool, unchanged: bool, pick: str | None
           ) -> bytes:
    """A card as PNG bytes (``paint_card``'s arguments), its rows drawn and compressed only where it
    differs from the last card of its board drawn for the same viewer (``png.encode_sketch``); the
    ``unchanged`` cards (whose side column is another) are compared with the last of those."""
    ground, sketch = sketch_card(scene, age, heading=heading, last_turn=last_turn, unchanged=unchanged, pick=pick)
    viewer = next((p.seat for p in scene.players if p.viewer), None)
    board = (scene.map, age, viewer, tuple((p.name, p.colour) for p in scene.players), unchanged)
    return encode_sketch(ground, sketch, board)


def changed_ages(state: GameState, events: Sequence[Event]) -> list[Age]:
    """The Ages on which ``events`` change something a picture shows (a building, a pawn)."""
    return ages_changed(make_scene(state, None, events))


_warmed: list[bool] = []


def warm_up() -> None:
    """Load what the cards of every game need once per process (the fonts, the sprites, the default
    map's grounds for 2 to 5 players) by drawing the first cards of throwaway games, so that the first
    game a process starts does not wait for it (about 0.15 s of CPU, most of it the first card ever
    drawn). Does nothing the second time. What any card looks like is unchanged."""
    if _warmed:
        return
    for players in range(2, 6):
        turn_cards(new_game([f"P{i + 1}" for i in range(players)], seed=players), ())
    _warmed.append(True)


__all__ = ["Scene", "age_card", "board_picture", "changed_ages", "game_picture", "make_scene", "places_card",
           "places_zoom", "turn_cards", "warm_up"]
