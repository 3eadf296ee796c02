"""Shared fixtures: the simulated Discord for end-to-end bot tests (see tests/discord_sim.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.discord_sim import DiscordSim


@pytest.fixture
async def discord_sim() -> AsyncIterator[DiscordSim]:
    """Discord on 127.0.0.1 with discord.py pointed at it; afterwards, fails the test if anything tried
    to reach past loopback or called a route the simulator does not implement."""
    async with DiscordSim.running() as sim:
        yield sim
        assert sim.blocked == [], f"tried to leave loopback: {sim.blocked}"
        assert sim.unhandled == [], f"routes the simulator lacks: {[(r.method, r.path) for r in sim.unhandled]}"
