"""Which tests cite which rules: the table in docs/rules.md is generated from the test names and
docstrings (``test_r51_...``, ``R51`` in a docstring, ``a15``, ``t10``). Also the rule index of
docs/rules.md (one hand-written line per rule and ruling) and every rule or ruling id cited in the
code, so that a test can check each cited id is in the index.

    python -m tests.support.rule_coverage --write     # refresh the table in docs/rules.md
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules.md"
BEGIN = "<!-- rule-table:begin -->"
END = "<!-- rule-table:end -->"
TOKEN = re.compile(r"(?<![a-z0-9])([rat])(\d{1,2})(?![0-9])", re.IGNORECASE)
RANGES = {"R": 78, "A": 44, "T": 24}
INDEX = "## Rule index"
#: a line of the rule index: ``- **R51** what the rule is about``
INDEX_LINE = re.compile(r"^- \*\*([RA])(\d+)\*\* \S")
#: a rule or ruling cited in code, a message, a docstring or a comment: ``R51``, ``A15``, ``R70a``
#: (not inside a word, nor after ``@`` as in the notation's ``Keep[Red]@A1``)
CITED = re.compile(r"(?<![A-Za-z0-9@_#])([RA])(\d{1,3})(?![0-9])")
#: where ids are cited
CITING = ("rules", "bot", "render", "tests")


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


def index_ids() -> list[str]:
    """The ids of the rule index in docs/rules.md, one per index line, in the order written."""
    section = DOC.read_text(encoding="utf-8").partition(INDEX)[2].partition("\n## ")[0]
    return [f"{m.group(1)}{int(m.group(2))}" for line in section.splitlines() if (m := INDEX_LINE.match(line))]


def cited_ids() -> dict[str, list[str]]:
    """Rule and ruling ids (R51, A15) cited anywhere in rules/, bot/, render/ and tests/ -> where
    (``path:line``): in text (code, messages, docstrings, comments) and in test names (``test_r51_a15_...``).
    Row 0 is a cell (``A0`` in a test of bad cells), never a rule, so ``R0`` and ``A0`` are not ids."""
    found: dict[str, list[str]] = defaultdict(list)
    for folder in CITING:
        for path in sorted((ROOT / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # pictures and other binary files
            where = path.relative_to(ROOT)
            for m in CITED.finditer(text):
                if int(m.group(2)):
                    found[f"{m.group(1)}{int(m.group(2))}"].append(f"{where}:{text.count(chr(10), 0, m.start()) + 1}")
            if path.suffix == ".py" and path.name.startswith("test_"):
                for node in ast.walk(ast.parse(text)):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
                        for letter, number in TOKEN.findall(node.name.replace("_", " ")):
                            if letter.upper() in "RA" and int(number):
                                found[f"{letter.upper()}{int(number)}"].append(f"{where}:{node.lineno}")
    return dict(found)


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
