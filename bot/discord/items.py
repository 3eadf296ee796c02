"""The persistent buttons and menus: ``DynamicItem``s whose custom ids carry the game (and its version
where it matters), so a button on a message from yesterday, or from before a restart, still works:
the game is reloaded from storage on every click (discord.py's ``examples/views/dynamic_counter.py``).

Each item is a small subclass of ``TiempoButton`` (or ``TiempoSelect``) that declares its custom id
as a pattern of named fields, its label and style, and the service call a click makes::

    class Play(TiempoButton, id="play:{game}"):
        label, style, emoji = "Play", discord.ButtonStyle.success, "▶️"
        game: int

        async def call(self, service: Tiempo, caller: Caller) -> Reply:
            return await service.panel(caller, self.game)

``items_of`` turns a post's controls (``bot.service``'s ``HandButtons``, ``Answers``…) into items.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Any, ClassVar

import discord

from ..service import (
    SEP,
    Answers,
    Caller,
    CancelButton,
    Choice,
    ConfirmButton,
    Control,
    HandButtons,
    LessonControls,
    LessonView,
    LobbyButtons,
    PanelControls,
    PanelView,
    PlayButton,
    RematchButton,
    ReplayControls,
    ReplayView,
    Reply,
    Tiempo,
)
from ..words import say
from .context import Interaction, caller_of, front_of

#: a game's version in a custom id (``version_of``: ``12-3fa9c2``); a button drawn before versions had
#: a digest (digits only) still matches, and is answered as a stale one
_VERSION = r"[0-9a-f-]+"


def _path(text: str) -> tuple[str, ...]:
    return tuple(text.split(SEP)) if text else ()


#: the fields a custom id may carry: (their pattern, read from the id, written into it)
FIELDS: dict[str, tuple[str, Callable[[str], Any], Callable[[Any], str]]] = {
    "game": (r"\d+", int, str),
    "version": (_VERSION, str, str),
    "cell": (r"[A-Z]+\d+", str, str),
    "path": (r"[A-Za-z0-9+\-.]*", _path, SEP.join),
    "notation": (r".+", str, str),
    # a replay's: a stepping button's role, the step it goes to ("end": the newest), the hands shown
    "role": (r"first|prev|next|last", str, str),
    "to": (r"\d+|end", lambda text: None if text == "end" else int(text), lambda step: "end" if step is None
           else str(step)),
    "hands": (r"[01]", lambda text: text == "1", lambda hands: "1" if hands else "0"),
    "lesson": (r"[a-z]+", str, str),
    "stage": (r"\d+", int, str),
}
_FORMATTER = string.Formatter()


def _template(id_pattern: str) -> tuple[str, tuple[str, ...]]:
    """The regular expression of ``tiempo:`` + ``id_pattern`` (``"choose:{game}:{version}:{cell}"``)
    and the names of its fields, in order."""
    regex, names = "tiempo:", []
    for literal, field, _, _ in _FORMATTER.parse(id_pattern):
        regex += re.escape(literal)
        if field is not None:
            regex += f"(?P<{field}>{FIELDS[field][0]})"
            names.append(field)
    return regex, tuple(names)


class _Persistent:
    """What ``TiempoButton`` and ``TiempoSelect`` share: the custom id's fields, and the click."""

    #: the custom id after ``tiempo:``, with ``{game}``-style fields (of ``FIELDS``)
    id_pattern: ClassVar[str]
    fields: ClassVar[tuple[str, ...]]
    #: the click plays or draws (Discord may wait longer than 3 s): acknowledge it first
    slow: ClassVar[bool] = False
    #: the answer replaces the clicked message (a panel's next step), rather than coming as a new one
    edits: ClassVar[bool] = False
    #: the item's name in the log ("hand button")
    what: ClassVar[str] = ""
    label: ClassVar[str] = ""

    @classmethod
    def _declare(cls, id_pattern: str) -> str:
        """Take the item's custom id pattern (after ``tiempo:``); its template for discord.py."""
        template, cls.fields = _template(id_pattern)
        cls.id_pattern = id_pattern
        cls.what = cls.what or f"{cls.label.lower()} button"
        return template

    def _fields_from(self, values: tuple[Any, ...]) -> str:
        if len(values) != len(self.fields):
            raise TypeError(f"{type(self).__name__} takes {', '.join(self.fields)}")
        for name, value in zip(self.fields, values, strict=True):
            setattr(self, name, value)
        return "tiempo:" + self.id_pattern.format(**{n: FIELDS[n][2](v) for n, v in zip(self.fields, values,
                                                                                        strict=True)})

    @classmethod
    def _values(cls, match: re.Match[str]) -> list[Any]:
        return [FIELDS[name][1](match[name]) for name in cls.fields]

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        """The service call a click makes."""
        raise NotImplementedError

    async def _clicked(self, interaction: Interaction) -> None:
        front = front_of(interaction)
        caller = caller_of(interaction)
        await front.answer(interaction, self.what, lambda: self.call(front.service, caller), defer=self.slow,
                           update=self.edits)


