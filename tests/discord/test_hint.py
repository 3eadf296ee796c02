"""A hint on request (bot/service/hints.py): what the AI's top level would play next, shown privately as
the turn panel at that action's confirm step with one sentence of why; never from another player's
hand; refused in a game opened without hints; counted, and told in the final post."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.ai import Alternative, Analysis, analyse
from bot.discord import markdown
from bot.service import Caller, PanelControls, PanelView, Post, Refusal, Reply, Tiempo, version_of
from bot.service.hints import why_words
from bot.service.steps import path_to
from bot.storage import Storage
from bot.words import PLAIN, render
from rules import (
    Age,
    Choose,
    EndTurn,
    Exchange,
    GameState,
    apply,
    income,
    legal_actions,
    new_game,
    parse_action,
    view_for,
)
from tests.support.discord_play import answer, make_bot, open_table, public, state_of, user_of
from tests.support.discord_sim import DiscordSim
from tests.support.gameplay import choose
from tests.support.hidden import reshuffle_hidden
from tests.support.positions import t13_hamlet
from tests.support.service_play import Silent

#: play-outs per hint in these tests: the hint then depends only on the seat's view and the game
ITERATIONS = 6
PEOPLE = [Caller(1, 1, 100 + i, name) for i, name in enumerate(("alice", "bob", "cy"))]


def panel_of(reply: Reply) -> PanelView:
    return next(c.view for c in reply.controls if isinstance(c, PanelControls))


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Tiempo]:
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    tiempo = Tiempo(storage, Silent(), render=False, seed_source=lambda: 21)
    tiempo.hints.iterations = ITERATIONS
    try:
        yield tiempo
    finally:
        await tiempo.close()
        await storage.close()


async def started(service: Tiempo, players: int = 3, *, hints: bool = True) -> int:
    await service.new(PEOPLE[0], seats=players, hints=hints)
    for p in PEOPLE[1:players]:
        await service.join(p)
    await service.start_game(PEOPLE[0])
    game = await service.storage.active_game_in_channel(1)
    assert game is not None
    return game.id


async def test_a_hint_is_the_panel_at_the_top_levels_action_with_why(service: Tiempo) -> None:
    game_id = await started(service)
    game = await service.storage.get_game(game_id)
    state = service.state_of(game)
    seat = state.active
    reply = await service.hint(PEOPLE[seat])
    said = render(reply.text, PLAIN)
    panel = panel_of(reply)
    assert said.startswith("💡 The AI's top level would"), said
    assert "Why: " in said and "Ecus" in said
    assert panel.confirm and panel.hint and panel.version == version_of(game)
    best = analyse(state, seat, seed=game.id * 1_000_003 + game.action_count, iterations=ITERATIONS).best_action
    assert panel.path == path_to(state, seat, best)  # ready to Confirm: the action the search chose
    assert (await service.storage.get_game(game_id)).hints_of(seat) == 1
    confirmed = await service.panel_confirm(PEOPLE[seat], game_id, panel.version, panel.path)
    assert "Done." in render(confirmed.text, PLAIN)


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
async def test_a_hint_never_reveals_another_players_hand(service: Tiempo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other hands and the deck dealt differently (as the seat sees nothing of them): the same hint,
    word for word, and the same panel."""
    game_id = await started(service)
    game = await service.storage.get_game(game_id)
    state = service.state_of(game)
    seat = state.active
    expected = await service.hint(PEOPLE[seat])
    rng = random.Random(5)
    original = service.games.state_of
    for _ in range(2):
        other = reshuffle_hidden(state, seat, rng)
        assert view_for(other, seat).state == view_for(state, seat).state
        assert any(other.players[j].hand != state.players[j].hand for j in range(3) if j != seat)

        def dealt(record: object, other: GameState = other) -> GameState:
            return other

        monkeypatch.setattr(service.games, "state_of", dealt)
        got = await service.hint(PEOPLE[seat])
        monkeypatch.setattr(service.games, "state_of", original)
        assert render(got.text, PLAIN) == render(expected.text, PLAIN)
        assert panel_of(got) == panel_of(expected)


