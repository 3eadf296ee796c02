"""The service's read model of a table (``bot.service.tables``): what a front end reads of a game
without touching storage, records or states — its phase, seats, round, whose turn, who thinks."""

from __future__ import annotations

import dataclasses

import pytest

from bot.play import Refusal
from bot.service import Caller, Choice, PanelView, Tiempo, panel_pick, parse_age, version_of
from bot.service.tables import AGE_NAMES, BUILDING_NAMES, RULE_TOPICS, table_state
from bot.storage import Status
from rules import Age

PEOPLE = [Caller(1, 1, 101, "alice"), Caller(1, 1, 102, "bob")]


async def test_a_lobby_then_a_game_in_play_as_the_front_ends_read_it(service: Tiempo) -> None:
    assert await service.table_in(1) is None
    await service.new(PEOPLE[0], holdem=True)
    await service.join(PEOPLE[1])
    lobby = await service.table_in(1)
    assert lobby is not None
    assert (lobby.phase, lobby.started, lobby.holdem, lobby.seed) == ("lobby", False, True, 5)
    assert lobby.labels == ("alice", "bob") and lobby.waits_on_person is None and lobby.thinking is None
    await service.start_game(PEOPLE[0])
    table = await service.table_of(lobby.game_id)
    game = await service.storage.get_game(lobby.game_id)
    state = service.state_of(game)
    assert table == await service.table_in(1)
    assert table.is_playing and table.started and not table.is_over and not table.is_cancelled
    assert (table.round, table.turn, table.active, table.waiting_on, table.deciding) == (
        state.round, state.turn, state.active, state.waiting_on, False)
    assert table.labels == ("alice (Red)", "bob (White)") and table.version == version_of(game)
    assert table.waits_on_person == game.seats[state.waiting_on].user_id and table.thinking is None
    assert [s.name for s in table.people] == ["alice", "bob"]


async def test_an_ai_seat_waited_on_is_thinking(service: Tiempo) -> None:
    await service.new(PEOPLE[0])
    await service.join(PEOPLE[1])
    await service.start_game(PEOPLE[0])
    game = await service.storage.active_game_in_channel(1)
    assert game is not None
    state = service.state_of(game)
    seats = list(game.seats)
    seats[state.waiting_on] = dataclasses.replace(seats[state.waiting_on], name="Magpie", ai_level="greedy")
    table = table_state(dataclasses.replace(game, seats=tuple(seats)), state)
    assert table.thinking == "Magpie" and table.waits_on_person is None
    assert [s.name for s in table.people] == [s.name for s in seats if s.ai_level is None]


async def test_an_ended_or_cancelled_game_waits_on_no_one(service: Tiempo) -> None:
    await service.new(PEOPLE[0])
    await service.join(PEOPLE[1])
    await service.start_game(PEOPLE[0])
    game = await service.storage.active_game_in_channel(1)
    assert game is not None
    over = table_state(dataclasses.replace(game, status=Status.FINISHED), service.state_of(game))
    assert over.is_over and over.waits_on_person is None and over.thinking is None
    await service.cancel(PEOPLE[0], game.id, confirmed=True)
    assert await service.table_in(1) is None
    cancelled = await service.table_of(game.id)
    assert cancelled.is_cancelled and cancelled.waits_on_person is None


def test_the_words_a_front_end_offers_and_reads() -> None:
    assert AGE_NAMES == ("Might", "Faith", "Reason")
    assert BUILDING_NAMES[:3] == ("Watchtower", "Keep", "Castle") and "ripples" in RULE_TOPICS
    assert parse_age("faith") is Age.FAITH and parse_age("") is None and parse_age(None) is None
    with pytest.raises(Refusal):
        parse_age("Mars")


def test_a_panel_pick_adds_the_choice_to_the_base_path() -> None:
    panel = PanelView(1, "3-abc", path=("build",), base=("build",), choices=(Choice("KEEP", "Keep"),
                                                                            Choice("M.a00", "Might")))
    assert panel_pick(panel, 2) == ("build", "M", "a00")
    with pytest.raises(IndexError):
        panel_pick(panel, 3)
