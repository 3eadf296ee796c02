"""A finished game to take away: its record in the project's notation, an animation of the three Ages
turn by turn, and a web page that steps through it.

* The record is two files: the position the game started from and its actions, one a line
  (docs/notation.md); ``python -m rules apply START ACTIONS`` replays it to the final position.
* The animation (animated WebP) has a frame per step of the replay (bot/service/replay.py): the three
  Age cards as the channel saw them after that turn, and the turn's words.
* The page holds the same steps with the cards inline, each distinct picture once.

Only a finished game is exported (the record holds every hand and the deck). The pictures are drawn
off the event loop, a step at a time, with a progress callback between steps.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable

from PIL import Image

from render.animation import UPLOAD_LIMIT, card_webp, encode_animation, replay_frame
from rules import format_action, format_position

from ..play import Refusal
from ..storage import GameRecord, Status
from ..texts import ecu_word, ranking, who
from ..words import PLAIN, Code, Command, Strong, Text, as_text, render, say
from .herald import Herald
from .messages import Attachment, Caller, Picture, Reply
from .page import PageCard, PageStep, PageWords, data_uri, replay_page
from .replay import Replays, Step, Timeline

log = logging.getLogger("tiempo.exports")

#: how long a frame of the animation stays: a turn, the deal and the end
TURN_MS = 1800
DEAL_MS = 2500
END_MS = 6000
#: the files of an export together stay this far under Discord's upload limit (the request's own bytes)
UPLOAD_MARGIN = 256 * 2**10
#: the page's pictures: the cards' own PNG bytes (256 colours: smaller than a lossy WebP of the same
#: quality), else WebP of these qualities and sizes, tried in turn until the export fits the upload limit
PAGE_PICTURES = ((60, 1.0), (45, 0.75), (35, 0.5))

Progress = Callable[[int, int], Awaitable[None]]


def plain(t: Text) -> str:
    return render(t, PLAIN)


def record(line: Timeline) -> tuple[str, str]:
    """The game's first position and its actions, as text files of the notation: comments say how to
    replay them, and where each turn begins."""
    game = line.game
    start_name, actions_name = record_names(game)
    how = plain(say("# Replay it: python -m rules apply {start} {actions}", start=start_name, actions=actions_name))
    first = line.steps[0].after
    head = plain(say("# Tiempo, game #{id}: the position it started from (docs/notation.md).", id=game.id))
    start = f"{head}\n{how}\n{format_position(first)}"
    out = [plain(say("# Tiempo, game #{id}: its actions, one a line (docs/notation.md).", id=game.id)), how]
    for step in line.steps[1:]:
        out.append(plain(say("# Round {round}, turn {turn}: {who}", round=step.round, turn=step.index,
                             who=who(step.before, step.player))))
        out += [format_action(before, action) for before, action in step.actions]
    final = line.steps[-1].after
    if final.finished:
        out.append(plain(say("# The game is over: {ranking}", ranking="; ".join(
            f"{place}. {who(final, seat).plain()} {ecus} {ecu_word(ecus)}" for place, seat, ecus in ranking(final)))))
    return start, "\n".join(out) + "\n"


def record_names(game: GameRecord) -> tuple[str, str]:
    return f"tiempo-{game.id}-start.txt", f"tiempo-{game.id}-actions.txt"


def caption(line: Timeline, step: Step) -> list[str]:
    """A frame's words: its title, then whose turn and the narration (or the ranking at the end)."""
    s = step.after
    if step.is_deal:
        return [plain(say("Game #{id}: the deal", id=line.game.id)),
                plain(say("{who} plays first; {n} turns follow.", who=who(s, s.active), n=line.turns))]
    out = [plain(say("Turn {turn} of {turns} · round {round}", turn=step.index, turns=line.turns, round=step.round))]
    if step.index == line.last and s.finished:  # the result first: it is what the last frame is for
        out += [plain(say("Game over: {ranking}.", ranking=", ".join(
            f"{place}. {who(s, seat).plain()} {ecus} {ecu_word(ecus)}" for place, seat, ecus in ranking(s))))]
    return [*out, *(plain(as_text(line)) for line in step.narration)]


