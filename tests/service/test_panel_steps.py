"""The turn panel's steps (bot/service/steps.py): every legal action is reachable by picking from lists of at
most 25 options, nothing illegal is offered, one-answer questions are never asked, and the preview
says what an action does and when it harms its own player."""

from __future__ import annotations

import dataclasses
import re
from itertools import islice
from typing import Any

import pytest

from bot.service import steps as panel
from bot.service.panels import Panels, _back_of, _header
from bot.service.steps import MAX_CHOICES, SEP, Step, _area_label, economy_words, path_to, step
from render import places_card, places_zoom
from render.demo import demo_map
from rules import (
    Action,
    Age,
    Cards,
    Choose,
    Construct,
    Demolish,
    GameState,
    Kind,
    Payment,
    Upgrade,
    action_economy,
    apply,
    economy_change,
    legal_actions,
    new_game,
    parse_action,
    parse_position,
)
from tests.support.gameplay import random_game
from tests.support.positions import hamlet_of_first, put, settle
from tests.support.scenario import play

KEY = re.compile(r"^[A-Za-z0-9+\-]{1,12}$")
MENU_KEY = re.compile(r"^[a-z]+(\.[A-Z]+|\.-)?$")
PLAIN = "map: plain 15x12\n"


def walk(state: GameState, seat: int, path: tuple[str, ...] = (), seen: list[Step] | None = None,
         legal: list[Action] | None = None) -> list[Action]:
    """Every action the panel leads to from ``path``, checking each step on the way."""
    legal = legal_actions(state) if legal is None else legal
    s = step(state, seat, path, legal=legal, with_preview=False)
    if seen is not None:
        seen.append(s)
    assert len(s.choices) <= MAX_CHOICES, (s.question, len(s.choices))
    for c in s.choices:
        assert (MENU_KEY if not path else KEY).match(c.key), c.key
        assert 0 < len(c.label) <= 100 and len(c.detail) <= 100
    if s.preview is not None:  # the suggested payment, and the other ways to pay
        others = [step(state, seat, (*s.next_base, c.key), legal=legal, with_preview=False).preview
                  for c in s.choices]
        return [s.preview.action, *(o.action for o in others if o is not None)]
    assert s.choices, f"a step with nothing to pick: {path}"
    assert len(s.choices) > 1 or not path, f"a question with one answer was asked: {s.question} {s.choices}"
    out: list[Action] = []
    for c in s.choices:
        out += walk(state, seat, (*s.path, *c.key.split(SEP)), seen, legal)
    return out


def positions(seeds: range, players: int = 3, every: int = 7) -> list[GameState]:
    out = []
    for seed in seeds:
        out += [st.before for st in islice(random_game(seed, players, seed % 2 == 0), 0, 160, every)]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_every_legal_action_is_reached_and_only_those(seed: int) -> None:
    for state in positions(range(seed, seed + 1), players=3 + seed % 3, every=11):
        seat = state.waiting_on
        reached = walk(state, seat)
        legal = [a for a in legal_actions(state) if a.player == seat]
        assert set(map(repr, reached)) == set(map(repr, legal))  # (ending the turn keeping every card: two ways)


def test_path_to_leads_to_each_legal_action() -> None:
    for state in positions(range(1), every=40):
        seat = state.waiting_on
        legal = legal_actions(state)
        for action in [a for a in legal if a.player == seat][::15]:
            path = panel.path_to(state, seat, action, legal=legal)
            last = step(state, seat, path, legal=legal, with_preview=False)
            assert last.preview is not None and last.preview.action == action, (action, path)


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
def test_a_step_shows_the_same_with_its_narrowed_listing_as_with_every_legal_action() -> None:
    """``listing`` (what the service passes ``step`` between taps) changes nothing a player sees: on
    the menu and on every step on the way to a sample of actions, the step is the one the whole
    listing gives (each step on the way compared once, however many of the actions pass through it)."""
    for state in positions(range(2), every=23):
        seat = state.waiting_on
        legal = legal_actions(state)
        assert step(state, seat) == step(state, seat, legal=legal)
        on_the_way: dict[tuple[str, ...], None] = {}
        for action in [a for a in legal if a.player == seat][::9]:
            path = panel.path_to(state, seat, action, legal=legal)
            on_the_way.update(dict.fromkeys(path[:n] for n in range(1, len(path) + 1)))
        assert len(on_the_way) > 1
        for prefix in on_the_way:
            narrowed = panel.listing(state, panel.listing_key(prefix))
            assert step(state, seat, prefix, legal=narrowed) == step(state, seat, prefix, legal=legal)


