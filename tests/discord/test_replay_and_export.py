"""``/tiempo replay`` and ``/tiempo export`` on (simulated) Discord: a stored game stepped through
with ⏮ ◀ ▶ ⏭ and the round list, in the message the click is on, also after the bot restarted; a
finished game's files attached, with the drawing's progress shown meanwhile, within Discord's upload
limit; and bad input answered with a sentence."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from bot.discord.exporting import batches
from bot.service import Attachment, Reply, Tiempo
from bot.words import say
from rules import format_position, keyed_seed
from tests.support.discord_play import answer, make_bot
from tests.support.discord_sim import DiscordSim, SimMessage
from tests.support.replayed import play_game

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["ana", "ben", "cy"]
REPLAY_ID = re.compile(r"tiempo:replay:(\d+):(first|prev|next|last|round):((\d+|end):)?([01])")


async def stored(sim: DiscordSim, tmp_path: Path) -> Path:
    """A database with game #1, finished in the simulated server's channel (three players, random legal
    play), and game #2, played on another server."""
    path = tmp_path / "games.sqlite3"
    await play_game(str(path), 5, NAMES, deal=keyed_seed(5), guild=sim.guild.id, channel=sim.channel.id)
    await play_game(str(path), 8, ["dee", "eve"], actions=10, guild=7, channel=70)
    return path


def button(message: SimMessage, role: str) -> str:
    """The custom id of the replay button of ``role`` on ``message``."""
    return next(c for c in message.custom_ids() if REPLAY_ID.fullmatch(c) and c.split(":")[3] == role)


def heading(message: SimMessage) -> str:
    return message.content.split("\n")[0]


async def test_replay_steps_back_and_forth_in_its_message_and_after_a_restart(sim: DiscordSim,
                                                                             tmp_path: Path) -> None:
    path = await stored(sim, tmp_path)
    bot = await sim.connect(make_bot(sim, path))
    shown = await answer(sim, sim.slash("tiempo", "records replay", {"game": 1, "public": True}))
    assert not shown.ephemeral and shown.v2  # in the channel, for everyone
    turns = int(re.search(r"turn (\d+) of \1,", heading(shown))[1])  # type: ignore[index]
    assert "Final ranking:" in shown.content
    ids = shown.custom_ids()
    assert all(REPLAY_ID.fullmatch(c) and len(c) <= 100 for c in ids), ids
    assert ids[:4] == ["tiempo:replay:1:first:0:0", f"tiempo:replay:1:prev:{turns - 1}:0",
                       f"tiempo:replay:1:next:{turns}:0", "tiempo:replay:1:last:end:0"]
    flat = {c.get("custom_id"): c for c in shown.components_flat()}
    assert flat[ids[2]].get("disabled") and flat[ids[3]].get("disabled") and not flat[ids[0]].get("disabled")
    assert [c.get("emoji", {}).get("name") for c in (flat[i] for i in ids[:4])] == ["⏮", "◀", "▶", "⏭"]

    first = await answer(sim, sim.click(button(shown, "first"), shown))
    assert first.id == shown.id and heading(first).startswith("**Game #1** — the deal.")
    assert len(first.attachments) == 3 and first.gallery() == [[a.filename] for a in first.attachments]
    one = await answer(sim, sim.click(button(first, "next"), first))
    assert one.id == shown.id and heading(one).startswith(f"**Game #1** — turn 1 of {turns}, round 1 of 7:")
    two = await answer(sim, sim.click(button(one, "next"), one))
    assert heading(two).startswith(f"**Game #1** — turn 2 of {turns},")
    back = await answer(sim, sim.click(button(two, "prev"), two))
    assert heading(back) == heading(one) and back.content == one.content
    assert [a.data for a in back.attachments] == [a.data for a in one.attachments]  # the same pictures

    await bot.close()  # a restart: a new bot on the same database, nothing in memory
    await sim.connect(make_bot(sim, path))
    old = sim.message(shown.id)
    again = await answer(sim, sim.click(button(old, "next"), old))
    assert again.id == shown.id and heading(again).startswith(f"**Game #1** — turn 2 of {turns},")
    select = next(c for c in again.components_flat() if c.get("custom_id") == "tiempo:replay:1:round:0")
    rounds = {o["label"]: o["value"] for o in select["options"]}
    assert list(rounds) == [f"Round {r}" for r in range(1, 8)]
    assert [o["label"] for o in select["options"] if o.get("default")] == ["Round 1"]
    jumped = await answer(sim, sim.click("tiempo:replay:1:round:0", again, values=[rounds["Round 4"]]))
    assert jumped.id == shown.id and ", round 4 of 7:" in heading(jumped)
    assert heading(jumped).startswith(f"**Game #1** — turn {rounds['Round 4']} of {turns},")
    chosen = next(c for c in jumped.components_flat() if c.get("custom_id") == "tiempo:replay:1:round:0")
    assert [o["label"] for o in chosen["options"] if o.get("default")] == ["Round 4"]
    end = await answer(sim, sim.click(button(jumped, "last"), jumped))
    assert "Final ranking:" in end.content
    (tmp_path / "seen").mkdir()
    for a in two.attachments:  # for a person to look at
        (tmp_path / "seen" / a.filename).write_bytes(a.data)


