"""``/tiempo``: the command group, one method per command, its parameters the command's options.

Each command's description, its options' descriptions and their choices come from the service's
command catalogue (``bot.service.CATALOGUE``), and its body runs the catalogue's call for it
(``TiempoGroup.run``), so the slash commands, the console and the catalogue cannot drift apart (a
test checks the parameters against the catalogue). Autocompletion is one method per option
(``@build.autocomplete("cell")``); a failure in discord.py's own handling (a bad value, a command
this bot no longer defines) reaches the tree's ``on_error`` (``bot.discord.client.Tree``).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import discord
from discord import app_commands

from ..service import CATALOGUE, Refusal, RefusalCode
from ..words import Command, say
from . import completion, exporting, reviewing
from .answering import respond
from .completion import Choices
from .context import Interaction, caller_of, service_of

Callback = TypeVar("Callback", bound=Callable[..., Coroutine[Any, Any, None]])


def slash(word: str, group: app_commands.Group | None = None
          ) -> Callable[[Callback], app_commands.Command[Any, Any, None]]:
    """``app_commands.command`` for the catalogue's command ``word`` (in the subgroup ``group``, when
    given): its description, its options' descriptions and choices (an option of the catalogue the
    method lacks is a TypeError)."""
    entry = CATALOGUE[word]
    make = app_commands.command if group is None else group.command

    def decorate(callback: Callback) -> app_commands.Command[Any, Any, None]:
        described = app_commands.describe(**{o.name: o.description for o in entry.options})(callback)
        listed = {o.name: completion.choices(list(o.choices)) for o in entry.options if o.choices}
        if listed:
            described = app_commands.choices(**listed)(described)
        return make(name=word, description=entry.summary)(described)

    return decorate


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
@app_commands.allowed_installs(guilds=True, users=True)
class TiempoGroup(app_commands.Group, name="tiempo", description="Play Khronos: three Ages, seven rounds, one winner"):
    """``/tiempo`` and its subcommands (discord.py's ``examples/app_commands/basic.py``, as a group).

    Discord reads where a command may be used (``allowed_contexts``, ``allowed_installs``) from the
    top-level command only, so ``/tiempo`` is offered in servers, in direct messages with the bot and,
    for whoever adds Tiempo to their own account (a user install), anywhere; the commands of a
    table refuse where the bot is not in the server (``TiempoGroup.run``), the catalogue's
    ``anywhere`` ones (``games``, ``profile``, ``learn``…) answer there too."""

    # a command holds at most 25 subcommands: the catalogue's ``group`` puts the others in these
    me = app_commands.Group(name="me", description="Yours: your games on every server, your profile")
    records = app_commands.Group(name="records",
                                 description="Games looked back at: replays, exports, reviews, the leaderboard")

    async def run(self, interaction: Interaction, word: str, **options: str | int | bool | None) -> None:
        """Answer ``/tiempo <word>`` with the catalogue's call (deferred when the command may be slow).
        A refusal or a failure travels, as discord.py's ``CommandInvokeError``, to the tree's
        ``on_error``, which answers it."""
        entry = CATALOGUE[word]
        caller = caller_of(interaction)
        if not entry.anywhere and not interaction.is_guild_integration():
            raise Refusal(say("{command} is for a channel of a server Tiempo was added to; here, try {games}, "
                              "{profile} or {learn}.", command=Command(word), games=Command("games"),
                              profile=Command("profile"), learn=Command("learn")), RefusalCode.BAD_INPUT)
        await respond(interaction, lambda: entry.call(service_of(interaction), caller, options), defer=entry.slow)

    # -- the lobby --

    @slash("new")
    async def new(self, interaction: Interaction, holdem: bool = False, seats: app_commands.Range[int, 2, 5] = 5,
                  turn_minutes: app_commands.Range[int, 0, 10080] | None = None, tips: bool = True,
                  hints: bool = True) -> None:
        await self.run(interaction, "new", holdem=holdem, seats=seats, turn_minutes=turn_minutes, tips=tips,
                       hints=hints)

    @slash("join")
    async def join(self, interaction: Interaction) -> None:
        await self.run(interaction, "join")

    @slash("leave")
    async def leave(self, interaction: Interaction) -> None:
        await self.run(interaction, "leave")

    @slash("start")
    async def start(self, interaction: Interaction) -> None:
        await self.run(interaction, "start")

    @slash("cancel")
    async def cancel(self, interaction: Interaction) -> None:
        await self.run(interaction, "cancel")

    @slash("addbot")
    async def addbot(self, interaction: Interaction, level: str = "greedy") -> None:
        await self.run(interaction, "addbot", level=level)

    # -- information --

    @slash("hand")
    async def hand(self, interaction: Interaction) -> None:
        await self.run(interaction, "hand")

    @slash("board")
    async def board(self, interaction: Interaction, age: str | None = None) -> None:
        await self.run(interaction, "board", age=age)

    @slash("status")
    async def status(self, interaction: Interaction) -> None:
        await self.run(interaction, "status")

    @slash("log")
    async def log(self, interaction: Interaction, count: app_commands.Range[int, 1, 50] = 15) -> None:
        await self.run(interaction, "log", count=count)

    @slash("rules")
    async def rules(self, interaction: Interaction, topic: str | None = None) -> None:
        await self.run(interaction, "rules", topic=topic)

    # -- play --

    @slash("exchange")
    async def exchange(self, interaction: Interaction, cards: str) -> None:
        await self.run(interaction, "exchange", cards=cards)

    @exchange.autocomplete("cards")
    async def exchange_cards(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cards(interaction, "exchange", current)

    @slash("swap")
    async def swap(self, interaction: Interaction, take: str, give: str) -> None:
        await self.run(interaction, "swap", take=take, give=give)

    @swap.autocomplete("take")
    async def swap_take(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cards(interaction, "swap-take", current)

    @swap.autocomplete("give")
    async def swap_give(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cards(interaction, "swap", current)

    @slash("travel")
    async def travel(self, interaction: Interaction, pawn: app_commands.Range[int, 1, 2], to: str) -> None:
        await self.run(interaction, "travel", pawn=pawn, to=to)

    @slash("build")
    async def build(self, interaction: Interaction, kind: str, cell: str, age: str | None = None,
                    pay: str | None = None) -> None:
        await self.run(interaction, "build", kind=kind, cell=cell, age=age, pay=pay)

    @build.autocomplete("cell")
    async def build_cell(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cells(interaction, "build", current)

    @build.autocomplete("pay")
    async def build_pay(self, interaction: Interaction, current: str) -> Choices:
        return await completion.payments(interaction, "build", current)

    @slash("upgrade")
    async def upgrade(self, interaction: Interaction, cell: str, to: str, at: str | None = None,
                      age: str | None = None, pay: str | None = None) -> None:
        await self.run(interaction, "upgrade", cell=cell, to=to, at=at, age=age, pay=pay)

    @upgrade.autocomplete("cell")
    async def upgrade_cell(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cells(interaction, "upgrade", current)

    @upgrade.autocomplete("at")
    async def upgrade_at(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cells(interaction, "upgrade-at", current)

    @upgrade.autocomplete("pay")
    async def upgrade_pay(self, interaction: Interaction, current: str) -> Choices:
        return await completion.payments(interaction, "upgrade", current)

    @slash("demolish")
    async def demolish(self, interaction: Interaction, cell: str, age: str | None = None,
                       pay: str | None = None) -> None:
        await self.run(interaction, "demolish", cell=cell, age=age, pay=pay)

    @demolish.autocomplete("cell")
    async def demolish_cell(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cells(interaction, "demolish", current)

    @demolish.autocomplete("pay")
    async def demolish_pay(self, interaction: Interaction, current: str) -> Choices:
        return await completion.payments(interaction, "demolish", current)

    @slash("populate")
    async def populate(self, interaction: Interaction, cell: str, pay: str | None = None) -> None:
        await self.run(interaction, "populate", cell=cell, pay=pay)

    @populate.autocomplete("cell")
    async def populate_cell(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cells(interaction, "populate", current)

    @populate.autocomplete("pay")
    async def populate_pay(self, interaction: Interaction, current: str) -> Choices:
        return await completion.payments(interaction, "populate", current)

    @slash("renovate")
    async def renovate(self, interaction: Interaction, cell: str, pay: str | None = None) -> None:
        await self.run(interaction, "renovate", cell=cell, pay=pay)

    @renovate.autocomplete("cell")
    async def renovate_cell(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cells(interaction, "renovate", current)

    @renovate.autocomplete("pay")
    async def renovate_pay(self, interaction: Interaction, current: str) -> Choices:
        return await completion.payments(interaction, "renovate", current)

    @slash("end")
    async def end(self, interaction: Interaction, discard: str | None = None) -> None:
        await self.run(interaction, "end", discard=discard)

    @end.autocomplete("discard")
    async def end_discard(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cards(interaction, "end", current)

    @slash("choose")
    async def choose(self, interaction: Interaction, cell: str) -> None:
        await self.run(interaction, "choose", cell=cell)

    @choose.autocomplete("cell")
    async def choose_cell(self, interaction: Interaction, current: str) -> Choices:
        return await completion.cells(interaction, "choose", current)

    @slash("undo")
    async def undo(self, interaction: Interaction) -> None:
        await self.run(interaction, "undo")

    # -- after the game: replay and export --

    @slash("replay", records)
    async def replay(self, interaction: Interaction, game: app_commands.Range[int, 1] | None = None,
                     step: app_commands.Range[int, 0] | None = None, hands: bool = False,
                     public: bool = False) -> None:
        await self.run(interaction, "replay", game=game, step=step, hands=hands, public=public)

    @slash("export", records)
    async def export(self, interaction: Interaction, game: app_commands.Range[int, 1] | None = None) -> None:
        await exporting.export(interaction, game)

    @slash("review", records)
    async def review(self, interaction: Interaction, game: app_commands.Range[int, 1] | None = None) -> None:
        await reviewing.review(interaction, game)

    # -- between games and after them, and the course --

    @slash("games", me)
    async def games(self, interaction: Interaction) -> None:
        await self.run(interaction, "games")

    @slash("profile", me)
    async def profile(self, interaction: Interaction, player: discord.User | None = None,
                      everywhere: bool = False) -> None:
        await self.run(interaction, "profile", player=None if player is None else player.id, everywhere=everywhere,
                       player_name=None if player is None else player.display_name)

    @slash("leaderboard", records)
    async def leaderboard(self, interaction: Interaction, page: app_commands.Range[int, 1, 1000] = 1) -> None:
        await self.run(interaction, "leaderboard", page=page)

    @slash("learn")
    async def learn(self, interaction: Interaction, lesson: str | None = None) -> None:
        await self.run(interaction, "learn", lesson=lesson)

    @slash("notify", me)
    async def notify(self, interaction: Interaction, mode: str | None = None) -> None:
        await self.run(interaction, "notify", mode=mode)

    # -- seats the AI keeps warm --
    @slash("away", me)
    async def away(self, interaction: Interaction) -> None:
        await self.run(interaction, "away")

    @slash("back", me)
    async def back(self, interaction: Interaction) -> None:
        await self.run(interaction, "back")

    # -- a hint on request --
    @slash("hint", me)
    async def hint(self, interaction: Interaction) -> None:
        await self.run(interaction, "hint")


__all__ = ["TiempoGroup", "slash"]
