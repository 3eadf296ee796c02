"""The imports of the project's source files, read with ``ast`` (tests/app/test_layout.py checks who may
import whom with them)."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


PACKAGES = ("rules", "render", "bot")


def sources(*folders: str) -> Iterator[Path]:
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(package: str, name: str) -> bool:
    """Whether ``from package import name`` imports a module (not a function or class of that name)."""
    if package.split(".")[0] not in PACKAGES:
        return False
    try:
        return isinstance(getattr(importlib.import_module(package), name, None), ModuleType)
    except ImportError:
        return False


@cache
def parsed(path: Path) -> ast.Module:
    """The file's syntax tree, read once a run (the layout tests read each file several times; none
    changes the tree)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imports_of(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every import in the file, relative ones made absolute."""
    tree = parsed(path)
    package = module_of(path) if path.name == "__init__.py" else module_of(path).rpartition(".")[0]
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
                if is_module(module, alias.name):
                    yield node.lineno, f"{module}.{alias.name}"
