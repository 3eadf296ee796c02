"""What players read: narration of events, the private hand, the public status, the ranking."""

from __future__ import annotations

import pytest

from bot.discord import markdown
from bot.texts import (
    RULES,
    cards_in_words,
    describe_draw,
    describe_hand,
    describe_income,
    describe_status,
    narrate,
    ranking,
)
from rules import Cards, apply, legal_actions, parse_action, parse_position
from tests.support.gameplay import random_game
from tests.support.scenario import play

T13 = """map: plain 15x12
Red: hand=C
M: Keep[Red]@A1 Watchtower[Green]@C1 Keep[White]@E1
F: Keep[Red]@A1 Keep[White]@E1
R: Keep-ruin@A1 Keep-ruin@E1
"""


def test_r60_r62_r72_a_junction_is_told_step_by_step_and_asks_the_owner() -> None:
    s, events = play(T13, "Red build Hamlet D1 on M pay C 1+0")
    text = " ".join(narrate(s, events))
    assert text == (
        "Red builds a Hamlet at D1 on Might with 1 Civil card. The Hamlet joins 2 domains on Might. "
        "Military power: 3 against 2. "
        "White must choose where the downsized Keep at E1 on Might goes as a Watchtower "
        "(cell: E1, F1, E2, F2)."
    )
    s, events = apply(s, parse_action("White choose F2", s))
    assert " ".join(narrate(s, events)) == (
        "White's Keep at E1 on Might is downsized to a Watchtower at F2. "
        "Its shadow on Faith goes too. Its shadow on Reason goes too."
    )


def test_r62_a22_a_tie_in_power_says_that_the_player_who_joined_the_domains_gives_way_first() -> None:
    # Red's Keep (with a Hamlet) and White's Keep, each in its own domain (power 2 each): Red's Hamlet joins them
    s, events = play("map: plain 15x12\nRed: hand=C\nM: Keep[Red]@A1 Hamlet@C1 Keep[White]@E1\n",
                     "Red build Hamlet D1 on M pay C 1+0")
    told = " ".join(narrate(s, events))
    assert ("Military power: 2 against 2 — a tie, and on a tie the player who joined the domains gives way first: "
            "Red's Keep at A1.") in told, told
    assert s.pending is not None and s.pending.decision.player == 0  # Red places their own Watchtower


def test_r62_a_tie_without_the_builder_among_it_is_told_as_before() -> None:
    # Green's Hamlet joins Red's and White's Keeps: a tie between two others, which Green chooses between
    s, events = play("map: plain 15x12\nplayers: Green Red White\nGreen: hand=C\n"
                     "M: Keep[Red]@A1 Hamlet@C1 Keep[White]@E1\n", "Green build Hamlet D1 on M pay C 1+0")
    told = " ".join(narrate(s, events))
    assert "Military power: 2 against 2 — a tie. Green must choose which Military building" in told, told
    assert "gives way" not in told, told


def test_r53_paradox_bonus_and_ripples_in_two_sentences() -> None:
    s, events = play("map: plain 15x12\nRed: hand=MM\nF: Monastery[Green]@C3\nR: Monastery-ruin@C3\n",
                     "Red build Keep B2 on M")
    assert narrate(s, events) == [
        "Red builds a Keep at B2 on Might with 2 Military cards (+1 Ecu bonus).",
        "Paradox on Faith: the ripple arriving there removes Green's Monastery at C3.",
        "Its shadow on Reason goes too.",
        "The Keep at B2 ripples to Faith, and to Reason as a ruin.",  # named: the line before is another building's
    ]


def test_r53_a_paradox_in_the_same_place_tells_the_old_building_from_the_new_and_whose_cubes_went() -> None:
    s, events = play("map: plain 15x12\nplayers: Red White\nRed: hand=CC\nF: Town@B2\nR: Town@B2{Red:1,White:2}\n",
                     "Red build Town B2 on M")
    assert narrate(s, events) == [
        "Red builds a Town at B2 on Might with 2 Civil cards (+1 Ecu bonus).",
        "Paradox on Faith: the ripple arriving there removes the old Town at B2.",
        "Its shadow on Reason goes too, with Red's cube and White's 2 cubes.",
        "The new Town at B2 ripples to Faith and to Reason.",
    ]


