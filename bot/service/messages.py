"""What goes in and out of the service: who asks, the answer for them, and posts for the channel."""

from __future__ import annotations

import base64
import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..storage import Body
from ..words import Button, Code, Command, Here, Mention, Name, Part, Place, Strong, Text
from .steps import Choice


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
    """The controls of a turn panel (bot/service/steps.py) for game ``game_id`` at ``version`` (``version_of``
    the game: the position the panel was drawn for): a list to pick
    from (``choices`` after ``path``, with ``question`` as its placeholder), and the buttons the step
    allows: Back (to the path ``back``), Confirm (the step is a preview; shown red when the action
    ``harms`` its player), Undo, Hint (``hint``: the game allows hints and waits on the player), and
    Look again (while it waits on someone else)."""

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
    hint: bool = False


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
class LessonView:
    """The controls of a course message (private). ``lesson`` is the lesson's key, ``""`` for the list of
    lessons (then ``choices`` are the lessons: a pick opens ``Tiempo.learn_lesson(caller, key)``).

    In a lesson, at task ``stage``: a list to pick from (``choices`` after ``base``, with ``question``
    as its placeholder) that goes to ``Tiempo.learn_lesson(caller, lesson, stage, base + (key,))``;
    Back (to the path ``back``, when not None); Confirm (``confirm``: the path names a move, played by
    ``Tiempo.learn_confirm(caller, lesson, stage, path)``); Start again (``retry``: the lesson from its
    first task); Next lesson (``next``: that lesson's key); and always "Lessons" (the list)."""

    lesson: str = ""
    stage: int = 0
    path: tuple[str, ...] = ()
    base: tuple[str, ...] = ()
    question: str = ""
    choices: tuple[Choice, ...] = ()
    back: tuple[str, ...] | None = None
    confirm: bool = False
    retry: bool = False
    next: str | None = None


@dataclass(frozen=True)
class Picture:
    """A picture of a post's gallery: the ``lead`` pictures are shown large, one after the other;
    the others together below them, smaller. ``description`` is its alternative text."""

    png: bytes
    filename: str
    description: str = ""
    lead: bool = True


C = TypeVar("C")


# -- the controls a message carries (each front end draws them in its own way) -------------------


@dataclass(frozen=True)
class HandButtons:
    """The persistent "My hand" button of game ``game`` (and "Board now", to see it privately).
    ``version`` (``version_of`` the game) is the position the message shows, where it shows one."""

    game: int
    version: str = ""


@dataclass(frozen=True)
class LobbyButtons:
    """Join, Leave and Start buttons of the lobby of game ``game``."""

    game: int


@dataclass(frozen=True)
class RematchButton:
    """A Rematch button after game ``game`` is over: a new lobby with the same seats."""

    game: int


@dataclass(frozen=True)
class Answers:
    """One button per answer of the decision game ``game`` waits on at ``version``: ``(label, cell)``."""

    game: int
    version: str
    choices: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class PlayButton:
    """The "Play" button that opens the turn panel of game ``game``."""

    game: int


@dataclass(frozen=True)
class PanelControls:
    """The list and buttons of a turn panel (a private reply)."""

    view: PanelView


@dataclass(frozen=True)
class LessonControls:
    """The list and buttons of a course message (a private reply, bot/service/lessons.py)."""

    view: LessonView


@dataclass(frozen=True)
class ConfirmButton:
    """A Confirm button that plays ``notation`` in game ``game`` at ``version``, an action its player
    was warned harms their own game (a private reply)."""

    game: int
    version: str
    notation: str


@dataclass(frozen=True)
class CancelButton:
    """A button that confirms cancelling game ``game``, which is being played (a private reply)."""

    game: int


@dataclass(frozen=True)
class ReplayControls:
    """The stepping buttons (⏮ ◀ ▶ ⏭) and the round list of a replay step (a reply, private or in the
    channel; a click shows another step in the same message)."""

    view: ReplayView


#: what a message can carry besides words and pictures, in the order it is shown
Control = (HandButtons | LobbyButtons | RematchButton | Answers | PlayButton | PanelControls | ConfirmButton
           | CancelButton | ReplayControls | LessonControls)
#: the controls a settled message keeps: they show the game as it is now, whenever they are pressed
LASTING_CONTROLS = (HandButtons, RematchButton)
#: the controls only a private reply carries (never a channel's post): never stored in the outbox
PRIVATE_CONTROLS = (PanelControls, ConfirmButton, CancelButton, ReplayControls, LessonControls)


