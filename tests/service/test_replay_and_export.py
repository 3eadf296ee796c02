"""Replay and export of a game (bot/service/replay.py, exports.py), at the service: a viewer steps through
a stored game turn by turn, also after a restart; a game in play shows only what the channel saw; a
finished game is taken away as its record (which ``python -m rules apply`` replays to the final
position), an animation of the three Ages and a web page that steps in a headless browser."""

from __future__ import annotations

import asyncio
import io
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PIL import Image

from bot.service import Attachment, Caller, Refusal, Reply, Tiempo
from bot.storage import Status, Storage
from bot.words import PLAIN, render
from render import turn_cards
from rules import format_position, keyed_seed
from tests.support.browser import need_browser, open_page
from tests.support.replayed import Silent, people, play_game

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["ana", "ben", "cy"]


def plain(reply: Reply) -> str:
    return render(reply.text, PLAIN)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with game #1, finished (three players, random legal play, dealt as the bot deals:
    from a keyed seed), and game #2, in play in channel 2 (two players, 23 actions: a turn under way)."""
    path = tmp_path_factory.mktemp("replay") / "games.sqlite3"
    asyncio.run(play_game(str(path), 5, NAMES, deal=keyed_seed(5)))
    asyncio.run(play_game(str(path), 8, ["dee", "eve"], actions=23, channel=2))
    return path


@pytest.fixture
async def service(stored: Path, tmp_path: Path) -> AsyncIterator[Tiempo]:
    """A bot started on a copy of the stored games (a fresh process: nothing in memory)."""
    async with started(stored, tmp_path) as s:
        yield s


class started:
    """A fresh service on a copy of ``stored`` (each one a restart)."""

    def __init__(self, stored: Path, tmp_path: Path) -> None:
        self.path = tmp_path / "games.sqlite3"
        if not self.path.exists():
            shutil.copy(stored, self.path)

    async def __aenter__(self) -> Tiempo:
        self.storage = await Storage.open(str(self.path))
        self.service = Tiempo(self.storage, Silent())
        return self.service

    async def __aexit__(self, *exc: object) -> None:
        await self.service.close()
        await self.storage.close()


ANA = people(NAMES)[0]
DEE = Caller(1, 2, 100, "dee")


async def test_a_finished_game_steps_from_the_deal_to_the_end_turn_by_turn(service: Tiempo) -> None:
    first = await service.replay(ANA, 1, 0)
    view = first.replay
    assert view is not None and view.game_id == 1 and view.step == 0 and view.last > 7 and not view.hands
    assert re.match(rf"Game #1 — the deal\. \w+ \(\w+\) plays first\. {view.last} turns follow\.\n", plain(first))
    assert [(b.role, b.step, b.disabled) for b in view.buttons] == [
        ("first", 0, True), ("prev", 0, True), ("next", 1, False), ("last", None, False)]
    assert [r for r, _ in view.rounds] == [1, 2, 3, 4, 5, 6, 7] and view.rounds[0] == (1, 1)
    assert len(first.gallery) == 3 and all(p.lead for p in first.gallery)  # the three boards of the deal
    turn = 0
    for r, step in view.rounds:  # each round's first turn is a turn of that round
        reply = await service.replay(ANA, 1, step)
        assert reply.replay is not None and reply.replay.round == r
        assert f", round {r} of 7: " in plain(reply).split("\n")[0]
        assert step > turn
        turn = step
    nxt = await service.replay(ANA, 1, 1)
    assert re.match(rf"Game #1 — turn 1 of {view.last}, round 1 of 7: (\w+ \(\w+\))\.\n\1 ", plain(nxt))
    assert nxt.gallery and nxt.gallery[0].lead  # the boards the turn changed come first, large
    last = await service.replay(ANA, 1)  # no step: the newest
    assert last.replay is not None and last.replay.step == view.last
    assert [(b.role, b.disabled) for b in last.replay.buttons][2:] == [("next", True), ("last", True)]
    assert "Final ranking:" in plain(last)
    beyond = await service.replay(ANA, 1, 999)
    assert beyond.replay is not None and beyond.replay.step == view.last and beyond.text == last.text


