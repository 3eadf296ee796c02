"""The Discord front end: one ``/tiempo`` command group, persistent buttons, and the channel outbox.

Every handler does the same four things: make a ``Caller`` from the interaction, call one method of
``bot.service.Tiempo``, and send its ``Reply`` (privately unless it says otherwise) — or the sentence
of the ``Refusal`` it raised, privately. Commands that may render a picture or wait on the game's lock
defer first, so Discord always hears from us within its 3 seconds. Anything unexpected is logged with
the game's channel and the command, and the user reads an apology (the service saves an action
before it tells anyone, so the channel shows what counted). A command or option as this bot no longer defines it (the
player's Discord shows an older form for a while after an update) is no error: the player reads that
the command changed.

Buttons are ``DynamicItem``s whose custom ids carry the game (and its version where it matters), so a
button on a message from yesterday, or from before a restart, still works: the game is reloaded from
storage on every click.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ClassVar, Literal

import aiohttp
import discord
from discord import app_commands

from rules import Age

from .ai import LEVELS as AI_LEVELS
from .config import Config
from .play import Refusal
from .service import SEP, Caller, Choice, PanelView, Picture, Post, Reply, Tiempo
from .service.messages import SendLater
from .storage import Storage, StorageError
from .texts import RULES
from .words import Style, Text, render, text

log = logging.getLogger("tiempo.discord")

Interaction = discord.Interaction[Any]

#: the permissions the bot needs in a channel: see it, post narration and boards with their picture
PERMISSIONS = discord.Permissions(view_channel=True, send_messages=True, send_messages_in_threads=True,
                                  attach_files=True, embed_links=True, read_message_history=True)

#: (a failure before the commit changed nothing; one during it may have stored the move, which the
#: channel then shows as usual: the channel, not this answer, says what counted)
SORRY = ("Something went wrong on our side. A move counts only if the channel shows it; please check there and "
         "try again. If it keeps happening, tell the host (the error is in the bot's log).")
#: for a command or option this bot does not know (the player's Discord still shows an older definition)
CHANGED = "This command changed; Discord will show the new one within a minute."

AgeName = Literal["Might", "Faith", "Reason"]
BuildKind = Literal["Watchtower", "Keep", "Castle", "Chapel", "Monastery", "Abbey", "Hamlet", "Town", "City"]


#: how the service's words look on Discord
DISCORD = Style(strong="**{}**", mention="<@{id}>", command="`/tiempo {word}{options}`", or_button=" (or the button)",
                button="press {label}{where}", code="`{}`", here="this channel")
#: Discord allows 2000 characters in a message; keep room for a footer
MAX_TEXT = 1900


def trim(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters at a line break, saying that lines were left out."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    out: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > limit - 40:
            break
        out.append(line)
        size += len(line) + 1
    out.append(f"… ({len(lines) - len(out)} more lines)")
    return "\n".join(out)


def markdown(text: Text) -> str:
    """The service's words as a Discord message."""
    return trim(render(text, DISCORD))


def caller_of(interaction: Interaction) -> Caller:
    """Who is asking, where, and whether they may manage the channel."""
    perms = interaction.permissions
    return Caller(guild_id=interaction.guild_id or 0, channel_id=interaction.channel_id or 0,
                  user_id=interaction.user.id, name=interaction.user.display_name,
                  can_manage=bool(perms.manage_channels or perms.administrator))


# ---------------------------------------------------------------------------------------------
# Sending


def mentions_of(post: Post) -> discord.AllowedMentions:
    """Ping only the users the post names for pinging: never everyone, never roles."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(u) for u in post.mentions])


def items_of(post: Post) -> list[discord.ui.Item[Any]]:
    """The buttons and menus of a post, in order."""
    items: list[discord.ui.Item[Any]] = []
    if post.panel is not None:
        items += panel_items(post.panel)
    if post.confirm is not None:
        items.append(ConfirmButton(*post.confirm))
    if post.cancel_game is not None:
        items.append(CancelButton(post.cancel_game))
    if post.choice_game is not None:  # the answers first (at most 20), then Play, My hand and Board now
        items += [ChooseButton(post.choice_game, post.version, cell, label) for label, cell in post.choices]
    if post.play_game is not None:
        items.append(PlayButton(post.play_game))
    if post.hand_game is not None:
        items += [HandButton(post.hand_game), BoardButton(post.hand_game)]
    if post.lobby_game is not None:
        items += [LobbyButton(post.lobby_game, what) for what in ("join", "leave", "start")]
    if post.rematch_game is not None:
        items.append(RematchButton(post.rematch_game))
    return items


def view_of(post: Post) -> discord.ui.View | None:
    """The buttons of a post as a classic view (rows filled in order)."""
    view = discord.ui.View(timeout=None)
    for item in items_of(post):
        view.add_item(item)
    return view if view.children else None


def is_layout(post: Post) -> bool:
    """Sent as a Components V2 layout: a turn panel, and a post with a gallery of pictures."""
    return post.panel is not None or bool(post.gallery)


def pictures_of(post: Post) -> list[Picture]:
    """The post's pictures: its one picture, then its gallery."""
    one = [Picture(post.png, post.filename)] if post.png is not None else []
    return [*one, *post.gallery]


