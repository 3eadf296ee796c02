"""A game's deal cannot be searched for (issue: seeds of 31 bits let a player compute every hand from
their own): every game the service opens is dealt from a 128-bit key from the operating system, and
nothing a player can read — the words, the pictures, the buttons' ids — changes with the hidden cards
alone, except the version digest in a button's id, which is keyed by that secret."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from bot.service import Caller, Post, Reply, Tiempo, version_of
from bot.storage import GameRecord, Status, Storage
from rules import Cards, GameState, from_json, is_keyed, keyed_seed, to_json


class Silent:
    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        """The channel's posts are not what these tests read."""


ANA, BEN, CY = (Caller(1, 1, 100 + i, name) for i, name in enumerate(("ana", "ben", "cy")))


async def started(service: Tiempo, channel: int = 1) -> GameRecord:
    """A three-player game opened, joined and started in ``channel``."""
    ana, ben, cy = (Caller(1, channel, p.user_id, p.name) for p in (ANA, BEN, CY))
    await service.new(ana)
    await service.join(ben)
    await service.join(cy)
    await service.start_game(ana)
    game = await service.storage.active_game_in_channel(channel)
    assert game is not None
    return game


async def test_every_game_is_dealt_from_a_128_bit_key(tmp_path: Path) -> None:
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, Silent(), render=False)
    try:
        games = [await started(service, channel) for channel in (1, 2, 3)]
        seeds = [(await storage.get_game(g.id)).seed for g in games]
        assert all(is_keyed(s) for s in seeds) and len(set(seeds)) == 3
        # the key's 128 bits are not all small: a key below 2**64 would come once in 2**64 games
        assert all(s & ((1 << 128) - 1) >= 1 << 64 for s in seeds)
    finally:
        await service.close()
        await storage.close()


def hidden_changed(state: GameState) -> GameState:
    """The same position with other hidden cards: ben's hand traded with cards at the bottom of the
    draw pile (as many, of other colours), and another random state. Everything public is the same."""
    other = state.clone()
    ben = other.players[1]
    bottom = [Cards.of(f) for f in other.deck[-ben.hand.total:]]
    taken = sum(bottom, Cards())
    assert taken != ben.hand, "pick a deal where the trade changes ben's hand"
    other.deck[-ben.hand.total:] = [f for f in ben.hand.families()]
    ben.hand = taken
    other.rng ^= 0xDEADBEEF
    return other


def readable(reply: Reply) -> str:
    """Everything a reply shows or carries, with the version digests (keyed by the deal's secret) cut out."""
    return re.sub(r"'\d+-[0-9a-f]{6}'", "'VERSION'", repr(reply))


async def test_nothing_a_player_reads_changes_with_the_hidden_cards_alone(tmp_path: Path) -> None:
    """Two tables dealt alike, then one's hidden cards changed (ben's hand, the draw pile, the random
    state): ana reads the same words, pictures and controls at both, her own hand included; the
    version digest in a button's id differs, and only through the key."""
    seed = keyed_seed(0x5EC2E7 << 90 | 12345)
    seen: list[list[str]] = []
    versions: list[str] = []
    for name, change in (("same.sqlite3", False), ("changed.sqlite3", True)):
        path = tmp_path / name
        storage = await Storage.open(str(path))
        service = Tiempo(storage, Silent(), render=True, seed_source=lambda: seed)
        try:
            game = await started(service)
            if change:
                state = hidden_changed(service.state_of(game))
                with sqlite3.connect(path) as db:
                    db.execute("UPDATE games SET snapshot = ? WHERE id = ?", (to_json(state), game.id))
                await service.close()
                await storage.close()
                storage = await Storage.open(str(path))
                service = Tiempo(storage, Silent(), render=True, seed_source=lambda: seed)
                game = await storage.get_game(game.id)
                assert from_json(game.snapshot or "").players[1].hand == state.players[1].hand
            ana = Caller(1, 1, ANA.user_id, ANA.name)
            replies = [await service.hand(ana), await service.status(ana), await service.board(ana),
                       await service.game_log(ana), await service.panel(ana)]
            seen.append([readable(r) for r in replies])
            versions.append(version_of(game))
        finally:
            await service.close()
            await storage.close()
    assert seen[0] == seen[1]
    assert versions[0] != versions[1]
    assert versions[0].split("-")[0] == versions[1].split("-")[0]  # the action count is public


def test_the_version_digest_is_keyed_by_the_deal_s_secret() -> None:
    """The same stored position under another key gives an unrelated digest: without the key, the
    digest tells nothing of the position it was made from."""
    def record(seed: int) -> GameRecord:
        return GameRecord(id=1, guild_id=1, channel_id=1, opener_id=1, status=Status.PLAYING, options={}, seats=(),
                          seed=seed, created_at=0.0, updated_at=0.0, snapshot='{"a": 1}', action_count=3,
                          turn_deadline=None, half_warned=False)

    digests = {version_of(record(keyed_seed(k))) for k in range(50)}
    assert len(digests) == 50