def test_r21_income_and_the_next_turn_are_announced() -> None:
    s, events = play("map: plain 15x12\nround: 4\nRed: hand=M\nM: Keep[Red]@A1 City@C1\n", "Red end")
    assert narrate(s, events) == [
        "Red ends the turn.", "Red collects 3 Ecus on Might: 3 from the domain of the Keep at A1.",
        "Round 4 (an income round): White to play."
    ]


def test_r73_r76_income_says_where_it_comes_from_and_why_a_board_pays_nothing() -> None:
    pos = ("map: plain 15x12\nround: 4\nRed: hand=M pawns=M,R\nM: Keep[Red]@A1 City@C1 Castle[Red]@H1 Town@K1\n"
           "R: Town@E5{Red:1} Keep-ruin@K9\n")
    s, events = play(pos, "Red end")
    told = narrate(s, events)
    assert ("Red collects 5 Ecus on Might: 3 from the domain of the Keep at A1; 2 from the domain of the Castle at H1."
            in told)
    nothing = "Red collects nothing on Reason: no domain where they have the most cubes"
    assert any(line.startswith(nothing) for line in told)
    before, _ = play(pos)
    total, boards = describe_income(before, 0, you=True)
    assert total == 5 and boards[1] == "Faith: nothing — no pawn there"
    assert boards[2].startswith("Reason: nothing — no domain where you have the most cubes")


def test_r24_the_hand_message_shows_only_its_owners_cards_and_the_status_none() -> None:
    s, _ = play("map: plain 15x12\nRed: hand=MMRC\nWhite: hand=CCCC\n")
    mine = markdown(describe_hand(s, 0))
    assert "`MMRC`" in mine and "CCCC" not in mine and "Your turn" in mine
    assert "It is Red's turn" in markdown(describe_hand(s, 1)) and "`CCCC`" in markdown(describe_hand(s, 1))
    status = markdown(describe_status(s))
    assert "MMRC" not in status and "CCCC" not in status and "4 cards" in status


@pytest.mark.slow
def test_narration_covers_every_event_of_random_games_without_a_blank() -> None:
    for step in random_game(8, 4, True):
        for line in narrate(step.after, step.events):
            assert line and line[0].isupper() and line.endswith((".", ")"))
        if step.after.finished:
            assert any(line.startswith("Game over:") for line in narrate(step.after, step.events))
            assert ranking(step.after)[0][0] == 1


def test_a36_ranking_shares_places_on_ties() -> None:
    s, _ = play("map: plain 15x12\nRed: ecus=9\nWhite: ecus=12\nGreen: ecus=12\nBlue: ecus=3\n")
    assert ranking(s) == [(1, 1, 12), (1, 2, 12), (3, 0, 9), (4, 3, 3)]


def test_the_hand_lists_what_the_player_can_do() -> None:
    s, _ = play("map: plain 15x12\nRed: ecus=4 hand=MMRC\n")
    text = markdown(describe_hand(s, 0))
    assert "exchange cards" in text and "build" in text and "end your turn" in text
    assert len(legal_actions(s)) > 0
    assert set(RULES) >= {"turn", "cards", "terrain", "building", "domains", "ripples", "junctions", "reason",
                          "income"}


def test_a_destroyed_building_keeps_its_capitals() -> None:
    from rules import Age
    from rules.events import Destroyed

    s, _ = play(T13)
    keep = next(b for b in s.boards[Age.MIGHT].buildings.values() if b.kind.value == "Keep" and b.owner == 1)
    assert narrate(s, [Destroyed(Age.MIGHT, keep)]) == ["White's Keep at E1 on Might is destroyed."]


def test_the_hand_says_what_can_be_built_and_where_upgrades_and_populations_go() -> None:
    s, _ = play("map: plain 15x12\nRed: ecus=4 hand=MMCC pawns=M,R\nM: Watchtower[Red]@A1\n"
                "R: Hamlet@D2 Town@F5\n")
    text = markdown(describe_hand(s, 0))
    # what legal_actions allows, grouped: kinds per board, upgrade targets, populate targets
    assert "build a Watchtower (1×1), Keep (2×2), Hamlet (1×1) or Town (2×2) on Might" in text, text
    assert "upgrade A1 on Might" in text and "populate D2 or F5" in text, text
    assert "renovate" not in text  # no ruin on Reason


