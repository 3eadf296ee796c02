"""Issue 19, points 2–4: every player's income outlook in every round (status, panel, after-turn
post), choices that say what they do to the score and mark harm to another player, and the player
who is hit told what it cost them (``rules.economy``)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from bot.service import Caller, Post, Tiempo, version_of
from bot.service.herald import hit_line
from bot.service.steps import hurts_words, path_to, step
from bot.storage import SeatRecord, Storage
from bot.texts import describe_hit, describe_standings, describe_status
from bot.words import Mention
from rules import (
    Action,
    Age,
    Cell,
    Construct,
    GameState,
    Kind,
    apply,
    economy,
    economy_change,
    legal_actions,
    parse_action,
    parse_position,
)
from rules import events as ev
from tests.support.discord_play import answer, pick_to, public, state_of, two_at_the_table
from tests.support.discord_sim import DiscordSim
from tests.support.gameplay import choose
from tests.support.scenario import play
from tests.support.service_play import seated_game

TAKEN = "map: plain 15x12\nround: 2\nRed: hand=MMMC pawns=M,M\nWhite: pawns=M,M\nM: Keep[White]@G1 Hamlet@I1\n"


def _castle(state: GameState, origin: str) -> Construct:
    return next(a for a in legal_actions(state) if isinstance(a, Construct) and a.kind is Kind.CASTLE
                and a.origin == Cell.parse(origin))


def test_the_status_gives_every_players_outlook_age_by_age_and_when_income_is_counted() -> None:
    state, _ = play(TAKEN)
    status = describe_status(state).plain()
    assert ("Income if it were counted now (counted in rounds 4 and 7, at the end of each player's own turn; "
            "next: round 4):") in status
    assert "• White: 1 Ecu — Might 1 · Faith 0 (no pawn) · Reason 0 (no pawn)" in status
    assert "• Red: 0 Ecus — Might 0 · Faith 0 (no pawn) · Reason 0 (no pawn)" in status


def test_a_turns_post_gives_every_players_outlook_briefly_and_who_has_collected_in_an_income_round() -> None:
    """R21, R73–R77: the standings a turn's post ends with say each player's outlook in one line,
    ``income now`` and the Ages that pay (one without a pawn said so); in an income round the players
    whose turn is over have collected, and their outlook is for the next income; the stock only where
    a kind runs low."""
    state, _ = play(TAKEN)
    post = describe_standings(state).plain()
    assert post.startswith("Round 2 of 7. Red to play. Income is counted in rounds 4 and 7, next in round 4 "
                           "(income now: what it would pay if it were counted now).\n")
    assert "\n▶ Red: 10 Ecus · income now 0 · 25 cubes, 4 cards · both pawns on Might\n" in post
    assert "\nWhite: 10 Ecus · income now 1 (Might 1) · 24 cubes, 0 cards · both pawns on Might\n" in post
    assert "Running low" not in post and "Stock:" not in post
    away, _ = play(TAKEN.replace("White: pawns=M,M", "White: pawns=F,R"))
    assert "\nWhite: 10 Ecus · income now 0 (Might 1 with a pawn there) · 24 cubes, 0 cards · pawns on Faith and " \
           "Reason" in describe_standings(away).plain()
    income, _ = play(TAKEN.replace("round: 2", "round: 4\nfirst: White\nactive: Red\nstock: Castle=2 City=0"))
    said = describe_standings(income).plain()
    assert said.startswith("Round 4 of 7. Red to play. Income round: each player collects at the end of their own "
                           "turn (income now: what they would collect now).\n")
    assert "\nWhite: 10 Ecus · collected this round · for round 7: income now 1 (Might 1) · " in said
    assert "\n▶ Red: 10 Ecus · income now 0 · " in said
    assert "\nBlue: 10 Ecus · collected this round · for round 7: income now 0 · " in said  # (White, Green, Blue, Red)
    assert "\nRunning low in the stock: Castle 2, City 0 left." in said
    last, _ = play(TAKEN.replace("round: 2", "round: 7\nfirst: White\nactive: Red"))
    assert "\nWhite: 10 Ecus · collected the last income · 24 cubes" in describe_standings(last).plain()
    assert "\n▶ Red: 10 Ecus · income now 0 · " in describe_standings(last).plain()


def test_a_place_names_its_domain_controller_and_gain_and_marks_taking_control_from_another() -> None:
    state, _ = play(TAKEN)
    places = step(state, 0, ("build", "CASTLE", "a10"))
    by_key = {c.key: c for c in places.choices}
    taking = by_key["I2"]  # joins White's domain: Red's Castle tops White's Keep (R74)
    assert taking.label == "I2–K4 · +1 Ecu at income: joins the Might domain of G1 (worth 1, yours)"
    assert taking.hurts == ("White",) and not taking.harms
    assert taking.detail.startswith("💥 Hurts White: loses the Might domain of G1 · 3 Military cards")
    alone = by_key["J2"]
    assert alone.label == "J2–L4 · founds the Might domain of J2 (yours, worth nothing yet)" and alone.hurts == ()
    assert all(len(c.label) <= 100 and len(c.detail) <= 100 for c in places.choices)


def test_the_player_hit_is_told_what_it_cost_them() -> None:
    state, _ = play(TAKEN)
    after, events = apply(state, _castle(state, "I2"))
    change = economy_change(state, after, events)
    assert describe_hit(after, change, 1) == ("you lost control of the Might domain of G1 — your domains would pay "
                                              "1 Ecu less at income (1 → 0)")
    assert describe_hit(after, change, 0) == ""  # the actor is not hit


def test_a_player_whose_domain_is_worth_less_is_told_though_nothing_of_theirs_went() -> None:
    """A paradox removes a Hamlet from Green's Faith domain (R53): Green keeps control of it, owns
    nothing that went, and still loses income; the 💥 line says so, as the panel's "hurts" does."""
    s = parse_position("map: plain 15x12\nactive: Blue\nBlue: hand=CCC pawns=M,M\n"
                       "F: Chapel[Green]@A1 Town@B1 Hamlet@A2\nGreen: pawns=F,F\n")
    action = parse_action("Blue build Town A2 on M pay CC 1+1", s)
    after, events = apply(s, action)
    change = economy_change(s, after, events)
    assert describe_hit(after, change, 2) == ("your Faith domain of A1 is worth 1 less — your domains would pay "
                                              "1 Ecu less at income (3 → 2)")
    assert describe_hit(after, change, 2, named=True).startswith("Green's Faith domain of A1 is worth 1 less — their")
    assert hurts_words(s, change, 3) == "💥 Hurts Green: Faith domain of A1 worth 1 less"


