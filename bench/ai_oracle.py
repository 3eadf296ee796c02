"""``bench/ai.py`` with an oracle master: its search deals the true hidden cards instead of guessing.

    python bench/ai_oracle.py [--oracle hands|all] [bench/ai.py's options ...]
    python bench/ai_oracle.py --verify

An upper bound for a model of the cards rivals hold (issue 20): how often would master win if it
knew them? The same master, the same budget, the same play-outs; only the deals its search plays
on (``search.determinize``, which ``Search.deal`` calls for every deal) are the true hidden state of
the game being played:

* ``--oracle hands`` (the default): the other players' true hands; the draw pile is the rest of
  the unseen cards shuffled anew for each deal, the generator dealt anew, as an ordinary deal;
* ``--oracle all``: the true hands, the true draw pile in its true order, the true generator and
  the discard pile in its true order: every deal is the game's own future as far as the cards go.

Everything else stays as it is: the greedy players, master's decisions (answered as strong's are,
through ``levels.determinize``, not patched), the beam, the budget. This is a measuring device and
never a level: it needs the true state, which no player is given (``bot.ai`` only ever sees a
``View``). The true state reaches the patched deal through ``Players.choose``, which ``bench/ai.py``
calls with the game's state; a deal is only made from it when the view being searched is that
state's view for the seat to move (checked by fingerprint), so a search from any other view (none
happens in a benchmark) deals as usual.

Games must be played in this process (``--jobs 1``, the default): a game played in a process of its
own would not see the patch. The output begins with ``--verify``'s lines (``# ...``) and one that
names the oracle, and ends with how many deals master's searches made from the truth (all of them,
in a benchmark); ``bench/ai_pair.py`` reads the games in between as it reads ``bench/ai.py``'s.

``--verify`` plays a seeded three-player greedy game to a turn of seat 0 in round 3 and checks
that the oracle's deals hold the true hands (and, with ``all``, the true deck) while an ordinary
deal does not; it prints what it compared.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.ai import Players  # noqa: E402
from bot.ai.common import View, determinize, fingerprint, project  # noqa: E402
from bot.ai.levels import greedy_action  # noqa: E402
from rules import GameState, apply, new_game  # noqa: E402

#: the master level's search module (``bot.ai.search`` the name is a function of ``bot.ai``'s)
search = importlib.import_module("bot.ai.search")

#: the oracles: true hands only, or the whole hidden state
ORACLES = ("hands", "all")


@dataclass
class Truth:
    """The state the game is in as the seat to move is asked for its action."""

    state: GameState
    seat: int
    view_fingerprint: str


#: set by the patched ``Players.choose`` before every call, read by the patched deal
TRUTH: Truth | None = None
#: how many deals the patched ``search.determinize`` made, by kind (``oracle``, ``ordinary``)
DEALS: Counter[str] = Counter()


def oracle_deal(view: View, rng: random.Random, truth: GameState, oracle: str) -> GameState:
    """An ordinary deal (``common.determinize``) with the hidden parts replaced by ``truth``'s: the
    other hands, and with ``all`` the deck order, the generator and the discard pile's order; with
    ``hands`` the deck is the rest of the unseen cards shuffled by ``rng``."""
    assert oracle in ORACLES, oracle
    me = view.viewer
    s = determinize(view, rng)

    def reveal(dealt: GameState, true: GameState) -> None:
        for j, p in enumerate(dealt.players):
            if j != me:
                p.hand = true.players[j].hand
        if oracle == "all":
            dealt.deck = list(true.deck)
            dealt.rng = true.rng
            dealt.discard = list(true.discard)

    reveal(s, truth)
    if oracle == "hands":
        deck = list(truth.deck)
        rng.shuffle(deck)
        s.deck = deck
    if s.pending is not None:
        assert truth.pending is not None
        base = s.pending.base.clone()
        reveal(base, truth.pending.base)
        if oracle == "hands":
            base.deck = list(s.deck)
        s.pending = replace(s.pending, base=base)
    return s


def patched_determinize(oracle: str) -> Callable[[View, random.Random], GameState]:
    """``search.determinize`` for the oracle: ``oracle_deal`` when the view is the true state's view
    for the seat to move, an ordinary deal otherwise."""

    def deal(view: View, rng: random.Random) -> GameState:
        t = TRUTH
        if t is not None and view.viewer == t.seat and fingerprint(view.state) == t.view_fingerprint:
            DEALS["oracle"] += 1
            return oracle_deal(view, rng, t.state, oracle)
        DEALS["ordinary"] += 1
        return determinize(view, rng)

    return deal


def install(oracle: str) -> None:
    """Patch ``Players.choose`` to record the true state and ``search.determinize`` to deal it."""
    choose = Players.choose

    def recording(self: Players, state: GameState, seat: int, level: str, **kw: object) -> object:
        global TRUTH
        TRUTH = Truth(state, seat, fingerprint(project(state, seat).state))
        try:
            return choose(self, state, seat, level, **kw)  # type: ignore[arg-type]
        finally:
            TRUTH = None

    Players.choose = recording  # type: ignore[assignment,method-assign]
    search.determinize = patched_determinize(oracle)  # type: ignore[attr-defined]


def position(seed: int = 7, round_: int = 3) -> GameState:
    """A three-player greedy game on ``seed`` played to seat 0's first turn in ``round_``."""
    s = new_game(["a", "b", "c"], seed=seed)
    rng = random.Random(seed)
    while not (s.round >= round_ and s.active == 0 and s.waiting_on == 0 and not s.acted and not s.exchanged):
        who = s.waiting_on
        s, _ = apply(s, greedy_action(project(s, who), who, rng))
    return s