def test_a_listing_shared_by_the_taps_on_a_position_shows_what_a_fresh_one_shows() -> None:
    """``Listing`` remembers the keys each question gives the actions it was asked about, for the next
    tap on the same position: the steps it gives, visited deepest first and then shallowest first (its
    keys part worked out), are the ones a listing of its own gives each step."""
    compared = 0
    for state in positions(range(2), every=37):
        seat = state.waiting_on
        legal = legal_actions(state)
        prefixes: dict[tuple[str, ...], None] = {}
        for action in [a for a in legal if a.player == seat][::7]:
            path = panel.path_to(state, seat, action, legal=legal)
            prefixes.update(dict.fromkeys(path[:n] for n in range(1, len(path) + 1)))
        for order in (sorted(prefixes, key=len, reverse=True), sorted(prefixes, key=len)):
            shared: dict[tuple[str, ...], panel.Listing] = {}
            for prefix in order:
                key = panel.listing_key(prefix)
                if key not in shared:
                    shared[key] = panel.Listing(state, panel.listing(state, key))
                listed = shared[key]
                assert step(state, seat, prefix, legal=listed) == step(state, seat, prefix, legal=legal), prefix
                compared += 1
    assert compared > 100


def test_the_menu_lists_what_the_player_may_do_and_paths_fit_a_custom_id() -> None:
    state = positions(range(1), every=30)[1]
    seat = state.active
    menu = step(state, seat)
    keys = [c.key for c in menu.choices]
    assert any(k.startswith("build.") for k in keys) and "end" in keys
    for c in menu.choices:
        if c.key.startswith("build."):
            assert re.fullmatch(r"Build an? [A-Z][a-z]+ \([123]×[123]\)", c.label), c.label
    seen: list[Step] = []
    walk(state, seat, (), seen)
    longest = max(len(SEP.join(s.path)) for s in seen)
    widest = f"tiempo:pick:{2**31}:{10**6}-{'f' * 6}:"  # the longest custom id prefix: a version with its digest
    assert len(widest) + longest <= 100


def test_a_one_answer_question_is_answered_for_the_player_and_a_full_path_still_reads() -> None:
    state, _ = play("map: plain 15x12\nRed: hand=MMCC pawns=M,M\n")
    s = step(state, 0, ("build", "KEEP"))
    assert "Might" in s.chosen  # only Might: both pawns stand there, so the board is not asked
    assert s.path[:3] == ("build", "KEEP", "M")
    again = step(state, 0, s.path)  # the front end sends back the full path, board included
    assert again.path == s.path and again.question == s.question


def test_building_sizes_and_covered_cells_are_named() -> None:
    state, _ = play("map: plain 15x12\nRed: hand=MMMR pawns=M,M\n")
    kinds = step(state, 0, ("build",))
    assert any(c.label == "Keep (2×2)" for c in kinds.choices)
    assert any(c.label == "Build a Keep (2×2)" for c in step(state, 0).choices)
    places = step(state, 0, ("build", "KEEP"))
    # 15×12 board: far more than 25 places for a Keep, so an area is asked first
    assert "area" in places.question and all(c.key.startswith("a") for c in places.choices)
    area = next(c.key for c in places.choices if c.label.startswith("Columns A–E, rows 1–4"))
    cells = step(state, 0, (*places.path, area))
    c4 = next(c for c in cells.choices if c.key == "C4")
    assert c4.label == "C4–D5 · founds the Might domain of C4 (yours, worth nothing yet)"
    assert c4.detail == "2 Military cards; earns 1 Ecu"


def test_a_forest_surcharge_is_named_in_the_cost() -> None:
    state, _ = play("map: plain 15x12\nplayers: Red White\nterrain: C4=f\nRed: hand=MMMR pawns=M,M\n")
    s = step(state, 0, ("build", "WATCHTOWER", "a00"))
    c4 = next(c for c in s.choices if c.key == "C4")
    assert c4.detail == "1 Military card + 1 for forest"


def test_back_asks_the_last_question_again() -> None:
    state, _ = play("map: plain 15x12\nRed: hand=MMMR pawns=M,F\n")
    s = step(state, 0, ("build", "KEEP"))
    assert s.question.startswith("On which board?") and s.back == ()  # the menu, where the Keep was picked
    s2 = step(state, 0, (*s.path, "M"))
    assert s2.back == s.path


def test_back_from_an_area_list_goes_to_the_menu_the_building_was_picked_from() -> None:
    state, _ = play("map: plain 15x12\nRed: hand=MMMR pawns=M,M\n")
    areas = step(state, 0, ("build", "WATCHTOWER"))
    assert areas.question == "Where? First pick an area of the board." and areas.back == ()
    places = step(state, 0, (*areas.path, "a00"))
    assert places.back == areas.path  # and from a place list, the areas again


def test_a_one_cell_building_is_placed_without_talk_of_a_top_left_cell() -> None:
    state, _ = play("map: plain 15x12\nRed: hand=MMMR pawns=M,M\n")
    assert step(state, 0, ("build", "WATCHTOWER", "a00")).question == "Where?"
    assert step(state, 0, ("build", "KEEP", "a00")).question == "Where? (the top-left cell)"


