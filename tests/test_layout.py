"""The shape of the code (docs/layout.md): who may import whom."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rules", "render", "bot")
#: the modules of ``rules`` that other code may import: the package and its event types
RULES_PUBLIC = {"rules", "rules.events"}


def _sources(*folders: str) -> Iterator[Path]:
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(package: str, name: str) -> bool:
    """Whether ``from package import name`` imports a module (not a function or class of that name)."""
    if package.split(".")[0] not in PACKAGES:
        return False
    try:
        return isinstance(getattr(importlib.import_module(package), name, None), ModuleType)
    except ImportError:
        return False


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every import in the file, relative ones made absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_of(path) if path.name == "__init__.py" else _module_of(path).rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:  # ``from rules import events`` imports a module too
                if _is_module(module, alias.name):
                    yield node.lineno, f"{module}.{alias.name}"


def test_nothing_outside_rules_imports_its_private_modules() -> None:
    private = {f"rules.{p.stem}" for p in (ROOT / "rules").glob("*.py")} - RULES_PUBLIC - {"rules.__init__"}
    bad = [f"{path.relative_to(ROOT)}:{line} imports {module}"
           for path in _sources("bot", "render", "tests", "bench") for line, module in _imports(path)
           if any(module == p or module.startswith(p + ".") for p in private)]
    assert not bad, "\n".join(bad)


def test_rules_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"rules"}
    bad = [f"{path.relative_to(ROOT)}:{line} imports {module}"
           for path in _sources("rules") for line, module in _imports(path)
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
    for path in _sources(*PACKAGES):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                where = (str(path.relative_to(ROOT)), node.name)
                if size > MAX_CLASS_LINES and where not in LONG_CLASSES:
                    long.append(f"{where[0]}: {node.name} has {size} lines")
    assert not long, "\n".join(long)