def verify(oracle: str, seed: int = 7) -> list[str]:
    """Check the patched deal on one position (see the module docstring); what was compared."""
    s = position(seed)
    view = project(s, 0)
    true_hands = [p.hand for p in s.players]
    plain = determinize(view, random.Random(1))
    known = oracle_deal(view, random.Random(1), s, oracle)
    lines = [f"round {s.round}, seat 0 to move; true hands {true_hands}, deck of {len(s.deck)}",
             f"ordinary deal: hands {[p.hand for p in plain.players]}",
             f"oracle ({oracle}) deal: hands {[p.hand for p in known.players]}"]
    assert [p.hand for p in known.players] == true_hands
    assert [p.hand for p in plain.players] != true_hands
    assert Counter(known.deck) == Counter(s.deck)
    if oracle == "all":
        assert (known.deck, known.rng, known.discard) == (s.deck, s.rng, s.discard)
    else:
        assert known.deck != s.deck or len(s.deck) < 2
    # and through the patch, as the search calls it: the truth is dealt only for its own view
    global TRUTH
    TRUTH = Truth(s, 0, fingerprint(view.state))
    try:
        dealt = patched_determinize(oracle)(view, random.Random(2))
        other = patched_determinize(oracle)(project(s, 1), random.Random(2))
    finally:
        TRUTH = None
    assert [p.hand for p in dealt.players] == true_hands
    assert [p.hand for p in other.players] != true_hands
    lines.append("patched search.determinize: the true hands for seat 0's view, an ordinary deal for seat 1's")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0], add_help=False)
    ap.add_argument("--oracle", choices=ORACLES, default="hands")
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--jobs", type=int, default=1)
    args, rest = ap.parse_known_args()
    if args.jobs != 1:
        ap.error("--jobs must be 1: games played in other processes would not see the oracle")
    if args.verify:
        for line in verify(args.oracle):
            print(line)
        return
    for line in verify(args.oracle):
        print(f"# {line}")
    DEALS.clear()
    print(f"ORACLE = {args.oracle!r}", flush=True)
    install(args.oracle)
    from bench import ai  # imported late: the patch is in place either way (it patches the classes)

    sys.argv = [str(ROOT / "bench" / "ai.py"), *rest]
    ai.main()
    print(f"deals made by master's search: {dict(DEALS)}")


if __name__ == "__main__":
    main()
