"""``render.warm_up`` (the bot draws throwaway cards at start-up, so that its first game does not wait
for the fonts and grounds) changes no card: the cards of a game's start and of a turn are the same
bytes in a process that warmed up first as in one that did not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CARDS = """
import hashlib, sys
import render
from rules import apply, legal_actions, new_game
if sys.argv[1] == "warm":
    render.warm_up()
    render.warm_up()  # (the second time does nothing)
s = new_game(["Ann", "Bob", "Cid"], seed=11)
out = [png for _, _, png in render.turn_cards(s, ())]
events = []
for _ in range(6):
    s, more = apply(s, legal_actions(s)[len(legal_actions(s)) // 3])
    events += more
out += [png for _, _, png in render.turn_cards(s, events)]
print(hashlib.sha256(b"".join(out)).hexdigest())
"""


def cards_drawn(how: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CARDS, how], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout.strip()


def test_the_cards_drawn_after_a_warm_up_are_those_drawn_without() -> None:
    cold, warm = cards_drawn("cold"), cards_drawn("warm")
    assert len(cold) == 64 and cold == warm
