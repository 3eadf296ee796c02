"""AI seats: while a game waits on an AI player, it thinks off the event loop and plays."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence

from rules import Action, GameState

from ..ai import AIWorker, Analysis, Players, WorkerDied, analyse
from ..play import Refusal
from ..storage import PLAYED_FOR_SEAT, DatabaseBusyError, DatabaseFaultError, GameBusyError, GameRecord, Status
from ..words import Command, say
from .clock import safe_action
from .courier import cancel_all
from .games import Games, is_ai
from .herald import Herald
from .messages import Post, encode_post
from .moves import Moves
from .warm import ai_level_of, played_by_ai

log = logging.getLogger("tiempo.service")

#: after a database fault (a full disk, PostgreSQL restarting), an AI seat tries again this many seconds later
FAULT_RETRY_S = 5.0
#: an AI's turn thought longer than this, in seconds, says so in its "is thinking…" post
SLOW_S = 2.0


class AISeats:
    """Plays the AI seats of every game, one background task per game.

    ``choose`` decides an AI seat's next action, called like ``bot.ai.Players.choose`` (by default the
    ``bot.ai`` players, one per level, kept from turn to turn, whose strong level's play-outs use
    ``processes`` processes at once); it runs in one worker process (``bot.ai.AIWorker``) with
    ``in_process``, else in a thread."""

    def __init__(self, games: Games, herald: Herald, moves: Moves, *, think_seconds: float = 2.0,
                 choose: Callable[..., Action] | None = None, in_process: bool = False, processes: int = 1) -> None:
        self.games = games
        self.herald = herald
        self.moves = moves
        self.think_seconds = think_seconds
        #: a turn thought longer than this (in seconds) says so in the channel
        self.slow_after = SLOW_S
        self.processes = processes
        self._choose = choose
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._closing = False
        #: AI seats think in one worker process, which keeps its players, so that a long search never
        #: slows the event loop; otherwise (or when the worker died) in a thread, with these players,
        #: which start no helper process in the bot's own process when it has a worker
        self._worker = AIWorker(workers=processes, choose=choose) if in_process else None
        self._players = Players(workers=1 if in_process else processes)

    def drive(self, game_id: int) -> None:
        """Let AI seats play while the game waits on one (in the background)."""
        if self._closing:
            return
        task = self._tasks.get(game_id)
        if task is not None and not task.done():
            return
        task = self._tasks[game_id] = asyncio.create_task(self._run(game_id), name=f"tiempo-ai-{game_id}")
        task.add_done_callback(lambda done: self._ended(game_id, done))

    def _ended(self, game_id: int, task: asyncio.Task[None]) -> None:
        """A game's AI task ended: forgotten (unless another took its place)."""
        if self._tasks.get(game_id) is task:
            del self._tasks[game_id]

    def stop(self, game_id: int) -> None:
        """Stop the game's AI seats (it was cancelled)."""
        task = self._tasks.pop(game_id, None)
        if task is not None:
            task.cancel()

    async def _run(self, game_id: int) -> None:
        storage = self.games.storage
        told = -1  # the turn whose "is thinking…" says it takes a while
        try:
            while not self._closing:
                game = await storage.get_game(game_id)
                if game.status is not Status.PLAYING:
                    return
                state = self.games.state_of(game)
                seat = game.seats[state.waiting_on]
                level = ai_level_of(game, state.waiting_on)  # an AI seat's, or the stand-in's for a person away
                if state.finished or level is None:
                    return
                action, told = await self._thinking(game, state, level, told)
                # an AI seat plays as itself; a person's seat kept warm is played for them (the review skips it)
                actor = seat.user_id if is_ai(seat) else PLAYED_FOR_SEAT
                try:  # unless the game moved on, or the AI no longer plays the seat
                    async with self.moves.open(game_id, version=game, ai=True) as opened:
                        await opened.play(action, actor, offered=True)
                except Refusal:  # the game moved on (or ended) while the AI thought: it looks again
                    continue
                except GameBusyError:  # someone else is moving in this game: look again in a moment
                    await asyncio.sleep(0.5)
                except DatabaseBusyError:  # another program holds the database: the AI plays in a moment
                    log.warning("game #%s: the database is busy; the AI seat tries again", game_id)
                    await asyncio.sleep(0.5)
        except asyncio.CancelledError:
            raise
        except DatabaseFaultError:  # logged by storage: the AI seat plays once the fault is over
            if not self._closing:
                asyncio.get_running_loop().call_later(FAULT_RETRY_S, self.drive, game_id)
        except Exception:
            log.exception("AI seat failed in game #%s", game_id)
            with contextlib.suppress(Exception):
                await self._tell_failed(await storage.get_game(game_id))

    async def _thinking(self, game: GameRecord, state: GameState, level: str, told: int) -> tuple[Action, int]:
        """The action of the AI (at ``level``) for the seat the game waits on (``think``), and the turn
        last told of; a turn that runs past ``slow_after`` seconds says so in its "is thinking…" post
        (once: ``told`` is the turn last told)."""
        seat = game.seats[state.waiting_on]
        task = asyncio.ensure_future(self.think(state, state.waiting_on, level, game.seed * 1000 + state.turn))
        try:
            done, _ = await asyncio.wait({task}, timeout=self.slow_after)
            if not done and told != state.turn and state.pending is None:
                told = state.turn
                try:  # a word in the channel: its failure (a busy database) never stops the AI
                    await self.herald.still_thinking(game, state.turn, seat.name, level)
                except Exception as err:
                    log.warning("game #%s: could not say that the AI thinks long (%s)", game.id, err)
            return await task, told
        finally:
            task.cancel()

    async def _tell_failed(self, game: GameRecord) -> None:
        """Tell the channel, through the outbox like every post, that the game's AI player stopped."""
        notice = Post(say("The AI player of game #{id} ran into a problem and stopped; its turn will end when the "
                          "turn limit runs out, or the opener can {cancel} the game.", id=game.id,
                          cancel=Command("cancel")))
        await self.games.storage.posts.add(game, [encode_post(notice)], self.games.clock())
        self.herald.courier.kick(game.channel_id)

    async def think(self, state: GameState, seat: int, level: str, seed: int) -> Action:
        """The AI's action, decided off the event loop (in the worker process, or a thread); if the AI
        fails, a safe legal action instead (the first option of its decision, or the end of its turn),
        so that a game never stalls on a broken AI."""
        choose = self._choose or self._players.choose
        try:
            if self._worker is not None:
                try:
                    return await asyncio.wrap_future(
                        self._worker.submit(state, seat, level, seed=seed, budget_s=self.think_seconds))
                except WorkerDied:
                    log.exception("the AI worker process died; starting a new one, and thinking in a thread now")
            return await asyncio.to_thread(choose, state, seat, level, seed=seed, budget_s=self.think_seconds)
        except Exception:
            log.exception("AI (%s) failed for seat %s; playing a safe action instead", level, seat)
            action = safe_action(state)
            if action is None:
                raise
            return action

    async def analyse(self, state: GameState, seat: int, *, seed: int, budget_s: float,
                      iterations: int | None = None, extra: Sequence[Sequence[Action]] = (),
                      deals: int = 0) -> Analysis:
        """What the master level would do for ``seat`` now, and why (``bot.ai.analyse``, from the seat's
        own view; ``extra``: plans to compare too, as a review's turn played, on ``deals`` common deals),
        worked out off the event loop: in the worker process, or a thread. Raises what the search raises."""
        if self._worker is not None:
            try:
                return await asyncio.wrap_future(self._worker.submit_analysis(
                    state, seat, seed=seed, budget_s=budget_s, iterations=iterations, extra=extra, deals=deals))
            except WorkerDied:
                log.exception("the AI worker process died while analysing; thinking in a thread now")
        return await asyncio.to_thread(analyse, state, seat, seed=seed, budget_s=budget_s, iterations=iterations,
                                       extra=extra, deals=deals)

    async def resume(self) -> None:
        """After a start-up: let every game waiting on an AI seat go on."""
        for game in await self.games.storage.list_games(Status.PLAYING):
            if not self.games.mine(game):  # another shard process drives it
                continue
            state = self.games.state_of(game)
            if played_by_ai(game, state.waiting_on):
                self.drive(game.id)

    async def close(self) -> None:
        """Stop the background work."""
        self._closing = True
        await cancel_all(self._tasks.values())
        if self._worker is not None:
            self._worker.close()
        self._players.close()

    async def idle(self) -> None:
        """Wait until no AI seat is thinking (for tests and the console)."""
        while True:
            tasks = [t for t in self._tasks.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)
