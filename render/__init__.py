"""Board pictures: the game as a PNG a player can read on a phone.

The whole interface::

    png = game_picture(state, viewer=None, events=last_turn_events)   # the three Ages, stacked
    png = board_picture(state, Age.REASON, viewer=seat)                # one Age, on request
    warm_up(state)                                                      # optional, at start-up

Both are pure synchronous functions returning PNG bytes; the bot calls them through
``asyncio.to_thread``. They draw only what ``viewer`` may see (R24, A37): never a hand or the
order of the draw pile, and other players' Ecus only when the table made them public. The same
arguments always give byte-identical PNG bytes.

``render`` imports only ``rules`` and Pillow. Layout and look: ``docs/render.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules import Age, GameState
from rules.events import Event

from .paint import encode, paint_board, paint_game
from .scene import Scene, make_scene


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


def warm_up(state: GameState | None = None) -> None:
    """Build the caches ahead of the first picture (optional; the first render otherwise takes about
    0.2 s more): the fonts, the PNG palette and, given a state, its map's static board layers."""
    from .paint import board_base, palette

    palette()
    if state is not None:
        for age in Age:
            board_base(state.map, age)


__all__ = ["Scene", "board_picture", "game_picture", "make_scene", "warm_up"]
