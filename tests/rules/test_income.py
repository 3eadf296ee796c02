"""§7 of the digest, income (R73–R78): presence, taxes on Might, tithes on Faith, Reason's majority,
aggregation and ties, with the rulings on them (A4, A34). Positions use the notation's defaults."""

from __future__ import annotations

from rules import Age
from rules.events import IncomePaid
from tests.support.scenario import play

PLAIN = "map: plain 15x12\n"


def test_r74_printed_hamlets_count_one_in_might_income() -> None:
    pos = PLAIN + "hamlets: B1 C2\nround: 4\nM: Watchtower[Red]@A1 Hamlet@A2 Town@A3\n"
    _s, events = play(pos, "Red end")
    assert [(e.age, e.amount) for e in events if isinstance(e, IncomePaid)] == [(Age.MIGHT, 1 + 1 + 2)]


def test_r74_r75_a_domain_without_the_controlling_family_pays_no_one() -> None:
    _, events = play(PLAIN + "round: 4\nRed: pawns=M,F\nM: Chapel[Red]@A1 City@B1\nF: Keep[Red]@A1 City@C1\n",
                     "Red end")
    assert [(e.age, e.amount) for e in events if isinstance(e, IncomePaid)] == [(Age.MIGHT, 0), (Age.FAITH, 0)]


def test_r75_faith_pays_the_top_religious_owner_the_civil_power() -> None:
    """R75: on Faith the top Religious building's owner collects; the Military owner does not."""
    pos = PLAIN + "round: 7\nplayers: Red White\nRed: pawns=F,F\nWhite: pawns=F,F\n"
    pos += "F: Keep[Red]@A1 Chapel[White]@C1 Town@D1\n"
    s, events = play(pos, "Red end\nWhite end")
    assert [(e.player, e.amount) for e in events if isinstance(e, IncomePaid)] == [(0, 0), (1, 2)]
    assert s.finished and s.winners == (1,)


def test_r76_a4_a34_reason_pays_the_majority_and_ruins_count_one_less() -> None:
    pos = PLAIN + "round: 4\nRed: pawns=R,R\nR: Town@A1{Red:1} Castle-ruin@C1 Keep-renov@A3\n"
    _, events = play(pos, "Red end")
    assert [e.amount for e in events if isinstance(e, IncomePaid)] == [4]


def test_r76_a4_a34_reason_ties_ruins_and_renovated_buildings() -> None:
    """R76/A4: a Castle ruin counts 2 and a renovated Keep 2; A34: Red and White tie with 2 cubes each and
    both collect 4, each on his own turn; Green, with none, gets nothing; a domain with no cubes pays no one."""
    pos = PLAIN + """
        round: 4
        players: Red White Green
        Red: pawns=R,R
        White: pawns=R,R
        Green: pawns=R,R
        R: Castle-ruin@A1 Town@D1{Red:2,White:2} Keep-renov@F1 Keep-ruin@A8 Town@C8
        """
    _s, events = play(pos, "Red end\nWhite end\nGreen end")
    assert [(e.player, e.amount) for e in events if isinstance(e, IncomePaid)] == [(0, 4), (1, 4), (2, 0)]


def test_r76_markers_are_not_population() -> None:
    pos = PLAIN + "round: 4\nRed: pawns=R,R\nR: Town@A1 Castle-ruin@C1+Red\n"
    _, events = play(pos, "Red end")
    assert [e.amount for e in events if isinstance(e, IncomePaid)] == [0]


def test_r77_r78_each_domain_pays_separately_and_tops_are_unique() -> None:
    pos = PLAIN + "round: 7\nRed: pawns=M,M\nM: Keep[Red]@A1 Town@C1 Watchtower[Red]@A8 Town@B8\n"
    _, events = play(pos, "Red end")
    assert [(e.amount, e.domains) for e in events if isinstance(e, IncomePaid)] == [(4, 2)]


def test_r77_r78_each_domain_pays_and_the_tops_are_unique() -> None:
    """R77: two Might domains headed by Red each pay; R78: no tie is ever found at the top."""
    pos = PLAIN + "round: 4\nM: Keep[Red]@A1 Town@C1 Watchtower[Red]@A5 Hamlet@B5 Watchtower[White]@H8\n"
    _s, events = play(pos, "Red end")
    assert [(e.amount, e.domains) for e in events if isinstance(e, IncomePaid)] == [(3, 2)]