@dataclass(frozen=True)
class Post:
    """A message: words, a picture (``png``) or a ``gallery`` of pictures, and ``controls`` (buttons,
    lists) in the order they are shown. ``mentions`` are the users this message may ping. ``live``
    names a turn's running account: where the front end can edit its messages, a post with the same
    ``live`` as the channel's last post is added to that message (an edit) rather than sent as a new
    one.

    ``key`` names the message a post becomes (``"ask-12"``: game 12's pending decision), so that a
    later post can settle it: where the front end can edit its messages, a post that ``settles`` a
    key is no new message but an edit of the channel's message of that key: its buttons go (but the
    lasting ones, ``LASTING_CONTROLS``), and its last line (a keyed post ends with its call to act:
    the question, "is thinking…") becomes the settling post's words, when it has any. A new message
    with the same key settles the one before it (its buttons go, its words stay).

    ``retracts``: a ``live`` post (an undo) that takes the place of the last post added to the live
    message (the account of the action it takes back), rather than following it."""

    text: Text
    png: bytes | None = None
    filename: str = "tiempo.png"
    gallery: tuple[Picture, ...] = ()
    controls: tuple[Control, ...] = ()
    mentions: tuple[int, ...] = ()
    live: str | None = None
    key: str | None = None
    settles: str | None = None
    retracts: bool = False

    def control(self, kind: type[C]) -> C | None:
        """The post's first control of type ``kind``, if it has one."""
        return next((c for c in self.controls if isinstance(c, kind)), None)


@dataclass(frozen=True)
class Reply(Post):
    """The answer to the caller: private (ephemeral) unless ``public``. ``files``: attachments other
    than pictures."""

    public: bool = False
    files: tuple[Attachment, ...] = ()

    @property
    def replay(self) -> ReplayView | None:
        """The controls of a replay step, if the reply is one (its ``ReplayControls``)."""
        controls = self.control(ReplayControls)
        return None if controls is None else controls.view


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


class DMClosed(Exception):
    """A person does not take direct messages from the bot (they closed them): the channel mentions
    them instead (``bot.service.reminders``)."""


@runtime_checkable
class DirectOutbox(Protocol):
    """An ``Outbox`` that can also send a person a direct message (Discord; ``/tiempo notify dm``)."""

    async def direct(self, user_id: int, post: Post, nonce: str | None = None) -> None:
        """Send ``post`` to ``user_id`` privately (its ``nonce`` as ``post``'s). Raises DMClosed when
        they do not take direct messages, SendLater when it may go through later; a message that never
        will for another reason is the front end's to log, and dropped."""


@runtime_checkable
class Rewriter(Protocol):
    """An ``Outbox`` that can rewrite any earlier message of its own (Discord): a post that stopped
    meaning anything loses its buttons (``Post.settles``)."""

    async def rewrite(self, channel_id: int, message_id: int, post: Post) -> bool:
        """Make the message ``message_id`` say ``post`` (words and controls), keeping its pictures
        (``post``'s pictures are named, not sent again); False if it is gone. Raises SendLater as
        ``post`` does."""


def settled(post: Post, note: Text | None) -> Post:
    """``post`` as it reads once settled: without its buttons (but ``LASTING_CONTROLS``), its last
    line replaced by ``note`` when there is one."""
    words = post.text
    if note is not None and note.plain():
        parts = list(post.text.parts)
        words = note
        for i in range(len(parts) - 1, -1, -1):
            part = parts[i]
            if isinstance(part, str) and "\n" in part:
                words = Text((*parts[:i], part.rsplit("\n", 1)[0] + "\n")) + note
                break
    return dataclasses.replace(post, text=words, settles=None,
                               controls=tuple(c for c in post.controls if isinstance(c, LASTING_CONTROLS)))


# -- posts as stored in the outbox ---------------------------------------------------------------

_PARTS: dict[str, type] = {cls.__name__: cls for cls in (Strong, Mention, Name, Command, Button, Code, Here, Place)}


def _part_json(p: Part) -> str | dict[str, Any]:
    if isinstance(p, Strong) and isinstance(p.text, Text):  # (bold words with parts of their own: a name)
        return {"part": "Strong", "parts": [_part_json(q) for q in p.text.parts]}
    return p if isinstance(p, str) else {"part": type(p).__name__, **dataclasses.asdict(p)}


def _part_of(data: str | dict[str, Any]) -> Part:
    if isinstance(data, str):
        return data
    fields = dict(data)
    kind = _PARTS[fields.pop("part")]
    if kind is Strong and "parts" in fields:
        return Strong(Text(tuple(_part_of(q) for q in fields["parts"])))
    part: Part = kind(**fields)
    return part


