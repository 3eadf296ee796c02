"""Every rule R1–R78 and every worked example T1–T24 is cited by a test, and docs/rules.md shows
the current table."""

from __future__ import annotations

from .rule_coverage import BEGIN, DOC, END, RANGES, citations, table


def test_every_rule_and_worked_example_is_cited_by_a_test() -> None:
    cited = citations()
    missing = [f"{k}{n}" for k in "RT" for n in range(1, RANGES[k] + 1) if f"{k}{n}" not in cited]
    assert not missing, f"no test cites {', '.join(missing)}"


def test_docs_rules_table_is_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    current = text.partition(BEGIN)[2].partition(END)[0].strip()
    assert current == table(), "docs/rules.md is stale: run python -m tests.rule_coverage --write"
