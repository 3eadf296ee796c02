"""No log level writes hidden information: a game played on (simulated) Discord with the bot's logging
at DEBUG leaves no hand, draw pile or random state in any log record of any logger."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.__main__ import configure_logging
from rules import GameState, to_json
from tests.support.discord_play import answer, make_bot, open_table, play_turn, public, state_of, user_of
from tests.support.discord_sim import DiscordSim


@pytest.fixture
def debug_logging(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """The bot's logging set up at DEBUG (as ``log_level = "DEBUG"`` does), every record kept; the
    loggers' levels and handlers as they were afterwards."""
    root = logging.getLogger()
    levels = {name: logging.getLogger(name).level for name in ("", *logging.root.manager.loggerDict)}
    handlers = list(root.handlers)
    configure_logging(logging.DEBUG)
    caplog.set_level(logging.DEBUG)
    try:
        yield caplog
    finally:
        for handler in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def secrets_of(state: GameState) -> list[str]:
    """What no log may show of a position: its draw pile and random state as stored (long enough not
    to occur by chance), and the stored position itself."""
    stored = json.loads(to_json(state))
    return [s for s in (stored["deck"], stored["rng"]) if len(s) >= 8] + [to_json(state)[:60]]


async def test_a_game_at_debug_logs_no_hand_no_deck_no_random_state(discord_sim: DiscordSim, tmp_path: Path,
                                                                   debug_logging: pytest.LogCaptureFixture) -> None:
    sim = discord_sim
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", config_options={"log_level": "DEBUG"}))
    users = await open_table(sim, bot, "bob")
    rng = random.Random(7)
    seen: list[str] = []
    game_id, state = await state_of(bot, sim)
    for _ in range(12):
        seen += secrets_of(state)
        await play_turn(sim, bot, users, rng)
        _, state = await state_of(bot, sim)
        mine = await answer(sim, sim.click(f"tiempo:hand:{game_id}", public(sim)[-1],
                                           user=user_of(users, state, state.active)))
        assert "Your hand:" in mine.content  # a private answer went out (logged by none)
    seen += secrets_of(state)
    assert logging.getLogger("tiempo").isEnabledFor(logging.DEBUG)  # DEBUG is on…
    assert any(r.name == "tiempo.discord" for r in debug_logging.records)  # …and every record is read here
    formatter = logging.Formatter("%(name)s %(message)s")
    for record in debug_logging.records:
        line = formatter.format(record)
        leaks = [s for s in seen if s in line]
        leaks += [key for key in ('"hand":', '"deck":', '"rng":', "Your hand:", "'hand'") if key in line]
        assert not leaks, (record.name, leaks, line[:300])
