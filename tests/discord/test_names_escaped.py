"""A display name with Discord markdown in it (``*bo_b*``) is shown as it is: escaped in the channel's
narration (not bold or italics), and as typed in the plain rendering the console uses."""

from __future__ import annotations

from pathlib import Path

from bot.texts import narrate
from bot.words import PLAIN, lines, render
from rules import Construct, EndTurn, apply, legal_actions
from tests.support.discord_play import answer, make_bot, public, state_of
from tests.support.discord_sim import DiscordSim, SimUser

NAME = "*bo_b*"
ESCAPED = r"\*bo\_b\*"


async def test_a_name_with_markdown_builds_and_ends_a_turn_escaped_on_discord(sim: DiscordSim,
                                                                               tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    bob = sim.add_user(NAME)
    await answer(sim, sim.slash("tiempo", "new"))
    await answer(sim, sim.slash("tiempo", "join", user=bob))
    await answer(sim, sim.slash("tiempo", "start"))
    users = {"alice": sim.user, NAME: bob}

    async def end_turn(user: SimUser) -> None:
        reply = await answer(sim, sim.slash("tiempo", "end", user=user))
        assert reply.ephemeral, reply.content

    _, state = await state_of(bot, sim)
    if state.players[state.active].name != NAME:  # alice was drawn first: she ends her turn
        await end_turn(users[state.players[state.active].name])
        _, state = await state_of(bot, sim)
    assert state.players[state.active].name == NAME and state.pending is None
    colour = state.players[state.active].colour.value

    build = next(a for a in legal_actions(state) if isinstance(a, Construct))
    reply = await answer(sim, sim.slash("tiempo", "build", {"kind": build.kind.value, "cell": str(build.origin),
                                                            "age": build.age.title}, user=bob))
    assert reply.ephemeral and "**Your hand:**" in reply.content, reply.content
    _, built = await state_of(bot, sim)
    assert built.pending is None and built.active == state.active
    await end_turn(bob)

    said = "\n".join(m.content for m in public(sim))
    assert f"{ESCAPED} ({colour}) builds" in said, said
    assert f"{ESCAPED} ({colour}) ends the turn" in said, said
    assert f"{NAME} ({colour})" not in said.replace(ESCAPED, "")  # never unescaped: no bold, no italics

    # the plain rendering (the console's, logs) shows the name as it is
    after, events = apply(state, next(a for a in legal_actions(state) if isinstance(a, EndTurn)))
    plain = render(lines(narrate(after, events)), PLAIN)
    assert f"{NAME} ({colour}) ends the turn" in plain and ESCAPED not in plain