def test_the_channel_names_an_ai_seat_hit_in_the_third_person() -> None:
    """The after-turn post's line for a person addresses them ("💥 @White: You lost …"); for an AI seat
    it names the seat ("💥 White lost …, their domains …"), never "Your"."""
    state, _ = play(TAKEN)
    after, events = apply(state, _castle(state, "I2"))
    change = economy_change(state, after, events)
    hit = describe_hit(after, change, 1, named=True)
    assert hit == "White lost control of the Might domain of G1 — their domains would pay 1 Ecu less at income (1 → 0)"
    ai = SeatRecord(0, "White", "white", ai_level="master")
    person = SeatRecord(101, "White", "white")
    assert hit_line(ai, hit).plain() == ("💥 White lost control of the Might domain of G1 — their domains would pay "
                                         "1 Ecu less at income (1 → 0).")
    told = hit_line(person, describe_hit(after, change, 1))
    assert told.plain().startswith("💥 White: You lost control of the Might domain of G1 — your domains")
    assert any(isinstance(part, Mention) and part.user_id == 101 for part in told.parts)


async def test_in_round_one_the_status_and_the_panel_give_every_players_outlook(sim: DiscordSim,
                                                                              tmp_path: Path) -> None:
    _, game_id, state, player = await two_at_the_table(sim, tmp_path)
    assert state.round == 1
    names = [p.name for p in state.players]
    status = await answer(sim, sim.slash("tiempo", "status", user=player))
    assert "Income if it were counted now" in status.content and "next: round 4" in status.content
    assert all(f"• {n}" in status.content for n in names)
    turn_post = public(sim)[-1].content  # the post of the turn: every player's outlook, briefly
    assert "Income is counted in rounds 4 and 7, next in round 4 (**income now**: " in turn_post
    assert all(re.search(rf"{re.escape(n)} \(\w+\): 4 Ecus · income now 0 · ", turn_post) for n in names), turn_post
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", public(sim)[-1], user=player))
    other = next(n for n in names if n != player.name)
    assert "Income if counted now: you 0: " in panel.content and f"; {other} 0 — next income: round 4" in panel.content
    some = next(a for a in legal_actions(state) if isinstance(a, Construct) and a.kind.level == 2)
    listed: list[dict[str, object]] = []
    await pick_to(sim, panel, player, path_to(state, state.active, some), listed)
    places = [str(o["label"]) for o in listed if str(o["value"])[:1].isupper() and str(o["value"])[1:].isdigit()]
    owners = ("yours)", "no one's)", "until a question is answered)")
    assert places and all(" domain of " in x and x.endswith(owners) for x in places), places


