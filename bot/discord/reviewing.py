"""``/tiempo records review``: a finished game's review, worked out in the AI worker (about a minute for
five players), then shown to its player alone.

The command is acknowledged at once ("thinking…", only for its player); that answer then says how far
the review is, every eighth of the turns, and at the end that the review follows: one message per
person who played (the asker's first; AI seats are not reviewed), each with the pictures of its turns
(a message holds at most ten pictures: a five-player game's fifteen would not fit in one)."""

from __future__ import annotations

from ..words import say
from .answering import send_reply
from .context import Interaction, caller_of, service_of
from .sending import markdown

#: how often the deferred answer says how far the review is: every this share of the turns
STEPS = 8


async def review(interaction: Interaction, game_id: int | None) -> None:
    """Answer ``/tiempo records review``: acknowledge, show the progress, then the review (one already being
    worked out for another player is waited for). A refusal (no such game, a game not over, not a player)
    travels to the tree's ``on_error``, which answers it privately."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    shown = -1

    async def progress(done: int, total: int) -> None:
        nonlocal shown
        share = done * STEPS // total
        if share > shown and done < total:
            shown = share
            await interaction.edit_original_response(content=markdown(say(
                "Reviewing the game with the AI's top level: turn {done} of {total}…", done=done, total=total)))

    parts = await service_of(interaction).review(caller_of(interaction), game_id, progress)
    below = (say("Your review is below.") if len(parts) == 1  # (the only person at a table of AI players)
             else say("The review is below: one message for each person who played, yours first."))
    await interaction.edit_original_response(content=markdown(below))
    for part in parts:
        await send_reply(interaction, part)


__all__ = ["review"]
