"""The sending side: the service's words as Discord markdown, a ``Post`` as discord.py's keyword
arguments (words, pictures, buttons; a Components V2 layout for a panel or a gallery), long answers
in pages, and ``ChannelOutbox``, through which the service posts to a channel."""

from __future__ import annotations

import dataclasses
import io
import logging
from typing import Any

import aiohttp
import discord

from ..service import PATHS, DMClosed, PanelControls, Picture, Post, SendLater
from ..words import Place, Style, Text, render
from .items import items_of

log = logging.getLogger("tiempo.discord")

#: Discord allows 2000 characters in a message; keep room for a footer
MAX_TEXT = 1900
#: a Components V2 layout (a turn post with its boards, a panel) allows 4000 characters across its text
#: displays, which hold its words alone (the pictures' descriptions are not counted)
MAX_LAYOUT_TEXT = 3900


def _name(name: str) -> str:
    """A person's name as they chose it, shown as it is: no markdown of theirs, no mention."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(name))


#: how the service's words look on Discord
DISCORD = Style(strong="**{}**", mention="<@{id}>", command="`/tiempo {word}{options}`", or_button=" (or the button)",
                button="press {label}{where}", code="`{}`", here="this channel", in_here="in this channel", name=_name,
                place="https://discord.com/channels/{guild}/{channel}",
                paths=PATHS)


def trim(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters at line breaks, saying that lines were left out. The last
    paragraph (after the last blank line: whose turn it is, the question asked, or a question's
    standings) is kept if it is no more than half of ``limit``, and the lines left out are the ones
    before it."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    tail: list[str] = []
    if "" in lines:
        last = len(lines) - 1 - lines[::-1].index("")
        if sum(len(line) + 1 for line in lines[last:]) <= limit // 2:
            lines, tail = lines[:last], lines[last:]
    budget = limit - 40 - sum(len(line) + 1 for line in tail)
    out: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > budget:
            break
        out.append(line)
        size += len(line) + 1
    out.append(f"… ({len(lines) - len(out)} more lines)")
    return "\n".join([*out, *tail])


def markdown(text: Text, limit: int = MAX_TEXT) -> str:
    """The service's words as a Discord message, cut to fit one (``limit``: a layout's text holds more)."""
    return trim(render(text, DISCORD), limit)


def pages(text: str, limit: int = MAX_TEXT) -> list[str]:
    """``text`` in messages of at most ``limit`` characters: a paragraph (up to a blank line) that fits in
    a message is not cut but starts the next one (a hand's list does not end in a message of its own
    last line); a longer one is cut at line breaks (a longer line where it must be)."""
    out: list[str] = []
    page = ""
    for para in text.split("\n\n"):
        sep = "\n\n" if page else ""
        if len(page) + len(sep) + len(para) <= limit:
            page += sep + para
            continue
        if len(para) <= limit:
            out.append(page)
            page = para
            continue
        first = True  # (the paragraph's first piece follows the page's last one across a blank line)
        for line in para.split("\n"):
            for piece in [line[i:i + limit] for i in range(0, len(line), limit)] or [""]:
                joint = ("\n\n" if first else "\n") if page else ""
                first = False
                if page and len(page) + len(joint) + len(piece) > limit:
                    out.append(page)
                    page = piece
                else:
                    page += joint + piece
    out.append(page)
    return [p for p in out if p.strip()] or [""]  # (no empty message for a blank paragraph at the end)


def mentions_of(post: Post) -> discord.AllowedMentions:
    """Ping only the users the post names for pinging: never everyone, never roles."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(u) for u in post.mentions])


def view_of(post: Post) -> discord.ui.View | None:
    """The buttons of a post as a classic view (rows filled in order); None when it has none."""
    if not post.controls:  # (no view made to be thrown away: most posts and replies have no buttons)
        return None
    view = discord.ui.View(timeout=None)
    for item in items_of(post.controls):
        view.add_item(item)
    return view if view.children else None


def is_layout(post: Post) -> bool:
    """Sent as a Components V2 layout: a turn panel, and a post with a gallery of pictures."""
    return post.control(PanelControls) is not None or bool(post.gallery)


def pictures_of(post: Post) -> list[Picture]:
    """The post's pictures: its one picture, then its gallery."""
    one = [Picture(post.png, post.filename)] if post.png is not None else []
    return [*one, *post.gallery]


def _gallery_item(p: Picture) -> discord.MediaGalleryItem:
    return discord.MediaGalleryItem(f"attachment://{p.filename}", description=p.description[:256] or None)


def layout_of(post: Post, content: str) -> discord.ui.LayoutView:
    """A Components V2 layout: a container with the words and the pictures (each lead picture in a
    gallery of its own, so that it is shown as wide as the chat; the others together below), then
    the buttons and menus in rows."""
    view = discord.ui.LayoutView(timeout=None)
    parts: list[discord.ui.Item[Any]] = [discord.ui.TextDisplay(content)] if content else []
    pictures = pictures_of(post)
    parts += [discord.ui.MediaGallery(_gallery_item(p)) for p in pictures if p.lead]
    rest = [_gallery_item(p) for p in pictures if not p.lead]
    if rest:
        parts.append(discord.ui.MediaGallery(*rest))
    if parts:
        view.add_item(discord.ui.Container(*parts))
    row: discord.ui.ActionRow[Any] | None = None
    width = 0
    for control in items_of(post.controls):
        if row is None or width + control.width > 5:
            row, width = discord.ui.ActionRow(), 0
            view.add_item(row)
        row.add_item(control)
        width += control.width
    return view