def test_a_hint_to_exchange_cards_says_why_an_exchange_not_that_nothing_is_worth_playing() -> None:
    """A plan stops at an exchange (what it draws is hidden), so the hinted plan is that one action: its
    why is the exchange's, not "nothing more this turn is worth what it costs" (the end of a turn's)."""
    state = new_game(["alice", "bob", "cy"], seed=4)
    seat = state.active
    exchange = next(a for a in legal_actions(state) if isinstance(a, Exchange))
    plan = Alternative((exchange,), visits=9, value=15.0, gain=0.0, ecus=18.2, income=0, domains=0, prior=0.0)
    said = render(why_words(state, seat, Analysis(seat, exchange, 15.0, (plan,), 9)), PLAIN)
    assert said == "Why: the cards it draws should serve you better than those you give up, for what it costs.", said


def test_r28_a_hints_why_names_the_bonus_its_building_earns_at_once() -> None:
    """A Keep earns 1 Ecu at once on Might (R28): the why says so, as it may be all the move brings."""
    from tests.support.scenario import play

    s, _ = play("map: plain 15x12\nRed: hand=MM pawns=M,M\n")
    keep = parse_action("Red build Keep B2 on M pay MM 2+0", s)
    plan = Alternative((keep,), visits=9, value=15.0, gain=0.0, ecus=17.0, income=0, domains=1, prior=0.0)
    said = render(why_words(s, 0, Analysis(0, keep, 15.0, (plan,), 9)), PLAIN)
    assert said == ("Why: it founds the Might domain of B2 (yours, worth nothing yet), with a bonus of 1 Ecu at "
                    "once."), said


def test_a_hint_says_how_far_ahead_its_turn_is_only_when_the_same_deals_show_it_clearly() -> None:
    """"N more than with the next best turn" compares the two turns deal by deal (the luck of the deal taken
    out), against the closest rival played out on enough deals, and only when the lead is clear: a mean
    over other deals said "29 more" for a turn one Ecu better."""
    state = new_game(["alice", "bob", "cy"], seed=4)
    seat = state.active
    end = EndTurn(seat)

    def plan(estimates: tuple[float, ...]) -> Alternative:
        return Alternative((end,), visits=len(estimates), value=0.0, gain=0.0, ecus=sum(estimates) / len(estimates),
                           income=0, domains=0, prior=0.0, estimates=estimates)

    def said(*plans: Alternative) -> str:
        return render(why_words(state, seat, Analysis(seat, end, 0.0, plans, 9)), PLAIN)

    best = plan((40.0, 30.0, 50.0, 44.0))
    lead = "; the AI expects you to finish with about 4 Ecus more than with the next best turn it found."
    # 4 Ecus ahead on every deal of the closest rival (another is far behind): "4 more"
    assert said(best, plan((36.0, 26.0, 46.0, 40.0)), plan((10.0, 11.0, 12.0))).endswith(lead)
    # the same means, but a rival whose deals were the lucky ones: 29 Ecus apart on average, not deal by deal
    lucky = plan((60.0, 8.0, 22.0, 11.0))
    assert said(best, lucky).endswith("worth what it costs."), said(best, lucky)
    # a rival played out on two deals only says nothing either
    assert said(best, plan((10.0, 10.0))).endswith("worth what it costs."), said(best, plan((10.0, 10.0)))
    # the runner-up (by gain, listed second) played out on two deals only: no lead is claimed over the others
    assert said(best, plan((45.0, 45.0)), plan((36.0, 26.0, 46.0, 40.0))).endswith("worth what it costs.")
    # a deal whose play-out failed (scored -1e9, estimated 0) is left out of the comparison
    failed = dataclasses.replace(plan((36.0, 26.0, 46.0, 0.0)), scores=(0.0, 0.0, 0.0, -1e9))
    assert said(best, failed).endswith(lead), said(best, failed)  # (not 14: 44 on the failed deal)
    # the Ecus the search expects the player to finish with are not said: a guess that swings between actions
    assert "finish with about 41" not in said(best, lucky)