class Exports:
    """Makes the three files of a finished game."""

    def __init__(self, replays: Replays, herald: Herald) -> None:
        self.replays = replays
        self.herald = herald

    async def export(self, caller: Caller, game_id: int | None = None, progress: Progress | None = None) -> Reply:
        """The record, the animation and the page of a finished game. ``progress(done, total)`` is
        awaited after each step is drawn. Raises Refusal as ``Replays.find`` does, and for a game that
        is not over."""
        game = await self.replays.find(caller, game_id, "export")
        if game.status is not Status.FINISHED:
            raise Refusal(say("Game #{id} is {how}: only a finished game is exported. {replay} shows it so far.",
                              id=game.id, how="still being played" if game.status is Status.PLAYING else
                              "cancelled before its end", replay=Command("replay", f"game:{game.id}")))
        line = await self.replays.timeline(game)
        start, actions = record(line)
        start_name, actions_name = record_names(game)
        files = [Attachment(start.encode(), start_name, plain(say("Game #{id}: its first position", id=game.id))),
                 Attachment(actions.encode(), actions_name, plain(say("Game #{id}: its actions", id=game.id)))]
        kept = say("{start} and {actions} are its record, move by move, in Tiempo's notation (they say how to replay "
                   "it)", start=Code(start_name), actions=Code(actions_name))
        if not self.herald.render:
            words = say("{game}: {kept}.", game=Strong(f"Game #{game.id}"), kept=kept)
        else:
            animation, page = await self.pictures(line, progress)
            animation_name, page_name = f"tiempo-{game.id}.webp", f"tiempo-{game.id}.html"
            files += [Attachment(animation, animation_name, plain(say("Game #{id}, turn by turn", id=game.id))),
                      Attachment(page.encode(), page_name,
                                 plain(say("Game #{id}: a page to step through it", id=game.id)))]
            words = say("{game}: open {page} in any browser to step through the game, with no connection needed; "
                        "{animation} shows the three Ages turn by turn; {kept}.", game=Strong(f"Game #{game.id}"),
                        page=Code(page_name), animation=Code(animation_name), kept=kept)
        return Reply(words, files=tuple(files))

    async def pictures(self, line: Timeline, progress: Progress | None) -> tuple[bytes, str]:
        """The animation and the page, drawn a step at a time in a thread. A frame has the three Ages
        with the round and whose turn on each; the page shows the cards the channel saw after the
        turn (an unchanged board's card is the same picture from turn to turn: held once)."""
        frames: list[Image.Image] = []
        pngs: list[bytes] = []
        index: dict[bytes, int] = {}
        page_steps: list[PageStep] = []
        for step in line.steps:
            cards = await self.replays.pictures(line, step)

            def draw(cards: tuple[Picture, ...] = cards, step: Step = step) -> tuple[Image.Image, list[PageCard]]:
                frame = replay_frame(step.after, step.events, caption(line, step))
                shown = []
                for c in cards:
                    digest = hashlib.sha256(c.png).digest()
                    if digest not in index:
                        index[digest] = len(pngs)
                        pngs.append(c.png)
                    shown.append(PageCard(index[digest], c.description, c.lead))
                return frame, shown

            frame, shown = await asyncio.to_thread(draw)
            frames.append(frame)
            heading, *rest = plain(self.replays.words(line, step, footer=False)).split("\n")
            page_steps.append(PageStep(heading, tuple(r for r in rest if r), step.round,
                                       plain(say("Step {step} of {last}", step=step.index, last=line.last)),
                                       tuple(shown)))
            if progress is not None:
                try:
                    await progress(step.index + 1, len(line.steps))
                except Exception:  # a progress note that failed (a message gone) is no reason to stop
                    log.warning("export of game %s: progress not shown", line.game.id, exc_info=True)
                    progress = None
        durations = [DEAL_MS, *([TURN_MS] * (len(frames) - 2)), END_MS] if len(frames) > 1 else [END_MS]
        animation = await asyncio.to_thread(encode_animation, frames, durations)
        record_bytes = sum(len(text.encode()) for text in record(line))
        budget = UPLOAD_LIMIT - UPLOAD_MARGIN - len(animation) - record_bytes
        page = await asyncio.to_thread(self.page, line, page_steps, pngs, budget)
        return animation, page

    @staticmethod
    def page(line: Timeline, steps: list[PageStep], pngs: list[bytes], budget: int) -> str:
        """The page, its pictures as WebP of the highest quality (then size) that keeps it within
        ``budget`` bytes (at the lowest, whatever it comes to)."""
        words = PageWords(
            title=plain(say("Tiempo — game #{id}", id=line.game.id)), first=plain(say("The deal")),
            prev=plain(say("The turn before")), next=plain(say("The next turn")), last=plain(say("The end")),
            rounds=plain(say("Go to a round")), round_entry=plain(say("Round {round}", round="{round}")),
            keys=plain(say("Keys: ← → Home End")))
        page = replay_page(words, steps, [data_uri(png, "image/png") for png in pngs])
        for quality, scale in PAGE_PICTURES:
            if len(page.encode()) <= budget:
                break
            page = replay_page(words, steps, [data_uri(card_webp(png, quality, scale)) for png in pngs])
        return page


__all__ = ["Exports", "caption", "record", "record_names"]
