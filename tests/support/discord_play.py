"""Playing on the Discord stand-in (tests/support/discord_sim.py) as players do: a bot pointed at it
(``make_bot``), a table opened and started (``open_table``), a command's answer once it is no longer
"thinking" (``answer``), a turn played by slash commands and buttons (``play_turn``), and the game as
stored (``state_of``), the turn panel picked through (``pick_to``) and confirmed (``tap``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.config import Config
from bot.discord import TiempoBot
from bot.service import SEP
from rules import Action, Construct, EndTurn, GameState, legal_actions
from tests.support import clocks
from tests.support.discord_sim import DiscordSim, SimMessage, SimUser


def random_ai(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0) -> Action:
    """A stand-in AI for these tests: a legal action, ending the turn often."""
    rng = random.Random(seed)
    actions = legal_actions(state)
    ends = [a for a in actions if isinstance(a, EndTurn)]
    if ends and rng.random() < 0.5:
        return rng.choice(ends)
    return rng.choice(actions)


class Clock(clocks.Clock):
    """A clock the test moves by hand, from a date a Discord snowflake can carry."""

    def __init__(self) -> None:
        super().__init__(1_800_000_000.0)


def make_bot(sim: DiscordSim, db: Path, config_options: dict[str, Any] | None = None, **options: Any) -> TiempoBot:
    config = Config(token="sim-token", database=str(db), guilds=(sim.guild.id,), **(config_options or {}))
    options.setdefault("choose_ai", random_ai)
    options.setdefault("seed_source", lambda: 11)
    options.setdefault("ai_process", False)
    return TiempoBot(config, timer_every=3600, **options)


async def answer(sim: DiscordSim, payload: dict[str, Any], timeout: float = 10.0) -> SimMessage:
    """The message that answers an interaction, once it is no longer "thinking"."""
    iid = sim.inject(payload)
    record = sim.interactions[iid]

    def done() -> SimMessage | None:
        if record.refusals:
            raise AssertionError(f"Discord refused: {record.refusals}")
        if not record.answer_ids:
            return None
        message = sim.message(record.answer_ids[-1])
        return None if message.loading else message

    message: SimMessage = await sim.wait_for(done, timeout=timeout, what=f"an answer to {payload['data']}")
    return message


async def state_of(bot: TiempoBot, sim: DiscordSim) -> tuple[int, GameState]:
    games = [g for g in await bot.service.storage.list_games() if g.channel_id == sim.channel.id and g.snapshot]
    game = max(games, key=lambda g: g.id)
    assert game.snapshot is not None
    return game.id, bot.service.state_of(game)


def public(sim: DiscordSim) -> list[SimMessage]:
    return sim.channel_messages()


async def open_table(sim: DiscordSim, bot: TiempoBot, *names: str, **new: Any) -> list[SimUser]:
    """alice opens a game; the others join (the second by the lobby button); alice starts it."""
    users = [sim.user, *(sim.add_user(n) for n in names)]
    lobby = await answer(sim, sim.slash("tiempo", "new", new))
    assert not lobby.ephemeral and "game #" in lobby.content and "Red alice" in lobby.content
    for i, user in enumerate(users[1:]):
        if i == 0:
            joined = await answer(sim, sim.click(lobby.custom_id("Join"), lobby, user=user))
            assert joined.id == lobby.id and user.name in joined.content  # the lobby message was updated
        else:
            joined = await answer(sim, sim.slash("tiempo", "join", user=user))
            assert not joined.ephemeral and f"{user.name} joins" in joined.content
    started = await answer(sim, sim.slash("tiempo", "start"))
    assert started.ephemeral and "started" in started.content
    return users


def user_of(users: list[SimUser], state: GameState, seat: int) -> SimUser:
    return next(u for u in users if u.name == state.players[seat].name)


async def patiently(sim: DiscordSim, payload: Callable[[], dict[str, Any]]) -> SimMessage:
    """The answer to a command, sent again while it says the game is busy (another process holds the
    game or its database: shards on one loaded machine), as a player would."""
    for _ in range(20):
        reply = await answer(sim, payload())
        if "is busy" not in reply.content:
            return reply
        await asyncio.sleep(0.25)
    return reply


async def play_turn(sim: DiscordSim, bot: TiempoBot, users: list[SimUser], rng: random.Random) -> None:
    """The player to move answers any decision by its button, maybe builds, then ends the turn."""
    game_id, state = await state_of(bot, sim)
    if state.pending is not None:
        d = state.pending.decision
        asker = next(m for m in reversed(public(sim)) if any(c.startswith(f"tiempo:choose:{game_id}:")
                                                                 for c in m.custom_ids()))
        answer_id = next(c for c in asker.custom_ids() if c.endswith(f":{d.options[0]}"))
        reply = await patiently(sim, lambda: sim.click(answer_id, asker, user=user_of(users, state, d.player)))
        assert reply.ephemeral
        return
    user = user_of(users, state, state.active)
    builds = [a for a in legal_actions(state) if isinstance(a, Construct)]
    if builds and rng.random() < 0.7:
        a = rng.choice(builds)
        reply = await patiently(sim, lambda: sim.slash("tiempo", "build", {
            "kind": a.kind.value, "cell": str(a.origin), "age": a.age.title}, user=user))
        sure = next((c for c in reply.custom_ids() if c.startswith("tiempo:sure:")), None)
        if sure is not None:  # it harms the player's own buildings: confirmed by its button
            assert "harms your own game" in reply.content
            warned = reply
            reply = await patiently(sim, lambda: sim.click(sure, warned, user=user))
        assert reply.ephemeral and "**Your hand:**" in reply.content, reply.content
        _, after = await state_of(bot, sim)
        if after.pending is not None:
            return
    reply = await patiently(sim, lambda: sim.slash("tiempo", "end", user=user))
    assert reply.ephemeral, reply.content


async def pick_to(sim: DiscordSim, panel: SimMessage, user: SimUser, target: tuple[str, ...],
                  listed: list[dict[str, Any]] | None = None) -> tuple[SimMessage, int]:
    """Pick through ``panel`` until it previews ``target``; the panel then, and the taps it took (and
    every option of the lists on the way added to ``listed``)."""
    taps = 0
    while True:
        assert len(panel.content) <= 2000
        confirm = next((c for c in panel.custom_ids() if c.startswith("tiempo:ok:")), None)
        if confirm is not None and confirm.rsplit(":", 1)[1] == SEP.join(target):
            return panel, taps
        select = next(c for c in panel.custom_ids() if c.startswith("tiempo:pick:"))
        at = select.rsplit(":", 1)[1]
        done = tuple(at.split(SEP)) if at else ()
        assert target[:len(done)] == done, (done, target)
        menu = next(c for c in panel.components_flat() if c.get("custom_id") == select)
        assert len(menu["options"]) <= 25
        # its placeholder is the question's first sentence, short enough for a phone; the panel says it whole
        assert menu["placeholder"] in panel.content and len(menu["placeholder"]) <= 80, menu["placeholder"]
        if listed is not None:
            listed += menu["options"]
        values = [o["value"] for o in menu["options"]]
        key = next((v for v in values if target[len(done):len(done) + len(v.split(SEP))] == tuple(v.split(SEP))),
                   None)
        assert key is not None, (target, done, values)
        updated = await answer(sim, sim.click(select, panel, user=user, values=[key]))
        assert updated.id == panel.id and updated.ephemeral
        panel, taps = updated, taps + 1


async def tap(sim: DiscordSim, panel: SimMessage, user: SimUser, target: tuple[str, ...]) -> tuple[SimMessage, int]:
    """Pick through ``panel`` towards ``target`` and confirm; the panel after, and the taps it took."""
    panel, taps = await pick_to(sim, panel, user, target)
    confirm = next(c for c in panel.custom_ids() if c.startswith("tiempo:ok:"))
    after = await answer(sim, sim.click(confirm, panel, user=user))
    assert after.id == panel.id  # updated in place
    return after, taps + 1


async def two_at_the_table(sim: DiscordSim, tmp_path: Path) -> tuple[TiempoBot, int, GameState, SimUser]:
    """alice and bob at a started game: the bot, the game's id and state, and the player to move."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    game_id, state = await state_of(bot, sim)
    return bot, game_id, state, user_of(users, state, state.active)
