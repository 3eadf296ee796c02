"""An action told again later (the log, the "since your last turn" recap) reads as it was told when it
was played: its sentences are made with the state right after it, not with the game as it is now
(where the buildings an income came from, or a downsized Keep, may have changed since)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.service import Caller, Tiempo, version_of
from bot.storage import Storage
from bot.texts import narrate
from bot.words import PLAIN, render
from rules import Action, Choose, legal_actions
from tests.support.gameplay import choose
from tests.support.service_play import Silent, seated_game


@pytest.mark.parametrize(("seed", "names"), [(3, ["alice", "bob"]), (9, ["alice", "bob", "cy"])])
async def test_the_log_and_the_recap_tell_each_action_as_it_was_told(tmp_path: Path, seed: int,
                                                                      names: list[str]) -> None:
    """A whole game by the random player of tests/support/gameplay.py. With seed 3 and two players, bob's
    income on Might came from his Keep at E11 alone: a Watchtower at K2 that counts later must not
    join that sentence in the log. With seed 9 and three players, a recap tells
    the others' incomes as they were paid, though the domains they came from changed since."""
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: seed)
    people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(names)]
    rng = random.Random(seed)
    told: list[tuple[Action, list[str]]] = []  # each action and what it said when it was played
    recaps: list[tuple[str, str]] = []
    try:
        game = await seated_game(service, storage, people)
        while True:
            game = await storage.get_game(game.id)
            state = service.state_of(game)
            if state.finished:
                break
            seat = state.waiting_on
            mine = [i for i, (a, _) in enumerate(told) if a.player == seat and not isinstance(a, Choose)]
            start = mine[-1] + 1 if mine else 0
            while mine and start < len(told) and isinstance(told[start][0], Choose):
                start += 1  # (the answers to the questions their own action asked are no news to them)
            since = [line for _, said in told[start:] for line in said]
            recaps.append((await service.info.recap(game, seat, limit=None), "\n".join(since)))
            action = choose(rng, state, legal_actions(state))
            _, after, events = await service.moves.play_action(people[action.player], game.id, version_of(game),
                                                               lambda s, p, a=action: a)
            told.append((action, narrate(after, events)))
        log = render((await service.game_log(people[0], 50)).text, PLAIN).split("\n")[1:]
        assert log == [line for _, said in told for line in said][-50:]
        wrong = [(got, want) for got, want in recaps if got != want]
        assert not wrong, wrong[0]
    finally:
        await service.close()
        await storage.close()


def test_r62_the_recap_leaves_out_the_answers_to_the_questions_ones_own_action_asked() -> None:
    """Digest T13: Ana's Hamlet joins her Keep's domain to Ben's, and Ben places his downsized Keep
    (R62). That answer is the rest of Ana's own action: her recap ("since your last turn") starts after
    it, not with it; what Ben does next is news to her."""
    from bot.service.games import History
    from bot.service.info import Info
    from bot.storage import ActionRecord
    from rules import EndTurn, apply
    from tests.support.positions import t13_hamlet

    s, hamlet = t13_hamlet()
    between, built = apply(s, hamlet)
    assert between.pending is not None and between.pending.decision.player == 1
    answer = Choose(1, between.pending.decision.options[0])
    after, answered = apply(between, answer)
    record = ActionRecord(1, 1, 100, "", 0.0)
    h = History(2, [(record, hamlet, built), (record, answer, answered)])
    assert Info._since(h, 0) == 2  # (nothing since: the answer was hers to wait for)
    assert Info._since(h, 1) == 0  # (Ben has not acted but to answer: all of it is news to him)
    end = next(a for a in legal_actions(after) if isinstance(a, EndTurn))
    ended, events = apply(after, end)
    nxt = next(a for a in legal_actions(ended) if not isinstance(a, EndTurn))
    assert nxt.player != 0
    h.actions += [(record, end, events), (record, nxt, [])]
    assert Info._since(h, 0) == 3  # (after her turn's end: the next player's move is news)
