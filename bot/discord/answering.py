"""Answering an interaction: run one call of the service and send its ``Reply`` — or the sentence of
the ``Refusal`` it raised, privately — within Discord's 3 seconds. Anything unexpected is logged with
the game, the channel and the command, and the user reads an apology (the service saves an action
before it tells anyone, so the channel shows what counted). A command or option as this bot no
longer defines it (the player's Discord shows an older form for a while after an update) is no
error: the player reads that the command changed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import Any

import discord
from discord import app_commands

from ..service import Refusal, Reply, StorageError
from ..words import render
from .context import Interaction, Work, service_of
from .sending import DISCORD, is_layout, markdown, mentions_of, message_of, pages

log = logging.getLogger("tiempo.discord")

#: (a failure before the commit changed nothing; one during it may have stored the move, which the
#: channel then shows as usual: the channel, not this answer, says what counted)
SORRY = ("Something went wrong on our side. A move counts only if the channel shows it; please check there and "
         "try again. If it keeps happening, tell the host (the error is in the bot's log).")
#: for a command or option this bot does not know (the player's Discord still shows an older definition)
CHANGED = "This command changed; Discord will show the new one within a minute."
#: the private "thinking…" of a command whose answer is for everyone, once the answer is posted below it
POSTED_BELOW = "Done: the answer is posted below, for everyone."
#: a click whose answer takes longer than this (a game's lock, a picture) is acknowledged first
ACK_S = 2.0


async def respond(interaction: Interaction, work: Work, *, defer: bool = False, update: bool = False) -> None:
    """Run ``work`` for an interaction and answer it with the reply; its errors are the caller's
    (``answer_error``). ``defer``: the work may be slow (it plays an action, draws a picture); should
    it take longer than ``ACK_S`` the player sees "thinking…" meanwhile, privately (Discord wants an
    answer within 3 seconds; a quick answer costs no extra request). ``update`` edits the clicked
    message (with ``defer``, after acknowledging the click at once: for work whose channel posts and
    pictures may take longer than Discord's 3 seconds; without, the click is acknowledged once
    ``ACK_S`` has passed)."""
    if defer and update:
        await interaction.response.defer()  # on a component: "the message will be edited"
        reply = await work()
    elif update or defer:
        reply = await _acknowledged_in_time(interaction, work(), thinking=defer)
    else:
        reply = await work()
    if update:
        await _edit_clicked(interaction, reply)
    else:
        await send_reply(interaction, reply)


async def answer(interaction: Interaction, what: str, work: Work, *, defer: bool = False,
                 update: bool = False) -> None:
    """``respond``, and should it fail, ``answer_error``: how a click on a persistent item is answered
    (a command's error travels to the tree's ``on_error`` instead, which answers it the same way)."""
    try:
        await respond(interaction, work, defer=defer, update=update)
    except Exception as error:
        await answer_error(interaction, what, error)


async def answer_error(interaction: Interaction, what: str, error: Exception) -> None:
    """Answer a failed interaction privately: a refusal with its sentence, a storage error that
    explains itself with its words; anything else is a bug, logged with its traceback, the game, the
    channel and the user, and answered with an apology. Once the bot has closed (a command still
    running when it stopped), nothing can be sent: that is logged in a line, not as a bug."""
    if interaction.client.is_closed():  # (shutting down: its connection is gone, and no answer can go)
        log.info("/tiempo %s was not answered: the bot closed meanwhile (%s)", what, type(error).__name__,
                 exc_info=error)  # (the traceback kept, should it be a bug met during the shutdown)
    elif isinstance(error, Refusal):
        await answer_privately(interaction, markdown(error.text))
    elif isinstance(error, StorageError):
        await answer_privately(interaction, str(error))
    else:
        game = await _game_in(interaction)
        log.error("/tiempo %s failed (game %s, channel %s, user %s)", what, game, interaction.channel_id,
                  interaction.user.id, exc_info=error)
        await answer_privately(interaction, SORRY)


async def _edit_clicked(interaction: Interaction, reply: Reply) -> None:
    """The clicked message becomes ``reply``; it keeps its form (a layout stays a layout)."""
    layout = is_layout(reply) or bool(interaction.message and interaction.message.flags.components_v2)
    kwargs = message_of(reply, layout=layout, edit=True)
    if interaction.response.is_done():  # deferred: at once, or by _acknowledged_in_time
        await interaction.edit_original_response(**kwargs)
    else:
        await interaction.response.edit_message(**kwargs)
    if reply.key is not None and interaction.message is not None:
        await _posted(interaction, reply, interaction.message.id)


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


async def send_reply(interaction: Interaction, reply: Reply) -> None:
    """Answer the interaction with ``reply`` (as its response, or as a follow-up after a defer),
    publicly if it says so; a long answer goes in several messages, never cut: the buttons and the
    pictures come with the last. A public reply to a command whose "thinking…" only its player saw
    (which Discord keeps private: its first follow-up can only be private too) ends that with
    ``POSTED_BELOW`` and comes as a follow-up for everyone."""
    if reply.public and _thinking_privately(interaction):
        await interaction.edit_original_response(content=POSTED_BELOW)
    *first, last = pages(render(reply.text, DISCORD))
    for content in first:
        await _send(interaction, reply, content=content, allowed_mentions=mentions_of(reply))
    sent = await _send(interaction, reply, allowed_mentions=mentions_of(reply), **message_of(reply, content=last))
    if reply.public and reply.key is not None and sent is not None:
        await _posted(interaction, reply, sent)


async def _posted(interaction: Interaction, reply: Reply, message_id: int) -> None:
    """Tell the service which message a keyed public reply became (a lobby: the next takes its
    buttons); a failure to tidy an older message is logged, never the player's."""
    try:
        await service_of(interaction).posted(interaction.channel_id or 0, reply, message_id)
    except Exception:
        log.exception("could not take the buttons off an older message in channel %s", interaction.channel_id)