def layout_of(post: Post, content: str) -> discord.ui.LayoutView:
    """A Components V2 layout: a container with the words and the pictures (each lead picture in a
    gallery of its own, so that it is shown as wide as the chat; the others together below), then
    the buttons and menus in rows."""
    view = discord.ui.LayoutView(timeout=None)
    parts: list[discord.ui.Item[Any]] = [discord.ui.TextDisplay(content)] if content else []
    pictures = pictures_of(post)

    def item(p: Picture) -> discord.MediaGalleryItem:
        return discord.MediaGalleryItem(f"attachment://{p.filename}", description=p.description[:256] or None)

    parts += [discord.ui.MediaGallery(item(p)) for p in pictures if p.lead]
    rest = [item(p) for p in pictures if not p.lead]
    if rest:
        parts.append(discord.ui.MediaGallery(*rest))
    if parts:
        view.add_item(discord.ui.Container(*parts))
    row: discord.ui.ActionRow[Any] | None = None
    width = 0
    for control in items_of(post):
        if row is None or width + control.width > 5:
            row, width = discord.ui.ActionRow(), 0
            view.add_item(row)
        row.add_item(control)
        width += control.width
    return view


def files_of(post: Post) -> list[discord.File]:
    """The post's pictures as attachments."""
    return [discord.File(io.BytesIO(p.png), filename=p.filename) for p in pictures_of(post)]


def message_of(post: Post, *, layout: bool | None = None, edit: bool = False) -> dict[str, Any]:
    """The keyword arguments that send (or, ``edit``, edit a message into) ``post``: a Components V2
    layout (``layout``, by default for a panel or a gallery), or words with buttons and a picture."""
    content = markdown(post.text)
    files = files_of(post)
    if layout if layout is not None else is_layout(post):
        kwargs: dict[str, Any] = {"view": layout_of(post, content)}
        if edit:  # a classic message becomes a layout only with its words and embeds cleared
            kwargs.update(content=None, embeds=[], attachments=files)
        elif files:
            kwargs["files"] = files
        return kwargs
    kwargs = {"content": content, "view": view_of(post)}
    if files and not edit:
        kwargs["files"] = files
    elif files:
        kwargs["attachments"] = files
    if kwargs["view"] is None and not edit:
        del kwargs["view"]
    return kwargs


def pages(text: str, limit: int = MAX_TEXT) -> list[str]:
    """``text`` in messages of at most ``limit`` characters, cut at line breaks (a longer line is cut
    where it must be)."""
    out: list[str] = []
    page = ""
    for line in text.split("\n"):
        for piece in [line[i:i + limit] for i in range(0, len(line), limit)] or [""]:
            if page and len(page) + 1 + len(piece) > limit:
                out.append(page)
                page = piece
            else:
                page = f"{page}\n{piece}" if page else piece
    out.append(page)
    return out


async def send_reply(interaction: Interaction, reply: Reply) -> None:
    """Answer the interaction with ``reply`` (as its response, or as a follow-up after a defer); a long
    answer goes in several messages, never cut: the buttons and the pictures come with the last."""
    *first, last = pages(render(reply.text, DISCORD))
    for content in first:
        send = interaction.followup.send if interaction.response.is_done() else interaction.response.send_message
        await send(content, ephemeral=not reply.public, allowed_mentions=mentions_of(reply))
    kwargs = message_of(dataclasses.replace(reply, text=text(last)))
    send = interaction.followup.send if interaction.response.is_done() else interaction.response.send_message
    await send(ephemeral=not reply.public, allowed_mentions=mentions_of(reply), **kwargs)


