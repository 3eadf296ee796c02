"""``/tiempo records export``: a finished game's files (its record, animation and web page) as attachments.

The pictures take a few seconds to draw, so the command is acknowledged at once ("thinking…", only
for its player); that answer then says how far the drawing is, about every quarter, and at the end
becomes the answer with the files. Discord takes at most ``UPLOAD_LIMIT`` bytes of files in one
message: files that would go over it come in a second message (a follow-up)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import discord

from ..service import Attachment
from ..words import say
from .context import Interaction, caller_of, service_of
from .sending import markdown

#: the bytes of files one message may carry (Discord's 10 MiB), less room for the request's own
UPLOAD_LIMIT = 10 * 2**20 - 256 * 2**10


def batches(files: Sequence[Attachment], limit: int = UPLOAD_LIMIT) -> list[list[Attachment]]:
    """``files`` in order, in as few messages as keep each within ``limit`` bytes (a file over the
    limit alone in its own: Discord then refuses it, which the caller answers)."""
    out: list[list[Attachment]] = []
    size = 0
    for f in files:
        if not out or size + len(f.data) > limit:
            out.append([])
            size = 0
        out[-1].append(f)
        size += len(f.data)
    return out


def _discord_files(files: Sequence[Attachment]) -> list[discord.File]:
    return [discord.File(io.BytesIO(f.data), filename=f.filename, description=f.description or None)
            for f in files]


async def export(interaction: Interaction, game_id: int | None) -> None:
    """Answer ``/tiempo records export``: acknowledge, show the drawing's progress, then the files. A refusal
    (no such game, a game not over) travels to the tree's ``on_error``, which answers it."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    shown = -1

    async def progress(done: int, total: int) -> None:
        nonlocal shown
        quarter = done * 4 // total
        if quarter > shown and done < total:
            shown = quarter
            await interaction.edit_original_response(content=markdown(say(
                "Drawing the game turn by turn: step {done} of {total}…", done=done, total=total)))

    reply = await service_of(interaction).export(caller_of(interaction), game_id, progress)
    first, *more = batches(reply.files) or [[]]
    await interaction.edit_original_response(content=markdown(reply.text), attachments=_discord_files(first))
    for group in more:
        await interaction.followup.send(files=_discord_files(group), ephemeral=True)


__all__ = ["UPLOAD_LIMIT", "batches", "export"]
