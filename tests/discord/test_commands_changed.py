"""A player's Discord may show an older form of a command for a while after the bot changed its
commands: an unknown command or option, one of another type, a required option missing. The player
reads that the command changed and Discord will show the new one, not an apology; the log has one
line, not a traceback."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.discord import client
from bot.discord.answering import CHANGED
from tests.support.discord_play import answer, make_bot, open_table
from tests.support.discord_sim import DiscordSim

JSON = dict[str, Any]


def renamed_sub(payload: JSON) -> None:
    payload["data"]["options"][0]["name"] = "scores"  # a subcommand this bot never had


def renamed_option(payload: JSON) -> None:
    payload["data"]["options"][0]["options"][0]["name"] = "lines"  # /tiempo log count: was once "lines"


def option_of_another_type(payload: JSON) -> None:
    option = payload["data"]["options"][0]["options"][0]
    option.update(type=3, value=str(option["value"]))  # a string where the bot wants an integer


CASES: list[tuple[str, JSON, Callable[[JSON], None]]] = [
    ("status", {}, renamed_sub),
    ("log", {"count": 5}, renamed_option),
    ("log", {"count": 5}, option_of_another_type),
]


@pytest.mark.parametrize(("sub", "options", "change"), CASES, ids=["unknown command", "unknown option",
                                                                  "option of another type"])
async def test_an_older_form_of_a_command_is_answered_with_a_sentence(
        sim: DiscordSim, tmp_path: Path, caplog: pytest.LogCaptureFixture, sub: str, options: JSON,
        change: Callable[[JSON], None]) -> None:
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    await open_table(sim, sim.client, "bob")  # type: ignore[arg-type]
    payload = sim.slash("tiempo", sub, options)
    change(payload)
    with caplog.at_level(logging.INFO):
        reply = await answer(sim, payload)
    assert reply.ephemeral and reply.content == CHANGED
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert [r.levelno for r in caplog.records if r.name == "tiempo.discord"] == [logging.WARNING]


async def test_a_required_option_missing_is_answered_with_a_sentence(sim: DiscordSim, tmp_path: Path) -> None:
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    await open_table(sim, sim.client, "bob")  # type: ignore[arg-type]
    payload = sim.slash("tiempo", "exchange", {"cards": "M"})
    payload["data"]["options"][0]["options"] = []  # an older /tiempo exchange without cards
    reply = await answer(sim, payload)
    assert reply.ephemeral and reply.content == CHANGED


async def test_completing_an_option_the_bot_no_longer_has_says_so(sim: DiscordSim, tmp_path: Path) -> None:
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    await open_table(sim, sim.client, "bob")  # type: ignore[arg-type]
    payload = sim.autocomplete("tiempo", "build", {"kind": "Keep"}, "cell")
    focused = next(o for o in payload["data"]["options"][0]["options"] if o.get("focused"))
    focused["name"] = "where"
    choices = await sim.choices(sim.inject(payload))
    assert [c["name"] for c in choices] == [CHANGED]


async def test_discord_py_s_own_mismatch_errors_get_the_same_sentence(sim: DiscordSim, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Should discord.py find a mismatch the check let through, its error gets the same answer."""
    monkeypatch.setattr(client, "stale_command", lambda tree, interaction: None)
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    payload = sim.slash("tiempo", "status")
    renamed_sub(payload)
    reply = await answer(sim, payload)
    assert reply.ephemeral and reply.content == CHANGED


async def test_a_tap_still_answering_when_the_bot_closes_is_logged_in_a_line_not_as_a_bug(
        sim: DiscordSim, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A host stops the bot (an update) while a tap's answer is being made: once the connection is gone
    no answer can go, and that is no bug of the bot's: one line in the log, no traceback, and nothing
    raised out of the handler ("Task exception was never retrieved")."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    game_id = (await bot.service.storage.list_games())[0].id
    post = next(m for m in reversed(sim.channel_messages()) if f"tiempo:play:{game_id}" in m.custom_ids())
    service, started, go = bot.service, asyncio.Event(), asyncio.Event()
    shown = service.panel

    async def slow_panel(*args: Any, **kwargs: Any) -> Any:
        started.set()
        await go.wait()
        return await shown(*args, **kwargs)

    service.panel = slow_panel  # type: ignore[method-assign]
    handled: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda loop, context: handled.append(context))
    caplog.set_level(logging.INFO, logger="tiempo.discord")
    sim.inject(sim.click(f"tiempo:play:{game_id}", post, user=users[0]))
    await asyncio.wait_for(started.wait(), 10)
    closing = asyncio.ensure_future(bot.close())
    await asyncio.sleep(0.1)
    go.set()
    await closing
    await asyncio.sleep(0.3)
    assert not [r for r in caplog.records if r.name == "tiempo.discord" and r.levelno >= logging.WARNING]
    assert any("was not answered: the bot closed meanwhile" in r.getMessage() for r in caplog.records)
    assert handled == []
