"""AI players for Tiempo: pure CPU code (no Discord, no storage, no asyncio) that imports only
``rules`` and the standard library.

    from bot.ai import LEVELS, make_player

    player = make_player("strong", workers=2)         # LEVELS: random, greedy, strong (weakest first)
    action = player.choose(state, seat, seed=game_seed + state.turn)
    player.close()

- ``bot.ai.players``: the ``AIPlayer`` protocol and its classes (``RandomPlayer``, ``GreedyPlayer``,
  ``StrongPlayer``), the list of levels (``LEVELS``, ``get_level``, ``make_player``) and
  ``Players``, one player per level for a process.
- ``bot.ai.worker``: ``AIWorker``, the bot's AI worker process, which keeps its ``Players``.
- ``bot.ai.helpers``: ``Helpers``, a strong player's helper processes for its play-outs.
- ``bot.ai.levels``: what each level does, as functions of the seat's view; ``bot.ai.evaluate``:
  the evaluation; ``bot.ai.common``: views, determinizations, the pruned moves.

See docs/ai.md.
"""

from __future__ import annotations

from .helpers import MAX_WORKERS, Helpers
from .players import (
    LEVEL_NAMES,
    LEVELS,
    AIPlayer,
    GreedyPlayer,
    Level,
    Players,
    RandomPlayer,
    StrongPlayer,
    get_level,
    make_player,
)
from .worker import AIWorker, Chooser, WorkerDied

__all__ = [
    "LEVELS",
    "LEVEL_NAMES",
    "MAX_WORKERS",
    "AIPlayer",
    "AIWorker",
    "Chooser",
    "GreedyPlayer",
    "Helpers",
    "Level",
    "Players",
    "RandomPlayer",
    "StrongPlayer",
    "WorkerDied",
    "get_level",
    "make_player",
]
