"""Text that cannot be read (docs/notation.md) raises ``NotationError``, a ``ValueError`` whose message
shows good input; nothing is checked with ``assert``, so the checks hold under ``python -O`` too."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from rules import Age, Cards, Cell, Kind, NotationError, RuleError, parse_action, parse_position

PLAIN = "map: plain 15x12\n"


def test_notation_error_is_a_value_error_and_not_a_rule_error() -> None:
    assert issubclass(NotationError, ValueError)
    assert not issubclass(NotationError, RuleError) and not issubclass(RuleError, NotationError)


@pytest.mark.parametrize(
    ("parse", "text", "example"),
    [
        (Cell.parse, "4C", "e.g. C4"),
        (Cell.parse, "C0", "e.g. C4"),
        (Age.parse, "Now", "Might (M), Faith (F) or Reason (R)"),
        (Kind.parse, "Tower", "Watchtower, Keep, Castle"),
        (Cards.parse, "MXQ", "e.g. MMC"),
    ],
)
def test_parsers_of_single_words_raise_notation_error_showing_good_input(
    parse: Callable[[str], object], text: str, example: str
) -> None:
    with pytest.raises(NotationError) as info:
        parse(text)
    assert example in str(info.value) and repr(text) in str(info.value)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "the player is missing. Examples: Blue travel 1 R"),
        ("Red", "the action is missing. Examples:"),
        ("Purple end", "start with a colour, e.g. 'Red end'"),
        ("Red fly to R", "'fly' is not an action. Examples:"),
        ("Red travel 3 R", "name the pawn 1 or 2, e.g. 'Blue travel 1 R'"),
        ("Red build Tower B2 on M", "use one of Watchtower"),
        ("Red build Keep Z9 on M", "Z9 is not a cell: columns A–O, rows 1–12"),
        ("Red build Keep B2 on M pay MM 3+x", "unexpected '3+x'. Examples:"),
        ("Red end discard XYZ", "e.g. MMRC"),
        ("Red swap take C", "Write the swap as 'swap take CC give RR'."),
    ],
)
def test_parse_action_raises_notation_error_showing_good_input(text: str, words: str) -> None:
    state = parse_position(PLAIN)
    with pytest.raises(NotationError) as info:
        parse_action(text, state)
    assert words in str(info.value)


#: positions that cannot be read; the first four were once checked with ``assert``
BAD_POSITIONS = [
    ("Red: pawns=M\n", "'pawns=M': a player has two pawns; write e.g. 'Red: ecus=4 cubes=23 pawns=M,F"),
    ("Red: played=0\n", "'played=0': give the cards played through each of the two pawns; write e.g."),
    ("answers: B2\n", "answers: there is no question to answer; write 'resolving: ACTION' first"),
    ("Red: hand=C\nresolving: Red build Hamlet B2 on M\nanswers: B2\n", "answers: B2 answers no question"),
    ("R: Town@B2 PH@B2\n", "there is no printed Hamlet to show at B2 (the Town@B2 covers it); write PH@ only"),
    ("stock: Keep=x\n", "stock: 'Keep=x': 'x' is not a whole number; write e.g. 'stock: Keep=21"),
    ("seed: abc\n", "seed: 'abc' is not a whole number; write e.g. 'seed: 12345'"),
    ("round: third\n", "round: 'third' is not a whole number; write e.g. 'round: 3'"),
    ("turns: -1\n", "turns: '-1' is not a whole number; write e.g. 'turns: 12'"),
    ("first: Yellow\n", "first: 'Yellow' is not a player here; name one listed in 'players:', e.g. 'first: Red'"),
    ("active: Purple\n", "active: 'Purple' is not a player here"),
    ("finished: Red Purple\n", "finished: 'Purple' is not a player here"),
    ("Red: ecus=x\n", "'ecus=x'"),
    ("players: Red\n", "e.g. 'players: Red White Green'"),
    ("M: Keep@B2\n", "needs an owner, e.g. Keep[Red]@B2"),
    ("R: Town@B2{Purple:1}\n", "write Colour:count, e.g. {Red:1,White:2}"),
    ("M: Castle[Red]@O12\n", "does not fit on the board"),
    ("R: Keep[Red]@B2\n", "buildings on Reason have no owner"),
]


@pytest.mark.parametrize(("text", "words"), BAD_POSITIONS)
def test_parse_position_raises_notation_error_showing_good_input(text: str, words: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_position(PLAIN + text)
    assert words in str(info.value)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("map: nowhere\n", "map: no map named 'nowhere'; known maps: default; or write 'plain 15x12'"),
        ("map: plain 0x0\n", "map: a plain grid has 3–26 columns and 3–99 rows, e.g. 'plain 15x12', not 0x0"),
        ("map: plain big\n", "map: write 'default', a shipped map's name, or 'plain 15x12'"),
    ],
)
def test_parse_position_raises_notation_error_for_a_bad_map_line(text: str, words: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_position(text)
    assert words in str(info.value)


@pytest.mark.slow  # a process of its own
def test_parse_position_checks_hold_under_python_dash_o() -> None:
    """``python -O`` strips ``assert``: the four checks that used to be asserts still refuse."""
    script = (
        "from rules import NotationError, parse_position\n"
        f"for text in {[PLAIN + t for t, _ in BAD_POSITIONS[:5]]!r}:\n"
        "    try:\n"
        "        parse_position(text)\n"
        "    except NotationError:\n"
        "        continue\n"
        "    raise SystemExit('accepted: ' + text)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-O", "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stdout + out.stderr