async def test_stepping_works_after_a_restart_from_storage_and_the_step_alone(stored: Path, tmp_path: Path) -> None:
    async with started(stored, tmp_path) as before:
        shown = await before.replay(ANA, 1, 5)
        assert shown.replay is not None
        pressed = next(b for b in shown.replay.buttons if b.role == "next")
    async with started(stored, tmp_path) as after:  # the bot restarted; the button carries (1, 6)
        again = await after.replay(ANA, shown.replay.game_id, pressed.step, hands=shown.replay.hands)
    async with started(stored, tmp_path) as other:
        expected = await other.replay(ANA, 1, 6)
    assert again.replay is not None and again.replay.step == 6
    assert again.text == expected.text
    assert [p.png for p in again.gallery] == [p.png for p in expected.gallery]


async def test_a_game_in_play_replays_up_to_now_and_shows_only_what_everyone_saw(service: Tiempo) -> None:
    game = await service.storage.get_game(2)
    assert game.status is Status.PLAYING
    state = service.state_of(game)
    reply = await service.replay(DEE, None, hands=True)  # the channel's game; hands are not for a game in play
    assert reply.replay is not None and reply.replay.game_id == 2 and not reply.replay.hands
    words = plain(reply)
    assert "Hands are shown once the game is over" in words and "Hands before this turn" not in words
    for p in state.players:  # no hand, in any form
        assert f"({p.hand})" not in words and "hand=" not in words
    assert [(b.role, b.disabled) for b in reply.replay.buttons][2:] == [("next", True), ("last", False)]  # news
    line = await service.replays.timeline(game)
    assert line.steps[-1].after == state  # up to now
    # the pictures are those drawn for no viewer (the channel's), of the position now
    public = [png for _, _, png in turn_cards(state, line.steps[-1].events)]
    assert sorted(p.png for p in reply.gallery) == sorted(public)


async def test_a_finished_game_shows_the_hands_when_asked(service: Tiempo) -> None:
    plain_step = plain(await service.replay(ANA, 1, 3))
    with_hands = await service.replay(ANA, 1, 3, hands=True)
    assert "Hands" not in plain_step
    assert with_hands.replay is not None and with_hands.replay.hands
    line = await service.replays.timeline(await service.storage.get_game(1))
    before = line.steps[3].before
    assert "Hands before this turn:" in plain(with_hands)
    for p in before.players:
        assert f"({p.hand})" in plain(with_hands)


async def test_bad_input_is_answered_with_a_sentence(service: Tiempo, stored: Path) -> None:
    async def refused(caller: Caller, game_id: int | None, *, export: bool = False) -> str:
        with pytest.raises(Refusal) as e:
            await (service.export(caller, game_id) if export else service.replay(caller, game_id))
        return str(e.value)

    assert (await refused(ANA, 999)).startswith("There is no game #999.")
    assert (await refused(ANA, 0)).startswith("There is no game #0.")
    nowhere = Caller(1, 77, 100, "ana")  # a channel where no game was played: how to name one
    assert (await refused(nowhere, None)) == (
        "No game is in play or over at this table. Name one by its number: `replay game:12` (a game's number is "
        "in its posts, \"Game #12 is over.\"; `profile` lists your last games).")
    assert (await refused(nowhere, None, export=True)).startswith(
        "No game is in play or over at this table. Name one by its number: `export game:12` (")
    elsewhere = Caller(7, 70, 100, "ana")
    assert (await refused(elsewhere, 1)) == ("Game #1 is not one of this server's games: a replay shows the games "
                                             "played here.")
    await service.new(Caller(1, 3, 100, "ana"))  # a lobby in channel 3: game #3
    assert (await refused(ANA, 3)).startswith("Game #3 has not started yet: there is nothing to replay.")
    await service.cancel(Caller(1, 3, 100, "ana"), 3, confirmed=True)
    assert (await refused(ANA, 3)) == "Game #3 was cancelled before it started: there is nothing to replay."
    opener, other = Caller(1, 4, 100, "ana"), Caller(1, 4, 200, "ben")
    await service.new(opener)  # game #4: started, then cancelled before a turn was played
    await service.join(other)
    await service.start_game(opener)
    await service.cancel(opener, 4, confirmed=True)
    deal = plain(await service.replay(ANA, 4))
    assert re.match(r"Game #4 — the deal\. \w+ \(\w+\) plays first\. The game was cancelled before a turn was "
                    r"played\.\n", deal), deal
    assert (await refused(DEE, 2, export=True)).startswith(
        "Game #2 is still being played: only a finished game is exported.")
    assert (await refused(elsewhere, 1, export=True)).startswith("Game #1 is not one of this server's games")


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
async def test_export_gives_the_record_an_animation_and_a_page(service: Tiempo, tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []

    async def progress(done: int, total: int) -> None:
        seen.append((done, total))

    reply = await service.export(ANA, 1, progress)
    files = {f.filename: f for f in reply.files}
    assert sorted(files) == ["tiempo-1-actions.txt", "tiempo-1-start.txt", "tiempo-1.html", "tiempo-1.webp"]
    steps = (await service.replays.timeline(await service.storage.get_game(1))).last + 1
    assert seen == [(i, steps) for i in range(1, steps + 1)]
    assert sum(len(f.data) for f in reply.files) < 10 * 2**20  # Discord's upload limit, for the files together
    with Image.open(io.BytesIO(files["tiempo-1.webp"].data)) as im:
        assert im.format == "WEBP" and im.n_frames == steps and im.size == (1140, 680)
    page = files["tiempo-1.html"].data.decode()
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)  # nothing fetched
    assert page.count("data:image/png;base64,") >= 3  # the cards, inside
    assert "`tiempo-1-start.txt` and `tiempo-1-actions.txt` are its record, move by move" in plain(reply)


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
async def test_an_export_goes_on_when_its_progress_cannot_be_shown(service: Tiempo) -> None:
    calls = []

    async def broken(done: int, total: int) -> None:
        calls.append(done)
        raise RuntimeError("the message to edit is gone")

    reply = await service.export(ANA, 1, broken)
    assert calls == [1] and len(reply.files) == 4


