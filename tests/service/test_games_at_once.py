"""What a bot serving hundreds of games at once keeps of each between two of its interactions: the
game's position (read from its stored snapshot once, not at every tap) and the legal actions its panel
lists (worked out once a position). With less kept than the games played at once, a game's next tap
comes after every other game's and finds nothing kept: at 450 games played by taps the bot spent about
a fifth more CPU an answer (bench/bot.py)."""

from __future__ import annotations

from bot.service.games import Games
from bot.service.panels import Panels
from bot.storage import GameRecord, Status
from rules import EndTurn, legal_actions, new_game, to_json
from rules import events as ev

#: games played at once in the capacity trials by taps that these bounds must cover
AT_ONCE = 500


def record(game_id: int, snapshot: str, action_count: int = 0) -> GameRecord:
    return GameRecord(id=game_id, guild_id=1, channel_id=game_id, opener_id=1, status=Status.PLAYING, options={},
                      seats=(), seed=0, created_at=0.0, updated_at=0.0, snapshot=snapshot,
                      action_count=action_count, turn_deadline=None, half_warned=False)


def test_every_game_s_position_is_kept_between_its_turns_when_hundreds_are_played() -> None:
    snapshot = to_json(new_game(["Ann", "Bob", "Cy"], seed=3))
    games = Games(storage=None, clock=lambda: 0.0)  # type: ignore[arg-type]
    first = [games.state_of(record(i, snapshot)) for i in range(AT_ONCE)]
    again = [games.state_of(record(i, snapshot)) for i in range(AT_ONCE)]  # each after every other game's
    assert all(a is b for a, b in zip(first, again, strict=True))


def test_every_game_s_listings_are_kept_between_its_taps_when_hundreds_are_played() -> None:
    state = new_game(["Ann", "Bob", "Cy"], seed=3)
    panels = Panels(games=None, moves=None, render=False)  # type: ignore[arg-type]
    for i in range(AT_ONCE):
        panels.step(i, state, state.active)
    kept = [panels._listings[i] for i in range(AT_ONCE)]
    for i in range(AT_ONCE):  # the same position again, each after every other game's tap
        panels.step(i, state, state.active)
    assert all(panels._listings[i] is k for i, k in enumerate(kept))


def test_every_game_s_turn_start_is_kept_between_its_turns_when_hundreds_are_played() -> None:
    """An end of turn compares the position with the one its turn began from (``Games.turn_began``): kept
    for each of hundreds of games at once, none is replayed from its start."""
    state = new_game(["Ann", "Bob", "Cy"], seed=3)
    snapshot = to_json(state)
    games = Games(storage=None, clock=lambda: 0.0)  # type: ignore[arg-type]
    end = next(a for a in legal_actions(state) if isinstance(a, EndTurn))
    for i in range(AT_ONCE):  # (what turn_began keeps once it has read a game's history)
        games._starts[i] = (0, ((0, state),))
    for i in range(AT_ONCE):  # each game's turn ends, each after every other game's
        games.note(record(i, snapshot, action_count=1), end, [ev.TurnEnded(state.active, 0)], state, 1, "end")
    assert all(games._starts[i][0] == 1 for i in range(AT_ONCE))
