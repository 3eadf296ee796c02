"""``/tiempo records review`` on (simulated) Discord: acknowledged within Discord's 3 seconds, its
progress shown in the deferred answer, then the review, privately, one message per player (the
asker's first) with the pictures of its turns; refused with a sentence for a stranger."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from rules import keyed_seed
from tests.support.discord_play import answer, make_bot
from tests.support.discord_sim import DiscordSim, SimMessage
from tests.support.replayed import play_game

#: play-outs a turn here (the bot's own review makes more)
ITERATIONS = 2


async def test_a_review_is_answered_in_time_shows_its_progress_then_comes_privately(sim: DiscordSim,
                                                                                   tmp_path: Path) -> None:
    bob = sim.add_user("bob")
    path = tmp_path / "games.sqlite3"
    await play_game(str(path), 5, ["alice", "bob"], deal=keyed_seed(5), guild=sim.guild.id,
                    channel=sim.channel.id, ids=[sim.user.id, bob.id])
    bot = await sim.connect(make_bot(sim, path))
    bot.service.reviews.iterations = ITERATIONS
    bot.service.reviews.deals = 2  # (the bot's own review plays more common deals)
    iid = sim.inject(sim.slash("tiempo", "records review", {"game": 1}, user=bob))
    record = sim.interactions[iid]

    def pictured() -> list[SimMessage]:
        return [m for m in (sim.message(i) for i in dict.fromkeys(record.answer_ids)) if m.attachments]

    await sim.wait_for(lambda: len(pictured()) == 2, timeout=120, what="the review's two parts with pictures")
    assert record.callback_type == 5 and record.answered_after is not None  # deferred, in time (else a refusal)
    assert record.refusals == [] and sim.errors == []
    edits = [r.content for r in sim.requests_to(rf"/webhooks/\d+/{record.token}/messages/@original", "PATCH")]
    progress = [e for e in edits if e and e.startswith("Reviewing the game with the AI's top level: turn ")]
    assert 4 <= len(progress) <= 8, edits  # about every eighth of the turns
    done = [int(re.search(r"turn (\d+) of", p)[1]) for p in progress]  # type: ignore[index]
    assert done == sorted(done) and done[0] == 1
    original, *messages = (sim.message(i) for i in dict.fromkeys(record.answer_ids))
    assert original.content == "The review is below: one message for each person who played, yours first."
    assert all(m.ephemeral for m in messages) and messages[-1].attachments  # (a long part in two: pictures last)
    said = "\n".join(m.content for m in messages)
    bobs, alices = said.split("**Game #1** — the review of alice (")
    assert bobs.startswith("**Game #1** — the review of bob (")
    for words, part in zip((bobs, alices), pictured(), strict=True):
        turns = len(re.findall(r"\*\*\d\. Round \d, turn \d+:\*\* about \d+ Ecus? lost\.", words))
        assert 1 <= turns <= 3 and turns <= len(part.attachments) <= 2 * turns, words  # one or two Ages a turn
        assert part.v2 and [a.filename for a in part.attachments] == [f for g in part.gallery() for f in g]

    stranger = sim.add_user("zed")
    refused = await answer(sim, sim.slash("tiempo", "records review", {"game": 1}, user=stranger))
    assert refused.ephemeral and refused.content == "You did not play in game #1: its review is for its players."


async def test_the_only_person_at_a_table_of_ai_players_is_told_of_one_review(sim: DiscordSim,
                                                                              tmp_path: Path) -> None:
    """An AI seat is not reviewed: alone with one, alice reads of her review, not of one for each player."""
    path = tmp_path / "games.sqlite3"
    await play_game(str(path), 5, ["alice", "bob"], deal=keyed_seed(5), guild=sim.guild.id,
                    channel=sim.channel.id, ids=[sim.user.id, 999])
    with sqlite3.connect(path) as db:  # bob's seat was the AI's
        (seats,) = db.execute("SELECT seats FROM games WHERE id = 1").fetchone()
        db.execute("UPDATE games SET seats = ? WHERE id = 1", (json.dumps(
            [{**s, "ai_level": "greedy"} if s["name"] == "bob" else s for s in json.loads(seats)]),))
    bot = await sim.connect(make_bot(sim, path))
    bot.service.reviews.iterations = ITERATIONS
    bot.service.reviews.deals = 2  # (the bot's own review plays more common deals)
    iid = sim.inject(sim.slash("tiempo", "records review", {"game": 1}))
    record = sim.interactions[iid]

    def parts() -> list[SimMessage]:
        return [sim.message(i) for i in dict.fromkeys(record.answer_ids)]

    await sim.wait_for(lambda: any(m.attachments for m in parts()[1:]), timeout=120, what="alice's review")
    original, *messages = parts()
    assert original.content == "Your review is below."
    assert "the review of alice (" in messages[0].content
    assert not any("the review of bob" in m.content for m in messages)