def test_the_status_counts_one_cube_and_one_card_in_the_singular() -> None:
    s, _ = play("map: plain 15x12\nRed: hand=M cubes=1\n")
    status = markdown(describe_status(s))
    assert "1 cube, 1 card," in status and "1 cubes" not in status and "1 cards" not in status


def test_building_sizes_are_named_in_the_hand_and_the_rules() -> None:
    s, _ = play("map: plain 15x12\nRed: hand=MMCC pawns=M,M\n")
    hand = markdown(describe_hand(s, 0))
    assert "Watchtower (1×1)" in hand and "Keep (2×2)" in hand
    rules = markdown(RULES["building"])
    assert "Keep, Monastery and Town 2×2" in rules and "Castle, Abbey and City 3×3" in rules


def test_a_ripple_right_after_its_building_says_it_and_an_exchange_says_what_it_cost() -> None:
    s, events = play("map: plain 15x12\nRed: hand=MM\n", "Red build Keep B2 on M")
    # (R45: a ruin on Reason only; the comma keeps "as a ruin" from reading as both boards')
    assert narrate(s, events)[-1] == "It ripples to Faith, and to Reason as a ruin."
    s, events = play("map: plain 15x12\nRed: hand=CC\n", "Red build Town B2 on M")
    assert narrate(s, events)[-1] == "It ripples to Faith and to Reason."
    s, events = play("map: plain 15x12\nRed: hand=MRCC ecus=4\n", "Red exchange C")
    assert narrate(s, events)[0] == "Red pays 2 Ecus to exchange 1 card."


def test_after_the_game_the_hand_reply_gives_the_result_not_a_fresh_hand() -> None:
    s, _ = play("map: plain 15x12\nRed: hand=MMRC ecus=12\nWhite: ecus=20\nfinished: White\n")
    text = markdown(describe_hand(s, 0))
    assert text == "**The game is over.** You finished with 12 Ecus, 2nd of 4."
    assert "MMRC" not in text


def test_r37_r38_a_build_says_what_it_was_paid_with_and_the_terrain_surcharge() -> None:
    s, events = play("map: plain 15x12\nplayers: Red White\nterrain: C4=f\nRed: hand=MMR pawns=M,M\n",
                     "Red build Keep C4 on M pay MMR 2+1")
    told = narrate(s, events)[0]
    assert told == ("Red builds a Keep at C4 on Might with 2 Military + 1 Religious cards, 1 of them for the forest at "
                    "C4 (+1 Ecu bonus).")


def test_r37_r38_with_four_players_the_surcharge_is_the_mountains_alone_and_says_so() -> None:
    """A Keep over a forest and a mountain: with four players the forest costs nothing (R37) and the
    mountain 1 (R38), so the extra card is the mountain's — in the narration and in the panel's price."""
    from bot.service.steps import _terrain_note
    from rules import surcharged_terrain

    pos = "map: plain 15x12\nterrain: C4=f D5=m\nRed: hand=MMR pawns=M,M\n"
    s, events = play(pos, "Red build Keep C4 on M pay MMR 2+1")
    told = narrate(s, events)[0]
    assert told == ("Red builds a Keep at C4 on Might with 2 Military + 1 Religious cards, 1 of them for the "
                    "mountain at D5 (+1 Ecu bonus)."), told
    before = parse_position(pos)
    cells = before.map.footprint(parse_position(pos).map.parse_cell("C4"), 2) or ()
    assert surcharged_terrain(before, cells) == ("mountain",) and _terrain_note(before, cells) == " + 1 for mountain"
    two = parse_position(pos.replace("map: plain 15x12\n", "map: plain 15x12\nplayers: Red White\n"))
    assert surcharged_terrain(two, cells) == ("forest", "mountain") and _terrain_note(two, cells) == (
        " + 3 for forest and mountain")
    five = parse_position(pos.replace("map: plain 15x12\n", "map: plain 15x12\nplayers: Red White Green Blue Yellow\n"))
    assert surcharged_terrain(five, cells) == () and _terrain_note(five, cells) == ""


