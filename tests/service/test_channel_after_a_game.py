"""What a channel's commands answer once its game is no longer in play: the last game that finished
there — unless the channel's last game was cancelled (a rematch, in its first round or in its lobby):
then they say so, rather than answer about the game before it."""

from __future__ import annotations

from collections.abc import Awaitable

import pytest

from bot.play import Refusal
from bot.service import Caller, Tiempo
from bot.storage import Status
from bot.words import PLAIN, render

PEOPLE = [Caller(1, 1, 101, "alice"), Caller(1, 1, 102, "bob")]


async def started(service: Tiempo) -> int:
    await service.new(PEOPLE[0])
    await service.join(PEOPLE[1])
    await service.start_game(PEOPLE[0])
    game = await service.storage.active_game_in_channel(1)
    assert game is not None
    return game.id


async def refusal(call: Awaitable[object]) -> str:
    with pytest.raises(Refusal) as refused:
        await call
    return render(refused.value.text, PLAIN)


@pytest.mark.parametrize("in_play", [True, False])
async def test_after_a_cancelled_rematch_the_channel_says_it_was_cancelled(service: Tiempo, in_play: bool) -> None:
    first = await started(service)
    await service.storage.set_status(first, Status.FINISHED)
    if in_play:  # cancelled in its first round
        second = await started(service)
        await service.cancel(PEOPLE[0], confirmed=True)
    else:  # cancelled in its lobby
        await service.new(PEOPLE[0])
        second = first + 1
        await service.cancel(PEOPLE[0])
    said = f"Game #{second} was cancelled. Open another with `new`."
    assert await refusal(service.hint(PEOPLE[0])) == said
    assert await refusal(service.play(PEOPLE[0], "end", {})) == said
    assert await refusal(service.hand(PEOPLE[0])) == said
    assert await refusal(service.status(PEOPLE[1])) == said
    assert await refusal(service.board(PEOPLE[1])) == said
    assert await refusal(service.panel(PEOPLE[0])) == said
    assert await refusal(service.cancel(PEOPLE[0])) == (
        f"Game #{second} was cancelled. There is nothing to cancel. Open a new one with `new`.")
    for ask, word in ((service.replay, "replay"), (service.review, "review"), (service.export, "export")):
        assert await refusal(ask(PEOPLE[0])) == (
            f"{said} To see an earlier game, name it by its number: `{word} game:12`."), word
    # a game named is that game
    assert await refusal(service.hint(PEOPLE[0], first)) == f"Game #{first} is over. There is nothing left to hint at."
    if not in_play:
        assert await refusal(service.board(PEOPLE[1], game_id=second)) == (
            f"Game #{second} was cancelled before it started.")
    if in_play:
        assert await refusal(service.moves.undo(PEOPLE[0], second)) == f"Game #{second} was cancelled."
        hand = render((await service.hand(PEOPLE[0], second)).text, PLAIN)
        assert hand.startswith(f"Game #{second} was cancelled."), hand
        board = render((await service.board(PEOPLE[1], game_id=second)).text, PLAIN)
        assert "Round 1 of 7. The game was cancelled here." in board and " to play" not in board, board
        assert await refusal(service.play(PEOPLE[0], "end", {}, second)) == f"Game #{second} was cancelled. Open " \
            "another with `new`."


async def test_after_a_finished_game_the_channel_still_reads_it(service: Tiempo) -> None:
    first = await started(service)
    await service.storage.set_status(first, Status.FINISHED)
    status = render((await service.status(PEOPLE[1])).text, PLAIN)
    assert status.startswith(f"Game #{first}\n"), status
    assert await refusal(service.hint(PEOPLE[0])) == f"Game #{first} is over. There is nothing left to hint at."
