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


def test_a_name_in_the_panels_path_is_escaped_on_discord() -> None:
    """The panel's bold line of what is picked so far is made of the list's labels (plain text in a
    menu), which name players: on Discord their names are escaped there too."""
    from bot.discord import markdown
    from bot.service.steps import path_to, step, step_words
    from rules import Age, Cards, Demolish, Kind, new_game
    from tests.support.positions import put, settle

    s = new_game(["Ana", NAME], seed=3)
    put(s, Age.MIGHT, Kind.CHAPEL, "B2", owner=1)
    settle(s)
    s.active = s.first = 0
    s.players[0].hand = Cards(m=1, r=1, c=2)
    demolish = next(a for a in legal_actions(s) if isinstance(a, Demolish))
    current = step(s, 0, path_to(s, 0, demolish))
    assert f"{NAME}'s Chapel at B2 (1×1)" in current.chosen
    path = markdown(lines(step_words(current, s))).split("\n")[0]
    assert path.startswith("**Demolish") and f"{ESCAPED}'s Chapel at B2" in path and f" {NAME}'s" not in path, path
    assert render(lines(step_words(current, s)), PLAIN).startswith("Demolish"), "the console shows it as it is"
