"""The version a button carries names the position it was drawn for, not only the number of actions:
undo lowers that number, so after an undo and another action the same number names another position."""

from __future__ import annotations

import hashlib
import re

from bot.service import version_of
from bot.storage import GameRecord, SeatRecord, Status


def record(snapshot: str, *, count: int = 7, seed: int = 1234) -> GameRecord:
    return GameRecord(id=1, guild_id=2, channel_id=3, opener_id=4, status=Status.PLAYING, options={},
                      seats=(SeatRecord(4, "alice", "Red"),), seed=seed, created_at=0.0, updated_at=0.0,
                      snapshot=snapshot, action_count=count, turn_deadline=None, half_warned=False)


def test_the_version_names_the_position_and_stays_short() -> None:
    here, there = record('{"hand": "MMRC"}'), record('{"hand": "MMCC"}')
    assert version_of(here) != version_of(there)  # the same count, another position
    assert version_of(here) == version_of(record('{"hand": "MMRC"}'))  # the same position: the same buttons
    assert version_of(here) != version_of(record('{"hand": "MMRC"}', count=8))
    assert re.fullmatch(r"7-[0-9a-f]{6}", version_of(here))


def test_the_version_tells_nothing_without_the_seed() -> None:
    """A public button's digest is keyed by the game's secret seed: the same position of two games
    with different seeds has different versions, and the digest is not the plain hash of the position."""
    snapshot = '{"hand": "MMRC"}'
    assert version_of(record(snapshot, seed=1)) != version_of(record(snapshot, seed=2))
    plain = hashlib.sha256(snapshot.encode()).hexdigest()[:6]
    assert version_of(record(snapshot)).split("-")[1] != plain


def test_a_confirm_button_s_custom_id_fits_with_the_longest_action() -> None:
    """``tiempo:sure:<game>:<version>:<action>``: the longest action a player can be asked to confirm."""
    longest = "Yellow upgrade O12 on F to Monastery at N11 pay RRR 2+1"
    assert len(f"tiempo:sure:{2**31}:{10**6}-{'f' * 6}:{longest}") <= 100
