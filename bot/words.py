"""The wording layer: what the service tells people, with the few things each front end shows its own way.

The service never writes Discord markup or terminal escapes. It builds a ``Text`` from plain strings
and a handful of parts that mean something — a name to stand out, a person to mention, a command to
type, a button to press — and each front end renders those parts in its own form::

    say("Join with {join}; the opener starts with {start}.", join=Command("join", or_button=True),
        start=Command("start"))

reads on Discord as "Join with `/tiempo join` (or the button); the opener starts with `/tiempo start`."
and at the terminal as "Join with `join`; the opener starts with `start`.". Rewording a sentence
cannot break either front end: neither looks inside the sentences.

This module is the *form* of what is said (``Text``, its parts, ``say`` templates, rendering, and the
one a/an helper ``with_article``); ``bot.texts`` is *what* is said about a game (the narration, a
hand, the status, the rules reference), written with these parts.
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from rules import with_article


def _as_it_is(name: str) -> str:
    return name


class _Joins:
    """``+`` for parts: a part joined to a string, a part or a Text is a Text."""

    __slots__ = ()

    def __add__(self, other: Text | Part) -> Text:
        return text(self, other)  # type: ignore[arg-type]

    def __radd__(self, other: Part) -> Text:
        return text(other, self)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Strong(_Joins):
    """Words that stand out (a heading, a label): bold where the front end can show it. A Text (with a
    person's ``Name`` in it, say) is shown part by part, its names escaped, inside the bold."""

    text: str | Text


@dataclass(frozen=True, slots=True)
class Mention(_Joins):
    """A person: a mention on Discord (which pings only if the post allows it), the name elsewhere."""

    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class Name(_Joins):
    """A person's name as they chose it (a Discord display name): shown as it is, so a front end with
    markup escapes it (a name "*Bo*" is not italics, "@everyone" is no mention)."""

    text: str


@dataclass(frozen=True, slots=True)
class Command(_Joins):
    """A command to type, with its options as typed (``kind:Keep cell:C4``). ``or_button``: a button
    on the same message does the same (said where there are buttons)."""

    word: str
    options: str = ""
    or_button: bool = False


@dataclass(frozen=True, slots=True)
class Button(_Joins):
    """A button to press; where the front end has no buttons, the command that does the same.
    ``where`` says where the button is, for front ends that show it."""

    label: str
    command: str
    where: str = ""


@dataclass(frozen=True, slots=True)
class Code(_Joins):
    """Text to type as it is: a card list, a payment, an option name (``MM 1+1``, ``at:``)."""

    text: str


@dataclass(frozen=True, slots=True)
class Here(_Joins):
    """The place the game is played: "this channel" on Discord, "this table" in the terminal
    (``capital`` at the start of a sentence); ``inside``, with the word that says where something
    is: "in this channel", "at this table"."""

    capital: bool = False
    inside: bool = False


@dataclass(frozen=True, slots=True)
class Place(_Joins):
    """A channel of a server, named by ids: a link where the front end can make one (a game listed from
    anywhere, even a direct message), else the words ``Style.place`` makes of the ids."""

    guild_id: int
    channel_id: int


Part = str | Strong | Mention | Name | Command | Button | Code | Here | Place
HERE = Here()
#: "in this channel", "at this table"
IN_HERE = Here(inside=True)


@dataclass(frozen=True, slots=True)
class Text:
    """A message, as parts. ``+`` joins Texts, parts and strings; ``plain()`` is for logs."""

    parts: tuple[Part, ...] = ()

    def __add__(self, other: Text | Part) -> Text:
        return Text(self.parts + (other.parts if isinstance(other, Text) else (other,)))

    def __radd__(self, other: Part) -> Text:
        return Text((other, *self.parts))

    def __bool__(self) -> bool:
        return any(p != "" for p in self.parts)

    def __format__(self, spec: str) -> str:
        """A Text is never flattened into an f-string (its names would lose their escaping): join it
        with ``+``, ``text`` or ``say``."""
        raise TypeError("a Text in an f-string: use say(), text() or + instead")

    def plain(self) -> str:
        """The text with every part in its plainest form (for logs and error messages)."""
        return render(self, PLAIN)


def text(*parts: Text | Part) -> Text:
    """Parts (and Texts) one after the other."""
    out: list[Part] = []
    for p in parts:
        out.extend(p.parts if isinstance(p, Text) else (p,))
    return Text(tuple(out))


def joined(items: Iterable[Text | Part], separator: str) -> Text:
    """Items one after the other, ``separator`` between each two."""
    out: list[Text | Part] = []
    for i, item in enumerate(items):
        if i:
            out.append(separator)
        out.append(item)
    return text(*out)


def listed(items: Iterable[Text | Part]) -> Text:
    """Items one after the other, separated by commas: ``alice, bob``."""
    return joined(items, ", ")


def series(items: Iterable[Text | Part], word: str = "and") -> Text:
    """Items named one after the other, as a sentence does: ``alice``, ``alice and bob``, ``alice, bob
    and cy`` (``word``: ``or`` for ``a, b or c``)."""
    out = list(items)
    return text(listed(out[:-1]), f" {word} ", out[-1]) if len(out) > 1 else text(*out)


def lines(items: Iterable[Text | Part]) -> Text:
    """Items one per line."""
    return joined(items, "\n")


_FORMATTER = string.Formatter()


def say(template: str, **values: Text | Part | int) -> Text:
    """A sentence from a template whose ``{name}`` fields are filled with parts, Texts or numbers."""
    out: list[Text | Part] = []
    for literal, field, spec, _ in _FORMATTER.parse(template):
        if literal:
            out.append(literal)
        if field is not None:
            value = values[field]
            out.append(format(value, spec or "") if isinstance(value, int) else value)
    return text(*out)


def as_text(value: Text | str) -> Text:
    """A string or a Text, as a Text."""
    return value if isinstance(value, Text) else Text((value,))


@dataclass(frozen=True)
class Style:
    """How one front end shows the parts."""

    strong: str = "{}"
    mention: str = "{name}"
    command: str = "`{word}{options}`"
    or_button: str = ""
    button: str = "type `{command}`"
    code: str = "`{}`"
    here: str = "this table"
    #: ``here`` with the word that says where something is
    in_here: str = "at this table"
    #: a person's name (``Name``) as shown: escaped where the front end has markup
    name: Callable[[str], str] = _as_it_is
    #: a channel of a server: ``{guild}`` and ``{channel}`` are their ids
    place: str = "channel {channel}"
    #: a command's words where the front end nests it (``{"games": "me games"}``)
    paths: Mapping[str, str] = dataclasses.field(default_factory=dict)


PLAIN = Style()


def render(t: Text, style: Style) -> str:
    """``t`` in ``style``."""
    out: list[str] = []
    for p in t.parts:
        if isinstance(p, str):
            out.append(p)
        elif isinstance(p, Strong):
            out.append(style.strong.format(render(p.text, style) if isinstance(p.text, Text) else p.text))
        elif isinstance(p, Mention):
            out.append(style.mention.format(id=p.user_id, name=style.name(p.name)))
        elif isinstance(p, Name):
            out.append(style.name(p.text))
        elif isinstance(p, Command):
            out.append(style.command.format(word=style.paths.get(p.word, p.word),
                                            options=f" {p.options}" if p.options else ""))
            if p.or_button:
                out.append(style.or_button)
        elif isinstance(p, Button):
            out.append(style.button.format(label=p.label, command=p.command, where=p.where))
        elif isinstance(p, Code):
            out.append(style.code.format(p.text))
        elif isinstance(p, Place):
            out.append(style.place.format(guild=p.guild_id, channel=p.channel_id))
        else:
            words = style.in_here if p.inside else style.here
            out.append(words[:1].upper() + words[1:] if p.capital else words)
    return "".join(out)


__all__ = ["HERE", "IN_HERE", "PLAIN", "Button", "Code", "Command", "Here", "Mention", "Name", "Part", "Place",
           "Strong", "Style", "Text", "as_text", "lines", "listed", "render", "say", "series", "text", "with_article"]
