"""The service on a fresh SQLite file, its posts sent nowhere, no pictures, seed 5: ``service`` for the
modules of this folder that need nothing else (a module may define its own)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import Tiempo
from bot.storage import Storage
from tests.support.service_play import Silent


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Tiempo]:
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 5)
    try:
        yield service
    finally:
        await service.close()
        await storage.close()
