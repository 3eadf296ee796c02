"""Errors of the service: a refusal says why with a code as well as words; a stale button or panel
path is its own case; a fault of the bot (the engine refusing what its own legal actions offered) is
logged with its traceback and never told to the player as their mistake; an AI seat that fails says
so through the outbox."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.play import Disagreement, Refusal, RefusalCode, Stale
from bot.service import Caller, Post, Tiempo, version_of
from bot.service.steps import path_to
from bot.storage import GameRecord, Storage
from rules import Construct, EndTurn, GameState, RuleError, legal_actions


class Channel:
    """Keeps what the service posts: (nonce, words); a post of the outbox has a nonce."""

    def __init__(self) -> None:
        self.posted: list[tuple[str | None, str]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        self.posted.append((nonce, post.text.plain()))


ANA, BEN, CY = Caller(1, 1, 100, "Ana"), Caller(1, 1, 101, "Ben"), Caller(1, 1, 102, "Cy")


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[tuple[Tiempo, Channel]]:
    """A game between Ana and Ben in channel 1, started."""
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    channel = Channel()
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3)
    await service.new(ANA)
    await service.join(BEN)
    await service.start_game(ANA)
    try:
        yield service, channel
    finally:
        await service.close()
        await storage.close()


async def _game(service: Tiempo) -> tuple[GameRecord, GameState, Caller]:
    """The game, its state, and who is to move."""
    game = await service.storage.active_game_in_channel(1)
    assert game is not None
    state = service.state_of(game)
    return game, state, (ANA if state.players[state.active].name == "Ana" else BEN)


async def test_refusals_carry_a_code_besides_their_words(table: tuple[Tiempo, Channel]) -> None:
    service, _ = table
    _, _, mover = await _game(service)
    other = BEN if mover is ANA else ANA
    with pytest.raises(Refusal, match="not playing") as outsider:
        await service.play(CY, "end", {})
    assert outsider.value.code is RefusalCode.NOT_SEATED
    with pytest.raises(Refusal, match="turn, not yours") as waiting:
        await service.play(other, "end", {})
    assert waiting.value.code is RefusalCode.NOT_YOUR_TURN
    with pytest.raises(Refusal, match="C44 is not a cell") as misread:
        await service.play(mover, "build", {"kind": "Keep", "cell": "C44", "age": "M"})
    assert misread.value.code is RefusalCode.BAD_INPUT
    with pytest.raises(Refusal) as nothing:
        await service.undo(mover)
    assert nothing.value.code is RefusalCode.NOTHING_TO_UNDO


async def test_a_click_on_a_position_the_game_has_left_is_stale(table: tuple[Tiempo, Channel]) -> None:
    service, _ = table
    game, state, mover = await _game(service)
    end = min((a for a in legal_actions(state) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
    await service.moves.play_action(mover, game.id, version_of(game), lambda s, seat: end)
    with pytest.raises(Stale, match="moved on") as stale:  # the same version again: the game has left it
        await service.moves.play_action(mover, game.id, version_of(game), lambda s, seat: end)
    assert stale.value.code is RefusalCode.MOVED_ON
    assert (await service.storage.get_game(game.id)).action_count == game.action_count + 1


async def test_a_panel_path_that_names_no_legal_action_is_no_longer_possible(table: tuple[Tiempo, Channel]) -> None:
    service, _ = table
    game, _, mover = await _game(service)
    reply = await service.panel_confirm(mover, game.id, version_of(game), ("build", "ABBEY", "nowhere"))
    assert reply.text.plain().startswith("That choice is no longer possible.")
    assert (await service.storage.get_game(game.id)).action_count == game.action_count  # nothing played


async def test_the_engine_refusing_what_it_offered_is_logged_as_the_bot_s_fault(
        table: tuple[Tiempo, Channel], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A disagreement between ``legal_actions`` and ``apply`` (here ``apply`` made to refuse) is not
    "That choice is no longer possible": the service logs it with its traceback and raises an error
    that is not a Refusal, so the front end apologises for the bot; nothing is stored."""
    service, _ = table
    game, state, mover = await _game(service)
    build = next(a for a in legal_actions(state) if isinstance(a, Construct))
    path = path_to(state, state.active, build)

    def refuse(state: GameState, action: object) -> None:
        raise RuleError("test", "R43", "The engine changed its mind.")

    monkeypatch.setattr("bot.service.moves.apply", refuse)
    with caplog.at_level(logging.ERROR, logger="tiempo.service"), pytest.raises(Disagreement) as fault:
        await service.panel_confirm(mover, game.id, version_of(game), path)
    assert not isinstance(fault.value, Refusal)
    assert isinstance(fault.value.__cause__, RuleError)
    logged = [r for r in caplog.records if "legal actions offered" in r.getMessage()]
    assert logged and logged[0].exc_info is not None and f"game #{game.id}" in logged[0].getMessage()
    assert (await service.storage.get_game(game.id)).action_count == game.action_count


async def test_an_ai_seat_that_fails_says_so_through_the_outbox(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    channel = Channel()
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3)

    async def broken(state: GameState, seat: int, level: str, seed: int) -> object:
        raise RuntimeError("the AI broke")

    monkeypatch.setattr(service.seats, "think", broken)
    try:
        await service.new(ANA)
        await service.add_bot(ANA, "random")
        await service.start_game(ANA)
        game, state, _ = await _game(service)
        if state.active == 0:  # Ana first: she ends her turn, then the AI is to move
            end = min((a for a in legal_actions(state) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
            await service.moves.play_action(ANA, game.id, version_of(game), lambda s, seat: end)
        await service.idle()
        await service.herald.courier.flush(1, timeout=10)
        told = [nonce for nonce, words in channel.posted if "ran into a problem and stopped" in words]
        assert len(told) == 1 and told[0] is not None  # sent by the courier, from the outbox
        await service.herald.courier.forgotten()  # (taken out of it a moment after they went out)
        assert await storage.posts.pending(1) == []
    finally:
        await service.close()
        await storage.close()