def _write(tmp_path: Path, files: tuple[Attachment, ...]) -> dict[str, Path]:
    out = {}
    for f in files:
        out[f.filename] = tmp_path / f.filename
        out[f.filename].write_bytes(f.data)
    return out


@pytest.mark.slow
async def test_the_exported_record_replays_to_the_final_position_with_the_cli(service: Tiempo,
                                                                              tmp_path: Path) -> None:
    files = _write(tmp_path, (await service.export(ANA, 1)).files)
    done = subprocess.run([sys.executable, "-m", "rules", "apply", "tiempo-1-start.txt", "tiempo-1-actions.txt"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    final = service.state_of(await service.storage.get_game(1))
    assert final.finished and done.stdout == format_position(final)
    assert files["tiempo-1-start.txt"].exists()


@pytest.mark.slow
async def test_the_exported_page_steps_in_a_headless_browser(service: Tiempo, tmp_path: Path) -> None:
    program = need_browser()
    files = _write(tmp_path, (await service.export(ANA, 1)).files)
    last = (await service.replays.timeline(await service.storage.get_game(1))).last
    async with open_page(program, files["tiempo-1.html"].as_uri()) as page:
        assert await page.wait_for("document.body.dataset.step") == "0"
        assert (await page.evaluate("document.getElementById('label').textContent")) == f"Step 0 of {last}"
        assert await page.evaluate("document.querySelectorAll('#cards img').length") == 3
        await page.key("ArrowRight")
        await page.key("ArrowRight")
        assert await page.evaluate("document.body.dataset.step") == "2"
        heading = await page.evaluate("document.getElementById('heading').textContent")
        assert heading.startswith(f"Game #1 — turn 2 of {last}, round 1 of 7:")
        await page.click("#prev")
        assert await page.evaluate("document.body.dataset.step") == "1"
        await page.key("End")
        assert await page.evaluate("document.body.dataset.step") == str(last)
        assert await page.evaluate("document.getElementById('next').disabled") is True
        assert "Final ranking:" in await page.evaluate("document.getElementById('lines').textContent")
        loaded = await page.evaluate("Array.from(document.images).every(i => i.complete && i.naturalWidth > 500)")
        assert loaded is True  # the pictures inside the page decode
        await page.click("#first")
        assert await page.evaluate("document.body.dataset.step") == "0"
        (tmp_path / "page.png").write_bytes(await page.screenshot())


def test_without_a_browser_the_page_test_is_skipped_with_a_sentence_or_failed_under_ci(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("TIEMPO_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="install it from the OS packages"):
        need_browser()
    monkeypatch.setenv("TIEMPO_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match=r"sudo apt-get install chromium"):
        need_browser()