_CONTROLS: dict[str, type] = {cls.__name__: cls for cls in (HandButtons, LobbyButtons, RematchButton, Answers,
                                                          PlayButton)}


def _control_json(control: Control) -> dict[str, Any]:
    return {"control": type(control).__name__, **dataclasses.asdict(control)}


def _control_of(data: dict[str, Any]) -> Control:
    fields = dict(data)
    kind = _CONTROLS[fields.pop("control")]
    if kind is Answers:
        fields["choices"] = tuple(tuple(c) for c in fields["choices"])
    control: Control = kind(**fields)
    return control


def _old_controls(data: dict[str, Any]) -> tuple[Control, ...]:
    """The controls of a post stored before posts had ``controls`` (one optional field per kind of
    button), in the order the front ends drew them then."""
    version = data.get("version", "")
    out: list[Control] = []
    if data.get("choice_game") is not None:
        out.append(Answers(data["choice_game"], version, tuple(tuple(c) for c in data.get("choices", ()))))
    if data.get("play_game") is not None:
        out.append(PlayButton(data["play_game"]))
    if data.get("hand_game") is not None:
        out.append(HandButtons(data["hand_game"], version))
    if data.get("lobby_game") is not None:
        out.append(LobbyButtons(data["lobby_game"]))
    if data.get("rematch_game") is not None:
        out.append(RematchButton(data["rematch_game"]))
    return tuple(out)


def encode_post(post: Post) -> Body:
    """``post`` as the outbox stores it until it is sent: its words, buttons and the rest as JSON text,
    its pictures as binary, one after the other (the JSON gives each one's size where the picture
    was: ``"png": 51234``). Raises ValueError for a post with a private control (a panel, a
    confirmation, a cancel button)."""
    if any(isinstance(c, PRIVATE_CONTROLS) for c in post.controls):
        raise ValueError("a private answer is not stored in the outbox")
    pictures = [*([post.png] if post.png is not None else []), *(p.png for p in post.gallery)]
    return Body(json.dumps({
        "text": [_part_json(p) for p in post.text.parts],
        "png": len(post.png) if post.png is not None else None,
        "filename": post.filename,
        "gallery": [{"png": len(p.png), "filename": p.filename, "description": p.description, "lead": p.lead}
                    for p in post.gallery],
        "controls": [_control_json(c) for c in post.controls],
        "mentions": list(post.mentions),
        "live": post.live,
        "key": post.key,
        "settles": post.settles,
        "retracts": post.retracts,
    }), b"".join(pictures) if pictures else None)


def encode_words(post: Post) -> str:
    """``post``, which has no pictures (a direct message, its fallback), as the JSON text
    ``encode_post`` stores. Raises ValueError for a post with pictures, or with a private control."""
    body = encode_post(post)
    if body.pictures is not None:
        raise ValueError("a post stored as text alone has no pictures")
    return body.text


class _Pictures:
    """The pictures of a stored post, read in order: each the next ``size`` bytes of its binary, or (a
    post stored before schema step 10) its base64 text."""

    def __init__(self, data: bytes | None) -> None:
        self.data = data or b""
        self.at = 0

    def next(self, stored: int | str) -> bytes:
        if isinstance(stored, str):
            return base64.b64decode(stored)
        start, self.at = self.at, self.at + stored
        if self.at > len(self.data):
            raise ValueError(f"a stored post's pictures end at byte {len(self.data)}, before {self.at}")
        return self.data[start:self.at]


def decode_post(body: str, pictures: bytes | None = None) -> Post:
    """The post ``encode_post`` stored as ``body`` and ``pictures`` (also in the forms stored before:
    pictures in base64 in the JSON, posts without ``controls``)."""
    data = json.loads(body)
    controls = (tuple(_control_of(c) for c in data["controls"]) if "controls" in data else _old_controls(data))
    read = _Pictures(pictures)
    return Post(
        text=Text(tuple(_part_of(p) for p in data["text"])),
        png=read.next(data["png"]) if data.get("png") is not None else None,
        filename=data.get("filename", "tiempo.png"),
        gallery=tuple(Picture(read.next(p["png"]), p["filename"], p["description"], p["lead"])
                      for p in data.get("gallery", ())),
        controls=controls,
        mentions=tuple(data.get("mentions", ())),
        live=data.get("live"),
        key=data.get("key"),
        settles=data.get("settles"),
        retracts=bool(data.get("retracts", False)),
    )