def files_of(post: Post) -> list[discord.File]:
    """The post's pictures as attachments."""
    return [discord.File(io.BytesIO(p.png), filename=p.filename) for p in pictures_of(post)]


def message_of(post: Post, *, content: str | None = None, layout: bool | None = None,
               edit: bool = False) -> dict[str, Any]:
    """The keyword arguments that send (or, ``edit``, edit a message into) ``post``: a Components V2
    layout (``layout``, by default for a panel or a gallery), or words with buttons and a picture.
    ``content``: the words already rendered (one page of a longer answer)."""
    layout = is_layout(post) if layout is None else layout
    content = markdown(post.text, MAX_LAYOUT_TEXT if layout else MAX_TEXT) if content is None else content
    files = files_of(post)
    if layout:
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


class ChannelOutbox:
    """Posts the service's public messages to a channel (or thread) by id."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self.dms = DirectMessages(client)

    async def direct(self, user_id: int, post: Post, nonce: str | None = None) -> None:
        """A direct message to ``user_id`` (``bot.service.DirectOutbox``; ``DirectMessages.send``)."""
        await self.dms.send(user_id, post, nonce)

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> int | None:
        """Send ``post`` (its message's id); a failure (no permission, channel gone) is logged, and the
        game goes on. With ``nonce``, Discord posts it once however often it is sent (``enforce_nonce``).
        Raises SendLater for Discord's own trouble or the network's."""
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
        would go unseen) and they fit whole (a grown message is never cut); else False, and a new
        one is posted instead."""
        content = render(post.text, DISCORD)
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

    async def rewrite(self, channel_id: int, message_id: int, post: Post) -> bool:
        """Make our earlier message ``message_id`` say ``post`` (its words and buttons: a question
        answered loses its buttons), keeping its pictures; False if it is gone."""
        kwargs = message_of(post, edit=True)
        kwargs.setdefault("view", None)
        try:
            message = await self.client.get_partial_messageable(channel_id).fetch_message(message_id)
            kwargs["attachments"] = message.attachments  # kept, named: a layout's gallery points at them
            await message.edit(allowed_mentions=discord.AllowedMentions.none(), **kwargs)
            return True
        except discord.HTTPException as err:
            _later_if_discord_s_trouble(err)
            log.warning("could not rewrite message %s in channel %s (%s)", message_id, channel_id, err)
            return False
        except (TimeoutError, OSError, aiohttp.ClientError) as err:
            raise SendLater(f"the network failed: {err!r}") from err


# -- direct messages (/tiempo notify dm): kept apart from the channel posts above ----------------

#: Discord's error code for a user who does not take direct messages from the bot
CANNOT_MESSAGE_USER = 50007


class DirectMessages:
    """Sends a person a direct message from the bot (``ChannelOutbox.direct``): the DM channel is
    opened as Discord's client would (``create_dm``), and a channel of a server the message names
    (``Place``) reads as its name, its server's and a link."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    def place(self, place: Place) -> str:
        """``#channel on **Server** (link)``, or the link alone when this process does not see them."""
        link = f"https://discord.com/channels/{place.guild_id}/{place.channel_id}"
        guild = self.client.get_guild(place.guild_id)
        channel = guild.get_channel(place.channel_id) if guild is not None else None
        if guild is None or channel is None:
            return link
        return f"#{_name(channel.name)} on **{_name(guild.name)}** ({link})"

    async def send(self, user_id: int, post: Post, nonce: str | None = None) -> None:
        """Send ``post`` to ``user_id``. Raises DMClosed when Discord refuses it for their settings
        (code 50007), SendLater for Discord's own trouble or the network's; another refusal is logged."""
        named = Text(tuple(self.place(p) if isinstance(p, Place) else p for p in post.text.parts))
        kwargs = message_of(dataclasses.replace(post, text=named))
        if nonce is not None:
            kwargs["nonce"] = nonce
        try:
            user = self.client.get_user(user_id) or await self.client.fetch_user(user_id)
            channel = user.dm_channel or await user.create_dm()
            await channel.send(allowed_mentions=discord.AllowedMentions.none(), **kwargs)
        except discord.HTTPException as err:
            if err.code == CANNOT_MESSAGE_USER:
                raise DMClosed(f"user {user_id} does not take direct messages") from err
            _later_if_discord_s_trouble(err)
            log.exception("could not send a direct message to user %s", user_id)
        except (TimeoutError, OSError, aiohttp.ClientError) as err:
            raise SendLater(f"the network failed: {err!r}") from err


def _later_if_discord_s_trouble(err: discord.HTTPException) -> None:
    """Raise SendLater for Discord's own trouble (a server error, or 429 after discord.py's retries)."""
    if err.status >= 500 or err.status == 429:
        raise SendLater(f"Discord answered {err.status}") from err


__all__ = ["DISCORD", "MAX_LAYOUT_TEXT", "MAX_TEXT", "ChannelOutbox", "DirectMessages", "markdown", "message_of",
           "pages", "trim"]