class ChannelOutbox:
    """Posts the service's public messages to a channel (or thread) by id."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> int | None:
        """Send ``post`` (its message's id); a failure (no permission, channel gone) is logged, and the
        game goes on. With ``nonce``, Discord posts it once however often it is sent (``enforce_nonce``)."""
        kwargs = message_of(post)
        if nonce is not None:
            kwargs["nonce"] = nonce  # discord.py then asks Discord to enforce it
        try:
            sent = await self.client.get_partial_messageable(channel_id).send(allowed_mentions=mentions_of(post),
                                                                              **kwargs)
            return sent.id
        except discord.HTTPException as err:
            _later_if_discord_s_trouble(err)
            log.exception("could not post to channel %s", channel_id)  # no permission, channel gone: never will
        except (TimeoutError, OSError, aiohttp.ClientError) as err:
            raise SendLater(f"the network failed: {err!r}") from err
        return None

    async def edit(self, channel_id: int, message_id: int, post: Post) -> bool:
        """Make our message ``message_id`` say ``post``'s words (a turn's live message growing), if it
        is still the channel's last message (an edit further up, above what players wrote since,
        would go unseen) and they fit; else False, and a new one is posted instead."""
        content = markdown(post.text)
        if len(content) > MAX_TEXT:
            return False
        channel = self.client.get_partial_messageable(channel_id)
        try:
            last = [m.id async for m in channel.history(limit=1)]
            if last != [message_id]:
                return False
            await channel.get_partial_message(message_id).edit(content=content, allowed_mentions=mentions_of(post))
            return True
        except discord.HTTPException as err:
            _later_if_discord_s_trouble(err)
            log.warning("could not edit message %s in channel %s (%s); posting anew", message_id, channel_id, err)
            return False
        except (TimeoutError, OSError, aiohttp.ClientError) as err:
            raise SendLater(f"the network failed: {err!r}") from err


def _later_if_discord_s_trouble(err: discord.HTTPException) -> None:
    """Raise SendLater for Discord's own trouble (a server error, or 429 after discord.py's retries)."""
    if err.status >= 500 or err.status == 429:
        raise SendLater(f"Discord answered {err.status}") from err


async def handle(interaction: Interaction, what: str, work: Callable[[], Awaitable[Reply]], *,
                 defer: bool = False, update: bool = False) -> None:
    """Run ``work`` for an interaction and answer it: the reply, the refusal's sentence, or an apology.
    ``defer``: the work may be slow (it plays an action, draws a picture); its answer is private, and
    should it take longer than ``ACK_S`` the player sees "thinking…" meanwhile (Discord wants an
    answer within 3 seconds; a quick answer costs no extra request). ``update`` edits the clicked
    message (with ``defer``, after acknowledging the click at once: for work whose channel posts and
    pictures may take longer than Discord's 3 seconds; without, the click is acknowledged once
    ``ACK_S`` has passed)."""
    try:
        if defer and update:
            await interaction.response.defer()  # on a component: "the message will be edited"
            reply = await work()
        elif update or defer:
            reply = await _acknowledged_in_time(interaction, work(), thinking=defer)
            reply = dataclasses.replace(reply, public=False) if defer else reply
        else:
            reply = await work()
        if update:  # the clicked message keeps its form: a layout stays a layout
            layout = is_layout(reply) or bool(interaction.message and interaction.message.flags.components_v2)
            kwargs = message_of(reply, layout=layout, edit=True)
        if update and interaction.response.is_done():  # deferred: at once, or by _acknowledged_in_time
            await interaction.edit_original_response(**kwargs)
        elif update:
            await interaction.response.edit_message(**kwargs)
        else:
            await send_reply(interaction, reply)
    except Refusal as refusal:
        await _answer_safely(interaction, markdown(refusal.text))
    except StorageError as err:
        await _answer_safely(interaction, str(err))
    except Exception:
        game = await _game_in(interaction)
        log.exception("/tiempo %s failed (game %s, channel %s, user %s)", what, game, interaction.channel_id,
                      interaction.user.id)
        await _answer_safely(interaction, SORRY)


#: a click whose answer takes longer than this (a game's lock, a picture) is acknowledged first
ACK_S = 2.0


async def _acknowledged_in_time(interaction: Interaction, work: Awaitable[Reply], *, thinking: bool = False) -> Reply:
    """``work``'s reply; should it take longer than ``ACK_S``, the interaction is acknowledged meanwhile
    (Discord wants an answer within 3 seconds): a click's message is edited when the reply comes, a
    command (``thinking``) shows "thinking…" to its player until then."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=ACK_S)
    if not done and not interaction.response.is_done():
        if thinking:
            await interaction.response.defer(ephemeral=True, thinking=True)
        else:
            await interaction.response.defer()
    return await task


async def _game_in(interaction: Interaction) -> str:
    """The id of the channel's game, for the log ("none" if there is none or it cannot be read)."""
    try:
        game = await _service(interaction).storage.active_game_in_channel(interaction.channel_id or 0)
    except Exception:
        return "unknown"
    return f"#{game.id}" if game is not None else "none"


async def _answer_safely(interaction: Interaction, text: str) -> None:
    with contextlib.suppress(discord.HTTPException):
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)


# ---------------------------------------------------------------------------------------------
# Persistent buttons


def _service(interaction: Interaction) -> Tiempo:
    client = interaction.client
    assert isinstance(client, TiempoBot)
    return client.service


#: a game's version in a custom id (``version_of``: ``12-3fa9c2``); a button drawn before versions had a
#: digest (digits only) still matches, and is answered as a stale one
_VERSION = r"[0-9a-f-]+"


class HandButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"tiempo:hand:(?P<game>\d+)"):
    """"My hand": the clicking player's own hand, privately, from the game as it is now."""

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(label="My hand", style=discord.ButtonStyle.primary, emoji="🂠",
                                           custom_id=f"tiempo:hand:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> HandButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: Interaction) -> None:
        await handle(interaction, "hand button",
                     lambda: _service(interaction).hand(caller_of(interaction), self.game_id))


class BoardButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                  template=r"tiempo:board:(?P<game>\d+)"):
    """"Board now": the current picture of the game, privately."""

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(label="Board now", style=discord.ButtonStyle.secondary,
                                           custom_id=f"tiempo:board:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> BoardButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: Interaction) -> None:
        await handle(interaction, "board button",
                     lambda: _service(interaction).board(caller_of(interaction), None, self.game_id), defer=True)


class ChooseButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                   template=r"tiempo:choose:(?P<game>\d+):(?P<version>" + _VERSION + r"):(?P<cell>[A-Z]+\d+)"):
    """One answer to a pending decision; refused if the game moved on since the question."""

    def __init__(self, game_id: int, version: str, cell: str, label: str | None = None) -> None:
        super().__init__(discord.ui.Button(label=label or cell, style=discord.ButtonStyle.success,
                                           custom_id=f"tiempo:choose:{game_id}:{version}:{cell}"))
        self.game_id, self.version, self.cell = game_id, version, cell

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> ChooseButton:
        return cls(int(match["game"]), match["version"], match["cell"])

    async def callback(self, interaction: Interaction) -> None:
        await handle(interaction, "choose button", lambda: _service(interaction).play(
            caller_of(interaction), "choose", {"cell": self.cell}, self.game_id, self.version), defer=True)


LOBBY_STYLES = {"join": discord.ButtonStyle.success, "leave": discord.ButtonStyle.secondary,
                "start": discord.ButtonStyle.primary}


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                  template=r"tiempo:lobby:(?P<game>\d+):(?P<what>join|leave|start)"):
    """Join, Leave or Start on a lobby message."""

    def __init__(self, game_id: int, what: str) -> None:
        super().__init__(discord.ui.Button(label=what.title(), style=LOBBY_STYLES[what],
                                           custom_id=f"tiempo:lobby:{game_id}:{what}"))
        self.game_id, self.what = game_id, what

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> LobbyButton:
        return cls(int(match["game"]), match["what"])

    async def callback(self, interaction: Interaction) -> None:
        service, caller = _service(interaction), caller_of(interaction)
        if self.what == "start":  # the lobby message becomes the start's: its buttons go
            await handle(interaction, "start button", lambda: service.start_game(caller, self.game_id), defer=True,
                         update=True)
        elif self.what == "join":
            await handle(interaction, "join button", lambda: service.join(caller, self.game_id), update=True)
        else:
            await handle(interaction, "leave button", lambda: service.leave(caller, self.game_id), update=True)


class RematchButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                    template=r"tiempo:rematch:(?P<game>\d+)"):
    """A new lobby with the same seats."""

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(label="Rematch", style=discord.ButtonStyle.success,
                                           custom_id=f"tiempo:rematch:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> RematchButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: Interaction) -> None:
        await handle(interaction, "rematch button",
                     lambda: _service(interaction).rematch(caller_of(interaction), self.game_id))


class PlayButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"tiempo:play:(?P<game>\d+)"):
    """"Play": the turn panel of the player who presses it, privately."""

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(label="Play", style=discord.ButtonStyle.success, emoji="▶️",
                                           custom_id=f"tiempo:play:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> PlayButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: Interaction) -> None:
        await handle(interaction, "play button", lambda: _service(interaction).panel(caller_of(interaction),
                                                                                      self.game_id))


_PATH = r"(?P<path>[A-Za-z0-9+\-.]*)"


def _path(text: str) -> tuple[str, ...]:
    return tuple(text.split(SEP)) if text else ()


class PanelSelect(discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
                  template=r"tiempo:pick:(?P<game>\d+):(?P<version>" + _VERSION + r"):" + _PATH):
    """The list of a turn panel's step: the pick goes to the next step, in place."""

    def __init__(self, game_id: int, version: str, path: tuple[str, ...], question: str = "",
                 choices: tuple[Choice, ...] = ()) -> None:
        options = [discord.SelectOption(label=c.label, value=c.key, description=c.detail or None,
                                        emoji="⚠️" if c.harms else None) for c in choices]
        super().__init__(discord.ui.Select(custom_id=f"tiempo:pick:{game_id}:{version}:{SEP.join(path)}",
                                           placeholder=question[:150] or None,
                                           options=options or [discord.SelectOption(label="-")]))
        self.game_id, self.version, self.path = game_id, version, path

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> PanelSelect:
        return cls(int(match["game"]), match["version"], _path(match["path"]))

    async def callback(self, interaction: Interaction) -> None:
        values = self.item.values  # filled in from the interaction before the callback
        path = (*self.path, *values[0].split(SEP)) if values else self.path
        await handle(interaction, "panel pick", lambda: _service(interaction).panel(
            caller_of(interaction), self.game_id, self.version, path), update=True)


class PanelButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                  template=r"tiempo:(?P<what>go|look|back|ok|undo):(?P<game>\d+):(?P<version>" + _VERSION + "):"
                  + _PATH):
    """A turn panel's buttons: Menu (``go``), Back, Confirm (``ok``) and Undo."""

    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "go": ("Menu", discord.ButtonStyle.secondary), "look": ("Look again", discord.ButtonStyle.secondary),
        "back": ("Back", discord.ButtonStyle.secondary),
        "ok": ("Confirm", discord.ButtonStyle.success), "undo": ("Undo", discord.ButtonStyle.danger)}

    def __init__(self, what: str, game_id: int, version: str, path: tuple[str, ...] = (), *,
                 warn: bool = False) -> None:
        label, style = self.LABELS[what]
        if warn:  # a Confirm of an action that harms the player's own game
            style = discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label=label, style=style,
                                           custom_id=f"tiempo:{what}:{game_id}:{version}:{SEP.join(path)}"))
        self.what, self.game_id, self.version, self.path = what, game_id, version, path

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> PanelButton:
        return cls(match["what"], int(match["game"]), match["version"], _path(match["path"]))

    async def callback(self, interaction: Interaction) -> None:
        service, caller = _service(interaction), caller_of(interaction)
        if self.what == "ok":
            work = lambda: service.panel_confirm(caller, self.game_id, self.version, self.path)  # noqa: E731
        elif self.what == "undo":
            work = lambda: service.panel_undo(caller, self.game_id)  # noqa: E731
        else:
            work = lambda: service.panel(caller, self.game_id, self.version, self.path)  # noqa: E731
        await handle(interaction, f"panel {self.what}", work, update=True, defer=self.what in ("ok", "undo"))


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                    template=r"tiempo:sure:(?P<game>\d+):(?P<version>" + _VERSION + r"):(?P<action>.+)"):
    """Confirm an action the player was warned harms their own buildings; refused once the game moved on."""

    def __init__(self, game_id: int, version: str, notation: str) -> None:
        super().__init__(discord.ui.Button(label="Confirm", style=discord.ButtonStyle.danger,
                                           custom_id=f"tiempo:sure:{game_id}:{version}:{notation}"))
        self.game_id, self.version, self.notation = game_id, version, notation

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> ConfirmButton:
        return cls(int(match["game"]), match["version"], match["action"])

    async def callback(self, interaction: Interaction) -> None:
        await handle(interaction, "confirm button", lambda: _service(interaction).play_confirmed(
            caller_of(interaction), self.game_id, self.version, self.notation), update=True, defer=True)


class CancelButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                   template=r"tiempo:cancel:(?P<game>\d+)"):
    """Confirms cancelling a game in play."""

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(label="Cancel the game", style=discord.ButtonStyle.danger,
                                           custom_id=f"tiempo:cancel:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str],
                             /) -> CancelButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: Interaction) -> None:
        await handle(interaction, "cancel button", lambda: _service(interaction).cancel(
            caller_of(interaction), self.game_id, confirmed=True))


def panel_items(panel: PanelView) -> list[discord.ui.Item[Any]]:
    """A turn panel's list and buttons."""
    items: list[discord.ui.Item[Any]] = []
    if panel.choices:
        items.append(PanelSelect(panel.game_id, panel.version, panel.base, panel.question, panel.choices))
    if panel.confirm:
        items.append(PanelButton("ok", panel.game_id, panel.version, panel.path, warn=panel.harms))
    if panel.back is not None:
        items.append(PanelButton("back", panel.game_id, panel.version, panel.back))
    if panel.back:  # (Back to the menu is the menu)
        items.append(PanelButton("go", panel.game_id, panel.version))
    if panel.undo:
        items.append(PanelButton("undo", panel.game_id, panel.version))
    if not panel.choices and not panel.confirm:  # waiting for someone else: look again later
        items.append(PanelButton("look", panel.game_id, panel.version))
    return items


DYNAMIC_ITEMS = (HandButton, BoardButton, ChooseButton, LobbyButton, RematchButton, PlayButton, PanelSelect,
                 PanelButton, ConfirmButton, CancelButton)


# ---------------------------------------------------------------------------------------------
# The command group


def _choices(values: list[str]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=v, value=v) for v in values]


async def _explained(interaction: Interaction, command: str, current: str, values: list[str], *,
                     kind: str | None = None, target: str | None = None) -> list[app_commands.Choice[str]]:
    """The suggestions, or one entry saying why there are none (never a silent empty list)."""
    if values:
        return _choices(values)
    why = await _service(interaction).why_no_suggestion(caller_of(interaction), command, current, kind=kind,
                                                         target=target)
    return [app_commands.Choice(name=why[:100], value=current.strip()[:100] or "?")]


async def _cells(interaction: Interaction, command: str, current: str) -> list[app_commands.Choice[str]]:
    ns = interaction.namespace
    kind = getattr(ns, "kind", None) or getattr(ns, "to", None)
    target = getattr(ns, "cell", None) if command == "upgrade-at" else None
    try:
        cells = await _service(interaction).suggest_cells(
            caller_of(interaction), command, current, kind=kind, age=getattr(ns, "age", None), target=target)
        return await _explained(interaction, command, current, cells, kind=kind, target=target)
    except Exception:
        log.exception("cell autocompletion failed")
        return []