def test_r62_a_hint_that_raises_a_question_gives_the_income_once_it_is_answered() -> None:
    """Digest T13: Red's Hamlet at D4 joins her Keep's domain to White's, and White must say where the
    downsized Keep's Watchtower goes (R62, R64). Until then the income is not settled: the why gives it,
    and the domain the Hamlet joins and whom it hurts, after the answer the AI expects (its plan's), not
    on the board in between, where every domain pays no one (R78) and would read as lost."""
    s, hamlet = t13_hamlet()
    plan = Alternative((hamlet,), visits=9, value=15.0, gain=0.0, ecus=30.4, income=7, domains=1, prior=0.0)
    said = render(why_words(s, 0, Analysis(0, hamlet, 15.0, (plan,), 9)), PLAIN)
    assert said.startswith("Why: it joins "), said
    # within the sentence (no capital), and within the domain's own brackets: never ") (" side by side
    assert said.startswith("Why: it joins the Might domain of A4 (worth 1, yours; 💥 hurts Ben: Keep at E4 downsized), "
                           "then "), said
    assert "unsettled" not in said, said
    assert ") (" not in said, said
    assert said.endswith(", then asks Ben a question; answered as the AI would, your two best boards (a pawn on each) "
                         "would pay 7 Ecus at income."), said
    assert " Ecus at income:" not in said and "-" not in said.split("(")[0], said


def test_the_names_in_a_hints_why_are_escaped_on_discord() -> None:
    """The why's domain and harm words are made for a menu's plain text, where no markup is read; in the
    hint's message every player's name in them is escaped (a name with markdown or "@everyone")."""
    s, hamlet = t13_hamlet(["Ana", "*B_n* @everyone", "Cy", "Dee"])
    plan = Alternative((hamlet,), visits=9, value=15.0, gain=0.0, ecus=30.4, income=7, domains=1, prior=0.0)
    said = why_words(s, 0, Analysis(0, hamlet, 15.0, (plan,), 9))
    assert "💥 hurts *B_n* @everyone: Keep at E4 downsized" in render(said, PLAIN)
    shown = markdown(said)
    assert "💥 hurts \\*B\\_n\\* @\u200beveryone: Keep" in shown and "asks \\*B\\_n\\*" in shown, shown
    assert "*B_n*" not in shown and "@everyone" not in shown


def test_r62_the_income_a_plan_is_credited_with_is_the_income_once_its_question_is_answered() -> None:
    """Digest T13 again, through the search: a plan that stops at another player's question (Ben places
    his downsized Keep's Watchtower, R62) is credited with the income and domains of the board once the
    question is answered as the search reckons (``best_choice``), not those of the unsettled board in
    between, which pays no one (R78). A hint's "would pay" and a review's figures come from here."""
    s, hamlet = t13_hamlet()
    between = apply(s, hamlet)[0]
    assert between.pending is not None and between.pending.decision.player == 1
    paid = set()
    for cell in between.pending.decision.options:  # (Ana's income is the same wherever Ben puts it)
        answered = apply(between, Choose(1, cell))[0]
        assert answered.pending is None
        best = sorted((income(answered, 0, age)[0] for age in Age), reverse=True)
        paid.add(best[0] + best[1])
    assert len(paid) == 1 and min(paid) > 0
    found = analyse(s, 0, seed=1, iterations=4, extra=[[hamlet]])
    played = next(alt for alt in found.alternatives if alt.actions == (hamlet,))
    assert played.income == min(paid) and played.domains == 1


async def test_a_game_without_hints_refuses_them_with_a_sentence(service: Tiempo) -> None:
    game_id = await started(service, 2, hints=False)
    state = service.state_of(await service.storage.get_game(game_id))
    with pytest.raises(Refusal) as refused:
        await service.hint(PEOPLE[state.active])
    assert str(refused.value) == f"Game #{game_id} is played without hints: its opener turned them off when opening it."
    panel = panel_of(await service.panel(PEOPLE[state.active]))
    assert not panel.hint


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
async def test_a_hint_is_for_the_seat_the_game_waits_on(service: Tiempo) -> None:
    game_id = await started(service, 2)
    state = service.state_of(await service.storage.get_game(game_id))
    with pytest.raises(Refusal) as refused:
        await service.hint(PEOPLE[1 - state.active])
    waited = PEOPLE[state.active].name
    assert str(refused.value) == f"A hint is for when the game waits on you; it waits on {waited} now."
    with pytest.raises(Refusal):
        await service.hint(Caller(1, 1, 999, "outsider"))


