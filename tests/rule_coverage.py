"""Which tests cite which rules: the table in docs/rules.md is generated from the test names and
docstrings (``test_r51_...``, ``R51`` in a docstring, ``a15``, ``t10``).

    python -m tests.rule_coverage --write     # refresh the table in docs/rules.md
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules.md"
BEGIN = "<!-- rule-table:begin -->"
END = "<!-- rule-table:end -->"
TOKEN = re.compile(r"(?<![a-z0-9])([rat])(\d{1,2})(?![0-9])", re.IGNORECASE)
RANGES = {"R": 78, "A": 44, "T": 24}


def citations() -> dict[str, list[str]]:
    """Rule id (R51, A15, T10) -> the tests citing it, as ``file::name``."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
                text = node.name.replace("_", " ") + " " + (ast.get_docstring(node) or "")
                for letter, number in TOKEN.findall(text):
                    rid = f"{letter.upper()}{int(number)}"
                    if int(number) <= RANGES[letter.upper()]:
                        found[rid].add(f"{path.name}::{node.name}")
    return {k: sorted(v) for k, v in found.items()}


def table() -> str:
    cited = citations()
    lines = ["| rule | tests |", "|---|---|"]
    for letter in "RAT":
        for n in range(1, RANGES[letter] + 1):
            rid = f"{letter}{n}"
            tests = cited.get(rid, [])
            shown = ", ".join(f"`{t.split('::')[1]}`" for t in tests[:4])
            more = f" (+{len(tests) - 4} more)" if len(tests) > 4 else ""
            lines.append(f"| {rid} | {shown + more if tests else '**none**'} |")
    return "\n".join(lines)


def write() -> None:
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{BEGIN}\n{table()}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    if "--write" in sys.argv:
        write()
    else:
        print(table())