class TiempoButton(_Persistent, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"(?!)"):
    """A persistent button: a subclass declares ``id=`` (its custom id's pattern), ``label``, ``style``
    (and ``emoji``), the fields as annotations, and ``call``. Made with the fields' values in the
    order of the pattern; ``label`` and ``style`` may be given to change them for one button."""

    style: ClassVar[discord.ButtonStyle] = discord.ButtonStyle.secondary
    emoji: ClassVar[str | None] = None

    def __init_subclass__(cls, *, id: str, **kwargs: Any) -> None:
        super().__init_subclass__(template=cls._declare(id), **kwargs)

    def __init__(self, *values: Any, label: str | None = None, style: discord.ButtonStyle | None = None,
                 emoji: str | None = None, disabled: bool = False) -> None:
        custom_id = self._fields_from(values)
        super().__init__(discord.ui.Button(label=label or self.label or None, style=style or self.style,
                                           emoji=emoji or self.emoji, custom_id=custom_id, disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> TiempoButton:
        return cls(*cls._values(match))

    async def callback(self, interaction: Interaction) -> None:
        await self._clicked(interaction)


def placeholder(question: str) -> str:
    """A menu's placeholder: its question's first sentence (the panel above it says the whole question;
    a phone shows a placeholder's first forty characters or so), at most Discord's 150."""
    first = re.match(r".*?[?.!](?=\s|$)", question)
    return (first.group(0) if first else question)[:150]


class TiempoSelect(_Persistent, discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]], template=r"(?!)"):
    """A persistent menu, declared as a ``TiempoButton`` is; its options come with the question when it
    is drawn, and its ``call`` reads the pick from ``self.item.values``."""

    def __init_subclass__(cls, *, id: str, **kwargs: Any) -> None:
        super().__init_subclass__(template=cls._declare(id), **kwargs)

    def __init__(self, *values: Any, question: str = "", choices: tuple[Choice, ...] = (), chosen: str = "") -> None:
        custom_id = self._fields_from(values)
        options = [discord.SelectOption(label=c.label, value=c.key, description=c.detail or None,
                                        emoji="⚠️" if c.harms else "💥" if c.hurts else None,  # own harm, others'
                                        default=c.key == chosen) for c in choices]
        super().__init__(discord.ui.Select(custom_id=custom_id, placeholder=placeholder(question) or None,
                                           options=options or [discord.SelectOption(label="-")]))

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> TiempoSelect:
        return cls(*cls._values(match))

    async def callback(self, interaction: Interaction) -> None:
        await self._clicked(interaction)


# -- on the channel's posts ---------------------------------------------------------------------


class MyHand(TiempoButton, id="hand:{game}"):
    """"My hand": the clicking player's own hand, privately, from the game as it is now."""

    label, style, emoji, what = "My hand", discord.ButtonStyle.primary, "🂠", "hand button"
    game: int

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.hand(caller, self.game)


class BoardNow(TiempoButton, id="board:{game}"):
    """"Board now": the current picture of the game, privately."""

    label, slow, what = "Board now", True, "board button"
    game: int

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.board(caller, None, self.game)