class Channel:
    """The channel's posts, in order."""

    def __init__(self) -> None:
        self.posts: list[Post] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        self.posts.append(post)


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
async def test_the_final_post_says_how_many_hints_each_player_asked_for(tmp_path: Path) -> None:
    """Alice asks for two hints in her first turn and bob none; the game played out to its end, the
    final post counts them."""
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    channel = Channel()
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 21)
    service.hints.iterations = ITERATIONS
    try:
        game_id = await started(service, 2)
        game = await storage.get_game(game_id)
        alice = next(i for i, s in enumerate(game.seats) if s.name == "alice")
        rng = random.Random(8)
        while service.state_of(game).waiting_on != alice:  # (bob may be first)
            state = service.state_of(game)
            action = choose(rng, state, legal_actions(state))
            await service.moves.play_action(PEOPLE[1], game_id, version_of(game), lambda s, p, a=action: a)
            game = await storage.get_game(game_id)
        await service.hint(PEOPLE[0])
        await service.hint(PEOPLE[0])
        while not (state := service.state_of(game)).finished:
            action = choose(rng, state, legal_actions(state))
            await service.moves.play_action(PEOPLE[[s.name for s in game.seats].index(
                state.players[action.player].name)], game_id, version_of(game), lambda s, p, a=action: a)
            game = await storage.get_game(game_id)
        await service.herald.courier.flush(1)
        final = render(channel.posts[-1].text, PLAIN)
        assert f"Game #{game_id} is over." in final
        assert "💡 Hints asked for: alice 2, bob 0." in final.split("\n")
    finally:
        await service.close()
        await storage.close()


# -- under the Discord stand-in: the panel by taps, then Hint --------------------------------------------


async def test_a_hint_by_the_panels_button_is_answered_in_place(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    bot.service.hints.iterations = ITERATIONS
    users = await open_table(sim, bot, "bob")
    game_id, state = await state_of(bot, sim)
    player = user_of(users, state, state.active)
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", public(sim)[-1], user=player))
    hint = next(c for c in panel.custom_ids() if c.startswith("tiempo:hint:"))
    assert hint == f"tiempo:hint:{game_id}:{hint.rsplit(':', 1)[1]}"
    shown = await answer(sim, sim.click(hint, panel, user=player))
    assert shown.id == panel.id and shown.ephemeral
    assert "💡 The AI's top level would" in shown.content and "Why: " in shown.content
    assert any(c.startswith("tiempo:ok:") for c in shown.custom_ids()), "the hint is ready to confirm"
    assert sim.errors == []


async def test_a_panels_hint_drawn_before_a_restart_is_still_answered(sim: DiscordSim, tmp_path: Path) -> None:
    """A turn panel outlives the bot's process (an update, a crash): after a restart each of its
    buttons, Hint among them, must still find its item (discord.py drops an unmatched click without a
    word, and the player reads "This interaction failed")."""
    db = tmp_path / "t.sqlite3"
    bot = await sim.connect(make_bot(sim, db))
    users = await open_table(sim, bot, "bob")
    game_id, state = await state_of(bot, sim)
    player = user_of(users, state, state.active)
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", public(sim)[-1], user=player))
    hint = next(c for c in panel.custom_ids() if c.startswith("tiempo:hint:"))
    await bot.close()
    bot = await sim.connect(make_bot(sim, db))
    bot.service.hints.iterations = ITERATIONS
    shown = await answer(sim, sim.click(hint, panel, user=player))
    assert shown.id == panel.id and "💡 The AI's top level would" in shown.content, shown.content
    assert sim.errors == []


# -- at the console ---------------------------------------------------------------------------------------


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
def test_hint_at_the_console_shows_the_panel_at_the_action_then_ok_plays_it(tmp_path: Path) -> None:
    from tests.support.console_play import run_console

    out = run_console(tmp_path, "play\nhint\nok\nquit\n", "--seats", "Ana,ai:greedy", "--seed", "3", "--no-pictures")
    assert "type a number to pick" in out.lower() and "`hint` for the AI's advice" in out
    assert "💡 The AI's top level would" in out and "Why: " in out
    assert "To play it, type `ok`" in out and "Done." in out


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
def test_the_ai_worker_process_works_out_the_same_analysis() -> None:
    """The bot's AI worker answers an ``analyse`` request with what ``bot.ai.analyse`` finds in this process."""
    from bot.ai import AIWorker
    from rules import new_game

    state = new_game(["ana", "ben", "cy"], seed=4)
    worker = AIWorker()
    try:
        got = worker.submit_analysis(state, state.active, seed=3, iterations=ITERATIONS).result(timeout=120)
    finally:
        worker.close()
    assert got == analyse(state, state.active, seed=3, iterations=ITERATIONS)