async def test_a_private_replay_with_the_hands_steps_privately(sim: DiscordSim, tmp_path: Path) -> None:
    await sim.connect(make_bot(sim, await stored(sim, tmp_path)))
    # the channel's last game
    shown = await answer(sim, sim.slash("tiempo", "records replay", {"step": 3, "hands": True}))
    assert shown.ephemeral and heading(shown).startswith("**Game #1** — turn 3 of ")
    assert "Hands before this turn:" in shown.content
    assert all(c.endswith(":1") for c in shown.custom_ids())  # the hands stay shown from step to step
    nxt = await answer(sim, sim.click(button(shown, "next"), shown))
    assert nxt.id == shown.id and nxt.ephemeral and "turn 4 of" in heading(nxt)
    assert "Hands before this turn:" in nxt.content


async def test_bad_input_gets_a_sentence(sim: DiscordSim, tmp_path: Path) -> None:
    await sim.connect(make_bot(sim, await stored(sim, tmp_path)))
    for options, words in [
            ({"game": 999}, "There is no game #999."),
            ({"game": 2}, "Game #2 is not one of this server's games"),
    ]:
        for command in ("records replay", "records export"):
            reply = await answer(sim, sim.slash("tiempo", command, options))
            assert reply.ephemeral and reply.content.startswith(words), (command, reply.content)
            assert "Something went wrong" not in reply.content
    empty = sim.add_channel("empty")
    reply = await answer(sim, sim.slash("tiempo", "records replay", {}, channel=empty))
    assert reply.ephemeral and "Something went wrong" not in reply.content and reply.content


@pytest.mark.slow  # draws a whole game's animation
async def test_export_shows_its_progress_then_attaches_files_that_replay_to_the_end(sim: DiscordSim,
                                                                                   tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, await stored(sim, tmp_path)))
    iid = sim.inject(sim.slash("tiempo", "records export", {"game": 1}))
    record = sim.interactions[iid]
    done = await sim.wait_for(lambda: record.answer_ids and (m := sim.message(record.answer_ids[0])).attachments
                              and m, timeout=60, what="the export's files")
    assert done.ephemeral and "open `tiempo-1.html` in any browser to step through the game" in done.content
    assert sorted(done.filenames) == ["tiempo-1-actions.txt", "tiempo-1-start.txt", "tiempo-1.html",
                                      "tiempo-1.webp"]
    assert sum(len(a.data) for a in done.attachments) <= 10 * 2**20
    edits = [r.content for r in sim.requests_to(rf"/webhooks/\d+/{record.token}/messages/@original", "PATCH")]
    progress = [e for e in edits if e and e.startswith("Drawing the game turn by turn")]
    assert 3 <= len(progress) <= 5 and len(edits) == len(progress) + 1, edits  # about every quarter, then files
    steps = [int(re.search(r"step (\d+) of", p)[1]) for p in progress]  # type: ignore[index]
    assert steps == sorted(steps) and steps[0] == 1
    files = {}
    for a in done.attachments:
        files[a.filename] = tmp_path / a.filename
        files[a.filename].write_bytes(a.data)
    with Image.open(files["tiempo-1.webp"]) as im:
        assert im.format == "WEBP" and im.n_frames == int(progress[-1].split(" of ")[1].rstrip("…"))
    ran = subprocess.run([sys.executable, "-m", "rules", "apply", "tiempo-1-start.txt", "tiempo-1-actions.txt"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert ran.returncode == 0, ran.stderr
    final = bot.service.state_of(await bot.service.storage.get_game(1))
    assert final.finished and ran.stdout == format_position(final)


async def test_files_over_discord_s_limit_together_come_in_two_messages(sim: DiscordSim, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    await sim.connect(make_bot(sim, await stored(sim, tmp_path)))
    big = tuple(Attachment(bytes([i]) * (4 * 2**20), f"part-{i}.bin") for i in range(3))

    async def export(self: Tiempo, caller: object, game_id: int | None = None, progress: object = None) -> Reply:
        return Reply(say("The files:"), files=big)

    monkeypatch.setattr(Tiempo, "export", export)
    iid = sim.inject(sim.slash("tiempo", "records export", {}))
    first, second = await sim.replies(iid, 2, timeout=30)
    assert first.filenames == ["part-0.bin", "part-1.bin"] and second.filenames == ["part-2.bin"]
    assert first.ephemeral and second.ephemeral
    assert [a.data for a in (*first.attachments, *second.attachments)] == [f.data for f in big]


def test_files_are_grouped_in_order_within_the_upload_limit() -> None:
    files = [Attachment(b"x" * n, f"{n}") for n in (6, 3, 2, 9, 1)]
    assert [[f.filename for f in group] for group in batches(files, 10)] == [["6", "3"], ["2"], ["9", "1"]]
    assert batches([], 10) == []