class Recorder:
    """The channel: what the service posts."""

    def __init__(self) -> None:
        self.posts: list[Post] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        self.posts.append(post)


def _seeking(rng: random.Random, s: GameState) -> Action:
    """A random player that builds often, and builds where it hurts the other player when it can."""
    legal = [a for a in legal_actions(s) if a.player == s.waiting_on]
    builds = [a for a in legal if isinstance(a, Construct)]
    if s.pending is None and builds:
        known = economy(s)
        for a in builds:
            after, events = apply(s, a)
            if economy_change(s, after, events, known=known).harmed(besides=a.player):
                return a
        if rng.random() < 0.7:
            return rng.choice(builds)
    return choose(rng, s, legal)


async def test_a_player_hit_by_someone_elses_turn_is_mentioned_once_and_told_in_their_recap(tmp_path: Path) -> None:
    """Two players, one of whom builds where it takes a domain from the other when they can: the
    after-turn post has one line for the player hit, mentioning them (and pinging them), saying what
    happened and what it cost in income outlook; their hand's "since your last turn" says it too."""
    for seed in range(1, 6):
        storage = await Storage.open(str(tmp_path / f"t{seed}.sqlite3"))
        recorder = Recorder()
        service = Tiempo(storage, recorder, render=False, seed_source=lambda seed=seed: seed)
        people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["alice", "bob"])]
        rng = random.Random(seed)
        try:
            game = await seated_game(service, storage, people)
            began: GameState | None = None
            hurt: tuple[int, ...] = ()
            mover = 0
            for _ in range(120):
                game = await storage.get_game(game.id)
                state = service.state_of(game)
                if state.finished:
                    break
                began = state if began is None else began
                action = _seeking(rng, state)
                game, after, events = await service.moves.play_action(people[action.player], game.id,
                                                                      version_of(game), lambda s, p, a=action: a)
                if any(isinstance(e, ev.TurnEnded) for e in events):
                    turn, began, mover = economy_change(began, after, ()), None, state.active
                    hurt = turn.harmed(besides=mover)
                    if hurt:
                        break
            if not hurt:
                continue
            await service.herald.courier.flush(1, timeout=10)
            victim = people[hurt[0]]
            post = next(p for p in reversed(recorder.posts) if "· income now " in p.text.plain())
            said = [line for line in post.text.plain().split("\n") if line.startswith("💥")]
            assert len(said) == 1 and said[0].startswith(f"💥 {victim.name}: "), said
            assert re.search(r" — (your domains would pay \d+ Ecus? less at income \(\d+ → \d+\)|it costs you nothing "
                             r"at income)\.$", said[0]), said
            assert any(isinstance(part, Mention) and part.user_id == victim.user_id for part in post.text.parts)
            assert victim.user_id in post.mentions
            hand = (await service.hand(victim)).text.plain()
            assert "Since your last turn:" in hand and f"\n💥 {people[mover].name} (" in hand, hand
            assert "'s move: you " in hand or "'s move: your " in hand or "'s move: the " in hand, hand
            return
        finally:
            await service.close()
            await storage.close()
    raise AssertionError("no game had a turn that hurt the other player")


async def test_cell_autocompletion_says_what_each_place_does_to_the_score(sim: DiscordSim,
                                                                           tmp_path: Path) -> None:
    _, _, state, player = await two_at_the_table(sim, tmp_path)
    iid = sim.inject(sim.autocomplete("tiempo", "build", {"kind": "Watchtower", "age": "Might", "cell": ""},
                                      "cell", user=player))
    offered = await sim.choices(iid)
    legal = {str(a.origin) for a in legal_actions(state) if isinstance(a, Construct)
             and a.kind.value == "Watchtower" and a.age.title == "Might"}
    assert 0 < len(offered) <= 25 and {c["value"] for c in offered} <= legal
    for c in offered:
        assert len(c["name"]) <= 100 and c["name"].startswith(f"{c['value']} · ")
        assert " the Might domain of " in c["name"]
        assert c["name"].endswith(("yours)", "no one's)", "'s)", "worth nothing yet)",
                                   "until a question is answered)"))