def test_the_board_question_names_each_board_s_bonus_r28() -> None:
    state, _ = play("map: plain 15x12\nRed: hand=RRRM pawns=M,F\n")
    boards = step(state, 0, ("build", "MONASTERY"))
    assert boards.question == "On which board?"
    assert {c.label: c.detail for c in boards.choices} == {"Might": "earns 1 Ecu", "Faith": "earns 2 Ecus"}
    small = step(state, 0, ("build", "CHAPEL"))
    assert all(c.detail == "" for c in small.choices)  # a value-1 building earns nothing anywhere


def test_the_ways_to_pay_explain_the_pawns_allowance_r16() -> None:
    state, _ = play("map: plain 15x12\nRed: hand=MMMR pawns=M,M\n")
    s = step(state, 0, ("build", "WATCHTOWER", "a00", "C3"))
    assert s.preview is not None
    assert s.question == "Pay another way? Each pawn plays at most 2 cards a turn, on the board where it stands."
    assert s.chosen[-1] == "1 Military card, through pawn 1"  # suggested; the other offered with what it leaves
    assert [(c.label, c.detail) for c in s.choices] == [
        ("1 Military card, through pawn 2", "then pawn 1 may play 2 more cards, pawn 2 may play 1")]


def test_the_preview_warns_when_a_ripple_removes_the_players_own_building() -> None:
    state, _ = play("map: plain 15x12\nRed: hand=MMMR pawns=M,M\nF: Chapel[Red]@C4\n")
    action = next(a for a in legal_actions(state) if isinstance(a, Construct) and a.kind.value == "Keep"
                  and a.age is Age.MIGHT and str(a.origin) == "C4")
    p = panel.preview(state, action)
    assert any("removes your Chapel at C4 on Faith" in h for h in p.harms)
    assert any("Faith" in line for line in p.lines)


def test_a_stale_path_is_refused() -> None:
    state, _ = play("map: plain 15x12\nRed: hand=MMCC pawns=M,M\n")
    with pytest.raises(ValueError):
        step(state, 0, ("build", "ABBEY"))
    with pytest.raises(ValueError):
        step(state, 0, ("fly",))


