"""The shape of the code (docs/layout.md): who may import whom."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.support.imports import PACKAGES, ROOT, imports_of, module_of, parsed, sources

#: the modules of ``rules`` that other code may import: the package and its event types
RULES_PUBLIC = {"rules", "rules.events"}


def test_nothing_outside_rules_imports_its_private_modules() -> None:
    private = {f"rules.{p.stem}" for p in (ROOT / "rules").glob("*.py")} - RULES_PUBLIC - {"rules.__init__"}
    bad = [f"{path.relative_to(ROOT)}:{line} imports {module}"
           for path in sources("bot", "render", "tests", "bench") for line, module in imports_of(path)
           if any(module == p or module.startswith(p + ".") for p in private)]
    assert not bad, "\n".join(bad)


def test_rules_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"rules"}
    bad = [f"{path.relative_to(ROOT)}:{line} imports {module}"
           for path in sources("rules") for line, module in imports_of(path)
           if module.split(".")[0] not in allowed]
    assert not bad, "\n".join(bad)


def test_the_whole_interface_is_importable_from_rules() -> None:
    import rules

    for name in ("apply", "legal_actions", "RuleError", "NotationError", "view_for", "to_json", "from_json",
                 "parse_position", "format_position", "parse_action", "format_action"):
        assert name in rules.__all__, name
        assert getattr(rules, name) is not None
    assert all(hasattr(rules, name) for name in rules.__all__)


#: the one class allowed past the limit: the engine's resolution of one action, step by step (rules/engine.py)
LONG_CLASSES = {("rules/engine.py", "_Run")}
MAX_CLASS_LINES = 300


def test_no_class_is_longer_than_300_lines() -> None:
    long = []
    for path in sources(*PACKAGES):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ClassDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                where = (str(path.relative_to(ROOT)), node.name)
                if size > MAX_CLASS_LINES and where not in LONG_CLASSES:
                    long.append(f"{where[0]}: {node.name} has {size} lines")
    assert not long, "\n".join(long)


def _project_imports() -> dict[str, set[str]]:
    """Each module of rules, render and bot, with the project modules it imports (anywhere in it,
    functions included), leaving out its own packages (which Python loads before it anyway)."""
    modules: dict[str, tuple[Path, bool]] = {}
    for package in ("rules", "render", "bot"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            init = parts[-1] == "__init__"
            modules[".".join(parts[:-1] if init else parts)] = (path, init)
    graph: dict[str, set[str]] = {}
    for module, (path, init) in modules.items():
        package = module if init else module.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                source = ".".join([*base, node.module] if node.module else base)
                names = [source, *(f"{source}.{a.name}" for a in node.names)]
            else:
                continue
            deps |= {n for n in names if n in modules and n != module and not module.startswith(n + ".")}
        graph[module] = deps
    return graph


def test_no_project_modules_import_each_other() -> None:
    """No circle of imports between modules of rules, render and bot, directly or through others."""
    graph = _project_imports()
    assert "bot.ai.levels" in graph["bot.ai.players"] and "bot.ai.helpers" in graph["bot.ai.levels"]
    circles = []
    for start in graph:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            m = todo.pop()
            if m == start:
                circles.append(start)
                break
            if m not in seen:
                seen.add(m)
                todo.extend(graph[m])
    assert not circles, f"these modules import themselves through others: {sorted(circles)}"
    ai = {m for m in graph if m.startswith("bot.ai")}
    outside = {(m, d) for m in ai for d in graph[m] if d.startswith("bot") and not d.startswith("bot.ai")}
    assert not outside, f"bot.ai imports the rest of the bot: {sorted(outside)}"


MAX_FUNCTION_LINES = 80


def test_no_function_in_bot_is_longer_than_80_lines() -> None:
    """A function longer than a screen says that logic belongs elsewhere (docs/layout.md)."""
    long = []
    for path in sources("bot"):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.name} has {size} lines")
    assert not long, "\n".join(long)


#: what the Discord front end may import of the project: the service's public interface, the wording
#: layer, the settings and the event loop (and itself)
DISCORD_MAY_IMPORT = ("bot.service", "bot.words", "bot.config", "bot.loop", "bot.discord")


def test_the_discord_front_end_imports_only_the_service_the_words_and_the_settings() -> None:
    graph = _project_imports()
    bad = {(m, d) for m, deps in graph.items() if m.startswith("bot.discord") for d in deps
           if d not in DISCORD_MAY_IMPORT and not d.startswith("bot.discord.")}
    assert not bad, sorted(bad)
    private = {(m, d) for m, deps in graph.items() if m.startswith("bot.discord") for d in deps
               if d.startswith("bot.service.")}
    assert not private, f"the front end goes around bot.service's door: {sorted(private)}"


#: every arrow of docs/layout.md's map: a package, and the project packages it may import (besides itself)
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "rules": (),
    "render": ("rules",),
    "bot.ai": ("rules", "bot.config"),
    "bot.storage": (),
    "bot.words": ("rules",),
    "bot.texts": ("rules", "bot.words"),
    "bot.play": ("rules", "bot.storage", "bot.texts", "bot.words"),
    "bot.service": ("rules", "render", "bot.ai", "bot.storage", "bot.play", "bot.texts", "bot.words", "bot.config"),
    "bot.loop": (),
    "bot.discord": ("bot.service", "bot.words", "bot.config", "bot.loop"),
    "bot.console": ("bot.service", "bot.words", "bot.config", "bot.loop"),
}


def _package_of(module: str) -> str | None:
    return next((p for p in sorted(MAY_IMPORT, key=len, reverse=True) if module == p or module.startswith(p + ".")),
                None)


def test_every_package_imports_only_what_the_map_allows() -> None:
    """docs/layout.md's "Who may import whom", arrow by arrow: the engine imports nothing of the
    project, pictures only the engine, the service no front end, the front ends only the service's
    door, the words and the settings (and nothing imports a front end)."""
    graph = _project_imports()
    bad = []
    for module, deps in graph.items():
        home = _package_of(module)
        if home is None:
            continue
        for dep in deps:
            target = _package_of(dep)
            if target is not None and target != home and target not in MAY_IMPORT[home]:
                bad.append(f"{module} imports {dep}")
    assert not bad, "\n".join(sorted(bad))


def test_only_the_discord_front_end_imports_discord() -> None:
    """render, the service, storage, the words and the AI never import discord (docs/layout.md)."""
    bad = [f"{path.relative_to(ROOT)}:{line} imports {module}"
           for path in sources("rules", "render", "bot") if not module_of(path).startswith("bot.discord")
           for line, module in imports_of(path) if module.split(".")[0] == "discord"]
    assert not bad, "\n".join(bad)


#: each folder of tests/ and the package its tests are about (``app``: the bot's entry point, settings,
#: selfplay and the shape of the code; ``support``: helpers and stand-ins, no tests)
TEST_FOLDERS = {"rules": "rules", "render": "render", "ai": "bot/ai", "storage": "bot/storage",
                "service": "bot/service", "discord": "bot/discord", "console": "bot/console", "app": "bot",
                "support": None}


def test_the_test_folders_mirror_the_packages() -> None:
    tests = ROOT / "tests"
    loose = sorted(p.name for p in tests.iterdir() if p.is_file() and p.name not in ("__init__.py", "conftest.py"))
    assert loose == [], f"files at the top of tests/ (put each in the folder of the package it tests): {loose}"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    assert folders == set(TEST_FOLDERS), f"tests/ should hold {sorted(TEST_FOLDERS)}, not {sorted(folders)}"
    for folder, package in TEST_FOLDERS.items():
        assert (tests / folder / "__init__.py").exists(), f"tests/{folder}/ needs an __init__.py"
        assert package is None or (ROOT / package).is_dir(), f"tests/{folder}/ mirrors {package}/, which is gone"
    assert not list((tests / "support").glob("test_*.py")), "tests/support/ holds helpers, not tests"


def test_no_test_file_imports_another() -> None:
    """What several test files share is in tests/support/, not borrowed from one of them."""
    borrowed = [f"{path.relative_to(ROOT)}:{line} imports {module}"
                for path in sources("tests") if path.name.startswith("test_")
                for line, module in imports_of(path) if module.rpartition(".")[2].startswith("test_")]
    assert borrowed == [], "\n".join(borrowed)
