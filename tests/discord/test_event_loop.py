"""The event loop the bot runs on (``bot.loop``): uvloop's where it is installed, Python's own with
``TIEMPO_EVENT_LOOP=asyncio`` or without uvloop; the bot started as ``tiempo-bot`` starts it, against
the stand-in's REST and gateway, closes cleanly on SIGTERM and on Ctrl-C."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.loop import EventLoopError, loop_factory, wanted_loop
from tests.support.discord_sim import API_PREFIX, DiscordSim

ROOT = Path(__file__).resolve().parents[2]


@contextlib.asynccontextmanager
async def _served(sim: DiscordSim, tmp_path: Path, **env: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """The bot started as ``tiempo-bot`` starts it (``tests.support.served_bot``), killed on leaving if
    it is still running."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": sim.token,
               "TIEMPO_DATABASE": str(tmp_path / "games.sqlite3"), **env}
    for name in ("TIEMPO_CONFIG", *(() if "TIEMPO_EVENT_LOOP" in env else ("TIEMPO_EVENT_LOOP",))):
        environ.pop(name, None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.support.served_bot", sim.url + API_PREFIX, sim.gateway_url, cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=environ)
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def _lines_until_ready(proc: asyncio.subprocess.Process) -> list[str]:
    assert proc.stdout is not None and proc.stderr is not None
    lines: list[str] = []
    while "ready" not in lines:
        line = (await asyncio.wait_for(proc.stdout.readline(), timeout=60)).decode()
        if not line:
            raise AssertionError((await proc.stderr.read()).decode()[-3000:])
        lines.append(line.strip())
    return lines


async def _stopped_by(proc: asyncio.subprocess.Process, sig: signal.Signals) -> str:
    proc.send_signal(sig)
    try:
        _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    except TimeoutError:  # say where it hangs: its threads' stacks (faulthandler, served_bot), then stop it
        proc.send_signal(signal.SIGUSR1)
        await asyncio.sleep(1)
        proc.kill()  # (before _served would: its stacks are in what it wrote)
        _, err = await proc.communicate()
        raise AssertionError(f"the bot did not stop within 60 s of {sig.name}:\n{err.decode()[-6000:]}") from None
    assert proc.returncode == 0, err.decode()[-3000:]
    return err.decode()


@pytest.mark.slow
async def test_the_bot_runs_on_uvloop_and_closes_on_sigterm(sim: DiscordSim, tmp_path: Path) -> None:
    async with _served(sim, tmp_path) as proc:
        assert await _lines_until_ready(proc) == ["loop uvloop.Loop", "ready"]
        assert sim.identified == 1
        err = await _stopped_by(proc, signal.SIGTERM)
    assert "Traceback" not in err, err
    # closed, not killed: SQLite folds its log back into the file when the last connection closes
    assert (tmp_path / "games.sqlite3").exists() and not (tmp_path / "games.sqlite3-wal").exists()


@pytest.mark.slow
async def test_with_the_switch_it_runs_on_asyncio_s_loop_and_closes_on_ctrl_c(sim: DiscordSim,
                                                                             tmp_path: Path) -> None:
    async with _served(sim, tmp_path, TIEMPO_EVENT_LOOP="asyncio") as proc:
        assert await _lines_until_ready(proc) == ["loop asyncio.unix_events._UnixSelectorEventLoop", "ready"]
        err = await _stopped_by(proc, signal.SIGINT)
    assert "Traceback" not in err, err
    assert not (tmp_path / "games.sqlite3-wal").exists()


def test_the_switch() -> None:
    assert wanted_loop({}) == "uvloop"
    assert wanted_loop({"TIEMPO_EVENT_LOOP": " AsyncIO "}) == "asyncio"
    assert wanted_loop({"TIEMPO_EVENT_LOOP": ""}) == "uvloop"
    assert loop_factory({"TIEMPO_EVENT_LOOP": "asyncio"}) is asyncio.new_event_loop
    import uvloop

    assert loop_factory({}) is uvloop.new_event_loop
    with pytest.raises(EventLoopError, match="TIEMPO_EVENT_LOOP=tokio names no event loop"):
        wanted_loop({"TIEMPO_EVENT_LOOP": "tokio"})


def test_a_switch_naming_no_loop_stops_the_bot_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "a-token")
    monkeypatch.setenv("TIEMPO_EVENT_LOOP", "tokio")
    monkeypatch.delenv("TIEMPO_CONFIG", raising=False)
    monkeypatch.chdir(ROOT / "docs")  # no tiempo.toml here
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["run"]) == 2
    assert "TIEMPO_EVENT_LOOP=tokio names no event loop" in err.getvalue()


async def test_discord_out_of_reach_at_start_is_one_sentence_and_exit_1(tmp_path: Path) -> None:
    """No network (here: nothing listening where Discord should be) is said in one sentence, not a
    traceback, and exits 1, so that a service manager tries again; nor does the host read warnings
    about voice, which Tiempo never uses."""
    import socket

    with socket.socket() as s:  # a loopback port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "x.y.z",
               "TIEMPO_DATABASE": str(tmp_path / "games.sqlite3")}
    environ.pop("TIEMPO_CONFIG", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.support.served_bot", f"http://127.0.0.1:{port}/api/v10",
        f"ws://127.0.0.1:{port}/", cwd=tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=environ)
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    said = err.decode()
    assert proc.returncode == 1, said
    assert "Traceback" not in said and "voice" not in said, said
    assert said.strip().splitlines()[-1].startswith("Cannot reach Discord (") and said.strip().endswith(
        "check this machine's network connection and DNS, then start Tiempo again."), said