async def test_a_panel_whose_picture_cannot_be_drawn_is_shown_without_it(monkeypatch: pytest.MonkeyPatch,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    from bot.service.panels import Panels

    state = new_game(["Ana", "Ben"], seed=3)
    build = next(a for a in legal_actions(state) if isinstance(a, Construct))
    current = step(state, state.active, path_to(state, state.active, build))
    assert Panels.pictures(1, state, state.active, current)  # a preview has its picture

    def broken(*args: object) -> tuple[()]:
        raise RuntimeError("the font cannot be read")

    monkeypatch.setattr(Panels, "pictures", staticmethod(broken))
    panels = Panels(games=None, moves=None)  # type: ignore[arg-type]
    assert await panels.pictures_or_none(1, state, state.active, current) == ()
    assert "could not draw the panel's pictures" in caplog.text


def test_a_payment_is_said_in_words() -> None:
    """What ``pay:`` suggestions show beside the notation: ``1+1`` is one card through each pawn."""
    assert panel.pay_words(Payment(Cards(2, 0, 0), (1, 1))) == "2 Military cards, 1 card through each pawn"
    assert panel.pay_words(Payment(Cards(2, 0, 1), (2, 1))) == (
        "2 Military + 1 Civil cards, 2 through pawn 1 and 1 through pawn 2")
    assert panel.pay_words(Payment(Cards(0, 1, 0), (0, 1))) == "1 Religious card, through pawn 2"
    assert panel.pay_words(Payment(Cards(0, 0, 2), (2, 0))) == "2 Civil cards, both through pawn 1"
    assert panel.pay_words(Payment(Cards(0, 0, 0), (0, 0))) == "no card"
    widest = panel.pay_words(Payment(Cards(1, 2, 1), (2, 2)))
    assert len(f"MRRC 2+2 — {widest}") <= 100  # a Discord choice's name


def test_a_question_the_game_waits_on_is_asked_in_words() -> None:
    """R62, R64, R67, R72: the panel asks the decision's own question (which domain goes first, which
    building is destroyed or downsized, where the smaller one goes), each answer naming its building
    and owner; there is no way back to a menu that would ask it again."""
    order = PLAIN + ("active: Blue\nBlue: hand=C\nM: Keep[Green]@E3 Hamlet@E5 Watchtower[White]@C5 Watchtower[Red]@D5 "
                     "Watchtower[Red]@E6 Watchtower[White]@E7\n")
    state, _ = play(order, "Blue demolish E5 on M pay C")
    s = step(state, 3, ("choose",))
    assert s.question.startswith("Which domain on Might is resolved first? Pick one of its tied buildings")
    assert [c.label for c in s.choices] == ["C5: White's Watchtower", "E6: Red's Watchtower"]
    assert _back_of(state, s) is None  # no Back button: the menu would only ask it again
    picked = step(state, 3, ("choose", "C5"))
    assert picked.preview is not None and _back_of(state, picked) == ("choose",)  # back to the question
    state, _ = play(order, "Blue demolish E5 on M pay C\nBlue choose E6")
    assert step(state, 3, ("choose",)).question.startswith(
        "Which of these Watchtowers on Might is destroyed? Downsizing a Watchtower removes it")
    keeps = PLAIN + "active: Green\nGreen: hand=CC\nM: Keep[Red]@A1 Keep[White]@E1 Keep[Blue]@C4\n"
    state, _ = play(keeps, "Green build Town C2 on M pay CC 1+1")
    assert step(state, 2, ("choose",)).question.startswith(
        "Which of these buildings on Might is downsized? It becomes smaller, or is destroyed")
    d17 = PLAIN + ("Red: hand=CCC\nF: Keep[White]@F1 Keep[Blue]@H1 Hamlet@E2 Hamlet@E3 Hamlet@E4 Castle[Green]@F3\n"
                   "F: Keep[Green]@C6 Watchtower[Green]@B6 Watchtower[Green]@C5 Watchtower[Green]@B7\n")
    state, _ = play(d17, "Red build City E5 on M pay CCC 2+1")
    assert step(state, 1, ("choose",)).question.startswith(
        "Where does your downsized Keep at F1 on Faith go as a Watchtower (1×1)? Pick its cell")


def test_r62_r73_each_answer_says_what_the_players_it_matters_to_would_collect_after_it() -> None:
    """R62, R73, R78: three tied Keeps joined by Green's Town; the Keep downsized first leaves two still
    tied, and Green's next answer decides which keeps the domain (worth 2): each answer names, for the
    players whose income differs between the answers, what they would collect, as a range over the
    answers still to come. A question whose answers change no one's income says nothing of it."""
    keeps = PLAIN + "active: Green\nGreen: hand=CC\nM: Keep[Red]@A1 Keep[White]@E1 Keep[Blue]@C4\n"
    state, _ = play(keeps, "Green build Town C2 on M pay CC 1+1")
    assert [(c.label, c.detail) for c in step(state, 2, ("choose",)).choices] == [
        ("A1: Red's Keep", "If income were counted after it: Red 0 · White 0–2 · Blue 0–2"),
        ("E1: White's Keep", "If income were counted after it: Red 0–2 · White 0 · Blue 0–2"),
        ("C4: Blue's Keep", "If income were counted after it: Red 0–2 · White 0–2 · Blue 0")]
    after, _ = play(keeps, "Green build Town C2 on M pay CC 1+1\nGreen choose A1")
    assert after.pending is not None and after.pending.decision.player == 2  # Green asked again
    assert [(c.label, c.detail) for c in step(after, 2, ("choose",)).choices] == [
        ("E1: White's Keep", "If income were counted after it: White 0 · Blue 2"),
        ("C4: Blue's Keep", "If income were counted after it: White 2 · Blue 0")]
    order = PLAIN + ("active: Blue\nBlue: hand=C\nM: Keep[Green]@E3 Hamlet@E5 Watchtower[White]@C5 "
                     "Watchtower[Red]@D5 Watchtower[Red]@E6 Watchtower[White]@E7\n")
    state, _ = play(order, "Blue demolish E5 on M pay C")
    assert [c.detail for c in step(state, 3, ("choose",)).choices] == ["", ""]  # the order changes no income


def test_the_header_names_cards_in_words_and_income_only_on_the_players_own_turn() -> None:
    """R73: in an income round the panel says what ending the turn now would collect — to the player
    whose turn it is (in full on the menu, in a few words once an action is being picked), not to
    the others; in every round it gives every player's income outlook in one line (issue 19); the
    hand is named in words (R is Religious, not Reason or Red)."""
    state, _ = play("map: plain 15x12\nround: 4\nRed: hand=MRRC pawns=M,M\nM: Keep[Red]@A1 City@C1\n")
    red = _header(state, 0).plain()
    assert "hand: 1 Military, 2 Religious, 1 Civil" in red and "hand MRRC" not in red
    assert ("Income round: if your turn ended now you would collect 3 Ecus: Might 3 · Faith 0 (no pawn) · "
            "Reason 0 (no pawn).") in red
    assert _header(state, 0, brief=True).plain().endswith("Income round: ending your turn now collects 3 Ecus.")
    assert "Income round" not in _header(state, 1).plain()
    assert "Income if counted now: you 0: " in _header(state, 1).plain() and "; Red 3 · " in _header(state, 1).plain()
    assert _header(state, 0).plain().endswith(" · Blue 0 — income round")
    later, _ = play("map: plain 15x12\nround: 5\nRed: hand=M\nM: Keep[Red]@A1 City@C1\n")
    assert "Income round" not in _header(later, 0).plain()
    head = _header(later, 0).plain()
    assert "\nIncome if counted now: you 3: Might 3 · Faith 0 (no pawn) · Reason 0 (no pawn); " in head
    assert head.endswith(" 0 — next income: round 7")
    away, _ = play("map: plain 15x12\nround: 5\nRed: hand=M pawns=F,F\nM: Keep[Red]@A1 City@C1\n")
    assert "you 0: Might 0 (3 with a pawn there) · Faith 0 · Reason 0 (no pawn); " in _header(away, 0).plain()


def test_a_place_that_harms_the_player_is_marked_in_the_list() -> None:
    """R53: the Keep's ripple to Faith would remove the player's own Chapel there: the place says so
    before it is picked (the preview then flags it too), and only that place is marked."""
    state, _ = play("map: plain 15x12\nRed: hand=MMMR pawns=M,M\nF: Chapel[Red]@C4\n")
    action = next(a for a in legal_actions(state) if isinstance(a, Construct) and a.kind.value == "Keep"
                  and a.age is Age.MIGHT and str(a.origin) == "C4")
    path = path_to(state, 0, action)
    places = next(s for s in (step(state, 0, path[:n]) for n in range(1, len(path)))
                  if any(c.key == "C4" for c in s.choices))
    (c4,) = [c for c in places.choices if c.key == "C4"]
    assert c4.harms and "Removes your Chapel at C4 on Faith" in c4.detail and len(c4.detail) <= 100
    harmless = [c for c in places.choices if c.key not in ("B3", "B4", "C3", "C4", "D3", "D4")]
    assert harmless and not any(c.harms for c in harmless)


def test_a_list_of_places_comes_with_its_board() -> None:
    """The places a list offers are shown on their board (the panel's picture), the building to put
    there named; a menu shows no board."""
    state, _ = play("map: plain 15x12\nRed: hand=MRRC pawns=F,F\nF: Chapel[Red]@C4 Chapel[Red]@H8\n")
    s = step(state, 0, ("build", "CHAPEL"))
    if s.places is not None and not s.places.cells:  # more than 25 places: an area first (the board unringed)
        s = step(state, 0, (*s.path, s.choices[0].key))
    assert s.places is not None and s.places.age is Age.FAITH and s.places.kind is Kind.CHAPEL
    assert [str(c) for c in s.places.cells] == [c.key for c in s.choices]
    closer, picture = Panels.pictures(1, state, 0, s)  # (one area of the board: also shown closer, first)
    assert picture.filename == "tiempo-1-places-faith.png" and picture.png.startswith(b"\x89PNG")
    assert closer.filename == "tiempo-1-places-faith-closer.png"
    assert closer.png == places_zoom(state, Age.FAITH, s.places.cells, Kind.CHAPEL, 0, heading="Where: Chapel")
    upgrade = step(state, 0, ("upgrade",))
    assert upgrade.places is not None and upgrade.places.kind is None  # buildings to pick: named as they stand
    assert step(state, 0, ()).places is None and Panels.pictures(1, state, 0, step(state, 0, ())) == ()


def test_a_building_to_upgrade_is_not_marked_for_a_harm_its_placement_decides() -> None:
    """R53: upgrading the Watchtower at C4 to a Keep harms the player only where the Keep's ripple
    covers their Chapel at D5 on Faith: the list of buildings marks none, the list of placements
    marks exactly those."""
    state, _ = play("map: plain 15x12\nRed: hand=MMMR pawns=M,M\nM: Watchtower[Red]@C4 Watchtower[Red]@K9\n"
                    "F: Chapel[Red]@D5\n")
    targets = step(state, 0, ("upgrade",))
    assert {c.key for c in targets.choices} >= {"C4", "K9"} and not any(c.harms for c in targets.choices)
    placements = step(state, 0, ("upgrade", "C4", "KEEP"))
    marked = {c.key for c in placements.choices if c.harms}
    assert marked == {"C4"} and len(placements.choices) == 4  # only the Keep on C4-D5 covers D5


def test_r60_a_building_that_joins_three_domains_names_them_as_a_sentence_does() -> None:
    """``joins C3, A4 and D4 into``, not ``C3 and A4 and D4``: in the panel's place and in a hint's why."""
    s = new_game(["Ana", "Ben", "Cy"], seed=5, game_map=demo_map())
    put(s, Age.MIGHT, Kind.KEEP, "A4", owner=0)
    put(s, Age.MIGHT, Kind.WATCHTOWER, "D4", owner=1)
    put(s, Age.MIGHT, Kind.WATCHTOWER, "C3", owner=2)
    settle(s)
    hamlet = hamlet_of_first(s, "C4")
    said = panel.economy_words(s, hamlet, action_economy(s, hamlet))
    assert "joins C3, A4 and D4 into the Might domain of C3" in said, said


def test_r78_a_place_that_raises_a_question_shows_no_income_lost_while_its_board_waits_on_the_answer() -> None:
    """Ana's Hamlet at D4 joins two domains of hers, their Watchtowers tied: she must say which is
    downsized (R62), and until then Might pays nothing (R78). The place says what it joins, not
    "-3 Ecus at income": that is the question's pause, not what the Hamlet does."""
    s = new_game(["Ana", "Ben"], seed=5, game_map=demo_map())
    for kind, where in ((Kind.WATCHTOWER, "C4"), (Kind.HAMLET, "C5"), (Kind.WATCHTOWER, "E4"), (Kind.HAMLET, "E5")):
        put(s, Age.MIGHT, kind, where, owner=0)
    settle(s)
    hamlet = hamlet_of_first(s, "D4")
    change = action_economy(s, hamlet)
    assert change.pending and sum(change.delta(0)) < 0
    said = panel.economy_words(s, hamlet, change)
    assert said == "joins C4 and E4 into the Might domain of C4 (unsettled until a question is answered)", said


def test_r59_a_demolition_says_which_building_it_takes_out_of_which_domain() -> None:
    """A demolition's economy words name the building it takes out ("it leaves the domain" read as the
    player leaving): "takes the Hamlet at C5 out of the Might domain of C4"."""
    s = new_game(["Ana", "Ben"], seed=5, game_map=demo_map())
    for kind, where, owner in ((Kind.WATCHTOWER, "C4", 1), (Kind.HAMLET, "C5", None)):
        put(s, Age.MIGHT, kind, where, owner=owner)
    settle(s)
    demolish = next((a for a in legal_actions(s) if isinstance(a, Demolish) and a.age is Age.MIGHT
                     and str(a.target) == "C5"), None)
    assert demolish is not None
    said = panel.economy_words(s, demolish, action_economy(s, demolish))
    assert said.endswith("takes the Hamlet at C5 out of the Might domain of C4"), said
    # a building the domain is named after: "its" domain; alone, a domain of its own
    for position, words in (("M: Chapel[White]@B2 Hamlet@C2\n", "takes the Chapel at B2 out of its Might domain"),
                            ("M: Watchtower[White]@B2\n", "removes the Watchtower at B2, a Might domain of its own")):
        s = parse_position("map: plain 15x12\nRed: hand=RM\n" + position)
        a = parse_action(f"Red demolish B2 on M pay {'R' if 'Chapel' in position else 'M'}", s)
        assert panel.economy_words(s, a, action_economy(s, a)) == words


def test_r73_the_income_a_place_promises_is_what_its_player_would_collect_and_a_board_without_a_pawn_is_named() -> None:
    """"+N Ecus at income" counts the boards where the player has a pawn, as the panel's income line
    does (R73: only those pay); what a board without one would add is said with it: "+1 Ecu at income
    with a pawn on Faith", "+3 Ecus at income (+5 with a pawn on Faith)"."""
    from bot.texts import in_a_series

    seen = {"here": 0, "away only": 0, "both": 0}
    steps = [step_ for seed in (31, 32, 33) for step_ in random_game(seed, 3, holdem=False)]
    for s in (step_.before for step_ in steps if step_.before.pending is None):
        for a in islice((x for x in legal_actions(s) if isinstance(x, (Construct, Upgrade, Demolish))), 0, None, 4):
            change = action_economy(s, a)
            if change.pending:
                continue
            said = panel.economy_words(s, a, change)
            here, delta = change.total_delta(a.player), change.delta(a.player)
            present = change.after.outlooks[a.player].present
            away = [age.title for age, d, p in zip((Age.MIGHT, Age.FAITH, Age.REASON), delta, present, strict=True)
                    if d and not p]
            if not away:
                assert said.startswith(f"{here:+d} Ecu") if here else "at income" not in said, said
                seen["here"] += bool(here)
            elif here:
                assert said.startswith(f"{here:+d} Ecu") and f"with a pawn on {in_a_series(away)})" in said, said
                seen["both"] += 1
            else:
                assert said.startswith(f"{sum(delta):+d} Ecu") and f"at income with a pawn on {in_a_series(away)}" \
                    in said, said
                seen["away only"] += 1
    assert all(n > 0 for n in seen.values()), seen


def test_r73_what_a_move_costs_another_player_is_what_they_would_collect_and_a_board_without_a_pawn_is_named() -> None:
    """The 💥 line's "would pay N Ecus less at income (was → now)" is the players' income line's figure
    (boards with a pawn, R73); a loss only on boards without one says so instead of a figure that the
    income line never showed."""
    from bot.texts import describe_hit

    seen = {"collected": 0, "away only": 0}
    for seed in range(31, 43):
        for step_ in random_game(seed, 4, holdem=False):
            change = economy_change(step_.before, step_.after, step_.events)
            for seat in range(4):
                said = describe_hit(step_.after, change, seat)
                if not said or seat == step_.action.player:
                    continue
                if said.endswith(" — too late to cost you anything: you have collected your last income"):
                    s, n = step_.after, 4  # (round 7, their turn over: no income left to them, R21)
                    assert s.finished or (s.round == 7 and (seat - s.first) % n < (s.active - s.first) % n), said
                    continue
                was, now = change.before.outlooks[seat].total, change.after.outlooks[seat].total
                if now < was:
                    assert said.endswith(f" less at income ({was} → {now})"), said
                    seen["collected"] += 1
                elif sum(change.after.outlooks[seat].by_age) < sum(change.before.outlooks[seat].by_age):
                    assert re.search(r" — no loss at income now, as you have no pawn on [A-Za-z ]+; with "
                                     r"(one there|a pawn on each), \d+ Ecus? less$", said), said
                    seen["away only"] += 1
                else:
                    assert said.endswith(" — it costs you nothing at income"), said
    assert all(n > 0 for n in seen.values()), seen


def test_a_list_of_areas_comes_with_the_board_whose_edges_name_them() -> None:
    """Picking an area (more places than a list holds) is not done blind: the board as it stands comes
    with the list, each area boxed with how many places it holds, its columns and rows named on its
    edges, no place ringed yet; then the area's places are ringed."""
    import io

    from PIL import Image

    s = new_game(["Ana", "Ben", "Cy"], seed=5)
    areas = step(s, s.active, ("build", "WATCHTOWER", "M"))
    assert areas.question.endswith("First pick an area of the board.") and areas.places is not None
    assert areas.places.cells == () and areas.places.age is Age.MIGHT and areas.places.kind is Kind.WATCHTOWER
    (picture,) = Panels.pictures(1, s, s.active, areas)
    assert picture.description == "Might as it stands: each area boxed, with how many places it holds"
    assert Image.open(io.BytesIO(picture.png)).size == (1140, 680)
    boxes = {(str(first), str(last)): n for first, last, n in areas.places.areas}  # as the list names them
    assert [(f"Columns {a[0]}–{b[0]}, rows {a[1:]}–{b[1:]}", f"{n} places") for (a, b), n in boxes.items()] == \
        [(c.label, c.detail) for c in areas.choices]
    bare = places_card(s, Age.MIGHT, (), Kind.WATCHTOWER, s.active, heading="Where: Watchtower")
    assert picture.png != bare  # (the boxes and their counts drawn)
    inside = step(s, s.active, ("build", "WATCHTOWER", "M", areas.choices[0].key))
    assert inside.places is not None and len(inside.places.cells) == int(areas.choices[0].detail.split()[0])
    closer, ringed = Panels.pictures(1, s, s.active, inside)
    assert ringed.description == "Might: the places in the list are ringed and named" and ringed.png != picture.png
    assert closer.description == "Might: the places in the list, closer"


def test_an_area_one_row_high_or_one_column_wide_is_named_so() -> None:
    """A board's last areas may be one row high or one column wide (areas are 5 columns by 4 rows):
    "Columns A–E, row 9", not "rows 9–9"."""
    s = parse_position("map: plain 11x9\n")
    assert [_area_label(s, key) for key in ("a00", "a02", "a20", "a22")] == [
        "Columns A–E, rows 1–4", "Columns A–E, row 9", "Column K, rows 1–4", "Column K, row 9"]


def test_a_question_to_an_ai_player_shows_no_buttons_and_says_it_is_choosing() -> None:
    """The channel's post of a question an AI player answers has no answer buttons (no one at the table
    may press them) and pings no one; a person's has them, and a Play button."""
    from bot.service.herald import Herald
    from bot.storage import GameRecord, SeatRecord, Status
    from bot.words import PLAIN, render
    from rules import apply

    s = new_game(["Magpie", "Ben"], seed=5, game_map=demo_map())
    for kind, where in ((Kind.WATCHTOWER, "C4"), (Kind.HAMLET, "C5"), (Kind.WATCHTOWER, "E4"), (Kind.HAMLET, "E5")):
        put(s, Age.MIGHT, kind, where, owner=0)
    settle(s)
    asked, _ = apply(s, hamlet_of_first(s, "D4"))
    assert asked.pending is not None and asked.pending.decision.player == 0
    seats = (SeatRecord(0, "Magpie", "Red", ai_level="greedy"), SeatRecord(2, "Ben", "White"))
    game = GameRecord(1, 1, 1, 1, Status.PLAYING, {}, seats, 5, 0.0, 0.0, None, 3, None, False)
    post = Herald.decision_post(None, game, asked, [])  # type: ignore[arg-type]  # (it reads nothing of its own)
    said = render(post.text, PLAIN)
    assert said == ("Magpie (AI) is about to choose which Military building on Might is downsized (C4, E4).")
    assert post.controls == () and post.mentions == ()
    person = dataclasses.replace(game, seats=(SeatRecord(1, "Magpie", "Red"), seats[1]))
    theirs = Herald.decision_post(None, person, asked, [])  # type: ignore[arg-type]
    assert theirs.controls and theirs.mentions == (1,) and "(AI)" not in render(theirs.text, PLAIN)


def test_the_lobby_says_how_many_players_its_seats_take() -> None:
    """A table of three seats starts with 2–3 players seated, not "2–5"; of two, with 2."""
    from bot.service.lobby import Lobby
    from bot.storage import GameRecord, SeatRecord, Status
    from bot.words import PLAIN, render

    seats = (SeatRecord(1, "Ana", "Red"),)
    for size, said in ((3, "once 2–3 players are seated."), (2, "once 2 players are seated."),
                       (5, "once 2–5 players are seated.")):
        game = GameRecord(1, 1, 1, 1, Status.LOBBY, {"seats": size}, seats, 5, 0.0, 0.0, None, 0, None, False)
        assert render(Lobby.describe(game), PLAIN).endswith(said)


def test_r64_an_answer_is_not_marked_for_what_every_answer_does() -> None:
    """White's Keep is downsized whatever White answers (R64: only where the Watchtower goes is asked):
    no answer is marked ⚠️ for it, in the preview or in the list. (Answers that cost differently, which
    Keep of two is downsized, stay marked: ``test_the_harms_of_every_action_read_as_when_every_board_was_counted``
    checks every answer of random games against the loss each causes.)"""
    t13 = ("map: plain 15x12\nRed: hand=C\nM: Keep[Red]@A1 Watchtower[Green]@C1 Keep[White]@E1\n"
           "F: Keep[Red]@A1 Keep[White]@E1\nR: Keep-ruin@A1 Keep-ruin@E1\n")
    asked, _ = play(t13, "Red build Hamlet D1 on M pay C 1+0")
    assert asked.pending is not None and asked.waiting_on == 1
    for answer in ("E1", "F2"):
        action = parse_action(f"White choose {answer}", asked)
        after, events = apply(asked, action)
        assert panel.buildings_lost(1, events) == ["downsizes your Keep at E1 on Might to a Watchtower"]
        assert panel.harms(asked, after, 1, events) == []
        assert panel.preview(asked, action).harms == ()
    places = step(asked, 1, ("choose",))
    assert places.choices and not any(c.harms for c in places.choices)


def test_r47_r75_income_a_copy_brings_on_a_later_board_says_where() -> None:
    """A Town built on Might pays nothing there (no Military building of Red's beside it), but its copy
    on Faith (R47) joins Red's Chapel domain (R75): the gain says it lands on Faith. Income on the board
    acted on needs no such words."""
    s = parse_position("map: plain 15x12\nactive: Red\nRed: hand=CCC pawns=M,F\nF: Chapel[Red]@A1\n")
    a = parse_action("Red build Town B1 on M pay CC 2+0", s)
    assert economy_words(s, a, action_economy(s, a)) == "+2 Ecus at income on Faith: founds the Might domain of B1 " \
        "(no one's)"
    s = parse_position("map: plain 15x12\nactive: Red\nRed: hand=CCC pawns=M,F\nM: Watchtower[Red]@A1\n")
    a = parse_action("Red build Town B1 on M pay CC 2+0", s)
    assert economy_words(s, a, action_economy(s, a)) == "+2 Ecus at income: joins the Might domain of A1 (worth 2, " \
        "yours)"


def test_an_income_change_on_several_boards_is_given_board_by_board() -> None:
    """"+1 Ecu at income on Might and Faith" would read as +1 on each: where the change is on more than one
    board, each gets its figure."""
    from types import SimpleNamespace

    from bot.service.steps import income_change_words

    def change(delta: tuple[int, int, int]) -> Any:
        present = (True, True, True)
        return SimpleNamespace(delta=lambda player: delta,
                               after=SimpleNamespace(outlooks=[SimpleNamespace(present=present)]))

    assert income_change_words(change((2, -1, 0)), 0, Age.MIGHT) == "+1 Ecu at income (Might +2, Faith -1)"
    assert income_change_words(change((0, 3, 0)), 0, Age.MIGHT) == "+3 Ecus at income on Faith"
    assert income_change_words(change((3, 0, 0)), 0, Age.MIGHT) == "+3 Ecus at income"
    assert income_change_words(change((3, 0, 0)), 0) == "+3 Ecus at income"


def test_r62_the_preview_of_an_answer_that_only_asks_the_next_question_keeps_the_questions_picture() -> None:
    """Green's Hamlet ties Red's Keep and White's Keep (R62): Green chooses which is downsized, then its owner
    places it. The preview of Green's answer (a hint lands on it) changes no board yet, so it shows the
    question's picture, the choices ringed, rather than none."""
    s, _ = play("map: plain 15x12\nplayers: Green Red White\nGreen: hand=C\n"
                "M: Keep[Red]@A1 Hamlet@C1 Keep[White]@E1\n", "Green build Hamlet D1 on M pay C 1+0")
    assert s.pending is not None and s.pending.decision.player == 0
    answer = Choose(0, s.pending.decision.options[0])
    preview = step(s, 0, path_to(s, 0, answer))
    assert preview.preview is not None and preview.preview.after is not None
    assert preview.preview.after.pending is not None and preview.preview.after.pending.decision.player == 1
    (picture,) = Panels.pictures(1, s, 0, preview)
    assert picture.filename == "tiempo-1-question-might.png" and "choices are ringed" in picture.description