def test_a_long_answer_goes_in_several_messages_never_cut() -> None:
    from bot.discord import MAX_TEXT, pages

    text = "\n".join(f"line {i}: " + "x" * 60 for i in range(120)) + "\n" + "y" * 4000
    parts = pages(text)
    assert len(parts) > 2 and all(len(p) <= MAX_TEXT for p in parts)
    # nothing left out: only the one line too long for a message is cut in two
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")
    assert "\n".join(parts[:-2]) == text[:len("\n".join(parts[:-2]))]
    assert pages("short") == ["short"]


def test_a_long_answer_starts_a_new_message_with_a_paragraph_that_fits_in_one_rather_than_cut_it() -> None:
    """A recap and a hand (two paragraphs): the hand, which fits in a message, is not cut so that its last
    lines arrive alone in a third; a paragraph too long for any message is cut at line breaks."""
    from bot.discord import pages

    recap = "\n".join(f"event {i}: " + "x" * 40 for i in range(30))  # about 1,500 characters
    hand = "\n".join(f"hand {i}: " + "y" * 40 for i in range(12))  # about 600
    assert pages(f"{recap}\n\n{hand}", 2000) == [recap, hand]
    assert pages(f"{hand}\n\n{hand}", 2000) == [f"{hand}\n\n{hand}"]
    long = "\n".join(f"line {i}: " + "z" * 60 for i in range(60))  # about 4,200: cut at line breaks
    parts = pages(f"{hand}\n\n{long}", 2000)
    assert all(len(p) <= 2000 for p in parts) and "\n".join(parts).replace("\n\n", "\n") == f"{hand}\n{long}"
    assert parts[0].startswith(f"{hand}\n\nline 0: ")
    assert pages("aaaa\n\n", 5) == ["aaaa"] and pages("", 5) == [""]  # (no empty message after a blank end)


def test_a_decision_told_again_later_names_the_building_that_was_downsized() -> None:
    """Told again after its answer (the log, a recap, an AI's whole turn), the question names the Keep
    that was downsized, though a Watchtower stands at E1 by then."""
    asked, events = play(T13, "Red build Hamlet D1 on M pay C 1+0")
    later, _ = apply(asked, parse_action("White choose E1", asked))
    assert "White must choose where the downsized Keep at E1 on Might goes as a Watchtower" in " ".join(
        narrate(later, events))


def test_the_status_names_the_boards_of_the_pawns_in_words() -> None:
    """A letter names a colour on the cards (R for Red): pawns are placed on boards named in full."""
    s, _ = play("map: plain 15x12\nRed: hand=M pawns=R,R\nWhite: pawns=M,F\n")
    status = markdown(describe_status(s))
    assert "both pawns on Reason" in status and "pawns on Might and Faith" in status
    assert not any(line.startswith(("R ", "W ")) for line in status.splitlines())  # no colour letter either
    assert "R/R" not in status and "M/F" not in status


def test_r20_the_player_is_told_what_an_exchange_or_the_end_of_a_turn_drew() -> None:
    """R20: an exchange and the end of a turn draw back to 4; the player reads what came, privately."""
    before, _ = play("map: plain 15x12\nRed: hand=MRCC ecus=4\n")
    after, _ = apply(before, parse_action("Red exchange CC", before))
    drawn = after.players[0].hand - Cards.parse("MR")
    assert describe_draw(before, after, parse_action("Red exchange CC", before)) == (
        f"You drew {cards_in_words(drawn)} ({drawn}).") and drawn.total == 2
    ended, _ = apply(before, parse_action("Red end", before))  # four cards kept: nothing to draw
    assert describe_draw(before, ended, parse_action("Red end", before)) == ""
    built, _ = play("map: plain 15x12\nRed: hand=MMCC pawns=M,M\n", "Red build Keep B2 on M pay MM")
    end = parse_action("Red end", built)
    refilled, _ = apply(built, end)
    drawn = refilled.players[0].hand - Cards.parse("CC")
    assert describe_draw(built, refilled, end) == f"You drew {cards_in_words(drawn)} ({drawn})." and drawn.total == 2
    start, _ = play("map: plain 15x12\nRed: hand=MMCC pawns=M,M\n")
    assert describe_draw(start, built, parse_action("Red build Keep B2 on M pay MM", start)) == ""  # no draw