async def _cards(interaction: Interaction, command: str, current: str) -> list[app_commands.Choice[str]]:
    try:
        cards = await _service(interaction).suggest_cards(caller_of(interaction), command, current)
        return await _explained(interaction, command, current, cards)
    except Exception:
        log.exception("card autocompletion failed")
        return []


async def _payments(interaction: Interaction, command: str, current: str) -> list[app_commands.Choice[str]]:
    ns = interaction.namespace
    names = {"build": ("kind", "cell", "age"), "upgrade": ("cell", "to", "at", "age"), "demolish": ("cell", "age"),
             "populate": ("cell",), "renovate": ("cell",)}[command]
    options: dict[str, str | None] = {}
    for name in names:
        value = getattr(ns, name, None)
        options["kind" if name == "to" else name] = None if value is None else str(value)
    try:
        pays = await _service(interaction).suggest_payments(caller_of(interaction), command, options, current)
        if pays:  # the value, and what it means: "MM 1+1 — 2 Military cards, 1 card through each pawn"
            return [app_commands.Choice(name=f"{pay} — {words}"[:100], value=pay) for pay, words in pays]
        return await _explained(interaction, "pay", current, [], target=options.get("cell"))
    except Exception:
        log.exception("payment autocompletion failed")
        return []


Completer = Callable[[Interaction, str], Coroutine[Any, Any, list[app_commands.Choice[str]]]]


def _cell_completer(command: str) -> Completer:
    async def complete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await _cells(interaction, command, current)

    return complete


def _pay_completer(command: str) -> Completer:
    async def complete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await _payments(interaction, command, current)

    return complete