def _thinking_privately(interaction: Interaction) -> bool:
    """Whether the interaction was deferred with a private "thinking…" that no answer replaced yet."""
    return (interaction.response.is_done()
            and interaction.response.type is discord.InteractionResponseType.deferred_channel_message)


async def _send(interaction: Interaction, reply: Reply, **kwargs: Any) -> int | None:
    """Send one message of the answer; its id, where Discord says it."""
    if interaction.response.is_done():
        sent = await interaction.followup.send(ephemeral=not reply.public, wait=True, **kwargs)
        return sent.id
    response = await interaction.response.send_message(ephemeral=not reply.public, **kwargs)
    return response.message_id


async def _game_in(interaction: Interaction) -> str:
    """The id of the channel's game, for the log ("none" if there is none or it cannot be read)."""
    try:
        game = await service_of(interaction).game_here(interaction.channel_id or 0)
    except Exception:
        return "unknown"
    return f"#{game}" if game is not None else "none"


async def answer_privately(interaction: Interaction, text: str) -> None:
    """Answer with ``text`` for the user alone (a refusal, an apology); a failure to send is let go."""
    with contextlib.suppress(discord.HTTPException):
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)


# -- commands the player's Discord knows in an older form ---------------------------------------


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


async def say_changed(interaction: Interaction, what: str) -> None:
    """Tell the player their Discord shows an older form of the command (no apology: nothing broke)."""
    log.warning("a player's Discord used an older form of a command (%s); it updates within a minute", what)
    with contextlib.suppress(discord.HTTPException):
        if interaction.type is discord.InteractionType.autocomplete:
            if not interaction.response.is_done():
                await interaction.response.autocomplete([app_commands.Choice(name=CHANGED, value="?")])
            return
    await answer_privately(interaction, CHANGED)


__all__ = ["ACK_S", "CHANGED", "SORRY", "answer", "answer_error", "answer_privately", "respond", "say_changed",
           "send_reply", "stale_command"]
