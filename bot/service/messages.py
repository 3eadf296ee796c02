"""What goes in and out of the service: who asks, the answer for them, and posts for the channel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..panel import Choice
from ..words import Text


@dataclass(frozen=True)
class Caller:
    """Who runs a command, and where. ``can_manage`` is Discord's "manage channel" right there."""

    guild_id: int
    channel_id: int
    user_id: int
    name: str
    can_manage: bool = False


@dataclass(frozen=True)
class PanelView:
    """The controls of a turn panel (bot/panel.py) for game ``game_id`` at ``version`` (``version_of``
    the game: the position the panel was drawn for): a list to pick
    from (``choices`` after ``path``, with ``question`` as its placeholder), and the buttons the step
    allows: Back (to the path ``back``), Confirm (the step is a preview), Undo, and Refresh."""

    game_id: int
    version: str
    path: tuple[str, ...] = ()
    base: tuple[str, ...] = ()  # what a pick from ``choices`` is added to
    question: str = ""
    choices: tuple[Choice, ...] = ()
    back: tuple[str, ...] | None = None
    confirm: bool = False
    undo: bool = False


@dataclass(frozen=True)
class Picture:
    """A picture of a post's gallery: the ``lead`` pictures are shown large, one after the other;
    the others together below them, smaller. ``description`` is its alternative text."""

    png: bytes
    filename: str
    description: str = ""
    lead: bool = True


@dataclass(frozen=True)
class Post:
    """A message: words, a picture (``png``) or a ``gallery`` of pictures. The front end turns the
    fields after ``gallery`` into buttons:

    * ``hand_game``: the persistent "My hand" button of that game (and "Board" to see it privately);
    * ``lobby_game``: Join, Leave and Start buttons of a lobby;
    * ``rematch_game``: a Rematch button after a finished game;
    * ``choices``: one button per option of a pending decision, ``(label, cell)``, for ``choice_game``
      at version ``version`` (``version_of`` the game).
    * ``play_game``: the "Play" button that opens the turn panel of that game;
    * ``panel``: the controls of a turn panel (a private reply);
    * ``confirm``: a Confirm button that plays an action the player was warned about.
    ``mentions`` are the users this message may ping."""

    text: Text
    png: bytes | None = None
    filename: str = "tiempo.png"
    gallery: tuple[Picture, ...] = ()
    hand_game: int | None = None
    lobby_game: int | None = None
    rematch_game: int | None = None
    choice_game: int | None = None
    version: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    mentions: tuple[int, ...] = ()
    play_game: int | None = None
    panel: PanelView | None = None
    #: a Confirm button for an action that harms its player: (game, version, the action's notation)
    confirm: tuple[int, str, str] | None = None
    #: a button that confirms cancelling this game (in play)
    cancel_game: int | None = None


@dataclass(frozen=True)
class Reply(Post):
    """The answer to the caller: private (ephemeral) unless ``public``."""

    public: bool = False


class Outbox(Protocol):
    """Where the service posts to a channel (Discord, or the terminal)."""

    async def post(self, channel_id: int, post: Post) -> None:
        """Send ``post`` to the channel; errors are the front end's to log."""