def build_group() -> app_commands.Group:
    """``/tiempo`` and its subcommands."""
    group = app_commands.Group(name="tiempo", description="Play Khronos: three Ages, seven rounds, one winner",
                               guild_only=True)

    def svc(i: Interaction) -> Tiempo:
        return _service(i)

    # -- lobby --

    @group.command(description="Open a game in this channel")
    @app_commands.describe(holdem="Play the Hold'em variant (a face-up reserve to swap with)",
                           seats="How many seats (2–5)", turn_minutes="Minutes per turn; 0 for no limit")
    async def new(interaction: Interaction, holdem: bool = False, seats: app_commands.Range[int, 2, 5] = 5,
                  turn_minutes: app_commands.Range[int, 0, 10080] | None = None) -> None:
        await handle(interaction, "new", lambda: svc(interaction).new(
            caller_of(interaction), holdem=holdem, seats=seats, turn_minutes=turn_minutes))

    @group.command(description="Take a seat in this channel's game")
    async def join(interaction: Interaction) -> None:
        await handle(interaction, "join", lambda: svc(interaction).join(caller_of(interaction)))

    @group.command(description="Leave this channel's game before it starts")
    async def leave(interaction: Interaction) -> None:
        await handle(interaction, "leave", lambda: svc(interaction).leave(caller_of(interaction)))

    @group.command(description="Start the game (whoever opened it)")
    async def start(interaction: Interaction) -> None:
        await handle(interaction, "start", lambda: svc(interaction).start_game(caller_of(interaction)), defer=True)

    @group.command(description="Cancel this channel's game (its opener, or a channel manager)")
    async def cancel(interaction: Interaction) -> None:
        await handle(interaction, "cancel", lambda: svc(interaction).cancel(caller_of(interaction)))

    @group.command(description="Seat an AI player in the lobby")
    @app_commands.describe(level="; ".join(f"{lv.name}: {lv.description}" for lv in AI_LEVELS))
    @app_commands.choices(level=_choices([lv.name for lv in AI_LEVELS]))
    async def addbot(interaction: Interaction, level: str = "greedy") -> None:
        await handle(interaction, "addbot", lambda: svc(interaction).add_bot(caller_of(interaction), level))

    # -- information --

    @group.command(description="Your cards, Ecus, cubes and pawns (only you see it)")
    async def hand(interaction: Interaction) -> None:
        await handle(interaction, "hand", lambda: svc(interaction).hand(caller_of(interaction)))

    @group.command(description="The picture of the game, or of one Age (only you see it)")
    async def board(interaction: Interaction, age: AgeName | None = None) -> None:
        await handle(interaction, "board", lambda: svc(interaction).board(
            caller_of(interaction), Age.parse(age) if age else None), defer=True)

    @group.command(description="Round, whose turn, scores and stock")
    async def status(interaction: Interaction) -> None:
        await handle(interaction, "status", lambda: svc(interaction).status(caller_of(interaction)))

    @group.command(name="log", description="The last events of the game, in words")
    async def log_(interaction: Interaction, count: app_commands.Range[int, 1, 50] = 15) -> None:
        await handle(interaction, "log", lambda: svc(interaction).game_log(caller_of(interaction), count))

    @group.command(description="A short rules reference")
    @app_commands.choices(topic=_choices(list(RULES)))
    async def rules(interaction: Interaction, topic: str | None = None) -> None:
        async def reference() -> Reply:
            return Tiempo.rules(topic)

        await handle(interaction, "rules", reference)

    # -- play --

    def play(interaction: Interaction, command: str, **options: str | None) -> Awaitable[None]:
        return handle(interaction, command, lambda: svc(interaction).play(caller_of(interaction), command, options),
                      defer=True)

    @group.command(description="Phase I: pay 2 Ecus, discard 1–4 cards, draw back to 4")
    @app_commands.describe(cards="The cards to discard, by colour letter: M Military, R Religious, C Civil")
    async def exchange(interaction: Interaction, cards: str) -> None:
        await play(interaction, "exchange", cards=cards)

    @exchange.autocomplete("cards")
    async def exchange_cards(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await _cards(interaction, "exchange", current)

    @group.command(description="Hold'em: take cards of one colour from the reserve, give as many")
    @app_commands.describe(take="Cards to take from the reserve, e.g. CC", give="Cards to give from your hand")
    async def swap(interaction: Interaction, take: str, give: str) -> None:
        await play(interaction, "swap", take=take, give=give)

    @swap.autocomplete("take")
    async def swap_take(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await _cards(interaction, "swap-take", current)

    @swap.autocomplete("give")
    async def swap_give(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await _cards(interaction, "swap", current)

    @group.command(description="Move a pawn to another Age (1 Ecu)")
    @app_commands.describe(pawn="Which pawn, 1 or 2", to="The Age it goes to")
    async def travel(interaction: Interaction, pawn: app_commands.Range[int, 1, 2], to: AgeName) -> None:
        await play(interaction, "travel", pawn=str(pawn), age=to)

    @group.command(description="Construct a building on Might or Faith")
    @app_commands.describe(kind="What to build", cell="Top-left cell, e.g. C4", age="Might or Faith",
                           pay="Cards to pay and pawns, e.g. MM 1+1 (default: chosen for you)")
    async def build(interaction: Interaction, kind: BuildKind, cell: str,
                    age: Literal["Might", "Faith"] | None = None, pay: str | None = None) -> None:
        await play(interaction, "build", kind=kind, cell=cell, age=age, pay=pay)

    @group.command(description="Upgrade a building into a bigger one of its family")
    @app_commands.describe(cell="A cell of the building", to="What it becomes", at="Top-left cell of the new one",
                           age="Might or Faith", pay="Cards to pay and pawns, e.g. MM 1+1")
    async def upgrade(interaction: Interaction, cell: str, to: BuildKind, at: str | None = None,
                      age: Literal["Might", "Faith"] | None = None, pay: str | None = None) -> None:
        await play(interaction, "upgrade", cell=cell, kind=to, at=at, age=age, pay=pay)

    @upgrade.autocomplete("at")
    async def upgrade_at(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await _cells(interaction, "upgrade-at", current)

    @group.command(description="Demolish a Watchtower, Chapel or Hamlet (1 card and 1 Ecu)")
    async def demolish(interaction: Interaction, cell: str, age: Literal["Might", "Faith"] | None = None,
                       pay: str | None = None) -> None:
        await play(interaction, "demolish", cell=cell, age=age, pay=pay)

    @group.command(description="Reason: put a cube on a Hamlet, Town or City (1 Civil card)")
    async def populate(interaction: Interaction, cell: str, pay: str | None = None) -> None:
        await play(interaction, "populate", cell=cell, pay=pay)

    @group.command(description="Reason: renovate a ruin (Keep/Monastery 1 card, Castle/Abbey 2)")
    async def renovate(interaction: Interaction, cell: str, pay: str | None = None) -> None:
        await play(interaction, "renovate", cell=cell, pay=pay)

    card_commands: list[app_commands.Command[Any, Any, None]] = [build, upgrade, demolish, populate, renovate]
    for command in card_commands:
        command.autocomplete("cell")(_cell_completer(command.name))
        command.autocomplete("pay")(_pay_completer(command.name))

    @group.command(description="End your turn: discard what you like, draw back to 4")
    @app_commands.describe(discard="Cards to discard first, e.g. MC (default: none)")
    async def end(interaction: Interaction, discard: str | None = None) -> None:
        await play(interaction, "end", discard=discard)

    @end.autocomplete("discard")
    async def end_discard(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await _cards(interaction, "end", current)

    @group.command(description="Answer the decision the game is waiting on")
    async def choose(interaction: Interaction, cell: str) -> None:
        await play(interaction, "choose", cell=cell)

    choose.autocomplete("cell")(_cell_completer("choose"))

    @group.command(description="Take back your last action this turn (not after drawing cards)")
    async def undo(interaction: Interaction) -> None:
        await handle(interaction, "undo", lambda: svc(interaction).undo(caller_of(interaction)), defer=True)

    return group


# ---------------------------------------------------------------------------------------------
# Commands the player's Discord knows in an older form


def stale_command(tree: app_commands.CommandTree[Any], interaction: Interaction) -> str | None:
    """The command an interaction uses, when this bot does not define it so: an unknown command or
    subcommand, an unknown option or one of another type, a required option missing (a player's
    Discord can show an older definition for a while after the bot changed). None when it fits."""
    data: Any = interaction.data or {}
    if interaction.type not in (discord.InteractionType.application_command, discord.InteractionType.autocomplete):
        return None
    if data.get("type", 1) != 1:  # a context menu: none of ours
        return None
    name = str(data.get("name", ""))
    command: Any = tree.get_command(name)
    options: list[Any] = list(data.get("options", []))
    while isinstance(command, app_commands.Group):
        sub = next((o for o in options if o.get("type") in (1, 2)), None)
        if sub is None:
            return name
        name = f"{name} {sub['name']}"
        command, options = command.get_command(sub["name"]), list(sub.get("options", []))
    if not isinstance(command, app_commands.Command):
        return name
    params = {p.display_name: p for p in command.parameters}
    given = {o.get("name"): o for o in options}
    if any(n not in params or params[n].type.value != o.get("type") for n, o in given.items()):
        return name
    if interaction.type is discord.InteractionType.application_command and any(
            p.required and n not in given for n, p in params.items()):
        return name
    return None


async def _changed(interaction: Interaction, what: str) -> None:
    """Tell the player their Discord shows an older form of the command (no apology: nothing broke)."""
    log.warning("a player's Discord used an older form of a command (%s); it updates within a minute", what)
    with contextlib.suppress(discord.HTTPException):
        if interaction.type is discord.InteractionType.autocomplete:
            if not interaction.response.is_done():
                await interaction.response.autocomplete([app_commands.Choice(name=CHANGED, value="?")])
            return
    await _answer_safely(interaction, CHANGED)


class Tree(app_commands.CommandTree[Any]):
    """The command tree: an interaction with a command as this bot no longer defines it is answered
    with ``CHANGED`` before discord.py tries it."""

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        stale = stale_command(self, interaction)
        if stale is None:
            return True
        await _changed(interaction, f"/{stale}")
        return False


# ---------------------------------------------------------------------------------------------
# The client


class TiempoBot(discord.Client):
    """The bot: the command tree, the persistent buttons, the service and its background work."""

    def __init__(self, config: Config, *, storage: Storage | None = None, timer_every: float = 15.0,
                 **service_options: Any) -> None:
        shards: dict[str, Any] = ({"shard_id": config.shard_id, "shard_count": config.shard_count}
                                  if config.shard_count else {})
        super().__init__(intents=discord.Intents.none() | discord.Intents(guilds=True), **shards)
        self.config = config
        self.tree = Tree(self)
        self.tree.add_command(build_group())
        self.tree.on_error = self.on_tree_error  # type: ignore[method-assign]
        self._storage = storage
        service_options.setdefault("ai_process", True)
        self._service_options = service_options
        self.timer_every = timer_every
        self._timers: asyncio.Task[None] | None = None
        self.service: Tiempo

    async def setup_hook(self) -> None:
        """Open the games, register the buttons, sync the commands, resume background work."""
        storage = self._storage or await Storage.open(self.config.database, shared=bool(self.config.shard_count))
        self._storage = storage
        self.service = Tiempo(storage, ChannelOutbox(self), default_turn_minutes=self.config.turn_limit_minutes,
                              ai_think_seconds=self.config.ai_think_seconds,
                              ai_processes=self.config.ai_processes, owns=self.config.owns,
                              **self._service_options)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self.config.guilds:
            for guild_id in self.config.guilds:
                guild = discord.Object(guild_id)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()
        await self.service.resume()
        self._timers = asyncio.create_task(self.service.run_timers(self.timer_every), name="tiempo-timers")

    async def on_ready(self) -> None:
        """Log who we are and how to invite us."""
        if self.user is not None and self.application_id is not None:
            url = discord.utils.oauth_url(self.application_id, permissions=PERMISSIONS,
                                          scopes=("bot", "applications.commands"))
            log.info("Tiempo is online as %s. Invite it with: %s", self.user, url)

    async def on_tree_error(self, interaction: Interaction, error: app_commands.AppCommandError) -> None:
        """Errors the command tree catches before our handlers (e.g. a bad option value)."""
        original = getattr(error, "original", error)
        if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
            await _changed(interaction, str(error))
            return
        if isinstance(error, app_commands.TransformerError | app_commands.CheckFailure):
            await _answer_safely(interaction, str(error))
            return
        command = interaction.command.qualified_name if interaction.command else "?"
        log.error("command %s failed (channel %s)", command, interaction.channel_id, exc_info=original)
        await _answer_safely(interaction, SORRY)

    async def close(self) -> None:
        """Stop the timers and AI work, then close storage and the connection."""
        if self._timers is not None:
            self._timers.cancel()
            with contextlib.suppress(BaseException):
                await self._timers
        if hasattr(self, "service"):
            await self.service.close()
        if self._storage is not None:
            await self._storage.close()
            self._storage = None
        await super().close()


__all__ = ["DYNAMIC_ITEMS", "PERMISSIONS", "ChannelOutbox", "TiempoBot", "build_group"]