async def test_a_places_list_by_taps_marks_a_place_that_takes_a_domain_from_another_player(
        sim: DiscordSim, tmp_path: Path) -> None:
    """Two players build (the player of ``_seeking``) until one could take the other's domain; that
    player's places list, opened by taps, marks the place 💥 and names whom it hurts."""
    bot, game_id, state, _ = await two_at_the_table(sim, tmp_path)
    users = {u.name: u for u in sim.users.values()}
    rng = random.Random(1)
    harmful: Construct | None = None
    for _ in range(150):
        _, state = await state_of(bot, sim)
        assert not state.finished
        if state.pending is None:
            known = economy(state)
            harmful = next((a for a in legal_actions(state) if isinstance(a, Construct)
                            and economy_change(state, *apply(state, a), known=known).harmed(besides=a.player)), None)
            if harmful is not None:
                break
        action = _seeking(rng, state)
        seat = state.players[action.player]
        caller = Caller(sim.guild.id, sim.channel.id, users[seat.name].id, seat.name)
        game = await bot.service.storage.get_game(game_id)
        await bot.service.moves.play_action(caller, game_id, version_of(game), lambda s, p, a=action: a)
    assert harmful is not None
    player = users[state.players[harmful.player].name]
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", public(sim)[-1], user=player))
    listed: list[dict[str, object]] = []
    await pick_to(sim, panel, player, path_to(state, state.active, harmful), listed)
    other = state.players[1 - harmful.player].name
    marked = [o for o in listed if "💥" in str(o.get("emoji"))]
    assert marked and all(str(o["description"]).startswith(f"💥 Hurts {other}: ") for o in marked), marked
    assert any(o["value"] == str(harmful.origin) for o in marked)


def test_r78_a_board_a_question_leaves_unsettled_pays_no_one_and_says_so() -> None:
    """While a junction's question is pending, its board's income is not counted (R78): the words say
    why every domain there counts 0, and the picture's tags show ``?`` instead of a 0 that would come
    back once answered."""
    from render.card import rows
    from render.scene import make_scene

    position = ("map: plain 15x12\nRed: hand=C\nM: Keep[Red]@A1 Watchtower[Green]@C1 Keep[White]@E1 Keep[Green]@J5 "
                "Hamlet@L5 Town@J7\nF: Keep[Red]@A1 Keep[White]@E1\nR: Keep-ruin@A1 Keep-ruin@E1\n")
    before, _ = play(position)
    asked, _ = play(position, "Red build Hamlet D1 on M pay C 1+0")
    note = "(Might's domains pay no one until the question is answered.)"
    assert asked.pending is not None and note in describe_standings(asked).plain().split("\n")
    assert note in describe_status(asked).plain() and note not in describe_standings(before).plain()
    tags = {str(d.name): d.value for d in make_scene(asked, 1).boards[Age.MIGHT].domains if d.controllers}
    assert tags == {"J5": None}  # (Green's Keep, topped by no one: it would pay 3 once settled)
    assert {str(d.name): d.value for d in make_scene(before, 1).boards[Age.MIGHT].domains if d.controllers}["J5"] == 3
    assert all(d.value is not None for d in make_scene(asked, 1).boards[Age.FAITH].domains)
    scene = make_scene(asked, 1)
    assert rows(scene, scene.boards[Age.MIGHT], None, False)[-1] == ("note", "?: its Ecus, once answered")


def test_hidden_ecus_are_not_given_away_by_the_word_after_them() -> None:
    """With the Ecus hidden, a player holding 1 Ecu reads "? Ecus" like the others, in the turn's post and
    in the status: "? Ecu" would tell."""
    state, _ = play("map: plain 15x12\noptions: ecus-hidden\nplayers: Red White\nRed: ecus=1 pawns=M,M\n"
                    "White: ecus=5 pawns=M,M\n")
    assert state.players[0].ecus == 1 and not state.options.ecus_public
    for said in (describe_standings(state).plain(), describe_status(state).plain()):
        assert "? Ecu " not in said and "? Ecu," not in said and said.count("? Ecus") == 2, said


def test_r21_a_hit_after_ones_last_income_says_it_costs_nothing_any_more() -> None:
    """Round 7: Green has had their turn and collected the last income (R21), so what their domains
    would pay is moot; the 💥 line says the loss came too late to cost them anything. In round 6 the
    same loss still costs them at the next income."""
    said = {}
    for rnd in (7, 6):
        s = parse_position(f"map: plain 15x12\nround: {rnd}\nactive: Blue\nBlue: hand=CCC pawns=M,M\n"
                           "F: Chapel[Green]@A1 Town@B1 Hamlet@A2\nGreen: pawns=F,F\n")
        after, events = apply(s, parse_action("Blue build Town A2 on M pay CC 1+1", s))
        said[rnd] = describe_hit(after, economy_change(s, after, events), 2)
    assert said[7] == ("your Faith domain of A1 is worth 1 less — too late to cost you anything: you have collected "
                       "your last income")
    assert said[6].endswith("— your domains would pay 1 Ecu less at income (3 → 2)")