class Answer(TiempoButton, id="choose:{game}:{version}:{cell}"):
    """One answer to a pending decision (labelled with what it means); refused if the game moved on
    since the question. Answered with the turn panel, as the panel's own pick and Confirm are."""

    style, slow, what = discord.ButtonStyle.success, True, "choose button"
    game: int
    version: str
    cell: str

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.answer(caller, self.game, self.version, self.cell)


class Join(TiempoButton, id="lobby:{game}:join"):
    """Join, on a lobby message (which then shows the new seat)."""

    label, style, edits = "Join", discord.ButtonStyle.success, True
    game: int

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.join(caller, self.game)


class Leave(TiempoButton, id="lobby:{game}:leave"):
    """Leave, on a lobby message."""

    label, edits = "Leave", True
    game: int

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.leave(caller, self.game)


class Start(TiempoButton, id="lobby:{game}:start"):
    """Start, on a lobby message: the message becomes the start's, and its buttons go."""

    label, style, slow, edits = "Start", discord.ButtonStyle.primary, True, True
    game: int

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.start_game(caller, self.game)


class Rematch(TiempoButton, id="rematch:{game}"):
    """Rematch: a new lobby with the game's AI seats, its other people asked to join (or, pressed again by one of
    them, joining it)."""

    label, style = "Rematch", discord.ButtonStyle.success
    game: int

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.rematch(caller, self.game)


class Play(TiempoButton, id="play:{game}"):
    """"Play": the turn panel of the player who presses it, privately."""

    label, style, emoji = "Play", discord.ButtonStyle.success, "▶️"
    game: int

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.panel(caller, self.game)


# -- on a private answer --------------------------------------------------------------------------


class ConfirmAction(TiempoButton, id="sure:{game}:{version}:{notation}"):
    """Confirm an action the player was warned harms their own game; refused once the game moved on."""

    label, style, slow, edits, what = "Confirm", discord.ButtonStyle.danger, True, True, "confirm button"
    game: int
    version: str
    notation: str

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.play_confirmed(caller, self.game, self.version, self.notation)


class ConfirmCancel(TiempoButton, id="cancel:{game}"):
    """Confirms cancelling a game in play."""

    label, style, what = "Cancel the game", discord.ButtonStyle.danger, "cancel button"
    game: int

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.cancel(caller, self.game, confirmed=True)


# -- the turn panel: its list, then Confirm, Back, Menu, Undo or Look again -----------------------


class PanelPick(TiempoSelect, id="pick:{game}:{version}:{path}"):
    """The list of a turn panel's step: the pick goes to the next step, in place."""

    edits, what = True, "panel pick"
    game: int
    version: str
    path: tuple[str, ...]

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        values = self.item.values  # filled in from the interaction before the callback
        path = (*self.path, *values[0].split(SEP)) if values else self.path
        return await service.panel(caller, self.game, self.version, path)


class PanelConfirm(TiempoButton, id="ok:{game}:{version}:{path}"):
    """Confirm: play the action the panel shows (red when it harms its player)."""

    label, style, slow, edits, what = "Confirm", discord.ButtonStyle.success, True, True, "panel ok"
    game: int
    version: str
    path: tuple[str, ...]

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.panel_confirm(caller, self.game, self.version, self.path)


class PanelBack(TiempoButton, id="back:{game}:{version}:{path}"):
    """Back: the previous question."""

    label, edits, what = "Back", True, "panel back"
    game: int
    version: str
    path: tuple[str, ...]

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.panel(caller, self.game, self.version, self.path)


class PanelMenu(PanelBack, id="go:{game}:{version}:{path}"):
    """Menu: back to the first list."""

    label, what = "Menu", "panel go"


class PanelLook(PanelBack, id="look:{game}:{version}:{path}"):
    """Look again: the panel of a player who waits on someone else, as the game is now."""

    label, what = "Look again", "panel look"


class PanelUndo(TiempoButton, id="undo:{game}:{version}:{path}"):
    """Undo: take back the player's last action this turn."""

    label, style, slow, edits, what = "Undo", discord.ButtonStyle.danger, True, True, "panel undo"
    game: int
    version: str
    path: tuple[str, ...]

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.panel_undo(caller, self.game)


