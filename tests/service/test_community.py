"""Between games and after them, at the service: the list of one's games in play on every server,
profiles, each player's statistics of a game, ratings (openskill's Plackett–Luce) and leaderboards,
and the sentences bad input gets. Games are played to their end with random legal moves."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.service import Caller, Post, Refusal, Tiempo, version_of
from bot.service.community import replay_ratings
from bot.service.ratings import FIRST, rate, shown
from bot.service.stats import game_stats
from bot.storage import GameRecord, Status, Storage
from bot.storage.community import PlayerRecords
from bot.texts import ranking
from bot.words import PLAIN, Style, render
from rules import Action, Age, Construct, apply, legal_actions
from rules import events as ev
from tests.support.backends import Backend
from tests.support.gameplay import choose

NOW = 1_800_000_000.0
#: how a test reads a channel: its id in place of a link
PLACES = Style(place="<{guild}/{channel}>")


def words(reply: Post) -> str:
    return render(reply.text, PLACES)


class Channel:
    """Keeps the posts, to read the final one."""

    def __init__(self) -> None:
        self.posts: list[tuple[int, Post]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        self.posts.append((channel_id, post))


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def random_ai(state: Any, seat: int, level: str, **_: Any) -> Action:
    return random.Random(state.turn * 31 + seat).choice(legal_actions(state))


@pytest.fixture
async def service(backend: Backend) -> AsyncIterator[Tiempo]:
    """The service on a fresh database of each backend (a SQLite file, a PostgreSQL database)."""
    storage = await Storage.open(backend.target)
    seeds = iter(range(3, 1000))
    tiempo = Tiempo(storage, Channel(), render=False, seed_source=lambda: next(seeds), clock=Clock(),
                    ai_think_seconds=0, choose_ai=random_ai)
    try:
        yield tiempo
    finally:
        await tiempo.close()
        await storage.close()


def person(user_id: int, name: str, guild: int = 1, channel: int = 10) -> Caller:
    return Caller(guild, channel, user_id, name)


ANA, BEN, CY = person(101, "ana"), person(102, "ben"), person(103, "cy")


async def opened(service: Tiempo, people: Sequence[Caller], *, ai: int = 0) -> GameRecord:
    """A game opened in the first person's channel by them, joined by the others (and ``ai`` AI seats),
    and started."""
    await service.new(people[0])
    for p in people[1:]:
        await service.join(p)
    for _ in range(ai):
        await service.add_bot(people[0], "random")
    await service.start_game(people[0])
    game = await service.storage.active_game_in_channel(people[0].channel_id)
    assert game is not None and game.status is Status.PLAYING
    return game


async def play_to(service: Tiempo, game: GameRecord, people: Sequence[Caller], seed: int, *,
                  until: int | None = None) -> GameRecord:
    """Random legal moves for the people (AI seats play themselves) until the game ends, or until
    ``until`` actions were played."""
    rng = random.Random(seed)
    by_seat = {i: next(p for p in people if p.user_id == s.user_id) for i, s in enumerate(game.seats)
               if s.ai_level is None}
    while True:
        await service.idle()
        game = await service.storage.get_game(game.id)
        state = service.state_of(game)
        if state.finished or (until is not None and game.action_count >= until):
            return game
        if state.waiting_on not in by_seat:
            continue
        action = choose(rng, state, legal_actions(state))
        await service.moves.play_action(by_seat[action.player], game.id, version_of(game),
                                        lambda s, p, a=action: a)


async def finished(service: Tiempo, people: Sequence[Caller], seed: int, *, ai: int = 0) -> GameRecord:
    return await play_to(service, await opened(service, people, ai=ai), people, seed)


def final_post(service: Tiempo, game: GameRecord) -> str:
    outbox = service.herald.outbox
    assert isinstance(outbox, Channel)
    said = [render(p.text, PLAIN) for channel, p in outbox.posts if channel == game.channel_id]
    return next(s for s in reversed(said) if f"Game #{game.id} is over." in s)


# ---------------------------------------------------------------------------------------------
# Ratings


async def test_a_finished_all_human_game_changes_the_ratings_and_the_leaderboard_shows_it(service: Tiempo) -> None:
    game = await finished(service, [ANA, BEN], seed=1)
    state = service.state_of(game)
    records = PlayerRecords(service.storage.database)
    changes = {c.user_id: c for c in await records.changes_of_game(game.id)}
    assert set(changes) == {ANA.user_id, BEN.user_id}
    assert all(c.rating_before == FIRST for c in changes.values())
    places = {game.seats[seat].user_id: place for place, seat, _ in ranking(state)}
    want = rate({}, sorted(places.items()))
    assert {u: (c.mu, c.sigma) for u, c in changes.items()} == want
    best = min(places, key=lambda u: (places[u], u))
    board = words(await service.leaderboard(ANA))
    rows = board.split("\n")
    assert rows[0] == "Leaderboard — page 1 of 1"
    assert rows[1].startswith("1. ") and ("ana" if best == ANA.user_id else "ben") in rows[1]
    assert f"{changes[best].rating_after} (1 game)" in rows[1]
    # the final post told the same change
    post = final_post(service, game)
    for seat in game.seats:
        c = changes[seat.user_id]
        d = c.rating_after - c.rating_before
        assert f"{seat.name} {c.rating_after} ({'+' if d > 0 else '−' if d < 0 else '±'}{abs(d)})" in post
    assert "(A rating is shown on the safe side: it rises as the games show more of a player" in post  # (new people)
    for seed in (2, 3, 4):  # three games more each: no longer said
        later = await finished(service, [ANA, BEN], seed=seed)
    assert "on the safe side" not in final_post(service, later)


async def test_a_game_with_an_ai_seat_changes_no_rating(service: Tiempo) -> None:
    game = await finished(service, [ANA, BEN], seed=2, ai=1)
    records = PlayerRecords(service.storage.database)
    assert await records.changes_of_game(game.id) == []
    assert await records.all_ratings() == []
    assert len(await records.results_of_game(game.id)) == 3  # recorded all the same, for the profiles
    assert "This game is not rated: an AI player took part." in final_post(service, game)
    assert "No rated game has been finished on this server yet" in words(await service.leaderboard(ANA))


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
async def test_the_rebuild_gives_the_ratings_the_games_gave_one_by_one(service: Tiempo) -> None:
    await finished(service, [ANA, BEN], seed=3)
    await finished(service, [BEN, CY, ANA], seed=4)
    await finished(service, [CY, ANA], seed=5, ai=1)
    await finished(service, [person(104, "di", guild=2, channel=20), person(101, "ana", guild=2, channel=20)],
                   seed=6)
    records = PlayerRecords(service.storage.database)
    ratings = await records.all_ratings()
    assert {(r.guild_id, r.user_id, r.games) for r in ratings} == {(1, 101, 2), (1, 102, 2), (1, 103, 1),
                                                                   (2, 101, 1), (2, 104, 1)}
    changes = sorted([c for g in range(1, 5) for c in await records.changes_of_game(g)], key=lambda c: c.game_id)
    assert await service.community.rebuild() == (3, 5)
    assert await records.all_ratings() == ratings
    assert sorted([c for g in range(1, 5) for c in await records.changes_of_game(g)],
                  key=lambda c: c.game_id) == changes
    # and from nothing: the results and ratings of every game are made again from the stored games
    async with service.storage.database.transaction() as tx:
        await tx.execute("DELETE FROM results")
        await tx.execute("DELETE FROM ratings")
        await tx.execute("DELETE FROM rating_changes")
    assert await service.community.rebuild() == (3, 5)
    assert await records.all_ratings() == ratings


def test_tied_players_share_a_place_and_move_alike() -> None:
    after = rate({1: (30.0, 5.0), 2: (30.0, 5.0), 3: None}, [(1, 1), (2, 1), (3, 3)])
    assert after[1] == after[2] and after[1][0] > 30.0 > after[3][0] - 5
    assert FIRST == 1000 and shown(25.0, 25 / 3) == 1000 and shown(0.0, 10.0) == 0


def test_replayed_ratings_carry_each_game_into_the_next() -> None:
    from bot.storage.community import ResultRecord

    def result(game: int, user: int, place: int) -> ResultRecord:
        return ResultRecord(game, user, 1, 10, user, f"p{user}", False, 2, place, 10, place == 1, True,
                            float(game))

    changes, ratings = replay_ratings([result(1, 1, 1), result(1, 2, 2), result(2, 1, 2), result(2, 2, 1)])
    assert [c.game_id for c in changes] == [1, 1, 2, 2]
    assert changes[2].rating_before == changes[0].rating_after and ratings[(1, 1)].games == 2


# ---------------------------------------------------------------------------------------------
# Statistics of a game


def test_statistics_count_income_buildings_cards_and_the_turns_ripples() -> None:
    from tests.support.gameplay import random_game

    steps = list(random_game(11, 3, False))
    stats = game_stats(steps[0].before, [(s.action, s.events) for s in steps])
    events = [e for s in steps for e in s.events]
    for i, st in enumerate(stats):
        for age in Age:
            assert st.income[age] == sum(e.amount for e in events if isinstance(e, ev.IncomePaid)
                                         and e.player == i and e.age == age)
            assert st.built[age] == sum(1 for e in events if isinstance(e, (ev.Built, ev.Upgraded))
                                        and e.player == i and e.age == age)
        assert st.cards == sum(s.action.payment.cards.total for s in steps
                               if hasattr(s.action, "payment") and s.action.player == i)
    assert sum(s.ripples for s in stats) == sum(isinstance(e, ev.Rippled) for e in events)
    assert sum(s.paradoxes for s in stats) == sum(isinstance(e, ev.ParadoxRemoved) for e in events)
    # a ripple is the doing of the player whose turn it is
    for s in steps:
        if isinstance(s.action, Construct) and any(isinstance(e, ev.Rippled) for e in s.events):
            alone = game_stats(s.before, [(s.action, s.events)])
            assert alone[s.before.active].ripples == sum(isinstance(e, ev.Rippled) for e in s.events)
            break
    assert apply  # the engine the stats follow


async def test_the_final_post_tells_each_players_statistics(service: Tiempo) -> None:
    game = await finished(service, [ANA, BEN], seed=7)
    post = final_post(service, game)
    results = await PlayerRecords(service.storage.database).results_of_game(game.id)
    for r in results:
        total = r.income_might + r.income_faith + r.income_reason
        assert (f"📊 {r.name} (") in post
        assert (f"income Might {r.income_might} · Faith {r.income_faith} · Reason {r.income_reason} ({total} "
                in post)
        built = r.built_might + r.built_faith + r.built_reason
        assert f"{built} building" in post and f"{r.cards} card" in post


# ---------------------------------------------------------------------------------------------
# Profiles


async def test_a_profile_adds_up_the_players_games_on_the_server_and_everywhere(service: Tiempo) -> None:
    one = await finished(service, [ANA, BEN], seed=8)
    two = await finished(service, [BEN, ANA], seed=9, ai=1)
    ana_elsewhere = person(101, "ana", guild=2, channel=20)
    three = await finished(service, [person(104, "di", guild=2, channel=20), ana_elsewhere], seed=10)
    results = [r for g in (one, two) for r in await PlayerRecords(service.storage.database).results_of_game(g.id)
               if r.user_id == ANA.user_id]
    said = words(await service.profile(ANA))
    assert said.startswith("ana — this server\nRating ")
    won = sum(r.won for r in results)
    average = sum(r.ecus for r in results) / 2
    assert f"2 games played, {won} won ({round(50 * won)}%), {average:.1f} Ecus on average." in said
    best = min(results, key=lambda r: (r.place, -r.players, -r.ecus, r.finished_at))  # the best finish
    assert f"Best game: #{best.game_id} in <1/10>" in said
    assert said.index(f"• #{two.id} in <1/10>") < said.index(f"• #{one.id} in <1/10>")
    assert f"#{three.id}" not in said
    assert f"Ripples caused: {sum(r.ripples for r in results)}; paradoxes caused: " \
           f"{sum(r.paradoxes for r in results)}." in said
    everywhere = words(await service.profile(ANA, everywhere=True))
    assert everywhere.startswith("ana — every server\n3 games played") and f"• #{three.id} in <2/20>" in everywhere
    assert "Rating" not in everywhere
    # in a direct message, one's own profile is the one across servers
    assert words(await service.profile(Caller(0, 99, 101, "ana"))) == everywhere
    # another player's, here
    assert words(await service.profile(ANA, BEN.user_id)).startswith("ben — this server\nRating ")


async def test_a_profile_refuses_with_a_sentence(service: Tiempo) -> None:
    await finished(service, [person(104, "di", guild=2, channel=20), person(105, "eve", guild=2, channel=20)],
                   seed=12)
    cases = [
        (ANA, {}, "You have not finished a game yet: your profile starts with your first. Open one with `new`."),
        (ANA, {"player_id": 777, "player_name": "zed"}, "zed has not finished a game of Tiempo yet."),
        (ANA, {"player_id": 104}, "di has not finished a game on this server; a profile shows the server's games"),
        (ANA, {"player_id": 104, "everywhere": True}, "Only your own profile is shown across servers"),
        (Caller(0, 5, 101, "ana"), {"player_id": 104}, "Only your own profile is shown across servers"),
        (person(104, "di"), {}, "You have not finished a game on this server yet. Your games on other servers: "
                                "`profile everywhere:True`."),
    ]
    for caller, options, sentence in cases:
        with pytest.raises(Refusal) as refused:
            await service.profile(caller, **options)
        assert render(refused.value.text, PLAIN).startswith(sentence), (options, render(refused.value.text, PLAIN))


# ---------------------------------------------------------------------------------------------
# Leaderboard


async def test_the_leaderboard_pages_ten_at_a_time_and_refuses_a_page_out_of_range(service: Tiempo) -> None:
    records = PlayerRecords(service.storage.database)
    from bot.storage.community import RatingRecord

    await records.replace_ratings([], [RatingRecord(1, 200 + i, f"p{i}", 25.0, 5.0, 1000 + 10 * (i // 2), 3, NOW)
                                       for i in range(23)])
    page = words(await service.leaderboard(person(200, "p0"), 1)).split("\n")
    assert page[0] == "Leaderboard — page 1 of 3" and len(page) == 1 + 10 + 2
    assert page[1] == "1. p22 — 1110 (3 games)"
    assert page[2] == "2. p20 — 1100 (3 games)" and page[3] == "2. p21 — 1100 (3 games)"
    assert page[11] == "Next: `leaderboard page:2`." and page[12] == "You: 22nd, 1000."
    last = words(await service.leaderboard(person(200, "p0"), 3)).split("\n")
    assert last[1:] == ["20. p3 — 1010 (3 games)", "22. p0 — 1000 (3 games) ← you", "22. p1 — 1000 (3 games)"]
    for bad in (0, 4):
        with pytest.raises(Refusal) as refused:
            await service.leaderboard(person(200, "p0"), bad)
        assert render(refused.value.text, PLAIN) == (f"There is no page {bad}: the leaderboard has 3 pages (10 players "
                                                     "a page). Try `leaderboard page:1`.")
    with pytest.raises(Refusal, match="A leaderboard belongs to a server"):
        await service.leaderboard(Caller(0, 5, 200, "p0"))


# ---------------------------------------------------------------------------------------------
# My games


async def test_my_games_lists_the_games_in_play_on_every_server_those_waiting_on_me_first(service: Tiempo) -> None:
    here = await opened(service, [ANA, BEN])
    there = await opened(service, [person(104, "di", guild=2, channel=20), person(101, "ana", guild=2, channel=20)])
    elsewhere = await opened(service, [person(105, "eve", channel=11), person(101, "ana", channel=11)])
    await finished(service, [person(102, "ben", channel=12), person(101, "ana", channel=12)], seed=13)
    await opened(service, [person(106, "fay", channel=13), person(107, "gus", channel=13)])
    states = {g.id: service.state_of(await service.storage.get_game(g.id)) for g in (here, there, elsewhere)}
    dm = Caller(0, 99, 101, "ana")
    said = words(await service.my_games(dm)).split("\n")
    mine = [g for g in (here, there, elsewhere) if g.seats[states[g.id].waiting_on].user_id == 101]
    assert said[0] == f"Your games in play (3) — {len(mine)} waiting on you:"
    listed = [int(line.split(" ")[0][1:]) for line in said[1:]]
    assert sorted(listed) == sorted(g.id for g in (here, there, elsewhere))
    assert listed[:len(mine)] == sorted(g.id for g in mine)
    assert f"#{there.id} in <2/20>: round 1 of 7, " in "\n".join(said)
    for g in (here, there, elsewhere):
        line = next(x for x in said if x.startswith(f"#{g.id} "))
        waiting = g.seats[states[g.id].waiting_on]
        assert line.endswith("your turn" if waiting.user_id == 101 else f"{waiting.name}'s turn")
    assert words(await service.my_games(person(108, "hal"))).startswith("You are not playing any game right now.")


async def test_my_games_tells_the_time_left_of_a_turn_limit(service: Tiempo) -> None:
    await service.new(ANA, turn_minutes=90)
    await service.join(BEN)
    await service.start_game(ANA)
    said = words(await service.my_games(BEN))
    assert "(1 h 30 min left)" in said or "(1 h 29 min left)" in said


async def test_the_ratings_command_rebuilds_them_from_the_stored_games(service: Tiempo, backend: Backend,
                                                                      tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    from bot.__main__ import main as cli

    await finished(service, [ANA, BEN], seed=14)
    records = PlayerRecords(service.storage.database)
    ratings = await records.all_ratings()
    async with service.storage.database.transaction() as tx:
        await tx.execute("DELETE FROM ratings")
    database = service.storage.path
    assert await asyncio.to_thread(cli, ["ratings", "--rebuild", "--database", backend.target]) == 0
    out = capsys.readouterr().out
    assert "Rebuilt from 1 rated game in " in out and f"{database} holds 2 ratings on 1 server." in out
    assert await records.all_ratings() == ratings
    (tmp_path / "notes.txt").write_text("not a database\n" * 100)
    assert await asyncio.to_thread(cli, ["ratings", "--database", str(tmp_path / "notes.txt")]) == 2
    assert capsys.readouterr().err.strip()  # one sentence saying why
    missing = tmp_path / "typo.sqlite3"  # not created empty, and reported as holding no ratings
    assert await asyncio.to_thread(cli, ["ratings", "--database", str(missing)]) == 2
    assert f"There is no database file {missing}" in capsys.readouterr().err and not missing.exists()


async def test_a_finished_game_left_unrecorded_by_a_crash_is_recorded_at_start_up(service: Tiempo) -> None:
    game = await finished(service, [ANA, BEN], seed=15)
    records = PlayerRecords(service.storage.database)
    results, ratings = await records.results_of_game(game.id), await records.all_ratings()
    async with service.storage.database.transaction() as tx:  # as if the process died right after the commit
        for table in ("results", "ratings", "rating_changes"):
            await tx.execute(f"DELETE FROM {table}")
    assert await records.unrecorded() == [game.id]
    assert await service.record_finished_games() == 1
    assert await records.results_of_game(game.id) == results and await records.all_ratings() == ratings
    assert await service.record_finished_games() == 0
