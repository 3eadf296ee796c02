"""AI players for Tiempo: pure CPU code (no Discord, no storage, no asyncio) that imports only
``rules`` and the standard library.

    from bot.ai import LEVELS, make_player

    player = make_player("master")                    # LEVELS: random, greedy, strong, master (weakest first)
    action = player.choose(state, seat, seed=game_seed + state.turn)
    player.close()

- ``bot.ai.players``: the ``AIPlayer`` protocol and its classes (``RandomPlayer``, ``GreedyPlayer``,
  ``StrongPlayer``, ``MasterPlayer``), the list of levels (``LEVELS``, ``get_level``, ``make_player``) and
  ``Players``, one player per level for a process.
- ``bot.ai.worker``: ``AIWorker``, the bot's AI worker process, which keeps its ``Players``.
- ``bot.ai.helpers``: ``Helpers``, a strong player's helper processes for its play-outs.
- ``bot.ai.levels``: what each level does, as functions of the seat's view; ``bot.ai.evaluate``:
  the evaluation; ``bot.ai.common``: views, determinizations, the pruned moves.
- ``bot.ai.search``: the master level's search over whole-turn plans, and ``analyse`` (``Analysis``),
  what a hint or a review asks of it.

See docs/ai.md.
"""

from __future__ import annotations

from .common import resolve_pending
from .helpers import MAX_WORKERS, Helpers
from .levels import best_choice
from .players import (
    DEFAULT_LEVEL,
    LEVEL_NAMES,
    LEVELS,
    OFFERED,
    AIPlayer,
    GreedyPlayer,
    Level,
    MasterPlayer,
    Players,
    RandomPlayer,
    StrongPlayer,
    get_level,
    make_player,
)
from .search import Alternative, Analysis, analyse
from .worker import AIWorker, Chooser, WorkerDied

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "LEVEL_NAMES",
    "MAX_WORKERS",
    "OFFERED",
    "AIPlayer",
    "AIWorker",
    "Alternative",
    "Analysis",
    "Chooser",
    "GreedyPlayer",
    "Helpers",
    "Level",
    "MasterPlayer",
    "Players",
    "RandomPlayer",
    "StrongPlayer",
    "WorkerDied",
    "analyse",
    "best_choice",
    "get_level",
    "make_player",
    "resolve_pending",
]
