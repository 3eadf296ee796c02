"""Positions of the rulebook's worked examples (digest §9) that more than one test file plays: the
worked examples themselves (tests/rules/test_worked_examples.py) and the economy query's
(tests/rules/test_economy.py)."""

from __future__ import annotations

PLAIN = "map: plain 15x12\n"

T13 = PLAIN + """
    Red: hand=C
    M: Keep[Red]@A1 Watchtower[Green]@C1 Keep[White]@E1
    F: Keep[Red]@A1 Keep[White]@E1
    R: Keep-ruin@A1 Keep-ruin@E1
    """

T19 = PLAIN + """
    hamlets: F1 A9
    round: 4
    M: Keep[Red]@A1 City@C1 Town@A3 Hamlet@F2 Watchtower[Green]@G1 Watchtower[Red]@A8 Town@B8 Hamlet@D8
    """

T20 = PLAIN + """
    hamlets: A2
    round: 7
    players: Green Red White Blue
    Green: pawns=F,M
    Red: pawns=F,M
    F: Abbey[Green]@B2 Monastery[Red]@E2 Keep[Red]@G2 City@B5 Town@E4
    """

T21 = PLAIN + """
    round: 4
    players: White Red Green Blue
    White: pawns=R,R
    Red: pawns=R,R
    R: Keep-renov@B2 Town@D2{White:2,Red:1} Abbey-ruin@F2 Monastery-ruin@D4
    """
