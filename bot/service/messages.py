"""What goes in and out of the service: who asks, the answer for them, and posts for the channel."""

from __future__ import annotations

import base64
import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..panel import Choice
from ..words import Button, Code, Command, Here, Mention, Part, Strong, Text


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
    allows: Back (to the path ``back``), Confirm (the step is a preview; shown red when the action
    ``harms`` its player), Undo, and Refresh."""

    game_id: int
    version: str
    path: tuple[str, ...] = ()
    base: tuple[str, ...] = ()  # what a pick from ``choices`` is added to
    question: str = ""
    choices: tuple[Choice, ...] = ()
    back: tuple[str, ...] | None = None
    confirm: bool = False
    undo: bool = False
    harms: bool = False


@dataclass(frozen=True)
class ReplayButton:
    """A stepping button of a replay: ``role`` (``first``, ``prev``, ``next``, ``last``), drawn as
    ``emoji``, going to ``step`` (None: the newest step, whatever it is when pressed); ``disabled``
    where it would go nowhere."""

    role: str
    emoji: str
    step: int | None
    disabled: bool


@dataclass(frozen=True)
class ReplayView:
    """The controls of a replay of game ``game_id`` (bot/service/replay.py): it shows ``step`` of
    ``0 .. last`` (0 is the deal, then one step per turn), with the hands when ``hands``. ``buttons``
    step through it; ``rounds`` lists ``(round, its first step)`` for a select that jumps to a round
    (``round`` is the round shown). Everything a click needs is in these numbers: the service reads the
    game again from storage."""

    game_id: int
    step: int
    last: int
    hands: bool
    round: int
    buttons: tuple[ReplayButton, ...] = ()
    rounds: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Attachment:
    """A file sent with a reply (a game's record, its animation, its web page)."""

    data: bytes
    filename: str
    description: str = ""


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
    ``mentions`` are the users this message may ping. ``live`` names a turn's running account: where
    the front end can edit its messages, a post with the same ``live`` as the channel's last post is
    added to that message (an edit) rather than sent as a new one."""

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
    live: str | None = None


@dataclass(frozen=True)
class Reply(Post):
    """The answer to the caller: private (ephemeral) unless ``public``. ``replay``: the controls of a
    replay step; ``files``: attachments other than pictures."""

    public: bool = False
    replay: ReplayView | None = None
    files: tuple[Attachment, ...] = ()


class SendLater(Exception):
    """A post could not be sent now (Discord answered with a server error, or the network failed):
    it stays in the outbox and is sent again later, in its place."""


class Outbox(Protocol):
    """Where the service posts to a channel (Discord, or the terminal)."""

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> int | None:
        """Send ``post`` to the channel; the new message's id, where there is one. ``nonce`` names the
        post so that sending it again (after a crash) does not post it twice. Raises SendLater when it
        may go through later; a post that never will (no permission, the channel gone) is the front
        end's to log, and dropped."""


@runtime_checkable
class Editor(Protocol):
    """An ``Outbox`` that can also edit its messages (Discord): a turn's ``live`` posts then grow one
    message."""

    async def edit(self, channel_id: int, message_id: int, post: Post) -> bool:
        """Make the message ``message_id`` say ``post``'s words; False if it is gone (deleted). Raises
        SendLater as ``post`` does."""


# -- posts as stored in the outbox ---------------------------------------------------------------

_PARTS: dict[str, type] = {cls.__name__: cls for cls in (Strong, Mention, Command, Button, Code, Here)}


def _part_json(p: Part) -> str | dict[str, Any]:
    return p if isinstance(p, str) else {"part": type(p).__name__, **dataclasses.asdict(p)}


def _part_of(data: str | dict[str, Any]) -> Part:
    if isinstance(data, str):
        return data
    fields = dict(data)
    kind = _PARTS[fields.pop("part")]
    part: Part = kind(**fields)
    return part


def encode_post(post: Post) -> str:
    """``post`` as JSON text, to be stored until it is sent (pictures in base64). A channel post has
    no panel, no confirmation and no cancel button: those are private."""
    if post.panel is not None or post.confirm is not None or post.cancel_game is not None:
        raise ValueError("a private answer is not stored in the outbox")
    out: dict[str, Any] = {f.name: getattr(post, f.name) for f in dataclasses.fields(Post)
                           if f.name not in ("text", "png", "gallery", "panel", "confirm", "cancel_game")}
    out["text"] = [_part_json(p) for p in post.text.parts]
    out["png"] = base64.b64encode(post.png).decode() if post.png is not None else None
    out["gallery"] = [{"png": base64.b64encode(p.png).decode(), "filename": p.filename,
                       "description": p.description, "lead": p.lead} for p in post.gallery]
    return json.dumps(out)


def decode_post(body: str) -> Post:
    """The post ``encode_post`` stored."""
    data = json.loads(body)
    return Post(
        text=Text(tuple(_part_of(p) for p in data.pop("text"))),
        png=base64.b64decode(data.pop("png")) if data.get("png") is not None else data.pop("png"),
        gallery=tuple(Picture(base64.b64decode(p["png"]), p["filename"], p["description"], p["lead"])
                      for p in data.pop("gallery")),
        choices=tuple(tuple(c) for c in data.pop("choices")),
        mentions=tuple(data.pop("mentions")),
        **data,
    )