class PanelHint(TiempoButton, id="hint:{game}:{version}"):
    """Hint: what the AI's top level would play next, at the panel's confirm step, and why (in place;
    acknowledged first, as the search takes up to two seconds)."""

    label, emoji, slow, edits, what = "Hint", "💡", True, True, "panel hint"
    game: int
    version: str

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.hint(caller, self.game)


def panel_items(panel: PanelView) -> list[discord.ui.Item[Any]]:
    """A turn panel's list and buttons."""
    game, version = panel.game_id, panel.version
    items: list[discord.ui.Item[Any]] = []
    if panel.choices:
        items.append(PanelPick(game, version, panel.base, question=panel.question, choices=panel.choices))
    if panel.confirm:
        items.append(PanelConfirm(game, version, panel.path,
                                  style=discord.ButtonStyle.danger if panel.harms else None))
    if panel.back is not None:
        items.append(PanelBack(game, version, panel.back))
    if panel.back:  # (Back to the menu is the menu)
        items.append(PanelMenu(game, version, ()))
    if panel.undo:
        items.append(PanelUndo(game, version, ()))
    if panel.hint and (panel.choices or panel.confirm):
        items.append(PanelHint(game, version))
    if not panel.choices and not panel.confirm:  # waiting for someone else: look again later
        items.append(PanelLook(game, version, ()))
    return items


# -- a replay: ⏮ ◀ ▶ ⏭ and a list of the rounds; a click shows another step in the same message ------


class ReplayStep(TiempoButton, id="replay:{game}:{role}:{to}:{hands}"):
    """⏮ ◀ ▶ ⏭ of a replay: the step ``to`` (None: the newest, whatever it is when pressed), read from
    storage again, in place of the step shown. The role is in the id because two buttons may go to
    the same step, and ids must differ."""

    edits, what = True, "replay button"
    game: int
    role: str
    to: int | None
    hands: bool

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.replay(caller, self.game, self.to, hands=self.hands)


class ReplayRound(TiempoSelect, id="replay:{game}:round:{hands}"):
    """The list of a replay's rounds: the first turn of the round picked (the options' values are
    steps), in place of the step shown."""

    edits, what = True, "replay round"
    game: int
    hands: bool

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        values = self.item.values  # filled in from the interaction before the callback
        step = int(values[0]) if values and values[0].isdecimal() else None
        return await service.replay(caller, self.game, step, hands=self.hands)


def replay_items(view: ReplayView) -> list[discord.ui.Item[Any]]:
    """A replay step's buttons (one row), then its list of rounds (the round shown chosen)."""
    items: list[discord.ui.Item[Any]] = [
        ReplayStep(view.game_id, b.role, b.step, view.hands, emoji=b.emoji, disabled=b.disabled)
        for b in view.buttons]
    if len(view.rounds) > 1:
        choices = tuple(Choice(str(step), say("Round {round}", round=r).plain()) for r, step in view.rounds)
        items.append(ReplayRound(view.game_id, view.hands, question=say("Go to a round").plain(), choices=choices,
                                 chosen=next((str(step) for r, step in view.rounds if r == view.round), "")))
    return items


# -- the course (/tiempo learn): its lists, then Confirm, Back, Start again, Next lesson, Lessons -------


class Lessons(TiempoButton, id="learn"):
    """Lessons: the list of the course's lessons, in place."""

    label, edits, what = "Lessons", True, "learn list"

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.learn(caller)


class LessonOpen(TiempoButton, id="learn:{lesson}"):
    """A lesson from its start (Start, Start again, Next lesson: the label says which), in place."""

    label, style, slow, edits, what = "Start", discord.ButtonStyle.primary, True, True, "learn open"
    lesson: str

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.learn_lesson(caller, self.lesson)


class LessonChoose(TiempoSelect, id="learn-go"):
    """The list of lessons: the pick opens that lesson, in place."""

    slow, edits, what = True, True, "learn go"

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        values = self.item.values
        return await service.learn_lesson(caller, values[0]) if values else await service.learn(caller)


