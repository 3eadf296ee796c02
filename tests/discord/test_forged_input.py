"""Input no player should send, sent anyway — a forged button id (a game number beyond 64 bits, a
version, path, cell or notation that means nothing), an option of another type or out of its range
from a client with stale command definitions — is answered with one sentence, privately; nothing is
logged with a traceback, and the game goes on."""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.support.discord_play import answer, make_bot, open_table, public, state_of
from tests.support.discord_sim import DiscordSim, SimMessage

HUGE = str(2**70)


def forged(sim: DiscordSim, message: SimMessage, custom_id: str, values: list[str] | None = None) -> dict[str, Any]:
    """A click carrying ``custom_id`` on a copy of ``message`` whose first component carries it too: what
    a modified client (or a message drawn by an older bot) would bring (discord.py answers only an id
    that is on the message)."""
    now = sim.message(message.id)
    payload = copy.deepcopy(sim.click(now.custom_ids()[0], now))
    payload["data"]["custom_id"] = custom_id
    if values is not None:
        payload["data"].update(component_type=3, values=values)

    def swap(components: list[dict[str, Any]]) -> bool:
        for i, component in enumerate(components):
            if "custom_id" in component:
                components[i] = ({"type": 3, "custom_id": custom_id, "options": [{"label": v, "value": v}
                                                                                 for v in values]}
                                 if values is not None else {**component, "custom_id": custom_id})
                return True
            if swap(component.get("components", [])):
                return True
        return False

    assert swap(payload["message"]["components"])
    return payload


def ids(game: int, version: str) -> list[tuple[str, list[str] | None]]:
    """Every kind of persistent id, with numbers and parts that name nothing."""
    out: list[tuple[str, list[str] | None]] = []
    for g in (HUGE, str(game + 1000), "0"):
        out += [(f"tiempo:{kind}:{g}", None) for kind in ("play", "hand", "board", "rematch", "cancel")]
        out += [(f"tiempo:lobby:{g}:{what}", None) for what in ("join", "leave", "start")]
        out += [(f"tiempo:choose:{g}:{version}:Z99", None), (f"tiempo:sure:{g}:{version}:Red%20end", None),
                (f"tiempo:ok:{g}:{version}:build.KEEP", None), (f"tiempo:pick:{g}:{version}:", ["nonsense"]),
                (f"tiempo:replay:{g}:next:7:1", None), (f"tiempo:replay:{g}:round:0", ["nonsense"])]
    out += [(f"tiempo:choose:{game}:{version}:Z99", None), (f"tiempo:choose:{game}:999-abcdef:A1", None),
            (f"tiempo:sure:{game}:{version}:not%20notation", None), (f"tiempo:ok:{game}:{version}:zz.yy.xx", None),
            (f"tiempo:back:{game}:{version}:build.NOPE", None), (f"tiempo:pick:{game}:{version}:build", ["ZZZ"]),
            (f"tiempo:undo:{game}:{version}:", None), (f"tiempo:look:{game}:1-000000:", None)]
    return out


async def test_forged_button_ids_get_a_sentence_and_no_traceback(sim: DiscordSim, tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    await open_table(sim, bot, "bob")
    game_id, state = await state_of(bot, sim)
    turn_post = next(m for m in reversed(public(sim)) if any(c.startswith("tiempo:play:") for c in m.custom_ids()))
    version = next(c.split(":")[3] for m in public(sim) for c in m.custom_ids() if c.startswith("tiempo:choose"))\
        if any(c.startswith("tiempo:choose") for m in public(sim) for c in m.custom_ids()) else "1-abcdef"
    caplog.set_level(logging.INFO)
    for custom_id, values in ids(game_id, version):
        reply = await answer(sim, forged(sim, turn_post, custom_id, values))
        assert reply.content and "Traceback" not in reply.content, custom_id
        assert "Something went wrong on our side" not in reply.content, (custom_id, reply.content)
        if HUGE in custom_id:
            assert f"no game #{HUGE}" in reply.content, (custom_id, reply.content)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR], \
        [(r.getMessage(), r.exc_info) for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    _, after = await state_of(bot, sim)
    assert after.active == state.active and not after.finished  # nothing was played by forged input


@pytest.mark.parametrize(("sub", "option", "type_", "value"), [
    ("log", "count", 3, "ten"), ("log", "count", 4, 999), ("log", "count", 4, -3), ("board", "age", 4, 3),
    ("board", "age", 3, "Bronze"), ("travel", "pawn", 4, 7), ("addbot", "level", 3, "godlike"),
])
async def test_options_of_another_type_or_out_of_range_get_a_sentence(
        sim: DiscordSim, tmp_path: Path, caplog: pytest.LogCaptureFixture, sub: str, option: str, type_: int,
        value: Any) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    await open_table(sim, bot, "bob")
    given = {"log": {"count": 5}, "board": {"age": "Might"}, "travel": {"pawn": 1, "to": "Faith"},
             "addbot": {"level": "greedy"}}[sub]
    payload = sim.slash("tiempo", sub, given)
    for o in payload["data"]["options"][0]["options"]:
        if o["name"] == option:
            o.update(type=type_, value=value)
    caplog.set_level(logging.INFO)
    reply = await answer(sim, payload)
    assert reply.ephemeral and reply.content and "Something went wrong on our side" not in reply.content
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_a_full_disk_under_play_is_a_sentence_then_play_resumes_and_nothing_is_lost(
        sim: DiscordSim, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The disk fills in the middle of a game (SQLite's page limit stands for it): the player's end of
    turn gets a sentence saying it did not count, the log a warning without a traceback; once there is
    room, the same command plays, and every action stored before is still there."""
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob")
    game_id, state = await state_of(bot, sim)
    mover = next(u for u in users if u.name == state.players[state.active].name)
    before = len(await bot.service.storage.list_actions(game_id))
    database = bot.service.storage.database
    pages = (await database.fetchall("PRAGMA page_count"))[0][0]
    await database.fetchall(f"PRAGMA max_page_count = {pages}")
    caplog.set_level(logging.INFO)
    for _ in range(3):  # the posts an end of turn stores need room: a full disk refuses it
        reply = await answer(sim, sim.slash("tiempo", "end", {"discard": ""}, user=mover))
        assert "did not count" in reply.content and "Something went wrong" not in reply.content, reply.content
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert any("the disk is full" in r.getMessage() for r in caplog.records)
    assert len(await bot.service.storage.list_actions(game_id)) == before
    await database.fetchall("PRAGMA max_page_count = 1073741823")
    reply = await answer(sim, sim.slash("tiempo", "end", {"discard": ""}, user=mover))
    assert "did not count" not in reply.content
    _, after = await state_of(bot, sim)
    assert after.active != state.active and len(await bot.service.storage.list_actions(game_id)) == before + 1