def test_names_in_a_sentence_are_joined_with_and() -> None:
    from bot.words import PLAIN, Name, render, series

    said = [render(series(Name(n) for n in names), PLAIN) for names in (["ana"], ["ana", "ben"], ["ana", "ben", "cy"])]
    assert said == ["ana", "ana and ben", "ana, ben and cy"]


def test_r30_r32_a_demolition_and_a_renovation_say_what_they_were_paid_with() -> None:
    """As a construction says its cards, so do the card actions on a building that stands: R30's
    demolition and R32's renovation."""
    plain = "map: plain 15x12\n"
    said = []
    for position, action in (("Red: hand=R pawns=M,M\nM: Chapel[White]@B2\n", "Red demolish B2 on M pay R 1+0"),
                             ("Red: pawns=R,M hand=M\nR: Keep-ruin@B2\n", "Red renovate B2 pay M 1+0")):
        s = parse_position(plain + position)
        said += narrate(*apply(s, parse_action(action, s)))
    assert said == ["Red demolishes White's Chapel at B2 on Might with 1 Religious card (1 Ecu).",
                    "Red renovates the Keep at B2 on Reason with 1 Military card."]


def test_r62_the_answer_to_which_building_is_posted_with_its_owners_name_escaped() -> None:
    """"✅ Ana answered: A4: *B_n*'s Keep." — the label comes from a button (plain words); in the channel the
    owner's name is escaped like every other name."""
    import types

    from bot.service.moves import _answered
    from render.demo import demo_map
    from rules import Age, Choose, GameState, Kind, new_game
    from tests.support.positions import hamlet_of_first, put, settle

    s: GameState = new_game(["Ana", "*B_n*", "Cy"], seed=5, game_map=demo_map())
    put(s, Age.MIGHT, Kind.KEEP, "A4", owner=1)
    put(s, Age.MIGHT, Kind.HAMLET, "C4", owner=None)
    put(s, Age.MIGHT, Kind.KEEP, "E4", owner=2)
    settle(s)
    before, _ = apply(s, hamlet_of_first(s, "D4"))
    assert before.pending is not None and before.pending.decision.player == 0
    answer = Choose(0, next(c for c in before.pending.decision.options if str(c) == "A4"))
    (post,) = _answered(types.SimpleNamespace(id=1), before, answer)  # type: ignore[arg-type]
    shown = markdown(post.text)
    assert shown.endswith("answered: A4: \\*B\\_n\\*'s Keep."), shown


def test_r67_a22_a_tie_left_by_a_demolition_is_told_with_who_gives_way_first() -> None:
    """Red's demolition of the Hamlet at B2 splits the Keep's domain (R66) and leaves Red's and White's
    Watchtowers tied at the top of the other (R67): the channel hears why Red's goes, not only that it does."""
    pos = ("map: plain 15x12\nRed: hand=C\n"
           "M: Watchtower[Red]@A1 Hamlet@B1 Watchtower[White]@C1 Hamlet@B2 Keep[Green]@A3\n")
    s, events = play(pos, "Red demolish B2 on M pay C")
    told = narrate(s, events)
    tie = ("On Might, Red's Watchtower at A1 and White's Watchtower at C1 tie at the top of one domain, where the "
           "Rule of Hierarchy allows one: the player who caused it gives way first.")
    assert tie in told and told.index(tie) < told.index("Red's Watchtower at A1 on Might is destroyed."), told


def test_r67_a_tie_among_others_buildings_is_told_before_the_question() -> None:
    pos = ("map: plain 15x12\nactive: Blue\nBlue: hand=C\n"
           "M: Watchtower[Red]@A1 Hamlet@B1 Watchtower[White]@C1 Hamlet@B2 Keep[Green]@A3\n")
    s, events = play(pos, "Blue demolish B2 on M pay C")
    told = narrate(s, events)
    assert ("On Might, Red's Watchtower at A1 and White's Watchtower at C1 tie at the top of one domain, where the "
            "Rule of Hierarchy allows one: one of them is downsized.") in told, told
