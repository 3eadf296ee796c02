"""JSON storage of states and actions, and what each player may see (R24, A38)."""

from __future__ import annotations

import json

import pytest

from rules import (
    Options,
    action_from_dict,
    action_to_dict,
    apply,
    event_to_dict,
    from_json,
    legal_actions,
    new_game,
    to_json,
    view_for,
)
from tests.support.gameplay import random_game


def _pending_state():  # type: ignore[no-untyped-def]
    for seed in range(40):
        for step in random_game(seed, 4, seed % 2 == 0):
            if step.after.pending is not None:
                return step.after
    raise AssertionError("no random game reached a decision")


def test_r24_a_view_hides_other_hands_the_deck_order_and_the_generator() -> None:
    s = new_game(["A", "B", "C"], seed=11, options=Options(holdem=True))
    v = view_for(s, 1)
    assert v.state.players[1].hand == s.players[1].hand
    assert all(p.hand.total == 0 for i, p in enumerate(v.state.players) if i != 1)
    assert v.state.deck == [] and v.state.rng == 0
    assert v.hand_sizes == (4, 4, 4) and v.deck_size == len(s.deck)
    assert v.unseen.total == len(s.deck) + 8
    assert v.state.reserve == s.reserve  # the Hold'em reserve is face up
    text = json.dumps(json.loads(to_json(v.state))["players"])
    for i in (0, 2):
        assert json.loads(text)[i]["hand"] == "-"


def test_r24_the_public_view_shows_no_hand_at_all() -> None:
    s = new_game(["A", "B"], seed=2)
    v = view_for(s, None)
    assert all(p.hand.total == 0 for p in v.state.players)


def test_r24_a38_the_discard_pile_is_shown_sorted_so_its_order_stays_hidden() -> None:
    s = new_game(["A", "B"], seed=2)
    for step in random_game(5, 2, False):
        if len(step.after.discard) > 5 and step.after.pending is None:
            s = step.after
            break
    v = view_for(s, 0)
    assert sorted(f.value for f in s.discard) == sorted(f.value for f in v.state.discard)
    assert [f.value for f in v.state.discard] == sorted((f.value for f in s.discard), key="MRC".index)


def test_r24_a_pending_decision_keeps_its_saved_state_redacted_too() -> None:
    s = _pending_state()
    v = view_for(s, 0)
    assert v.state.pending is not None
    base = v.state.pending.base
    assert all(p.hand.total == 0 for i, p in enumerate(base.players) if i != 0)
    assert base.deck == [] and base.rng == 0


def test_json_round_trip_is_exact_for_a_pending_state() -> None:
    s = _pending_state()
    again = from_json(to_json(s))
    assert again == s
    # and play continues identically from the copy
    a = legal_actions(s)[0]
    assert apply(again, a)[0] == apply(s, a)[0]


def test_json_refuses_another_format_version_with_a_clear_message() -> None:
    data = json.loads(to_json(new_game(["A", "B"], seed=1)))
    data["format"] = 99
    with pytest.raises(ValueError, match="format 99 is not supported"):
        from_json(json.dumps(data))
    with pytest.raises(ValueError, match="not a saved game"):
        from_json("{oops")
    del data["format"]
    with pytest.raises(ValueError):
        from_json(json.dumps(data))


@pytest.mark.slow  # a whole random game
def test_actions_and_events_survive_json() -> None:
    for step in random_game(4, 3, True):
        d = action_to_dict(step.action)
        assert action_from_dict(json.loads(json.dumps(d))) == step.action
        for e in step.events:
            assert json.loads(json.dumps(event_to_dict(e)))["type"] == type(e).__name__


def test_positions_read_from_the_same_map_share_it_and_keep_its_name() -> None:
    """A saved game's map is read once (``saved_map``): every position read from it shares the map
    object and its kept tables, whatever game it came from; another map, or the same drawing under
    another name, is another map."""
    from rules import plain_map

    one, two = new_game(["A", "B", "C"], seed=1), new_game(["A", "B"], seed=2)
    a, b = from_json(to_json(one)), from_json(to_json(two))
    assert a.map is b.map and a.map == one.map and a.map.name == one.map.name
    assert a.map.blocks(2) is b.map.blocks(2)
    plain = new_game(["A", "B"], seed=3, game_map=plain_map(9, 9))
    c = from_json(to_json(plain))
    assert c.map is not a.map and c.map == plain.map
    renamed = json.loads(to_json(one))
    renamed["map_name"] = "my-copy"
    d = from_json(json.dumps(renamed))
    assert d.map is not a.map and d.map.name == "my-copy" and d.map.codes == a.map.codes
    assert from_json(json.dumps(renamed)).map is d.map
