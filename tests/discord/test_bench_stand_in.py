"""``bench/bot.py``'s stand-in process during a capacity trial: what it holds is set aside from the
garbage collector's full collections while the trial plays (``stand_in_frozen``), so that a pause of
the benchmark's Discord is not counted as the bot's; and undone after."""

from __future__ import annotations

import asyncio
import gc

from bench.bot import stand_in_frozen


async def test_what_the_stand_in_holds_is_frozen_at_the_start_and_then_every_period() -> None:
    gc.unfreeze()
    async with stand_in_frozen(every=0.05):
        at_start = gc.get_freeze_count()
        assert at_start > 0  # what the process held when the trial began
        kept = [[i] for i in range(5_000)]  # what the stand-in keeps as the trial plays (tracked lists)
        await asyncio.sleep(0.2)
        assert gc.get_freeze_count() >= at_start + len(kept)
    assert gc.get_freeze_count() == 0  # undone: the process collects as before
    assert kept[-1] == [4_999]


async def test_young_garbage_is_still_collected_while_frozen() -> None:
    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

    async with stand_in_frozen(every=10):
        before = gc.get_freeze_count()
        for _ in range(3):
            Node()
        assert gc.collect() >= 3
        assert gc.get_freeze_count() == before
