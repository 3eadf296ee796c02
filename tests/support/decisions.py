"""A game played to a decision by slash commands (the seed and the actions that lead there), and an
engine action typed as the slash command a player would type."""

from __future__ import annotations

from typing import Any

from rules import (
    Action,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    GameState,
    Populate,
    Renovate,
    Swap,
    Travel,
    Upgrade,
    format_action,
)
from tests.support.discord_play import answer, state_of, user_of
from tests.support.discord_sim import DiscordSim, SimMessage, SimUser

#: with seed 38 and seats alice (Red) and bob (White), alice plays first; after these actions she must
#: choose which of her two Chapels (L4 or O5) is downsized on Might (a junction of two domains)
DECISION_SEED = 38
TO_THE_DECISION = [
    "Red build Town C1 on M pay CC 2+0", "Red build Watchtower L2 on M pay M 0+1",
    "Red build Watchtower F9 on M pay M 0+1", "Red end",
    "White build Hamlet N12 on M pay MCC 2+1", "White build Chapel G7 on M pay R 0+1", "White end",
    "Red build Chapel I8 on M pay R 0+1", "Red build Chapel L4 on M pay R 0+1", "Red build Chapel E12 on M pay R 1+0",
    "Red build Chapel O5 on M pay R 1+0", "Red end",
    "White build Watchtower I10 on M pay M 0+1", "White build Hamlet K2 on M pay C 1+0",
    "White build Hamlet E3 on M pay C 0+1", "White build Chapel L11 on M pay R 1+0", "White end",
    "Red build Watchtower N6 on M pay M 1+0", "Red upgrade N5 on M to Town at M4 pay C 1+0",
]


def command_of(state: GameState, a: Action) -> tuple[str, dict[str, Any]]:
    """The slash command (and its options) a player types for the engine action ``a``."""
    text = format_action(state, a)
    pay = text.split(" pay ", 1)[1] if " pay " in text else None
    options: dict[str, Any]
    if isinstance(a, Exchange):
        return "exchange", {"cards": str(a.cards)}
    if isinstance(a, Swap):
        return "swap", {"take": str(a.take), "give": str(a.give)}
    if isinstance(a, Travel):
        return "travel", {"pawn": a.pawn + 1, "to": a.to.title}
    if isinstance(a, Construct):
        options = {"kind": a.kind.value, "cell": str(a.origin), "age": a.age.title, "pay": pay}
        return "build", options
    if isinstance(a, Upgrade):
        options = {"cell": str(a.target), "to": a.kind.value, "at": str(a.origin), "age": a.age.title, "pay": pay}
        return "upgrade", options
    if isinstance(a, Demolish):
        return "demolish", {"cell": str(a.target), "age": a.age.title, "pay": pay}
    if isinstance(a, (Populate, Renovate)):
        return type(a).__name__.lower(), {"cell": str(a.target), "pay": pay}
    if isinstance(a, EndTurn):
        return "end", {"discard": str(a.discard)} if a.discard.total else {}
    if isinstance(a, Choose):
        return "choose", {"cell": str(a.cell)}
    raise AssertionError(a)


async def play(sim: DiscordSim, bot: Any, users: list[SimUser], a: Action) -> SimMessage:
    """The player of ``a`` types it as a slash command; returns the private reply."""
    _, state = await state_of(bot, sim)
    name, options = command_of(state, a)
    user = user_of(users, state, a.player)
    reply = await answer(sim, sim.slash("tiempo", name, {k: v for k, v in options.items() if v is not None},
                                        user=user))
    assert reply.ephemeral and "**Your hand:**" in reply.content, reply.content
    return reply