class LessonPick(TiempoSelect, id="learn:{lesson}:{stage}:{path}"):
    """A lesson step's list (as the turn panel's): the pick goes to the next step, in place."""

    slow, edits, what = True, True, "learn pick"
    lesson: str
    stage: int
    path: tuple[str, ...]

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        values = self.item.values
        path = (*self.path, *values[0].split(SEP)) if values else self.path
        return await service.learn_lesson(caller, self.lesson, self.stage, path)


class LessonBack(TiempoButton, id="learn-back:{lesson}:{stage}:{path}"):
    """Back: the lesson step's previous question."""

    label, slow, edits, what = "Back", True, True, "learn back"
    lesson: str
    stage: int
    path: tuple[str, ...]

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.learn_lesson(caller, self.lesson, self.stage, self.path)


class LessonConfirm(TiempoButton, id="learn-ok:{lesson}:{stage}:{path}"):
    """Confirm: the move the lesson step shows, checked and explained."""

    label, style, slow, edits, what = "Confirm", discord.ButtonStyle.success, True, True, "learn ok"
    lesson: str
    stage: int
    path: tuple[str, ...]

    async def call(self, service: Tiempo, caller: Caller) -> Reply:
        return await service.learn_confirm(caller, self.lesson, self.stage, self.path)


def lesson_items(view: LessonView) -> list[discord.ui.Item[Any]]:
    """A course message's list and buttons (``LessonView`` says which)."""
    items: list[discord.ui.Item[Any]] = []
    if not view.lesson:  # the list of lessons
        if view.choices:
            items.append(LessonChoose(question=view.question, choices=view.choices))
        if view.next:
            items.append(LessonOpen(view.next, label="Start"))
        return items
    if view.choices:
        items.append(LessonPick(view.lesson, view.stage, view.base, question=view.question, choices=view.choices))
    if view.confirm:
        items.append(LessonConfirm(view.lesson, view.stage, view.path))
    if view.back is not None:
        items.append(LessonBack(view.lesson, view.stage, view.back))
    if view.retry:
        items.append(LessonOpen(view.lesson, label="Start again", style=discord.ButtonStyle.secondary))
    if view.next:
        items.append(LessonOpen(view.next, label="Next lesson", style=discord.ButtonStyle.success))
    items.append(Lessons())
    return items


def items_of_control(control: Control) -> list[discord.ui.Item[Any]]:
    """The buttons and menus that show one control of a post."""
    match control:
        case PanelControls(view=view):
            return panel_items(view)
        case ConfirmButton(game=game, version=version, notation=notation):
            return [ConfirmAction(game, version, notation)]
        case CancelButton(game=game):
            return [ConfirmCancel(game)]
        case Answers(game=game, version=version, choices=choices):
            return [Answer(game, version, cell, label=label) for label, cell in choices]
        case PlayButton(game=game):
            return [Play(game)]
        case HandButtons(game=game):
            return [MyHand(game), BoardNow(game)]
        case LobbyButtons(game=game):
            return [Join(game), Leave(game), Start(game)]
        case RematchButton(game=game):
            return [Rematch(game)]
        case ReplayControls(view=view):
            return replay_items(view)
        case LessonControls(view=view):
            return lesson_items(view)


def items_of(controls: tuple[Control, ...]) -> list[discord.ui.Item[Any]]:
    """The buttons and menus of a post's controls, in order."""
    return [item for control in controls for item in items_of_control(control)]


def _declared(base: type[discord.ui.DynamicItem[Any]]) -> list[type[discord.ui.DynamicItem[Any]]]:
    """Every item declared below ``base``, in the order of their declaration."""
    out: list[type[discord.ui.DynamicItem[Any]]] = []
    for sub in base.__subclasses__():
        out += [sub, *_declared(sub)]
    return out


#: every persistent item, for ``Client.add_dynamic_items``: each one declared, so that none a message
#: carries goes unmatched after a restart (discord.py drops an unmatched click without a word, and the
#: player reads "This interaction failed")
DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (*_declared(TiempoButton), *_declared(TiempoSelect))

__all__ = ["DYNAMIC_ITEMS", "FIELDS", "TiempoButton", "TiempoSelect", "items_of", "lesson_items", "panel_items",
           "replay_items"]
