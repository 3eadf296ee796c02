"""``bench/bot.py``'s baseline runs as its own dependencies would have it: the modules of the libraries
this checkout depends on and the baseline does not (uvloop, orjson) cannot be imported in its bot's
process (``blocked_modules``, ``bot_path``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench.bot import ROOT, Setup, blocked_modules, bot_path, requirement_names

BASELINE = """
[project]
name = "tiempo"
dependencies = [
    "discord.py>=2.4,<3",
    "Pillow>=10",
    "aiosqlite>=0.20",
    "zlib-ng>=1.0",
]
"""

OURS = """
[project]
name = "tiempo"
dependencies = [
    "discord.py>=2.4,<3",
    "Pillow>=10",
    "aiosqlite>=0.20",
    "zlib_ng>=1.1",
    "uvloop>=0.19; sys_platform != 'win32'",
    "orjson>=3.10",
    "aiohttp>=3.9",
]
"""

#: the top-level modules of each distribution, as installed
MODULES = {"discord-py": {"discord"}, "pillow": {"PIL"}, "aiosqlite": {"aiosqlite"}, "zlib-ng": {"zlib_ng"},
           "uvloop": {"uvloop"}, "orjson": {"orjson"}, "aiohttp": {"aiohttp"}}


def needed(names: set[str]) -> set[str]:
    """What ``names`` require, as installed: discord.py needs aiohttp."""
    return names | ({"aiohttp"} if "discord-py" in names else set())


def test_names_are_read_whatever_their_versions_markers_and_spelling() -> None:
    assert requirement_names(OURS) == {"discord-py", "pillow", "aiosqlite", "zlib-ng", "uvloop", "orjson", "aiohttp"}


def test_the_libraries_only_we_depend_on_are_blocked_for_the_baseline() -> None:
    # aiohttp is ours directly and the baseline's through discord.py: it stays
    assert blocked_modules(OURS, BASELINE, MODULES, needed) == ["orjson", "uvloop"]


def test_nothing_is_blocked_for_the_same_dependencies_or_for_what_is_not_installed() -> None:
    assert blocked_modules(OURS, OURS, MODULES, needed) == []
    assert blocked_modules(OURS, BASELINE, {k: v for k, v in MODULES.items() if k != "orjson"}, needed) == ["uvloop"]
    assert blocked_modules(BASELINE, OURS, MODULES, needed) == []  # a baseline with more: nothing of ours to block


def test_today_main_s_baseline_has_uvloop_blocked() -> None:
    main = subprocess.run(["git", "-C", str(ROOT), "show", "9daf859:pyproject.toml"], capture_output=True,
                          text=True, check=True).stdout
    assert "uvloop" in blocked_modules((ROOT / "pyproject.toml").read_text(), main)


def test_a_blocked_module_cannot_be_imported_and_the_bot_falls_back_to_asyncio_s_loop(tmp_path: Path) -> None:
    setup = Setup(1, 1, 0.3, str(tmp_path / "t.sqlite3"), code=str(ROOT), blocked=["uvloop"])
    script = (
        "import asyncio\n"
        "from bot.loop import run\n"
        "try:\n"
        "    import uvloop\n"
        "except ModuleNotFoundError as err:\n"
        "    print('blocked', err.name)\n"
        "async def main():\n"
        "    return type(asyncio.get_running_loop()).__module__\n"
        "print(run(main()))\n"
    )
    env = {**os.environ, "PYTHONPATH": bot_path(setup, str(tmp_path))}
    env.pop("TIEMPO_EVENT_LOOP", None)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False)
    assert done.stdout.split() == ["blocked", "uvloop", "asyncio.unix_events"], done.stderr
